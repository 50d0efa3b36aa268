/**
 * Sandboxes: run a command so that it cannot read the fix, write outside its run, or reach the
 * network beyond an allow-list.
 *
 * - {@linkcode openSandbox} picks and checks the sandbox for a `[run] sandbox` setting: bubblewrap
 *   on Linux, Seatbelt on macOS. It never falls back to no sandbox on its own: when the sandbox
 *   cannot start it throws a {@linkcode BugboutError} that says why and how to fix it.
 * - {@linkcode probeSandbox} is the same check as a result, for `bugbout doctor`.
 * - {@linkcode toolchainMounts} lists the read-only mounts an executable needs (its real file, its
 *   install root, its interpreter's prefix) and the link it was found through, for
 *   `Confinement.readable` and `Confinement.links`.
 * - {@linkcode findProjectClones} looks through what the sandbox shows for another copy of the
 *   project (a git repository with its root commit), for `doctor` and the race to warn about.
 * - `Sandbox.run(argv, confinement)` runs one command; see `types.ts` for the contract.
 *
 * The policies bugbout uses: tests get `network: "none"` and write only their checkout; an agent
 * gets `network: { allow: agent.modelHosts() }` (an allow-listing proxy; loopback targets are
 * forwarded on the same port) and writes its checkout, log and state directories. Both pass
 * `deny: [repository, BUGBOUT_HOME, results directory]`.
 *
 * Inside a bubblewrap sandbox: the system's runtime (`/usr` without `/usr/src` and
 * `/usr/local/src`, `/bin`, `/lib*` as on the host, a minimal `/etc`; see `view.ts`) is
 * read-only, and nothing else of the host is shown but what the confinement names (no `/opt`,
 * `/home`, `/root`, `/srv`, `/mnt`, `/media`, `/var`, host `/tmp`); secret places of the home
 * directories (`~/.ssh`, `~/.aws`, `~/.netrc`, ...) are covered wherever a mount would show
 * them. `/tmp`, `/var/tmp` and `HOME` are private tmpfs mounts of `tmpfsMb` (default 1 GiB, at
 * most `limits.diskMb`) each, unless `home` lies in a writable path. When bugbout runs as root
 * the command runs as an unprivileged user of its own, which owns the working directory and the
 * writable paths for the run (see `identity.ts`). `limits` cap processes, memory and disk (see
 * `limits.ts`); processes are capped at `DEFAULT_PROCESSES` for every command. `TMPDIR=/tmp`;
 * the environment is exactly `env`
 * plus `HOME` and `TMPDIR`, and for an agent with network `HTTP(S)_PROXY`, `ALL_PROXY` (also
 * lower-case) and `NODE_USE_ENV_PROXY=1`, plus `NO_PROXY=127.0.0.1,localhost,::1` when a loopback
 * target is allowed. `memoryMb` caps the command's address space (`ulimit -v`): a Python
 * allocation beyond it raises `MemoryError`; runtimes that reserve much virtual memory up front
 * (Node, the JVM) need a generous cap. Never put a directory holding sockets (`/run/user/...`)
 * or the home directory itself in `readable`: what is mounted can be used.
 *
 * @example Run a command with no network, reading only the system and the checkout
 * ```ts
 * import { openSandbox } from "./mod.ts";
 *
 * const sandbox = await openSandbox("auto");
 * const result = await sandbox.run(["python3", "-c", "print(1)"], {
 *   workdir: "/path/to/checkout",
 *   network: "none",
 *   env: { PATH: "/usr/bin:/bin" },
 *   timeoutMs: 60_000,
 * });
 * ```
 *
 * @module
 */

import { BugboutError } from "../errors.ts";
import { BubblewrapSandbox } from "./bwrap.ts";
import { UnconfinedSandbox } from "./none.ts";
import { platformKind, type ProbeOptions, probeSandbox } from "./probe.ts";
import { SeatbeltSandbox } from "./seatbelt.ts";
import type { Sandbox, SandboxKind } from "./types.ts";

export type {
  Confinement,
  LimitHit,
  Limits,
  Sandbox,
  SandboxKind,
  SandboxResult,
} from "./types.ts";
export type { LogSink, ProcResult } from "../proc.ts";
export {
  BRIDGE_DIR,
  BubblewrapSandbox,
  bwrapArgs,
  DEFAULT_HOME,
  DEFAULT_TMPFS_MB,
  dropRootArgs,
  planMounts,
  withMemoryCap,
} from "./bwrap.ts";
export { findProjectClones } from "./clones.ts";
export type { CloneSearch } from "./clones.ts";
export { handOver, runsAsRoot, SANDBOX_UIDS } from "./identity.ts";
export type { Handover, SandboxUser } from "./identity.ts";
export {
  countTree,
  DEFAULT_PROCESSES,
  diskUsage,
  Meter,
  prlimitArgs,
  processUsage,
  type TreeUsage,
  treeUsage,
} from "./limits.ts";
export type { MeterOptions } from "./limits.ts";
export type { BubblewrapOptions, BwrapArgsOptions, Mount, MountPlan, PlanExtras } from "./bwrap.ts";
export { UNCONFINED, UnconfinedSandbox } from "./none.ts";
export { platformKind, probeSandbox } from "./probe.ts";
export type { ProbeOptions, SandboxProbe } from "./probe.ts";
export { formatTarget, isLoopback, parseTarget, startProxy } from "./proxy.ts";
export type { ProxyListen, ProxyOptions, ProxyServer, ProxyTarget } from "./proxy.ts";
export {
  homeSecrets,
  SANDBOX_EXEC,
  sbplString,
  seatbeltProfile,
  SeatbeltSandbox,
} from "./seatbelt.ts";
export type { SeatbeltPolicy } from "./seatbelt.ts";
export { toolchainMounts, toolchainPaths } from "./toolchain.ts";
export type { ToolchainMounts, ToolchainOptions } from "./toolchain.ts";
export {
  AGENT_PLACES,
  ETC_SHOWN,
  homeDirectories,
  SECRET_PLACES,
  systemView,
  USR_HIDDEN,
} from "./view.ts";

/** The `[run] sandbox` setting. */
export type SandboxSetting = "auto" | SandboxKind;

/**
 * The sandbox for `setting`, checked: bubblewrap is probed for real before it is returned.
 * `auto` is bubblewrap on Linux and Seatbelt on macOS; `none` runs unconfined (only when asked).
 * Throws a {@linkcode BugboutError} with a hint when the sandbox cannot start: on Windows, which
 * has none, for every setting but `none`, pointing to WSL2 (`options.os` stands in for the OS).
 */
export async function openSandbox(
  setting: SandboxSetting = "auto",
  options: ProbeOptions = {},
): Promise<Sandbox> {
  if (setting === "none") return new UnconfinedSandbox();
  const probe = await probeSandbox(setting, options);
  if (!probe.ok) {
    throw new BugboutError(`Cannot start the ${probe.kind} sandbox: ${probe.detail}.`, {
      hint: probe.fix,
    });
  }
  const kind = setting === "auto" ? platformKind() : setting;
  if (kind === "bubblewrap") {
    return new BubblewrapSandbox({
      bwrap: probe.executable!,
      sizedTmpfs: probe.sizedTmpfs,
      prlimit: probe.prlimit,
      setpriv: probe.setpriv,
    });
  }
  return new SeatbeltSandbox({ sandboxExec: probe.executable });
}
