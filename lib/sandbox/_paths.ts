/**
 * Path helpers shared by the sandbox implementations (private to `lib/sandbox/`).
 *
 * @module
 */

import { isAbsolute } from "node:path";
import { BugboutError } from "../errors.ts";
import { realPathIfExists } from "../fs.ts";

/** True when `path` is `parent` or lies inside it (both absolute and normalised). */
export function isWithin(path: string, parent: string): boolean {
  if (parent === "/") return path.startsWith("/");
  return path === parent || path.startsWith(parent + "/");
}

/** Number of components in an absolute path (`/` is 0, `/usr` is 1). */
export function depth(path: string): number {
  return path === "/" ? 0 : path.split("/").length - 1;
}

/**
 * The real path of something that must exist, or a {@linkcode BugboutError} naming what it was
 * for: the sandbox fails closed rather than mount less than it was asked to.
 */
export async function mustResolve(path: string, what: string): Promise<string> {
  if (!isAbsolute(path)) {
    throw new BugboutError(`Cannot confine the command: the ${what} "${path}" is not absolute.`);
  }
  try {
    return await Deno.realPath(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new BugboutError(
        `Cannot confine the command: the ${what} "${path}" does not exist.`,
        { hint: "Create it before the run, or leave it out of the confinement." },
      );
    }
    throw new BugboutError(`Cannot confine the command: cannot resolve the ${what} "${path}".`, {
      cause: error,
    });
  }
}

/** The real path of `path`, or undefined when it does not exist. */
export function resolveIfExists(path: string): Promise<string | undefined> {
  return realPathIfExists(path);
}

/** Drop duplicates and paths that lie inside another path of the list; keeps first-seen order. */
export function outermost(paths: readonly string[]): string[] {
  const unique = [...new Set(paths)];
  return unique.filter((p) => !unique.some((q) => q !== p && isWithin(p, q)));
}

/** `path` as a `find -path` pattern that matches it alone, whatever characters it holds. */
export function findLiteral(path: string): string {
  return path.replace(/[\\*?[\]]/g, (c) => `\\${c}`);
}

/** `find` arguments that leave out (prune) each of `paths`, or nothing when there are none. */
export function findPrune(paths: readonly string[]): string[] {
  if (paths.length === 0) return [];
  const tests = paths.flatMap((p, i) => [...(i ? ["-o"] : []), "-path", findLiteral(p)]);
  return ["(", ...tests, ")", "-prune", "-o"];
}
