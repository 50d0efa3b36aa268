/**
 * macOS confinement with Seatbelt (`sandbox-exec`). macOS cannot build a root from an allow-list,
 * so the profile reads the other way round: `(deny default)`, a base that lets processes run,
 * `(allow file-read*)`, then `deny file-read*` for the "future" (the repository, `BUGBOUT_HOME`,
 * the results, the home directory's dot-directories and `~/Library`), then the run's own
 * directories allowed again last (the last matching rule wins). Writes go only to the run's
 * directories and a private temporary directory. The network is `localhost:<proxy port>` (and
 * allowed loopback targets) for an agent, nothing for tests. There is no PID namespace, so a
 * timeout kills the process group.
 *
 * Requires `--allow-run` (`/usr/bin/sandbox-exec`), `--allow-read`, `--allow-write` (the private
 * temporary directory) and `--allow-net` (the proxy) for agents.
 *
 * Limits: Seatbelt has no namespaces and macOS does not enforce `RLIMIT_DATA` or a per-sandbox
 * `RLIMIT_NPROC` (it counts every process of the user), so only the meter applies: the growth of
 * the writable paths (`diskMb`) stops the command. Processes and memory are not limited on macOS,
 * and bugbout does not change users there: run it as a normal user, not as root.
 *
 * @module
 */

import { dirname, join } from "node:path";
import { runConfined } from "./_run.ts";
import { mustResolve, outermost, resolveIfExists } from "./_paths.ts";
import { withMemoryCap } from "./bwrap.ts";
import { isLoopback, type ProxyServer, startProxy } from "./proxy.ts";
import type { Confinement, Sandbox, SandboxResult } from "./types.ts";
import { readDirIfExists, removeIfExists } from "../fs.ts";

/** Where macOS keeps `sandbox-exec`. */
export const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

/** Everything a profile is made from; every path already a real path. */
export interface SeatbeltPolicy {
  /** The working directory (read and write). */
  workdir: string;
  /** Other writable paths. */
  writable: readonly string[];
  /** Other readable paths, allowed again even inside a denied one. */
  readable: readonly string[];
  /** Paths nobody may read: the repository, `BUGBOUT_HOME`, the results, home dot-dirs. */
  deny: readonly string[];
  /** The private temporary directory (`TMPDIR`), writable. */
  tmpdir: string;
  /** `HOME` inside, writable. */
  home: string;
  /** Loopback TCP ports the command may connect to (the proxy, loopback targets); none for tests. */
  ports: readonly number[];
}

/** Quote a string for SBPL (a Scheme string literal: backslash and double quote escaped). */
export function sbplString(text: string): string {
  return `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

function subpaths(paths: readonly string[]): string {
  return paths.map((p) => `\n  (subpath ${sbplString(p)})`).join("");
}

function ancestors(paths: readonly string[]): string[] {
  const out = new Set<string>();
  for (const p of paths) {
    for (let d = dirname(p); d !== "/" && d !== "."; d = dirname(d)) out.add(d);
  }
  return [...out].sort();
}

const BASE = `(version 1)
(deny default)

; let processes run: their own children, signals and information within this sandbox
(allow process-exec)
(allow process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))
(allow sysctl-read)
(allow mach-host*)
(allow user-preference-read)
(allow ipc-posix-sem)
(allow ipc-posix-shm)
(allow mach-lookup
  (global-name "com.apple.system.opendirectoryd.libinfo")
  (global-name "com.apple.PowerManagement.control")
  (global-name "com.apple.system.logger"))
(allow pseudo-tty)
(allow file-read* file-write* file-ioctl
  (literal "/dev/null")
  (literal "/dev/zero")
  (literal "/dev/tty")
  (literal "/dev/ptmx")
  (regex #"^/dev/ttys[0-9]+$"))
`;

/** The SBPL profile for `policy`. Pure. */
export function seatbeltProfile(policy: SeatbeltPolicy): string {
  const own = outermost([
    policy.workdir,
    ...policy.writable,
    ...policy.readable,
    policy.tmpdir,
    policy.home,
  ]);
  const writable = outermost([policy.workdir, ...policy.writable, policy.tmpdir, policy.home]);
  const parts = [BASE];
  parts.push("; reads: everything except the future\n(allow file-read*)\n");
  if (policy.deny.length > 0) parts.push(`(deny file-read*${subpaths(policy.deny)})\n`);
  parts.push(`; this run's own directories again (the last matching rule wins)
(allow file-read*${subpaths(own)})
`);
  const above = ancestors(own);
  if (above.length > 0) {
    parts.push(
      `(allow file-read-metadata${above.map((p) => `\n  (literal ${sbplString(p)})`).join("")})\n`,
    );
  }
  parts.push(`; writes: this run's directories only\n(allow file-write*${subpaths(writable)})\n`);
  if (policy.ports.length > 0) {
    const remotes = policy.ports.map((p) => `\n  (remote ip "localhost:${p}")`).join("");
    parts.push(`; network: bugbout's proxy and allowed loopback targets only
(allow network-outbound${remotes})
`);
  } else {
    parts.push("; network: none\n");
  }
  return parts.join("\n");
}

/** The home directory's dot-entries and `~/Library`: where agents keep transcripts and keys. */
export async function homeSecrets(home: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readDirIfExists(home)) {
    if (entry.name.startsWith(".") || entry.name === "Library") out.push(join(home, entry.name));
  }
  return out.sort();
}

/** Runs commands under `sandbox-exec` with a generated profile. */
export class SeatbeltSandbox implements Sandbox {
  /** Always `seatbelt`. */
  readonly kind = "seatbelt" as const;
  readonly #exec: string;

  /** Wrap `sandbox-exec`; does not check that it works (see `probeSandbox()`). */
  constructor(options: { sandboxExec?: string } = {}) {
    this.#exec = options.sandboxExec ?? SANDBOX_EXEC;
  }

  /** Run `argv` confined; never throws for the command's own exit code. */
  async run(argv: string[], c: Confinement): Promise<SandboxResult> {
    const workdir = await mustResolve(c.workdir, "working directory");
    const writable: string[] = [];
    for (const p of c.writable ?? []) writable.push(await mustResolve(p, "writable path"));
    const readable: string[] = [];
    for (const p of c.readable ?? []) readable.push(await mustResolve(p, "readable path"));
    const deny: string[] = [];
    for (const p of c.deny ?? []) deny.push(await resolveIfExists(p) ?? p);
    const hostHome = Deno.env.get("HOME");
    if (hostHome) deny.push(...await homeSecrets(await resolveIfExists(hostHome) ?? hostHome));
    const tmpdir = await Deno.realPath(await Deno.makeTempDir({ prefix: "bugbout-tmp-" }));
    let proxy: ProxyServer | undefined;
    try {
      const home = c.home ? await mustResolve(c.home, "home directory") : join(tmpdir, "home");
      if (!c.home) await Deno.mkdir(home);
      const env: Record<string, string> = { ...c.env, HOME: home, TMPDIR: `${tmpdir}/` };
      const ports: number[] = [];
      if (c.network !== "none") {
        proxy = startProxy({ allow: c.network.allow, listen: { tcp: "127.0.0.1" } });
        ports.push(proxy.port!);
        const url = `http://127.0.0.1:${proxy.port}`;
        for (const key of ["HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"]) {
          env[key] = url;
          env[key.toLowerCase()] = url;
        }
        env.NODE_USE_ENV_PROXY = "1";
        const loopback = proxy.allow.filter((t) => isLoopback(t.host));
        ports.push(...loopback.map((t) => t.port));
        if (loopback.length > 0) env.NO_PROXY = env.no_proxy = "127.0.0.1,localhost,::1";
      }
      const profile = seatbeltProfile({ workdir, writable, readable, deny, tmpdir, home, ports });
      const command = c.memoryMb !== undefined ? withMemoryCap(argv, c.memoryMb) : argv;
      return await runConfined([this.#exec, "-p", profile, "--", ...command], c, {
        cwd: workdir,
        env,
        ownGroup: true,
        writable: [workdir, ...writable],
      });
    } finally {
      await proxy?.close();
      await removeIfExists(tmpdir);
    }
  }
}
