/**
 * Where the package lives at each commit. Walking history newest first, a change that moved the
 * package (`pkg/` → `src/pkg/`, a renamed package, or a `pkg.py` module turned into a package)
 * tells where it was before, so fixes from before the move still count.
 *
 * Pure functions; no permissions needed.
 *
 * @module
 */

import type { PathChange } from "../../history.ts";

/** True when `path` belongs to the package at `dir` (a directory, or a module `x.py`). */
export function inPackage(path: string, dir: string): boolean {
  if (dir.endsWith(".py")) return path === dir;
  return path === `${dir}.py` || path.startsWith(`${dir}/`);
}

function dirname(path: string): string {
  const at = path.lastIndexOf("/");
  return at < 0 ? "" : path.slice(0, at);
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/**
 * Where the package was before a change, given where it is after it; `after` when the change did
 * not move it.
 */
export function packageBefore(after: string, files: readonly PathChange[]): string {
  if (after.endsWith(".py")) return after;
  const init = `${after}/__init__.py`;
  const name = basename(after);
  // The package's __init__.py was renamed into place: the surest sign of a move.
  const renamed = files.find((f) => f.status === "R" && f.path === init && f.oldPath);
  if (renamed) {
    const old = renamed.oldPath!;
    if (old.endsWith("/__init__.py")) return dirname(old);
    if (old.endsWith(".py") && old !== init) return old;
  }
  const added = files.some((f) => (f.status === "A" || f.status === "C") && f.path === init);
  if (added) {
    // Empty __init__.py files are never paired as renames: look for the deleted one.
    const deleted = files.filter((f) => f.status === "D");
    const oldInit = deleted.find((f) =>
      f.path.endsWith("/__init__.py") && basename(dirname(f.path)) === name
    );
    if (oldInit) return dirname(oldInit.path);
    const oldModule = deleted.find((f) => basename(f.path) === `${name}.py`);
    if (oldModule) return oldModule.path;
    // Otherwise the other files of the package, renamed into it, agree on where it was.
    const votes = new Map<string, number>();
    let moved = 0;
    for (const f of files) {
      if (f.status !== "R" || !f.oldPath || !f.path.startsWith(`${after}/`)) continue;
      moved++;
      const rel = f.path.slice(after.length + 1);
      if (f.oldPath.endsWith(`/${rel}`)) {
        const from = f.oldPath.slice(0, f.oldPath.length - rel.length - 1);
        if (from !== after) votes.set(from, (votes.get(from) ?? 0) + 1);
      }
    }
    const best = [...votes].sort((a, b) => b[1] - a[1])[0];
    if (best && best[1] >= 2 && best[1] * 2 > moved) return best[0];
  }
  return after;
}

/** Follows the package back through history, one change at a time, newest first. */
export class PackageTracker {
  #current: string;

  /** Start from where the package is at the newest commit. */
  constructor(atHead: string) {
    this.#current = atHead;
  }

  /** Where the package is after the change about to be stepped over. */
  get current(): string {
    return this.#current;
  }

  /** Step over one change: returns where the package was after it (G) and before it (B). */
  step(files: readonly PathChange[]): { atG: string; atB: string } {
    const atG = this.#current;
    const atB = packageBefore(atG, files);
    this.#current = atB;
    return { atG, atB };
  }
}
