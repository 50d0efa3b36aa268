import { deepEqual, equal, match, ok, rejects } from "node:assert/strict";
import { join } from "node:path";
import { BugboutError } from "../../lib/errors.ts";
import { BRIDGE_DIR, bwrapArgs, DEFAULT_HOME, planMounts } from "../../lib/sandbox/bwrap.ts";
import {
  openSandbox,
  platformKind,
  probeSandbox,
  UNCONFINED,
  UnconfinedSandbox,
} from "../../lib/sandbox/mod.ts";
import type { Confinement } from "../../lib/sandbox/types.ts";

const PATH = "/usr/bin:/bin";

async function tempDir(): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix: "bugbout-sandbox-" }));
}

function base(workdir: string, extra: Partial<Confinement> = {}): Confinement {
  return { workdir, network: "none", env: { PATH }, timeoutMs: 20_000, ...extra };
}

async function hostProcesses(marker: string): Promise<number> {
  let count = 0;
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const cmd = await Deno.readTextFile(`/proc/${entry.name}/cmdline`).catch(() => "");
    if (cmd.includes(marker)) count++;
  }
  return count;
}

Deno.test("probeSandbox starts a real bubblewrap sandbox and reports its version", async () => {
  const probe = await probeSandbox();
  equal(probe.kind, "bubblewrap");
  ok(probe.ok, probe.detail);
  match(probe.version ?? "", /^\d+\.\d+/);
  equal(probe.sizedTmpfs, true);
  ok(probe.executable?.endsWith("bwrap"));
});

Deno.test("probeSandbox says how to install bwrap when it is missing", async () => {
  const probe = await probeSandbox("bubblewrap", { bwrap: "/nonexistent/bwrap" });
  equal(probe.ok, false);
  match(probe.detail, /not installed/);
  match(probe.fix ?? "", /apt install bubblewrap/);
  match(probe.fix ?? "", /sandbox = "none"/);
});

Deno.test("openSandbox never falls back to no sandbox on its own", async () => {
  const auto = await openSandbox("auto");
  equal(auto.kind, platformKind());
  await rejects(
    openSandbox("bubblewrap", { bwrap: "/nonexistent/bwrap" }),
    (e: unknown) => {
      ok(e instanceof BugboutError);
      match(
        e.message,
        /Cannot start the bubblewrap sandbox: bwrap \(bubblewrap\) is not installed/,
      );
      match(e.hint ?? "", /apt install bubblewrap/);
      return true;
    },
  );
  await rejects(openSandbox("seatbelt"), /only on macOS/);
  const none = await openSandbox("none");
  equal(none.kind, "none");
  equal((none as UnconfinedSandbox).description, UNCONFINED);
  match(UNCONFINED, /unconfined/);
});

Deno.test("on Windows doctor's probe and run's openSandbox say there is no sandbox and point to WSL2", async () => {
  for (const setting of ["auto", "bubblewrap", "seatbelt"] as const) {
    const probe = await probeSandbox(setting, { os: "windows" });
    equal(probe.ok, false);
    equal(probe.kind, setting === "auto" ? "bubblewrap" : setting);
    match(probe.detail, /Windows has no sandbox that bugbout can use/);
    match(probe.fix ?? "", /WSL2 \(`wsl --install`\)/);
    await rejects(openSandbox(setting, { os: "windows" }), (e: unknown) => {
      ok(e instanceof BugboutError);
      match(e.message, /^Cannot start the \w+ sandbox: \w+ needs (Linux|macOS), and Windows has/);
      match(e.hint ?? "", /inside WSL2/);
      match(e.hint ?? "", /sandbox = "none"/);
      return true;
    });
  }
  // Asked for explicitly, no sandbox is still there.
  equal((await probeSandbox("none", { os: "windows" })).ok, true);
  equal((await openSandbox("none", { os: "windows" })).kind, "none");
});

Deno.test("platformKind maps Linux to bubblewrap, macOS to seatbelt and others to nothing", () => {
  equal(platformKind("linux"), "bubblewrap");
  equal(platformKind("darwin"), "seatbelt");
  equal(platformKind("windows"), undefined);
});

Deno.test("the bubblewrap sandbox fails closed on a missing path", async () => {
  const sandbox = await openSandbox("bubblewrap");
  const dir = await tempDir();
  try {
    const missing = join(dir, "missing");
    for (
      const c of [
        base(missing),
        base(dir, { readable: [missing] }),
        base(dir, { writable: [missing] }),
        base(dir, { network: { allow: ["127.0.0.1:1"] }, readable: [missing] }),
      ]
    ) {
      await rejects(sandbox.run(["true"], c), (e: unknown) => {
        ok(e instanceof BugboutError);
        match(
          e.message,
          new RegExp(`Cannot confine the command: the .* "${missing}" does not exist`),
        );
        return true;
      });
    }
    await rejects(sandbox.run(["true"], base(dir, { home: "relative/home" })), /not absolute/);
    // A denied path that does not exist has nothing to hide.
    const ran = await sandbox.run(["true"], base(dir, { deny: [missing] }));
    equal(ran.code, 0, ran.stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("planMounts covers a denied path inside an allowed one and re-opens the workdir", async () => {
  const dir = await tempDir();
  try {
    const opt = join(dir, "opt");
    const home = join(opt, "bugbout");
    const work = join(home, "checkouts", "run1");
    const outside = join(dir, "repo");
    await Deno.mkdir(work, { recursive: true });
    await Deno.mkdir(outside);
    const plan = await planMounts(base(work, { readable: [opt], deny: [home, outside, work] }));
    const tree = plan.mounts.filter((m) => "path" in m && m.path.startsWith(dir));
    deepEqual(tree.map((m) => m.op), ["ro", "hide", "rw"]);
    deepEqual(tree.map((m) => "path" in m ? m.path : ""), [opt, home, work]);
    const args = bwrapArgs(plan, ["true"]);
    const hideAt = args.indexOf(home);
    equal(args[hideAt - 1], "--tmpfs");
    equal(args.slice(-6).join(" "), `--remount-ro / --chdir ${work} -- true`);
    ok(args.indexOf("--remount-ro") > args.lastIndexOf("--bind"), "remounts come last");
    for (const flag of ["--unshare-net", "--unshare-pid", "--die-with-parent", "--new-session"]) {
      ok(args.includes(flag), flag);
    }
    equal(args[args.indexOf("--cap-drop") + 1], "ALL");
    ok(!args.includes("--setenv"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("planMounts binds HOME when it is writable and makes it a private tmpfs otherwise", async () => {
  const dir = await tempDir();
  try {
    const state = join(dir, "state");
    await Deno.mkdir(state);
    const bound = await planMounts(base(dir, { writable: [state], home: state }));
    equal(bound.home, state);
    ok(!bound.mounts.some((m) => m.op === "tmpfs" && m.path === state));
    const scratch = await planMounts(base(dir, { home: "/home/agent" }));
    ok(scratch.mounts.some((m) => m.op === "tmpfs" && m.path === "/home/agent"));
    const fallback = await planMounts(base(dir));
    equal(fallback.home, DEFAULT_HOME);
    const bridged = await planMounts(base(dir), { bridgeDir: state });
    ok(bridged.mounts.some((m) => m.op === "ro" && m.path === state && m.dest === BRIDGE_DIR));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the network bridge passes stdin, output and the exit code through", async () => {
  const sandbox = await openSandbox("bubblewrap");
  const dir = await tempDir();
  try {
    const agent = (extra: Partial<Confinement> = {}) =>
      base(dir, { network: { allow: ["api.example.invalid:443"] }, ...extra });
    const echo = await sandbox.run(
      ["sh", "-c", "cat; echo err >&2; exit 7"],
      agent({
        stdin: "from stdin",
      }),
    );
    equal(echo.code, 7);
    equal(echo.stdout, "from stdin");
    equal(echo.stderr, "err\n");
    const missing = await sandbox.run(["bugbout-no-such-program"], agent());
    equal(missing.code, 127);
    match(missing.stderr, /cannot start bugbout-no-such-program/);
    // No loopback target: no NO_PROXY, and the caller's DENO_DIR comes back unchanged.
    const env = await sandbox.run(
      ["sh", "-c", 'echo "${NO_PROXY-unset} $DENO_DIR"'],
      agent({
        env: { PATH, DENO_DIR: "/somewhere" },
      }),
    );
    equal(env.stdout, "unset /somewhere\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the unconfined sandbox kills the whole process group on timeout", async () => {
  const sandbox = new UnconfinedSandbox();
  const dir = await tempDir();
  const marker = `${2000 + Math.floor(Math.random() * 1000)}.${Date.now() % 100000}`;
  try {
    const r = await sandbox.run(
      ["sh", "-c", `sleep ${marker} & echo "$HOME $SECRET"; sleep 1000`],
      base(dir, { timeoutMs: 3000, home: dir }),
    );
    ok(r.timedOut);
    equal(r.stdout, `${dir} \n`);
    // The group is killed at once; give the kernel a moment to reap it on a busy machine.
    for (let i = 0; i < 50 && await hostProcesses(marker) > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    equal(await hostProcesses(marker), 0);
    const capped = await sandbox.run(
      ["python3", "-c", "bytearray(600 * 1024 * 1024)"],
      base(dir, { memoryMb: 256, env: { PATH: Deno.env.get("PATH") ?? PATH } }),
    );
    match(capped.stderr, /MemoryError/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a stop as bubblewrap is still starting leaves no process behind", async () => {
  const sandbox = await openSandbox("bubblewrap");
  const dir = await tempDir();
  try {
    // Stopped a few milliseconds later each time, so some stops land while bwrap is still
    // setting up, before it has bound its PID 1 to itself.
    for (let i = 0; i < 20; i++) {
      const marker = `${3000 + i}.${Date.now() % 100000}`;
      const stop = new AbortController();
      const running = sandbox.run(
        ["sh", "-c", `exec python3 -c 'import time; time.sleep(600)' ${marker}`],
        base(dir, { signal: stop.signal, timeoutMs: 600_000, env: { PATH } }),
      );
      await new Promise((r) => setTimeout(r, 2 * i));
      stop.abort();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const settled = await Promise.race([
        running.then((r) => r.aborted),
        new Promise<string>((r) => timer = setTimeout(() => r("still running"), 60_000)),
      ]);
      clearTimeout(timer);
      for (let n = 0; n < 50 && await hostProcesses(marker) > 0; n++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      equal(settled, true, `attempt ${i}`);
      equal(await hostProcesses(marker), 0, `attempt ${i} left processes`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
