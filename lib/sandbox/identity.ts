/**
 * Who a confined command runs as when bugbout itself runs as root (containers, CI): never root.
 * Each run gets an unprivileged user of its own, chosen from {@linkcode SANDBOX_UIDS} (ids that
 * `/etc/passwd` and `/etc/group` do not use), so root-only files (`/etc/shadow`, root's keys)
 * stay closed and the kernel counts each sandbox's processes apart (`RLIMIT_NPROC` is per user).
 *
 * The working directory and the writable paths are handed to that user for the run (owned by it,
 * recursively) and given back afterwards (owned again as their top directory was). Runs that
 * share a writable path share a user. Paths inside a handed-over tree that the run must not see
 * (its `deny` paths) and paths another run holds are left as they are.
 *
 * Requires `--allow-read` (`/etc/passwd`, `/etc/group`, the paths), `--allow-run` (`find`,
 * `chown`) and `--allow-write` (the user files).
 *
 * @module
 */

import { join } from "node:path";
import { BugboutError } from "../errors.ts";
import { run } from "../proc.ts";
import { findPrune, isWithin } from "./_paths.ts";
import { readTextIfExists } from "../fs.ts";

/** An unprivileged user and group. */
export interface SandboxUser {
  uid: number;
  gid: number;
}

/** Where the users of sandboxed runs come from when bugbout runs as root. */
export const SANDBOX_UIDS = { first: 50000, count: 10000 } as const;

interface Held {
  user: SandboxUser;
  /** Who gets the path back: its owner before the first run took it. */
  owner?: SandboxUser;
  count: number;
  skip: readonly string[];
}

const held = new Map<string, Held>();
const users = new Map<number, number>();
let taken: Set<number> | undefined;
// A different start in each bugbout process makes two of them on one machine unlikely to meet.
let next = Math.floor(Math.random() * SANDBOX_UIDS.count);
// Changes of owner happen one at a time, in the order runs asked for them.
let changes: Promise<void> = Promise.resolve();

/** Run `change` after every change asked for before it. */
function inTurn(change: () => Promise<void>): Promise<void> {
  const done = changes.then(change);
  // The caller gets this change's failure; the next change still runs.
  changes = done.then(() => {}, () => {});
  return done;
}

/** True when this process runs as root, so commands must be run as someone else. */
export function runsAsRoot(): boolean {
  return Deno.build.os === "linux" && Deno.uid() === 0;
}

async function takenIds(): Promise<Set<number>> {
  if (taken) return taken;
  const ids = new Set<number>();
  for (const file of ["/etc/passwd", "/etc/group"]) {
    for (const line of ((await readTextIfExists(file)) ?? "").split("\n")) {
      const id = Number(line.split(":")[2]);
      if (Number.isInteger(id)) ids.add(id);
    }
  }
  taken = ids;
  return ids;
}

/** A run's hold on its user and paths; give it back with {@linkcode Handover.release}. */
export interface Handover {
  /** The user the command runs as. */
  user: SandboxUser;
  /** Give the paths back to their owners (once every run holding them is done). */
  release(): Promise<void>;
}

/**
 * Choose the user for a run that writes `paths` (real paths) and hand the paths over to it,
 * leaving `skip` (real paths: what the run must not see) as it is.
 */
export async function handOver(
  paths: readonly string[],
  skip: readonly string[] = [],
): Promise<Handover> {
  const avoid = await takenIds();
  // From here to the first change of owner nothing else runs: the choice of the user and the
  // claim on the paths are one step, so two runs sharing a path cannot both take it.
  const sharing = [...held.entries()].find(([p]) => paths.some((q) => isWithin(q, p)))?.[1];
  const user = sharing?.user ?? freshUser(avoid);
  users.set(user.uid, (users.get(user.uid) ?? 0) + 1);
  const turns: Promise<void>[] = [];
  for (const path of paths) {
    const before = held.get(path);
    if (before) {
      before.count++;
      continue;
    }
    // Inside a path another run holds, the owner to give back to is that path's.
    const enclosing = [...held.entries()].find(([p]) => isWithin(path, p))?.[1];
    const entry: Held = { user, count: 1, skip };
    const leave = others(path, user, skip);
    held.set(path, entry);
    turns.push(inTurn(async () => {
      // The enclosing path's turn came first, so its owner is known by now.
      const info = await Deno.lstat(path);
      entry.owner = enclosing?.owner ?? { uid: info.uid!, gid: info.gid! };
      await chownTree(path, user, leave);
    }));
  }
  const release = async () => {
    for (const path of [...paths].reverse()) await giveBack(path);
    const left = (users.get(user.uid) ?? 1) - 1;
    if (left > 0) users.set(user.uid, left);
    else users.delete(user.uid);
  };
  // A run sharing a path waits for the run before it to have handed it over, too.
  const waits = [...turns, changes];
  const failed = (await Promise.allSettled(waits)).find((r) => r.status === "rejected");
  if (failed) {
    await release();
    throw (failed as PromiseRejectedResult).reason;
  }
  return { user, release };
}

function freshUser(avoid: Set<number>): SandboxUser {
  for (let i = 0; i < SANDBOX_UIDS.count; i++) {
    const id = SANDBOX_UIDS.first + (next++ % SANDBOX_UIDS.count);
    if (!avoid.has(id) && !users.has(id)) return { uid: id, gid: id };
  }
  throw new BugboutError(
    `Cannot run the command as an unprivileged user: ids ${SANDBOX_UIDS.first} to ` +
      `${SANDBOX_UIDS.first + SANDBOX_UIDS.count - 1} are all taken.`,
  );
}

/** What a walk over `path` must leave alone: `skip`, and paths below held by another user. */
function others(path: string, user: SandboxUser, skip: readonly string[]): string[] {
  const below = [...held.entries()]
    .filter(([p, h]) => p !== path && isWithin(p, path) && h.user.uid !== user.uid)
    .map(([p]) => p);
  return [...skip, ...below];
}

function giveBack(path: string): Promise<void> {
  const entry = held.get(path);
  if (!entry || --entry.count > 0) return Promise.resolve();
  held.delete(path);
  // An enclosing path still held will be given back as a whole later.
  if ([...held.keys()].some((p) => p !== path && isWithin(path, p))) return Promise.resolve();
  const stillHeld = [...held.keys()].filter((p) => isWithin(p, path));
  return inTurn(async () => {
    // Never taken (its hand-over failed before the owner was known): nothing to give back.
    if (entry.owner) await chownTree(path, entry.owner, [...entry.skip, ...stillHeld]);
  });
}

/**
 * Give every entry under `top` to `to` (links themselves, never followed), except what lies under
 * `all` paths below the top. One `find | chown` pass: a tree of thousands of files takes
 * milliseconds this way, seconds file by file.
 */
async function chownTree(top: string, to: SandboxUser, all: readonly string[]): Promise<void> {
  // Only what lies below the top matters: a covered path above it holds the top itself.
  const skip = all.filter((s) => s !== top && isWithin(s, top));
  await run(
    [
      "find",
      top,
      ...findPrune(skip),
      "-exec",
      "chown",
      "-h",
      `${to.uid}:${to.gid}`,
      "--",
      "{}",
      "+",
    ],
    { clearEnv: true, env: { PATH: "/usr/bin:/bin", LC_ALL: "C" }, timeoutMs: 600_000 },
  );
}

/**
 * `/etc/passwd` and `/etc/group` as the host has them plus a line for `user` (named `bugbout`,
 * home `home`), written into `dir`: tools that look their user up (git, ssh, pip) find it.
 */
export async function writeUserFiles(
  dir: string,
  user: SandboxUser,
  home: string,
): Promise<{ passwd: string; group: string }> {
  const passwd = join(dir, "passwd");
  const group = join(dir, "group");
  const host = async (file: string) => {
    const text = (await readTextIfExists(file)) ?? "";
    return text && !text.endsWith("\n") ? `${text}\n` : text;
  };
  await Deno.writeTextFile(
    passwd,
    `${await host(
      "/etc/passwd",
    )}bugbout:x:${user.uid}:${user.gid}:bugbout sandbox:${home}:/bin/sh\n`,
    { mode: 0o644 },
  );
  await Deno.writeTextFile(group, `${await host("/etc/group")}bugbout:x:${user.gid}:\n`, {
    mode: 0o644,
  });
  return { passwd, group };
}
