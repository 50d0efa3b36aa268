/**
 * The network bridge, started the ways bugbout starts it: as the self-contained script the Deno
 * that runs bugbout runs (source and bundle), and as bugbout itself with its internal command
 * `__bridge` (what a compiled executable does), outside and inside a bubblewrap sandbox, with no
 * `deno` on the child's PATH.
 *
 * `deno compile` cannot download Deno's runtime here, so a compiled bugbout is played by a
 * stand-in executable that runs the bundle; the release workflow sets `BUGBOUT_EXECUTABLE` to the
 * real Linux executable it built, and these tests then run that one instead.
 *
 * @module
 */

import { equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { run } from "../../lib/proc.ts";
import { type BridgeConfig, bridgeScript } from "../../lib/sandbox/bridge.ts";
import { BubblewrapSandbox } from "../../lib/sandbox/bwrap.ts";
import { probeSandbox } from "../../lib/sandbox/mod.ts";
import { startProxy } from "../../lib/sandbox/proxy.ts";
import { detectStart, SCRIPT_FLAGS, type Start } from "../../lib/self.ts";
import { pathWithoutDeno, ROOT, tempDir } from "../_helpers.ts";

const GREETING = "hello through the bridge";

/** An HTTP server on 127.0.0.1 that greets every request. */
function greeter() {
  return Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(GREETING),
  );
}

/** Python that fetches `url` (through the proxy variables, unless NO_PROXY names its host). */
function fetchCommand(url: string): string[] {
  return [
    "python3",
    "-c",
    "import os, urllib.request as u; " +
    "print(os.environ.get('DENO_DIR', 'no DENO_DIR')); " +
    `print(u.urlopen(${JSON.stringify(url)}, timeout=10).read().decode())`,
  ];
}

Deno.test("bridgeScript() is runBridge alone: a plain Deno runs it with nothing to resolve", () => {
  const script = bridgeScript();
  ok(!/^\s*import\b/m.test(script), "no import");
  match(script, /^const runBridge = async function runBridge\(args\)/m);
  match(script, /^Deno\.exit\(await runBridge\(Deno\.args\)\);$/m);
});

Deno.test("the bridge relays to bugbout's proxy, started as a script and as bugbout __bridge", async () => {
  await using dir = await tempDir("bugbout-bridge-");
  await using server = greeter();
  const url = `http://127.0.0.1:${server.addr.port}/`;
  await using _proxy = startProxy({
    allow: [`127.0.0.1:${server.addr.port}`],
    listen: { unix: join(dir.path, "proxy.sock") },
  });
  const config: BridgeConfig = {
    socket: join(dir.path, "proxy.sock"),
    forwards: [],
    restore: { DENO_DIR: null },
  };
  await Deno.writeTextFile(join(dir.path, "bridge.json"), JSON.stringify(config));
  await Deno.writeTextFile(join(dir.path, "bridge.js"), bridgeScript());
  // bugbout's own DENO_DIR (main.ts finds its npm packages there), which the command never sees.
  const home = Deno.env.get("HOME") ?? "/root";
  const cache = Deno.env.get("XDG_CACHE_HOME") ?? join(home, ".cache");
  const env = {
    PATH: await pathWithoutDeno(join(dir.path, "path")),
    HOME: home,
    DENO_DIR: Deno.env.get("DENO_DIR") ?? join(cache, "deno"),
    DENO_NO_UPDATE_CHECK: "1",
  };
  const executable = Deno.env.get("BUGBOUT_EXECUTABLE");
  const starts: Record<string, string[]> = {
    "the script (source, bundle)": [Deno.execPath(), ...SCRIPT_FLAGS, join(dir.path, "bridge.js")],
    "bugbout __bridge (compiled)": executable
      ? [executable, "__bridge"]
      : [Deno.execPath(), "run", "-A", "--quiet", join(ROOT, "main.ts"), "__bridge"],
  };
  for (const [how, argv] of Object.entries(starts)) {
    const result = await run([...argv, join(dir.path, "bridge.json"), ...fetchCommand(url)], {
      clearEnv: true,
      env,
      okCodes: "any",
      timeoutMs: 60_000,
    });
    equal(result.code, 0, `${how}: ${result.stderr}`);
    // The bridge's own DENO_DIR is taken back from the command; the request went through.
    equal(result.stdout, `no DENO_DIR\n${GREETING}\n`, how);
  }
  const missing = await run([
    ...starts["bugbout __bridge (compiled)"],
    join(dir.path, "bridge.json"),
    "bugbout-no-such-program",
  ], {
    clearEnv: true,
    env,
    okCodes: "any",
    timeoutMs: 60_000,
  });
  equal(missing.code, 127);
  match(missing.stderr, /bugbout bridge: cannot start bugbout-no-such-program/);
});

/**
 * A stand-in for a compiled bugbout (`deno compile` cannot download its runtime here): an
 * executable that runs the bundle of main.ts with everything it is given, and says it was started.
 */
async function standInExecutable(dir: string): Promise<Start> {
  const real = Deno.env.get("BUGBOUT_EXECUTABLE");
  if (real) return { kind: "compiled", executable: real, entry: real };
  const bundle = join(dir, "dist", "bugbout.js");
  await run([Deno.execPath(), "bundle", "--quiet", "--platform", "deno", "-o", bundle, "main.ts"], {
    cwd: ROOT,
    // No timeout: bundling is not what is tested, and a test must never fail for being slow.
    env: { DENO_NO_UPDATE_CHECK: "1" },
  });
  const executable = join(dir, "bin", "bugbout");
  await Deno.mkdir(join(dir, "bin"));
  await Deno.writeTextFile(
    executable,
    "#!/bin/sh\n" +
      'echo "stand-in bugbout: $1" >&2\n' +
      `exec ${Deno.execPath()} run -A --quiet --no-config --no-lock ${bundle} "$@"\n`,
  );
  await Deno.chmod(executable, 0o755);
  return { kind: "compiled", executable, entry: executable };
}

Deno.test("inside bubblewrap a sandboxed command reaches its allowed loopback target through the bridge, started from source and as a compiled bugbout", async () => {
  const probe = await probeSandbox("bubblewrap");
  ok(probe.ok, probe.detail);
  await using dir = await tempDir("bugbout-bridge-");
  await Deno.chmod(dir.path, 0o755);
  await using server = greeter();
  const url = `http://127.0.0.1:${server.addr.port}/`;
  const work = join(dir.path, "work");
  await Deno.mkdir(work, { mode: 0o777 });
  await Deno.mkdir(join(dir.path, "dist"));
  const compiled = await standInExecutable(dir.path);
  for (const start of [detectStart(), compiled]) {
    const sandbox = new BubblewrapSandbox({
      bwrap: probe.executable!,
      sizedTmpfs: probe.sizedTmpfs,
      prlimit: probe.prlimit,
      setpriv: probe.setpriv,
      start,
    });
    const result = await sandbox.run(fetchCommand(url), {
      workdir: work,
      network: { allow: [`127.0.0.1:${server.addr.port}`] },
      env: { PATH: "/usr/bin:/bin" },
      readable: [join(dir.path, "dist")],
      timeoutMs: 60_000,
    });
    equal(result.code, 0, `${start.kind}: ${result.stderr}`);
    equal(result.stdout, `no DENO_DIR\n${GREETING}\n`, start.kind);
    if (start.kind === "compiled" && !Deno.env.get("BUGBOUT_EXECUTABLE")) {
      match(result.stderr, /stand-in bugbout: __bridge/);
    }
  }
});
