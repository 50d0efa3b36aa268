/**
 * Linux confinement with bubblewrap, built from an allow-list: what is not listed does not exist
 * inside. The system's runtime (see `view.ts`: `/usr` without its source trees, `/bin`, `/lib*`,
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
 * inside (see `bridge.ts`) run by this Deno, so the sandbox never shares the host's network.
 *
 * Requires `--allow-run` (bwrap), `--allow-read`, `--allow-write` (temporary bridge files) and
 * `--allow-net` (the proxy) for agents with network access.
 *
 * @module
 */

import { lchown } from "node:fs/promises";
import { dirname, isAbsolute, join } from "node:path";
import { BugboutError } from "../errors.ts";
import { which } from "../proc.ts";
import { runConfined } from "./_run.ts";
import { BRIDGE_SOURCE, type BridgeConfig } from "./bridge.ts";
import { depth, isWithin, mustResolve, resolveIfExists } from "./_paths.ts";
import {
  type Handover,
  handOver,
  runsAsRoot,
  type SandboxUser,
  writeUserFiles,
} from "./identity.ts";
import { DEFAULT_PROCESSES, prlimitArgs } from "./limits.ts";
import { formatTarget, isLoopback, parseTarget, startProxy } from "./proxy.ts";
import type { Confinement, Sandbox, SandboxResult } from "./types.ts";
import {
  AGENT_PLACES,
  ETC_HIDDEN,
  etcEntries,
  homeDirectories,
  placesUnder,
  SECRET_PLACES,
  SYSTEM_LINKS,
  USR_HIDDEN,
} from "./view.ts";
import { lstatIfExists, removeIfExists } from "../fs.ts";

/** `HOME` inside when the confinement names none: an empty private tmpfs. */
export const DEFAULT_HOME = "/home/bugbout";
/** Size of each private tmpfs when `tmpfsMb` is not given, in MiB. */
export const DEFAULT_TMPFS_MB = 1024;
/** Where the network bridge's directory (script, config, proxy socket) appears inside. */
export const BRIDGE_DIR = "/run/bugbout";

/** Where `setpriv` and `prlimit` (util-linux) are looked for. */
const SYSTEM_PATH = "/usr/bin:/bin:/usr/sbin:/sbin";
/** Variables the bridge's Deno needs for itself; the command gets the caller's values back. */
const BRIDGE_ENV: Record<string, string> = {
  DENO_DIR: BRIDGE_DIR,
  DENO_NO_UPDATE_CHECK: "1",
  DENO_NO_PROMPT: "1",
  NO_COLOR: "1",
};

/** One step of building the sandbox root, in the order bwrap performs them. */
export type Mount =
  | { op: "ro"; path: string; dest?: string }
  | { op: "ro-try"; path: string }
  | { op: "rw"; path: string }
  | { op: "symlink"; path: string; target: string }
  | { op: "dev" }
  | { op: "proc" }
  | { op: "tmpfs"; path: string; bytes: number }
  | { op: "hide"; path: string; directory: boolean };

/** A confinement with every path resolved: what {@linkcode bwrapArgs} turns into argv. */
export interface MountPlan {
  /** The mounts, parents before children. */
  mounts: Mount[];
  /** The working directory (real path). */
  workdir: string;
  /** `HOME` inside. */
  home: string;
}

/** Extra mounts for one run (the bridge's directory and runtime). */
export interface PlanExtras {
  /** More read-only host paths (must exist). */
  readable?: string[];
  /** Host directory to show read-only at {@linkcode BRIDGE_DIR}. */
  bridgeDir?: string;
  /** Home directories whose secret places are covered; by default `homeDirectories()`. */
  homes?: string[];
}

/** Among mounts at the same depth: a covering tmpfs first, then what it lets through. */
const ORDER = { tmpfs: 0, hide: 1, ro: 2, rw: 3 } as const;
type TreeMount = Extract<Mount, { op: keyof typeof ORDER }>;

function dest(m: TreeMount): string {
  return m.op === "ro" ? m.dest ?? m.path : m.path;
}

/**
 * Resolve a confinement into mounts: real paths everywhere, failing closed (a
 * {@linkcode BugboutError}) when the working directory, a writable or a readable path is
 * missing. Parents are mounted before children, so an allowed path inside a hidden one is
 * visible again and a hidden path inside an allowed one is covered.
 */
export async function planMounts(c: Confinement, extras: PlanExtras = {}): Promise<MountPlan> {
  const workdir = await mustResolve(c.workdir, "working directory");
  const writable = [workdir];
  for (const p of c.writable ?? []) writable.push(await mustResolve(p, "writable path"));
  const readable: string[] = [];
  for (const p of [...c.readable ?? [], ...extras.readable ?? []]) {
    readable.push(await mustResolve(p, "readable path"));
  }
  const homes = extras.homes ?? await homeDirectories();
  const secrets = await placesUnder(homes, SECRET_PLACES);
  for (const path of [...readable, ...writable]) {
    const secret = secrets.find((s) => isWithin(path, s));
    if (secret) {
      throw new BugboutError(
        `Cannot confine the command: ${path} lies in ${secret}, which holds credentials.`,
        { hint: "Leave it out of the confinement; agents get their own auth files copied in." },
      );
    }
  }
  const diskBytes = c.limits?.diskMb !== undefined ? c.limits.diskMb * 1024 * 1024 : Infinity;
  const tmpfsBytes = Math.round(
    Math.min((c.tmpfsMb ?? DEFAULT_TMPFS_MB) * 1024 * 1024, diskBytes),
  );
  const system: Mount[] = [{ op: "ro", path: "/usr" }];
  // The shown host paths: what a denied path must be covered in.
  const shown = ["/usr"];
  for (const path of SYSTEM_LINKS) {
    const info = await lstatIfExists(path);
    if (info?.isSymlink) system.push({ op: "symlink", path, target: await Deno.readLink(path) });
    else if (info?.isDirectory) {
      system.push({ op: "ro", path });
      shown.push(path);
    }
  }
  for (const path of await etcEntries()) {
    const info = await lstatIfExists(path);
    if (!info) continue;
    if (info.isSymlink) {
      // A link into /usr or /proc stays a link; one elsewhere (/run/...) shows its target's content.
      const target = await Deno.readLink(path);
      const real = await resolveIfExists(path);
      if (real === undefined ? /(^|\/)proc\//.test(target) : isWithin(real, "/usr")) {
        system.push({ op: "symlink", path, target });
        continue;
      }
      if (real === undefined) continue;
    }
    system.push({ op: "ro-try", path });
    shown.push(path);
  }
  system.push({ op: "dev" }, { op: "proc" });

  // HOME: the caller's directory when it is writable anyway, else a private tmpfs there.
  if (c.home !== undefined && !isAbsolute(c.home)) {
    throw new BugboutError(`Cannot confine the command: HOME "${c.home}" is not absolute.`);
  }
  let home = c.home ?? DEFAULT_HOME;
  const homeReal = c.home ? await resolveIfExists(c.home) : undefined;
  const homeBound = homeReal !== undefined && writable.some((w) => isWithin(homeReal, w));
  if (homeBound) home = homeReal;

  // A covered path needs covering only where an allowed host mount would show it.
  const hostRoots = [...shown, ...readable, ...writable];
  const allowed = new Set([...readable, ...writable]);
  const hides: TreeMount[] = [];
  const cover = async (real: string) => {
    if (!hostRoots.some((root) => isWithin(real, root))) return;
    if (hides.some((h) => h.path === real)) return;
    const info = await Deno.stat(real);
    hides.push({ op: "hide", path: real, directory: info.isDirectory });
  };
  const agents = await placesUnder(homes, AGENT_PLACES);
  for (const p of [...c.deny ?? [], ...agents]) {
    const real = await resolveIfExists(p);
    if (real && !allowed.has(real)) await cover(real);
  }
  // Secrets and source trees are covered whatever else is mounted.
  for (const p of [...secrets, ...USR_HIDDEN, ...ETC_HIDDEN]) {
    const real = await resolveIfExists(p);
    if (real) await cover(real);
  }

  const tree: TreeMount[] = [
    { op: "tmpfs", path: "/tmp", bytes: tmpfsBytes },
    { op: "tmpfs", path: "/var/tmp", bytes: tmpfsBytes },
    ...(homeBound ? [] : [{ op: "tmpfs" as const, path: home, bytes: tmpfsBytes }]),
    ...hides,
    // Paths the system mounts already show are skipped unless a hidden path lies above them.
    ...readable.filter((p) =>
      !shown.some((root) => isWithin(p, root)) || hides.some((h) => isWithin(p, h.path))
    ).map((path) => ({ op: "ro" as const, path })),
    ...(extras.bridgeDir ? [{ op: "ro" as const, path: extras.bridgeDir, dest: BRIDGE_DIR }] : []),
    ...writable.map((path) => ({ op: "rw" as const, path })),
  ];
  const seen = new Set<string>();
  const sorted = tree
    .map((m, i) => ({ m, i }))
    .sort((a, b) =>
      depth(dest(a.m)) - depth(dest(b.m)) || ORDER[a.m.op] - ORDER[b.m.op] || a.i - b.i
    )
    .map(({ m }) => m)
    .filter((m) => {
      const key = `${m.op}:${dest(m)}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  // Links go last, where no host mount already shows the directory they lie in.
  const mounted = [...hostRoots, ...readable];
  const links: Mount[] = [];
  for (const link of c.links ?? []) {
    if (!isAbsolute(link.path)) {
      throw new BugboutError(
        `Cannot confine the command: the link "${link.path}" is not absolute.`,
      );
    }
    if (mounted.some((root) => isWithin(dirname(link.path), root))) continue;
    links.push({ op: "symlink", path: link.path, target: link.target });
  }
  return { mounts: [...system, ...sorted, ...links], workdir, home };
}

/** Options for {@linkcode bwrapArgs}. */
export interface BwrapArgsOptions {
  /**
   * Pass `--perms` and `--size` for tmpfs mounts (bubblewrap 0.7 and later). Without them the
   * private tmpfs mounts are not size-capped. Default `true`.
   */
  sizedTmpfs?: boolean;
  /**
   * bwrap runs as root and `argv` switches to this user itself (`setpriv`, which also drops every
   * capability): no user namespace, which would map the command back to root, and the
   * directories bwrap makes for mount points are made readable by everyone.
   */
  asUser?: SandboxUser;
}

/** Where mount `m` appears inside, if it is a path. */
function target(m: Mount): string | undefined {
  if (m.op === "dev") return "/dev";
  if (m.op === "proc") return "/proc";
  return m.op === "ro" ? m.dest ?? m.path : m.path;
}

/** The bwrap arguments (without `bwrap` itself) that run `argv` under `plan`. Pure. */
export function bwrapArgs(
  plan: MountPlan,
  argv: readonly string[],
  options: BwrapArgsOptions = {},
): string[] {
  const sized = options.sizedTmpfs ?? true;
  const args = [
    "--die-with-parent",
    "--new-session",
    ...(options.asUser ? [] : ["--unshare-user"]),
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--unshare-net",
    ...(options.asUser ? [] : ["--cap-drop", "ALL"]),
    "--hostname",
    "bugbout",
  ];
  const hidden: string[] = [];
  // As root, bwrap makes the directories above a mount point private (0700): make them 0755.
  // Inside a host directory's mount they exist already, with the host's permissions.
  const placed: { path: string; host: boolean }[] = [];
  const parents = (path: string) => {
    const missing: string[] = [];
    for (let d = dirname(path); d !== "/"; d = dirname(d)) {
      const within = placed.filter((p) => isWithin(d, p.path));
      const nearest = within.reduce<typeof within[number] | undefined>(
        (a, b) => (a && depth(a.path) > depth(b.path) ? a : b),
        undefined,
      );
      if (nearest && (nearest.host || nearest.path === d)) break;
      missing.unshift(d);
    }
    for (const d of missing) {
      args.push("--perms", "0755", "--dir", d);
      placed.push({ path: d, host: false });
    }
  };
  for (const m of plan.mounts) {
    const at = target(m);
    if (options.asUser && at) parents(at);
    if (at) placed.push({ path: at, host: m.op !== "tmpfs" && m.op !== "hide" });
    switch (m.op) {
      case "ro":
        args.push("--ro-bind", m.path, m.dest ?? m.path);
        break;
      case "ro-try":
        args.push("--ro-bind-try", m.path, m.path);
        break;
      case "rw":
        args.push("--bind", m.path, m.path);
        break;
      case "symlink":
        args.push("--symlink", m.target, m.path);
        break;
      case "dev":
        args.push("--dev", "/dev");
        break;
      case "proc":
        args.push("--proc", "/proc");
        break;
      case "tmpfs":
        if (sized) args.push("--perms", "1777", "--size", String(m.bytes));
        args.push("--tmpfs", m.path);
        break;
      case "hide":
        if (m.directory) {
          if (sized) args.push("--perms", "0555", "--size", "65536");
          args.push("--tmpfs", m.path);
          hidden.push(m.path);
        } else {
          args.push("--ro-bind", "/dev/null", m.path);
        }
        break;
    }
  }
  // Last, so mount points for allowed paths inside a hidden one could still be made.
  for (const path of hidden) args.push("--remount-ro", path);
  args.push("--remount-ro", "/", "--chdir", plan.workdir, "--", ...argv);
  return args;
}

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
   * The Deno that runs the network bridge inside. Defaults to `Deno.execPath()`, or in a compiled
   * bugbout (where that is bugbout itself) to `deno` on PATH.
   */
  bridgeRuntime?: string;
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
  readonly #runtime?: string;
  readonly #sized: boolean;
  readonly #tools: { prlimit?: string; setpriv?: string };
  readonly #dropRoot: boolean;

  /** Wrap an existing bwrap binary; does not check that it works (see `probeSandbox()`). */
  constructor(options: BubblewrapOptions) {
    this.#bwrap = options.bwrap;
    this.#runtime = options.bridgeRuntime;
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
      const runtime = await mustResolve(await this.#bridgeRuntime(), "bridge runtime (Deno)");
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
      await Deno.writeTextFile(join(net, "bridge.js"), BRIDGE_SOURCE, { mode: 0o444 });
      const plan = await planMounts(c, { readable: [runtime, ...tools], bridgeDir: net });
      const bridged = [
        runtime,
        "run",
        "-A",
        "--quiet",
        "--no-config",
        "--no-lock",
        "--no-remote",
        "--no-npm",
        `${BRIDGE_DIR}/bridge.js`,
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

  /** The Deno that runs the bridge: this one, or in a compiled bugbout the `deno` on PATH. */
  async #bridgeRuntime(): Promise<string> {
    if (this.#runtime) return this.#runtime;
    if (!Deno.build.standalone) return Deno.execPath();
    const deno = await which("deno");
    if (!deno) {
      throw new BugboutError(
        "Cannot give a sandboxed agent its network: the bridge inside the sandbox needs Deno, " +
          "and this compiled bugbout cannot run it.",
        { hint: "Install Deno (https://deno.com) so that `deno` is on PATH." },
      );
    }
    return deno;
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
      });
    } finally {
      await handover?.release();
    }
  }
}
