/**
 * What a bubblewrap sandbox mounts: a confinement resolved into mounts ({@linkcode planMounts}:
 * the default view of `view.ts`, the confinement's paths, covered places, links), and the bwrap
 * arguments that build that root ({@linkcode bwrapArgs}, pure).
 *
 * Requires `--allow-read` (to resolve paths, `/etc`, the home directories).
 *
 * @module
 */

import { dirname, isAbsolute } from "node:path";
import { BugboutError } from "../errors.ts";
import { depth, isWithin, mustResolve, resolveIfExists } from "./_paths.ts";
import type { SandboxUser } from "./identity.ts";
import type { Confinement } from "./types.ts";
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
import { lstatIfExists } from "../fs.ts";

/** `HOME` inside when the confinement names none: an empty private tmpfs. */
export const DEFAULT_HOME = "/home/bugbout";
/** Size of each private tmpfs when `tmpfsMb` is not given, in MiB. */
export const DEFAULT_TMPFS_MB = 1024;
/** Where the network bridge's directory (script, config, proxy socket) appears inside. */
export const BRIDGE_DIR = "/run/bugbout";

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
