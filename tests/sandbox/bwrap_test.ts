/**
 * The adversarial table of `design/sandbox.md`, run for real: every probe runs inside bubblewrap
 * exactly as bugbout launches it, under the test policy (no network) and the agent policy
 * (network through the allow-listing proxy to a listener this test starts on 127.0.0.1).
 */

import { deepEqual, equal, match, notEqual, ok } from "node:assert/strict";
import { join } from "node:path";
import { openSandbox } from "../../lib/sandbox/mod.ts";
import type { Confinement } from "../../lib/sandbox/types.ts";
import type { ProcResult } from "../../lib/proc.ts";
import { makeWorld } from "./_world.ts";

const sandbox = await openSandbox("bubblewrap");
const SECRET = `HOST-SECRET-${crypto.randomUUID()}`;
const MODEL_KEY = `MODEL-KEY-${crypto.randomUUID()}`;
const PATH = "/usr/bin:/bin";

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** Host processes whose command line contains `marker`. */
async function hostProcesses(marker: string): Promise<number> {
  let count = 0;
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const cmd = await Deno.readTextFile(`/proc/${entry.name}/cmdline`);
      if (cmd.includes(marker)) count++;
    } catch {
      // gone meanwhile
    }
  }
  return count;
}

async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return await check();
}

/** A host process listening on an abstract Unix socket (per network namespace in Linux). */
async function abstractListener(name: string) {
  const child = new Deno.Command("/usr/bin/python3", {
    args: [
      "-c",
      "import socket, sys, time\n" +
      "s = socket.socket(socket.AF_UNIX); s.bind('\\0' + sys.argv[1]); s.listen()\n" +
      "print('ready', flush=True); time.sleep(120)",
      name,
    ],
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.getReader();
  const first = await reader.read();
  equal(new TextDecoder().decode(first.value).trim(), "ready");
  return {
    async [Symbol.asyncDispose]() {
      child.kill("SIGKILL");
      await reader.cancel();
      await child.status;
    },
  };
}

const connectAbstract = (name: string) =>
  `/usr/bin/python3 -c "import socket; s = socket.socket(socket.AF_UNIX); ` +
  `s.connect('\\0${name}'); print('CONNECTED')"`;

Deno.test("bubblewrap passes every adversarial probe under the test and the agent policy", async (t) => {
  await using world = await makeWorld();
  Deno.env.set("BUGBOUT_SANDBOX_TEST_SECRET", SECRET);
  const seen: string[] = [];
  const allowed = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const path = new URL(req.url).pathname;
    const body = await req.text();
    seen.push(`${req.method} ${path} ${req.headers.get("connection")}`);
    return new Response(`HELLO ${path} ${body}`.trim());
  });
  const other = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("SHOULD-NOT-REACH"),
  );
  const hostSocket = Deno.listen({ transport: "unix", path: join(world.root, "host.sock") });
  const abstractName = `bugbout-test-${crypto.randomUUID()}`;
  await using _abstract = await abstractListener(abstractName);
  const hostCmdline = (await Deno.readTextFile("/proc/self/cmdline")).replaceAll("\0", " ").trim();
  const port = allowed.addr.port;
  const otherPort = other.addr.port;
  const outputs: string[] = [];

  try {
    // The abstract socket is reachable from the host, so the probe below can fail.
    const sanity = await new Deno.Command("sh", { args: ["-c", connectAbstract(abstractName)] })
      .output();
    match(new TextDecoder().decode(sanity.stdout), /CONNECTED/);

    for (const policy of ["test", "agent"] as const) {
      const agent = policy === "agent";
      const confinement = (extra: Partial<Confinement> = {}): Confinement => ({
        workdir: world.checkout,
        writable: [world.logs],
        readable: [world.opt],
        deny: [world.repo, world.home, world.results],
        env: { PATH, LC_ALL: "C", ...(agent ? { MODEL_API_KEY: MODEL_KEY } : {}) },
        network: agent ? { allow: [`127.0.0.1:${port}`] } : "none",
        timeoutMs: 20_000,
        ...extra,
      });
      const sh = async (script: string, extra: Partial<Confinement> = {}): Promise<ProcResult> => {
        const result = await sandbox.run(["/bin/sh", "-c", script], confinement(extra));
        outputs.push(result.stdout, result.stderr);
        return result;
      };
      const fails = async (script: string) => {
        const r = await sh(script);
        notEqual(r.code, 0, `${policy}: expected failure of ${script}\n${r.stdout}`);
        return r;
      };

      await t.step(
        `${policy}: the repository, its .git and the fixed file are unreadable`,
        async () => {
          await fails(`cat ${world.repo}/.git/HEAD`);
          await fails(`git -C ${world.repo} log -1`);
          await fails(`cat ${world.repo}/pkg/core.py`);
          await fails(`ls ${world.repo}`);
        },
      );

      await t.step(`${policy}: BUGBOUT_HOME shows only this run's checkout`, async () => {
        const r = await sh(`ls -A ${world.home}; echo --; ls -A ${world.home}/checkouts`);
        equal(r.stdout, "checkouts\n--\nrun1\n");
        await fails(`cat ${world.other}/patch.diff`);
        await fails(`cat ${world.gold}/pkg/core.py`);
        const tool = await sh(`cat ${world.opt}/tool/README`);
        equal(tool.stdout, "a readable toolchain file\n");
      });

      await t.step(
        `${policy}: results and a symlink to the repository are unreadable`,
        async () => {
          await fails(`cat ${world.results}/results.json`);
          await fails("cat escape/pkg/core.py");
          await fails("ls escape/");
        },
      );

      await t.step(
        `${policy}: the checkout has one commit and imports its own package`,
        async () => {
          const commits = await sh("git rev-list --all | wc -l");
          equal(commits.stdout.trim(), "1");
          const py = await sh('/usr/bin/python3 -c "import pkg; print(pkg.__file__)"');
          equal(py.stdout.trim(), join(world.checkout, "pkg", "__init__.py"));
        },
      );

      await t.step(`${policy}: writes land in the checkout and log dir only`, async () => {
        const ok1 = await sh(
          `echo a > ${world.checkout}/w-${policy} && echo b > ${world.logs}/w-${policy}`,
        );
        equal(ok1.code, 0, ok1.stderr);
        equal(await Deno.readTextFile(join(world.checkout, `w-${policy}`)), "a\n");
        equal(await Deno.readTextFile(join(world.logs, `w-${policy}`)), "b\n");
        const mark = `pwned-${crypto.randomUUID()}`;
        for (const dir of [world.repo, "/usr", "$HOME/..", world.home, `${world.opt}/tool`, "/"]) {
          await fails(`echo x > ${dir}/${mark}`);
        }
        for (const dir of [world.repo, "/usr", "/home", world.home, `${world.opt}/tool`, "/"]) {
          ok(!await exists(join(dir, mark)), `${dir}/${mark} appeared on the host`);
        }
      });

      await t.step(`${policy}: /tmp is writable and private`, async () => {
        const name = `tmp-${crypto.randomUUID()}`;
        const r = await sh(`echo hi > /tmp/${name} && cat /tmp/${name} && echo "$TMPDIR"`);
        equal(r.stdout, "hi\n/tmp\n");
        ok(!await exists(`/tmp/${name}`));
      });

      await t.step(
        `${policy}: host loopback listeners, DNS and Unix sockets are unreachable`,
        async () => {
          const direct = agent ? otherPort : port;
          const r = await fails(`curl -sS --noproxy '*' --max-time 5 http://127.0.0.1:${direct}/`);
          match(r.stderr, /Failed to connect|Couldn't connect/);
          await fails("getent hosts example.com");
          await fails(
            `/usr/bin/python3 -c "import socket; socket.getaddrinfo('example.com', 443)"`,
          );
          await fails(
            `/usr/bin/python3 -c "import socket; s = socket.socket(socket.AF_UNIX); ` +
              `s.connect('${world.root}/host.sock')"`,
          );
          const abs = await fails(connectAbstract(abstractName));
          ok(!abs.stdout.includes("CONNECTED"));
        },
      );

      await t.step(
        `${policy}: bugbout's process is invisible and capabilities are gone`,
        async () => {
          await fails(`kill -0 ${Deno.pid}`);
          const ps = await sh("cat /proc/[0-9]*/cmdline | tr '\\0' ' '");
          ok(!ps.stdout.includes(hostCmdline), "the host's command line is visible inside");
          const caps = await sh("grep CapEff /proc/self/status");
          match(caps.stdout, /^CapEff:\s+0{16}\s*$/);
          const um = await sh(
            `umount ${world.home}; echo "rc=$?"; ls -A ${world.home}/checkouts; ` +
              `umount ${world.repo}; ls -A ${world.repo}; echo done`,
          );
          match(um.stdout, /^rc=[1-9]\d*\nrun1\ndone\n$/);
        },
      );

      await t.step(`${policy}: the environment holds only what was passed`, async () => {
        const r = await sh("env; echo --; cat /proc/1/cmdline /proc/[0-9]*/environ | tr '\\0' ' '");
        const [envText, procText] = r.stdout.split("\n--\n");
        const keys = envText.trim().split("\n").map((l) => l.slice(0, l.indexOf("="))).sort();
        const expected = ["HOME", "LC_ALL", "PATH", "PWD", "TMPDIR"];
        if (agent) {
          expected.push("MODEL_API_KEY", "NO_PROXY", "no_proxy", "NODE_USE_ENV_PROXY");
          for (const k of ["HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"]) {
            expected.push(k, k.toLowerCase());
          }
        }
        deepEqual(keys, expected.sort());
        ok(!r.stdout.includes(SECRET));
        if (agent) {
          match(envText, new RegExp(`MODEL_API_KEY=${MODEL_KEY}`));
          const init = await sh("tr '\\0' ' ' < /proc/1/cmdline");
          ok(!init.stdout.includes(MODEL_KEY), "an env value leaked into bwrap's argv");
        }
        ok(!procText.includes(SECRET));
      });

      await t.step(`${policy}: a timeout leaves no detached process behind`, async () => {
        const marker = `${1000 + Math.floor(Math.random() * 1000)}.${Date.now() % 100000}`;
        // Generous limits: on a busy machine bubblewrap itself can take seconds to start.
        const running = sh(`setsid sleep ${marker} & echo started; sleep 1000`, {
          timeoutMs: 10_000,
        });
        ok(await until(async () => await hostProcesses(marker) > 0, 10_000), "sleep never started");
        const r = await running;
        ok(r.timedOut);
        match(r.stdout, /started/);
        ok(
          await until(async () => await hostProcesses(marker) === 0, 10_000),
          "setsid sleep survived",
        );
      });

      await t.step(`${policy}: a flood into a capped log stops at the cap`, async () => {
        const log = join(world.logs, `yes-${policy}.log`);
        const r = await sh("yes | head -c 20000000", {
          stdoutLog: { path: log, capBytes: 65536 },
          maxOutputBytes: 65536,
        });
        equal(r.code, 0);
        ok(r.truncated);
        equal(r.outputBytes, 20_000_000);
        ok(r.stdout.length <= 65536);
        const text = await Deno.readTextFile(log);
        ok(text.startsWith("y\ny\n"));
        match(text, /\[bugbout: output truncated at the cap\]\n$/);
        ok(text.length < 65536 + 100);
      });

      await t.step(`${policy}: the memory cap stops a large allocation`, async () => {
        const alloc = (mb: number) =>
          `/usr/bin/python3 -c "b = bytearray(${mb} * 1024 * 1024); print('allocated')"`;
        const big = await sh(alloc(600), { memoryMb: 256 });
        notEqual(big.code, 0);
        match(big.stderr, /MemoryError/);
        const small = await sh(alloc(16), { memoryMb: 256 });
        equal(small.stdout.trim(), "allocated", small.stderr);
        const uncapped = await sh(alloc(600));
        equal(uncapped.stdout.trim(), "allocated", uncapped.stderr);
      });

      if (!agent) {
        await t.step("test: no proxy variables and no way to the allowed listener", async () => {
          const r = await fails(`curl -sS --max-time 5 http://127.0.0.1:${port}/`);
          ok(!r.stdout.includes("HELLO"));
        });
        continue;
      }

      await t.step(
        "agent: the allowed target answers through CONNECT and absolute-form HTTP",
        async () => {
          const tunnel = await sh(
            `curl -sS --noproxy '' -p -x "$HTTPS_PROXY" http://127.0.0.1:${port}/connect`,
          );
          equal(tunnel.stdout, "HELLO /connect", tunnel.stderr);
          const plain = await sh(
            `curl -sS --noproxy '' -x "$HTTP_PROXY" --data-binary body ` +
              `http://127.0.0.1:${port}/v1/plain`,
          );
          equal(plain.stdout, "HELLO /v1/plain body", plain.stderr);
          ok(seen.includes("POST /v1/plain close"), seen.join("; "));
        },
      );

      await t.step("agent: the allowed loopback port is forwarded on the same port", async () => {
        const curl = await sh(`curl -sS --noproxy '*' http://127.0.0.1:${port}/forward`);
        equal(curl.stdout, "HELLO /forward", curl.stderr);
        const py = await sh(
          `/usr/bin/python3 -c "import urllib.request as u; ` +
            `print(u.urlopen('http://127.0.0.1:${port}/py').read().decode())"`,
        );
        equal(py.stdout.trim(), "HELLO /py", py.stderr);
      });

      await t.step("agent: other targets get 403 from the proxy", async () => {
        const code = await sh(
          `curl -s -o /dev/null -w '%{http_code}' --noproxy '' -x "$HTTP_PROXY" ` +
            `http://127.0.0.1:${otherPort}/`,
        );
        equal(code.stdout, "403");
        const tunnel = await fails(
          `curl -sS --noproxy '' -p -x "$HTTPS_PROXY" http://127.0.0.1:${otherPort}/`,
        );
        match(tunnel.stderr, /403/);
        const name = await fails(`curl -sS --noproxy '' -x "$HTTPS_PROXY" https://example.com/`);
        match(name.stderr, /403/);
      });
    }

    await t.step("no canary or host secret appears in any output", () => {
      for (const text of outputs) {
        ok(!text.includes(world.canary), `canary leaked:\n${text}`);
        ok(!text.includes(SECRET), `host secret leaked:\n${text}`);
        ok(!text.includes("SHOULD-NOT-REACH"), `a forbidden listener answered:\n${text}`);
      }
      ok(outputs.length > 40);
    });
  } finally {
    Deno.env.delete("BUGBOUT_SANDBOX_TEST_SECRET");
    hostSocket.close();
    await allowed.shutdown();
    await other.shutdown();
  }
});
