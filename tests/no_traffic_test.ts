/**
 * No stray traffic: a small bout (`bugbout run` on the demo repository, one task, one scripted
 * contestant) runs inside a network namespace of its own, under `strace -f`, which logs every
 * `connect`, `sendto` and `sendmsg` of bugbout, its deno children, git, uv, pytest and the
 * sandboxes. The test fails on any of them aimed at an address other than 127.0.0.1 (deno's update
 * check, a DNS query, a package index). Nothing can leave the machine: the namespace holds only a
 * loopback, so such an attempt fails on the spot, and is logged.
 *
 * What the bout needs from a registry (each commit's resolved dependencies and test environment)
 * is fetched beforehand by a run of the ground truth outside the namespace. Requires root (`ip netns`), strace and iproute2; skips with a message otherwise.
 *
 * @module
 */

import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { demoPlaybook } from "../lib/demo/agents.ts";
import { writePlaybookAgent } from "../lib/demo/playbook_agent.ts";
import { run, which } from "../lib/proc.ts";
import { buildDemo } from "./fixtures/projects.ts";
import { ROOT, runBugbout, tempDir } from "./_helpers.ts";

/**
 * The system calls that aim a socket at an address, and those that say who made them: `execve`
 * names a process's program, a clone (a thread or a fork) inherits it.
 */
const TRACED = "connect,sendto,sendmsg,sendmmsg,execve,clone,clone3,fork,vfork";

/**
 * Every address an IPv4 or IPv6 socket was aimed at in an `strace -f` log, other than 127.0.0.1,
 * one `address:port (syscall by program)` each, the program named by the process's last
 * `execve` (a forked child's is its parent's; unknown when neither is in the log).
 */
export function strayConnections(log: string): string[] {
  const stray = new Set<string>();
  const programs = new Map<string, string>();
  for (const line of log.split("\n")) {
    const pid = line.match(/^(\d+) /)?.[1] ?? "?";
    const exec = line.match(/execve\("([^"]+)"/);
    if (exec && !/= -1 /.test(line)) programs.set(pid, exec[1].split("/").pop()!);
    const child = line.match(/\b(?:clone3?|v?fork)(?:\(| resumed>).*= (\d+)$/)?.[1];
    if (child && programs.has(pid)) programs.set(child, programs.get(pid)!);
    const call = line.match(/\b(connect|sendto|sendmsg|sendmmsg)\(/)?.[1];
    if (!call) continue;
    const who = `${call} by ${programs.get(pid) ?? "unknown"}`;
    const v4 = /sa_family=AF_INET, sin_port=htons\((\d+)\), sin_addr=inet_addr\("([^"]+)"\)/g;
    for (const m of line.matchAll(v4)) {
      if (m[2] !== "127.0.0.1") stray.add(`${m[2]}:${m[1]} (${who})`);
    }
    const v6 = /sa_family=AF_INET6, sin6_port=htons\((\d+)\).*?inet_pton\(AF_INET6, "([^"]+)"/g;
    for (const m of line.matchAll(v6)) {
      if (m[2] !== "::ffff:127.0.0.1") stray.add(`[${m[2]}]:${m[1]} (${who})`);
    }
  }
  return [...stray];
}

Deno.test("strayConnections() reads strace's lines: only 127.0.0.1 is allowed", () => {
  const log = [
    '123 execve("/usr/bin/deno", ["deno", "run"], 0x7ffc /* 30 vars */) = 0',
    '125 execve("/usr/bin/uv", ["uv"], 0x7ffc /* 30 vars */) = 0',
    "123 clone3({flags=CLONE_VM|CLONE_THREAD, exit_signal=0, stack=0x7f}, 88 <unfinished ...>",
    "123 <... clone3 resumed>) = 130",
    '123 connect(9, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("10.0.0.53")}, ' +
    "16) = -1 ENETUNREACH (Network is unreachable)",
    '124 connect(5, {sa_family=AF_INET, sin_port=htons(8080), sin_addr=inet_addr("127.0.0.1")}, ' +
    "16) = 0",
    '125 sendto(7, "x", 1, 0, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), ' +
    'inet_pton(AF_INET6, "2001:db8::1", &sin6_addr), sin6_scope_id=0}, 28) = -1 ENETUNREACH',
    '130 sendmsg(4, {msg_name={sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("1.1.1.1")' +
    "}, msg_namelen=16}, 0) = -1",
    '127 connect(3, {sa_family=AF_UNIX, sun_path="/run/x.sock"}, 110) = 0',
    '128 sendto(16, "X", 1, MSG_DONTWAIT, NULL, 0) = 1',
  ].join("\n");
  deepEqual(strayConnections(log + "\n" + log), [
    "10.0.0.53:53 (connect by deno)",
    "[2001:db8::1]:443 (sendto by uv)",
    "1.1.1.1:53 (sendmsg by deno)",
  ]);
});

const root = Deno.uid() === 0;
const tools = await Promise.all(["strace", "ip"].map((p) => which(p)));
const missing = root ? ["strace", "ip"].filter((_, i) => !tools[i]) : ["root"];
if (missing.length) {
  console.error(`tests/no_traffic_test.ts: skipping the traced bout: needs ${missing.join(", ")}`);
}

Deno.test({
  name: "a bout in a network namespace of its own tries no address but 127.0.0.1",
  ignore: missing.length > 0,
  async fn() {
    await using dir = await tempDir("bugbout-no-traffic-");
    const fixture = await buildDemo(join(dir.path, "textkit"));
    const agent = await writePlaybookAgent(
      join(dir.path, "agents"),
      demoPlaybook("careful", fixture.fixes, fixture.github.items),
    );
    await Deno.writeTextFile(
      join(fixture.dir, "bugbout.toml"),
      `[project]\nsource = "${fixture.source}"\n\n[tasks]\nlimit = 1\n\n` +
        `[[contestants]]\nagent = "command"\nname = "careful"\n` +
        `command = ["python3", ${JSON.stringify(agent)}, "{prompt_file}"]\n`,
    );
    const home = join(dir.path, "home");
    // What comes from PyPI (each commit's resolved dependencies and test environment) is fetched
    // by a first run of the ground truth here, outside; bugbout keeps it in BUGBOUT_HOME. Its
    // results go, so the traced run does every stage again.
    const first = await runBugbout(["run", "--tasks-only"], {
      cwd: fixture.dir,
      env: { BUGBOUT_HOME: home },
    });
    equal(first.code, 0, first.stderr);
    await Deno.remove(join(fixture.dir, ".bugbout"), { recursive: true });

    const ns = `bugbout-no-traffic-${crypto.randomUUID().slice(0, 8)}`;
    await run(["ip", "netns", "add", ns]);
    try {
      await run(["ip", "-n", ns, "link", "set", "lo", "up"]);
      const log = join(dir.path, "strace.log");
      const env: Record<string, string> = {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        HOME: Deno.env.get("HOME") ?? dir.path,
        BUGBOUT_HOME: home,
        NO_COLOR: "1",
        UV_PYTHON_DOWNLOADS: "never",
        DENO_NO_UPDATE_CHECK: "1",
      };
      for (const key of ["DENO_DIR", "XDG_CACHE_HOME", "UV_CACHE_DIR"]) {
        const value = Deno.env.get(key);
        if (value) env[key] = value;
      }
      const bout = await run([
        ...["ip", "netns", "exec", ns],
        ...["strace", "-f", "-qq", "--seccomp-bpf", "-e", `trace=${TRACED}`, "-e", "signal=none"],
        ...["-o", log, "--", Deno.execPath(), "run", "-A", "--quiet", join(ROOT, "main.ts")],
        "run",
      ], { cwd: fixture.dir, clearEnv: true, env, okCodes: "any", ownGroup: true });
      equal(bout.code, 0, bout.stderr.slice(-4000));
      for (const stage of ["mine", "oracle", "race", "examine", "judge", "score", "report"]) {
        match(bout.stderr, new RegExp(`\\] ${stage} +\\S`), `stage line for ${stage}`);
      }
      const traced = await Deno.readTextFile(log);
      // The logger saw the bout's sockets (bugbout's own, git's and the sandboxes' are Unix
      // sockets): an empty log would prove nothing.
      ok(/\b(connect|sendto|sendmsg)\(/.test(traced), "strace logged the bout's socket calls");
      deepEqual(strayConnections(traced), []);
    } finally {
      await run(["ip", "netns", "delete", ns], { okCodes: "any" });
    }
  },
});
