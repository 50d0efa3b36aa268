/**
 * Work left behind by killed bugbout processes: directories whose names carry the pid of the
 * process that made them, swept once that process no longer exists.
 *
 * Requires `--allow-read` and `--allow-write` on the directory swept.
 *
 * @module
 */

import { join } from "node:path";
import { readDirIfExists } from "./fs.ts";

/** True while a process with this pid exists (ours or another user's). */
export function processExists(pid: number): boolean {
  try {
    Deno.kill(pid, "SIGCONT");
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return error instanceof Deno.errors.PermissionDenied;
  }
}

/**
 * For every entry of `dir` whose name matches `pattern` (group 1 is a pid) and whose process is
 * gone, call `remove` with the entry's path. A missing `dir` is nothing to sweep.
 */
export async function sweepDead(
  dir: string,
  pattern: RegExp,
  remove: (path: string) => Promise<void>,
): Promise<void> {
  for (const entry of await readDirIfExists(dir)) {
    const pid = Number(entry.name.match(pattern)?.[1]);
    if (!pid || pid === Deno.pid || processExists(pid)) continue;
    await remove(join(dir, entry.name));
  }
}

/** The name suffix of a directory owned by this process: `-<pid>-<8 hex>`. */
export function ownedSuffix(): string {
  return `-${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`;
}

/** Matches {@linkcode ownedSuffix}; group 1 is the pid. */
export const OWNED = /-(\d+)-[0-9a-f]{8}$/;
