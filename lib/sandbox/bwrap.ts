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

import { join } from "node:path";
import { run } from "../proc.ts";
import type { ProcResult } from "../proc.ts";
import { BRIDGE_SOURCE, type BridgeConfig } from "./bridge.ts";
import { depth, isWithin, mustResolve, resolveIfExists } from "./_paths.ts";
import { isLoopback, parseTarget, startProxy } from "./proxy.ts";
import type { Confinement, Sandbox } from "./types.ts";

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

/** One mount of the sandbox root, in the order bwrap performs them. */
export type Mount =
  | { op: "ro"; path: string }
  | { op: "rw"; path: string }
  | { op: "tmpfs"; path: string; bytes: number }
  | { op: "hide"; path: string; directory: boolean }
  | { op: "symlink"; path: string; target: string }
  | { op: "ro-try"; path: string };

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

const ORDER: Record<Mount["op"], number> = {
  symlink: 0,
  "ro-try": 0,
  tmpfs: 1,
  hide: 2,
  ro: 3,
  rw: 4,
};

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
    try {
      const info = await Deno.lstat(path);
      if (info.isSymlink) system.push({ op: "symlink", path, target: await Deno.readLink(path) });
      else if (info.isDirectory) system.push({ op: "ro", path });
    } catch {
      // not on this host
    }
  }
  system.push({ op: "ro-try", path: "/opt" });

  // HOME: the caller's directory when it is writable anyway, else a private tmpfs there.
  let home = c.home ?? DEFAULT_HOME;
  const homeReal = c.home ? await resolveIfExists(c.home) : undefined;
  const homeBound = homeReal !== undefined && writable.some((w) => isWithin(homeReal, w));
  if (homeBound) home = homeReal;

  const hostRoots = [...system.filter((m) => m.op === "ro" || m.op === "ro-try"), ...readable.map(
    (path) => ({ path }),
  ), ...writable.map((path) => ({ path }))].map((m) => m.path);
  const allowed = [...readable, ...writable];
  const hides: Mount[] = [];
  for (const p of c.deny ?? []) {
    const real = await resolveIfExists(p);
    if (!real || allowed.includes(real)) continue;
    if (!hostRoots.some((root) => isWithin(real, root) && real !== root || real === root)) continue;
    const info = await Deno.stat(real);
    hides.push({ op: "hide", path: real, directory: info.isDirectory });
  }

  const tree: Mount[] = [
    { op: "tmpfs", path: "/tmp", bytes: tmpfsBytes },
    { op: "tmpfs", path: "/var/tmp", bytes: tmpfsBytes },
    ...(homeBound ? [] : [{ op: "tmpfs" as const, path: home, bytes: tmpfsBytes }]),
    ...hides,
    // Paths the system mounts already show are skipped unless a hidden path lies above them.
    ...readable.filter((p) =>
      !SYSTEM_ROOTS.some((root) => isWithin(p, root)) ||
      hides.some((h) => isWithin(p, h.path))
    ).map((path) => ({ op: "ro" as const, path })),
    ...(extras.bridgeDir ? [{ op: "ro" as const, path: extras.bridgeDir }] : []),
    ...writable.map((path) => ({ op: "rw" as const, path })),
  ];
  const seen = new Set<string>();
  const sorted = tree
    .map((m, i) => ({ m, i }))
    .sort((a, b) =>
      depth(a.m.path) - depth(b.m.path) || ORDER[a.m.op] - ORDER[b.m.op] || a.i - b.i
    )
    .map(({ m }) => m)
    .filter((m) => {
      const key = `${m.op}:${m.path}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  return { mounts: [...system, ...sorted], workdir, home };
}

/**
 * The bwrap arguments (without `bwrap` itself) that run `argv` under `plan`. Pure; the
 * environment is not part of it. `bridgeDir` (a host path in `plan`) is mounted at
 * {@linkcode BRIDGE_DIR}.
 */
export function bwrapArgs(plan: MountPlan, argv: readonly string[], bridgeDir?: string): string[] {
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
  let devDone = false;
  for (const m of plan.mounts) {
    // /dev and /proc go right after the system mounts, before anything deeper.
    if (!devDone && m.op !== "symlink" && m.op !== "ro-try" && !SYSTEM_ROOTS.includes(m.path)) {
      args.push("--dev", "/dev", "--proc", "/proc");
      devDone = true;
    }
    switch (m.op) {
      case "ro":
        if (m.path === bridgeDir) args.push("--ro-bind", m.path, BRIDGE_DIR);
        else args.push("--ro-bind", m.path, m.path);
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
      case "tmpfs":
        args.push("--perms", "1777", "--size", String(m.bytes), "--tmpfs", m.path);
        break;
      case "hide":
        if (m.directory) {
          args.push("--perms", "0555", "--size", "65536", "--tmpfs", m.path);
          hidden.push(m.path);
        } else {
          args.push("--ro-bind", "/dev/null", m.path);
        }
        break;
    }
  }
  if (!devDone) args.push("--dev", "/dev", "--proc", "/proc");
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
  /** The Deno that runs the network bridge inside. Defaults to `Deno.execPath()`. */
  bridgeRuntime?: string;
}

/** Runs commands under bubblewrap. Get one from `openSandbox()`, which probes bwrap first. */
export class BubblewrapSandbox implements Sandbox {
  /** Always `bubblewrap`. */
  readonly kind = "bubblewrap" as const;
  readonly #bwrap: string;
  readonly #runtime?: string;

  /** Wrap an existing bwrap binary; does not check that it works (see `probeSandbox()`). */
  constructor(options: BubblewrapOptions) {
    this.#bwrap = options.bwrap;
    this.#runtime = options.bridgeRuntime;
  }

  /** Run `argv` confined; never throws for the command's own exit code. */
  async run(argv: string[], c: Confinement): Promise<ProcResult> {
    const command = c.memoryMb !== undefined ? withMemoryCap(argv, c.memoryMb) : argv;
    if (c.network === "none") {
      const plan = await planMounts(c);
      return await this.#spawn(bwrapArgs(plan, command), plan, c, {});
    }
    const targets = c.network.allow.map(parseTarget);
    const forwards = targets.filter((t) => isLoopback(t.host)).map((t) => ({
      port: t.port,
      target: c.network === "none" ? "" : c.network.allow[targets.indexOf(t)].trim(),
    }));
    const runtime = await mustResolve(this.#runtime ?? Deno.execPath(), "bridge runtime (Deno)");
    const dir = await Deno.makeTempDir({ prefix: "bugbout-net-" });
    try {
      await using _proxy = await startProxy({
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
      return await this.#spawn(bwrapArgs(plan, bridged, dir), plan, c, BRIDGE_ENV);
    } finally {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  }

  async #spawn(
    args: string[],
    plan: MountPlan,
    c: Confinement,
    extraEnv: Record<string, string>,
  ): Promise<ProcResult> {
    return await run([this.#bwrap, ...args], {
      clearEnv: true,
      env: { ...c.env, ...extraEnv, HOME: plan.home, TMPDIR: "/tmp" },
      stdin: c.stdin,
      timeoutMs: c.timeoutMs,
      signal: c.signal,
      maxOutputBytes: c.maxOutputBytes,
      stdoutLog: c.stdoutLog,
      stderrLog: c.stderrLog,
      okCodes: "any",
    });
  }
}
