/**
 * Linux confinement with bubblewrap, built from an allow-list: what is not listed does not exist
 * inside. The system (`/usr`, `/etc`, `/opt`) is read-only, `/tmp`, `/var/tmp` and `HOME` are
 * private size-capped tmpfs mounts, the working directory and the `writable` paths are the only
 * host paths that can be written, `readable` paths are read-only, and `deny` paths that lie
 * inside an allowed path are covered with an empty read-only tmpfs. The command gets new user,
 * PID, IPC, UTS, cgroup and network namespaces and no capabilities.
 *
 * The environment reaches the command only through `Deno.Command({ clearEnv: true, env })`, never
 * `--setenv`: bwrap's argv is readable inside at `/proc/1/cmdline`. A timeout SIGKILLs bwrap,
 * which (with the PID namespace) leaves no survivors, detached `setsid` children included.
 * A memory cap is applied inside with `ulimit -v` (RLIMIT_AS) on the command.
 *
 * Network for agents: an allow-listing proxy on a Unix socket (see `proxy.ts`) plus a bridge
 * inside (see `bridge.ts`) run by this Deno, so the sandbox never shares the host's network.
 *
 * Requires `--allow-run` (bwrap), `--allow-read`, `--allow-write` (temporary bridge files) and
 * `--allow-net` (the proxy) for agents with network access.
 *
 * @module
 */

import { isAbsolute, join } from "node:path";
import { BugboutError } from "../errors.ts";
import { type ProcResult, which } from "../proc.ts";
import { runConfined } from "./_run.ts";
import { BRIDGE_SOURCE, type BridgeConfig } from "./bridge.ts";
import { depth, isWithin, mustResolve, resolveIfExists } from "./_paths.ts";
import { formatTarget, isLoopback, parseTarget, startProxy } from "./proxy.ts";
import type { Confinement, Sandbox } from "./types.ts";
import { lstatIfExists, removeIfExists } from "../fs.ts";

/** `HOME` inside when the confinement names none: an empty private tmpfs. */
export const DEFAULT_HOME = "/home/bugbout";
/** Size of each private tmpfs when `tmpfsMb` is not given, in MiB. */
export const DEFAULT_TMPFS_MB = 1024;
/** Where the network bridge's directory (script, config, proxy socket) appears inside. */
export const BRIDGE_DIR = "/run/bugbout";

/** Top-level system paths that are mounted read-only (or as the host's symlinks) when present. */
const SYSTEM_ROOTS = ["/usr", "/etc"];
const SYSTEM_LINKS = ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];
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
  const tmpfsBytes = Math.round((c.tmpfsMb ?? DEFAULT_TMPFS_MB) * 1024 * 1024);
  const system: Mount[] = SYSTEM_ROOTS.map((path) => ({ op: "ro", path }));
  for (const path of SYSTEM_LINKS) {
    const info = await lstatIfExists(path);
    if (info?.isSymlink) system.push({ op: "symlink", path, target: await Deno.readLink(path) });
    else if (info?.isDirectory) system.push({ op: "ro", path });
  }
  system.push({ op: "ro-try", path: "/opt" }, { op: "dev" }, { op: "proc" });

  // HOME: the caller's directory when it is writable anyway, else a private tmpfs there.
  if (c.home !== undefined && !isAbsolute(c.home)) {
    throw new BugboutError(`Cannot confine the command: HOME "${c.home}" is not absolute.`);
  }
  let home = c.home ?? DEFAULT_HOME;
  const homeReal = c.home ? await resolveIfExists(c.home) : undefined;
  const homeBound = homeReal !== undefined && writable.some((w) => isWithin(homeReal, w));
  if (homeBound) home = homeReal;

  // A denied path needs covering only where an allowed host mount would show it.
  const hostRoots = [...SYSTEM_ROOTS, "/opt", ...readable, ...writable];
  const allowed = new Set([...readable, ...writable]);
  const hides: TreeMount[] = [];
  for (const p of c.deny ?? []) {
    const real = await resolveIfExists(p);
    if (!real || allowed.has(real) || !hostRoots.some((root) => isWithin(real, root))) continue;
    const info = await Deno.stat(real);
    hides.push({ op: "hide", path: real, directory: info.isDirectory });
  }

  const tree: TreeMount[] = [
    { op: "tmpfs", path: "/tmp", bytes: tmpfsBytes },
    { op: "tmpfs", path: "/var/tmp", bytes: tmpfsBytes },
    ...(homeBound ? [] : [{ op: "tmpfs" as const, path: home, bytes: tmpfsBytes }]),
    ...hides,
    // Paths the system mounts already show are skipped unless a hidden path lies above them.
    ...readable.filter((p) =>
      !SYSTEM_ROOTS.some((root) => isWithin(p, root)) ||
      hides.some((h) => isWithin(p, h.path))
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
  return { mounts: [...system, ...sorted], workdir, home };
}

/** Options for {@linkcode bwrapArgs}. */
export interface BwrapArgsOptions {
  /**
   * Pass `--perms` and `--size` for tmpfs mounts (bubblewrap 0.7 and later). Without them the
   * private tmpfs mounts are not size-capped. Default `true`.
   */
  sizedTmpfs?: boolean;
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
    "--unshare-user",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--unshare-net",
    "--cap-drop",
    "ALL",
    "--hostname",
    "bugbout",
  ];
  const hidden: string[] = [];
  for (const m of plan.mounts) {
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
}

/** Runs commands under bubblewrap. Get one from `openSandbox()`, which probes bwrap first. */
export class BubblewrapSandbox implements Sandbox {
  /** Always `bubblewrap`. */
  readonly kind = "bubblewrap" as const;
  readonly #bwrap: string;
  readonly #runtime?: string;
  readonly #sized: boolean;

  /** Wrap an existing bwrap binary; does not check that it works (see `probeSandbox()`). */
  constructor(options: BubblewrapOptions) {
    this.#bwrap = options.bwrap;
    this.#runtime = options.bridgeRuntime;
    this.#sized = options.sizedTmpfs ?? true;
  }

  /** Run `argv` confined; never throws for the command's own exit code. */
  async run(argv: string[], c: Confinement): Promise<ProcResult> {
    const command = c.memoryMb !== undefined ? withMemoryCap(argv, c.memoryMb) : argv;
    if (c.network === "none") {
      const plan = await planMounts(c);
      return await this.#spawn(bwrapArgs(plan, command, { sizedTmpfs: this.#sized }), plan, c, {});
    }
    const forwards = c.network.allow.map(parseTarget).filter((t) => isLoopback(t.host))
      .map((t) => ({ port: t.port, target: formatTarget(t) }));
    const runtime = await mustResolve(await this.#bridgeRuntime(), "bridge runtime (Deno)");
    const dir = await Deno.makeTempDir({ prefix: "bugbout-net-" });
    try {
      await using _proxy = startProxy({
        allow: c.network.allow,
        listen: { unix: join(dir, "proxy.sock") },
      });
      const restore: Record<string, string | null> = {};
      for (const key of Object.keys(BRIDGE_ENV)) restore[key] = c.env[key] ?? null;
      const config: BridgeConfig = { socket: `${BRIDGE_DIR}/proxy.sock`, forwards, restore };
      await Deno.writeTextFile(join(dir, "bridge.json"), JSON.stringify(config), { mode: 0o444 });
      await Deno.writeTextFile(join(dir, "bridge.js"), BRIDGE_SOURCE, { mode: 0o444 });
      const plan = await planMounts(c, { readable: [runtime], bridgeDir: dir });
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
        ...command,
      ];
      const args = bwrapArgs(plan, bridged, { sizedTmpfs: this.#sized });
      return await this.#spawn(args, plan, c, BRIDGE_ENV);
    } finally {
      await removeIfExists(dir);
    }
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

  async #spawn(
    args: string[],
    plan: MountPlan,
    c: Confinement,
    extraEnv: Record<string, string>,
  ): Promise<ProcResult> {
    return await runConfined([this.#bwrap, ...args], c, {
      env: { ...c.env, ...extraEnv, HOME: plan.home, TMPDIR: "/tmp" },
    });
  }
}
