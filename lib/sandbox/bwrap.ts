/**
 * Linux confinement with bubblewrap, built from an allow-list (see `mounts.ts`): what is not
 * listed does not exist inside. The system's runtime (see `view.ts`: `/usr` without its source trees, `/bin`, `/lib*`,
 * a minimal `/etc`) is read-only, `/tmp`, `/var/tmp` and `HOME` are private size-capped tmpfs
 * mounts, the working directory and the `writable` paths are the only host paths that can be
 * written, `readable` paths are read-only, and `deny` paths, the home directories' secret places
 * and agents' state directories that lie inside an allowed path are covered with an empty
 * read-only tmpfs. The command gets new PID, IPC, UTS, cgroup and network namespaces and no
 * capabilities: a user namespace too when bugbout runs as a user; when bugbout runs as root, a
 * user of its own (see `identity.ts`), so root-only files stay closed.
 *
 * Limits (see `limits.ts`) are set inside with `prlimit` just before the command: processes
 * always (`DEFAULT_PROCESSES` unless the confinement says otherwise), memory and file size when
 * asked; what the confinement asks for is also metered, and reaching it stops the sandbox.
 *
 * The environment reaches the command only through `Deno.Command({ clearEnv: true, env })`, never
 * `--setenv`: bwrap's argv is readable inside at `/proc/1/cmdline`. A timeout SIGKILLs bwrap,
 * which (with the PID namespace) leaves no survivors, detached `setsid` children included.
 * `memoryMb` (for test sessions) caps the address space inside with `ulimit -v` (RLIMIT_AS).
 *
 * Network for agents: an allow-listing proxy on a Unix socket (see `proxy.ts`) plus a bridge
 * inside (see `bridge.ts`), so the sandbox never shares the host's network. The bridge is bugbout
 * itself, started again (see `lib/self.ts`): the compiled executable with its internal command, or
 * the Deno that runs bugbout with the bridge's script; never a `deno` looked up on PATH.
 *
 * Requires `--allow-run` (bwrap), `--allow-read`, `--allow-write` (temporary bridge files) and
 * `--allow-net` (the proxy) for agents with network access.
 *
 * @module
 */

import { lchown } from "node:fs/promises";
import { join } from "node:path";
import { BugboutError } from "../errors.ts";
import { which } from "../proc.ts";
import { detectStart, helperCommand, INTERNAL_COMMANDS, type Start } from "../self.ts";
import { runConfined } from "./_run.ts";
import { type BridgeConfig, bridgeScript } from "./bridge.ts";
import { mustResolve } from "./_paths.ts";
import {
  type Handover,
  handOver,
  runsAsRoot,
  type SandboxUser,
  writeUserFiles,
} from "./identity.ts";
import { DEFAULT_PROCESSES, prlimitArgs } from "./limits.ts";
import { BRIDGE_DIR, bwrapArgs, type Mount, type MountPlan, planMounts } from "./mounts.ts";
import { formatTarget, isLoopback, parseTarget, startProxy } from "./proxy.ts";
import type { Confinement, Sandbox, SandboxResult } from "./types.ts";
import { removeIfExists } from "../fs.ts";

export { BRIDGE_DIR, bwrapArgs, DEFAULT_HOME, DEFAULT_TMPFS_MB, planMounts } from "./mounts.ts";
export type { BwrapArgsOptions, Mount, MountPlan, PlanExtras } from "./mounts.ts";

/** Where `setpriv` and `prlimit` (util-linux) are looked for. */
const SYSTEM_PATH = "/usr/bin:/bin:/usr/sbin:/sbin";
/** Variables the bridge's runtime needs for itself; the command gets the caller's values back. */
const BRIDGE_ENV: Record<string, string> = {
  DENO_DIR: BRIDGE_DIR,
  DENO_NO_UPDATE_CHECK: "1",
  DENO_NO_PROMPT: "1",
  NO_COLOR: "1",
};

/** Wrap `argv` so the kernel refuses address space beyond `memoryMb` (hard and soft limit). */
export function withMemoryCap(argv: readonly string[], memoryMb: number): string[] {
  const kib = Math.max(1, Math.floor(memoryMb * 1024));
  return [
    "/bin/sh",
    "-c",
    'ulimit -v "$1" || exit 125; shift; exec "$@"',
    "bugbout-memory-cap",
    String(kib),
    ...argv,
  ];
}

/** Options for {@linkcode BubblewrapSandbox}. */
export interface BubblewrapOptions {
  /** The bwrap executable (an absolute path). */
  bwrap: string;
  /**
   * How bugbout was started, which says how the network bridge inside starts again (see
   * `lib/self.ts`). Default: this process's.
   */
  start?: Start;
  /** Whether this bwrap takes `--size`/`--perms` for tmpfs (see `probeSandbox()`). Default true. */
  sizedTmpfs?: boolean;
  /** `prlimit` (util-linux), which sets the limits inside. Default: found on the system's PATH. */
  prlimit?: string;
  /** `setpriv` (util-linux), which drops root inside. Default: found on the system's PATH. */
  setpriv?: string;
  /**
   * Run each command as an unprivileged user of its own (see `identity.ts`). Default: when
   * bugbout runs as root.
   */
  dropRoot?: boolean;
}

/** The setpriv arguments that make the rest of argv run as `user`, with no way back to root. */
export function dropRootArgs(setpriv: string, user: SandboxUser): string[] {
  return [
    setpriv,
    `--reuid=${user.uid}`,
    `--regid=${user.gid}`,
    "--clear-groups",
    "--inh-caps=-all",
    "--bounding-set=-all",
    "--no-new-privs",
    "--",
  ];
}

/** The host paths a plan lets the command write (real paths). */
function writablePaths(plan: MountPlan): string[] {
  return plan.mounts.flatMap((m) => m.op === "rw" ? [m.path] : []);
}

/** `plan` with `/etc/passwd` and `/etc/group` shown from `files` instead of the host's. */
function withUserFiles(plan: MountPlan, files: { passwd: string; group: string }): MountPlan {
  const byDest: Record<string, string> = { "/etc/passwd": files.passwd, "/etc/group": files.group };
  const mounts = plan.mounts.filter((m) => !(m.op !== "dev" && m.op !== "proc" && byDest[m.path]));
  const at = mounts.findIndex((m) => m.op === "dev");
  const own: Mount[] = Object.entries(byDest).map(([dest, path]) => ({ op: "ro", path, dest }));
  mounts.splice(at < 0 ? mounts.length : at, 0, ...own);
  return { ...plan, mounts };
}

/** Runs commands under bubblewrap. Get one from `openSandbox()`, which probes bwrap first. */
export class BubblewrapSandbox implements Sandbox {
  /** Always `bubblewrap`. */
  readonly kind = "bubblewrap" as const;
  readonly #bwrap: string;
  readonly #start?: Start;
  readonly #sized: boolean;
  readonly #tools: { prlimit?: string; setpriv?: string };
  readonly #dropRoot: boolean;

  /** Wrap an existing bwrap binary; does not check that it works (see `probeSandbox()`). */
  constructor(options: BubblewrapOptions) {
    this.#bwrap = options.bwrap;
    this.#start = options.start;
    this.#sized = options.sizedTmpfs ?? true;
    this.#tools = { prlimit: options.prlimit, setpriv: options.setpriv };
    this.#dropRoot = options.dropRoot ?? runsAsRoot();
  }

  /** Run `argv` confined; never throws for the command's own exit code. */
  async run(argv: string[], c: Confinement): Promise<SandboxResult> {
    const prlimit = await this.#tool("prlimit");
    const launcher = [prlimit, ...prlimitArgs({ processes: DEFAULT_PROCESSES, ...c.limits }), "--"];
    const capped = c.memoryMb !== undefined ? withMemoryCap(argv, c.memoryMb) : argv;
    const setpriv = this.#dropRoot ? await this.#tool("setpriv") : undefined;
    const tools = [prlimit, ...(setpriv ? [setpriv] : [])];
    const temp = await Deno.makeTempDir({ prefix: "bugbout-run-" });
    try {
      if (c.network === "none") {
        const plan = await planMounts(c, { readable: tools });
        return await this.#spawn(plan, [...launcher, ...capped], c, { temp, setpriv });
      }
      const forwards = c.network.allow.map(parseTarget).filter((t) => isLoopback(t.host))
        .map((t) => ({ port: t.port, target: formatTarget(t) }));
      const start = this.#start ?? detectStart();
      // Shown read-only inside, at its real path: what runs bugbout runs the bridge.
      const runtime = await mustResolve(start.executable, `bugbout's runtime (${start.kind})`);
      const net = join(temp, "net");
      await Deno.mkdir(net);
      await using _proxy = startProxy({
        allow: c.network.allow,
        listen: { unix: join(net, "proxy.sock") },
      });
      const restore: Record<string, string | null> = {};
      for (const key of Object.keys(BRIDGE_ENV)) restore[key] = c.env[key] ?? null;
      const config: BridgeConfig = {
        socket: `${BRIDGE_DIR}/proxy.sock`,
        forwards,
        restore,
        launcher,
      };
      await Deno.writeTextFile(join(net, "bridge.json"), JSON.stringify(config), { mode: 0o444 });
      if (start.kind !== "compiled") {
        await Deno.writeTextFile(join(net, "bridge.js"), bridgeScript(), { mode: 0o444 });
      }
      const plan = await planMounts(c, { readable: [runtime, ...tools], bridgeDir: net });
      const bridged = [
        ...helperCommand(
          { ...start, executable: runtime },
          INTERNAL_COMMANDS.bridge,
          `${BRIDGE_DIR}/bridge.js`,
        ),
        `${BRIDGE_DIR}/bridge.json`,
        ...capped,
      ];
      return await this.#spawn(plan, bridged, c, { temp, setpriv, net, env: BRIDGE_ENV });
    } finally {
      await removeIfExists(temp);
    }
  }

  /** A util-linux tool bwrap runs inside, found on the system's PATH (it must be shown). */
  async #tool(name: "prlimit" | "setpriv"): Promise<string> {
    const found = this.#tools[name] ?? await which(name, SYSTEM_PATH);
    if (!found) {
      throw new BugboutError(
        `Cannot confine the command: ${name} (util-linux) is not installed; ` +
          (name === "prlimit"
            ? "it sets the limits on processes, memory and disk."
            : "it runs commands as an unprivileged user when bugbout runs as root."),
        {
          hint:
            "Install util-linux (`sudo apt install util-linux`, `sudo dnf install util-linux`).",
        },
      );
    }
    this.#tools[name] = found;
    return found;
  }

  /**
   * Start bwrap for `plan`. As root, first hand the writable paths to the run's own user, show
   * it in `/etc/passwd`, and let it use the bridge's directory; everything is given back after.
   */
  async #spawn(
    plan: MountPlan,
    command: string[],
    c: Confinement,
    run: { temp: string; setpriv?: string; net?: string; env?: Record<string, string> },
  ): Promise<SandboxResult> {
    const writable = writablePaths(plan);
    let handover: Handover | undefined;
    let argv = command;
    if (run.setpriv) {
      const hidden = plan.mounts.flatMap((m) => m.op === "hide" ? [m.path] : []);
      handover = await handOver(writable, hidden);
    }
    try {
      if (handover && run.setpriv) {
        const { user } = handover;
        plan = withUserFiles(plan, await writeUserFiles(run.temp, user, plan.home));
        if (run.net) {
          for (const path of [run.net, join(run.net, "proxy.sock")]) {
            await lchown(path, user.uid, user.gid);
          }
        }
        argv = [...dropRootArgs(run.setpriv, user), ...command];
      }
      const args = bwrapArgs(plan, argv, { sizedTmpfs: this.#sized, asUser: handover?.user });
      return await runConfined([this.#bwrap, ...args], c, {
        env: { ...c.env, ...run.env, HOME: plan.home, TMPDIR: "/tmp" },
        writable,
        // A stop kills bwrap's whole group, its PID 1 included: bwrap binds PID 1 to itself
        // (--die-with-parent) only after it has started, so a stop that early would leave it.
        ownGroup: true,
      });
    } finally {
      await handover?.release();
    }
  }
}
