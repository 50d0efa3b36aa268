/**
 * A contestant's candidate S: B with the attempt's source changes applied, and nothing else. The
 * paths are classified again with today's rules (`race/classify.ts`) rather than trusted from the
 * capture, so a test file, `conftest.py`, pytest configuration, `sitecustomize.py`, a `.pth` file
 * or a plugin never reaches S, wherever it sits.
 *
 * Requires `--allow-run=git`, `--allow-read` and `--allow-write` on the tree.
 *
 * @module
 */

import { classifyPath, type PathRules } from "../race/classify.ts";
import type { AttemptPatches } from "../race/attempts.ts";
import type { Attempt, PatchFile } from "../records.ts";
import { applyPatch } from "./patched.ts";

/** The paths of an attempt that are source changes (for a rename: its new path). */
export function sourcePaths(files: readonly PatchFile[], rules: PathRules): string[] {
  return files.filter((f) => classifyPath(f.path, rules) === "source").map((f) => f.path);
}

/** Whether an attempt offers a candidate fix: it finished with a patch holding source changes. */
export function hasCandidate(attempt: Attempt, rules: PathRules): boolean {
  return attempt.status === "patch" && attempt.role === "contestant" &&
    sourcePaths(attempt.files, rules).length > 0;
}

/**
 * Apply an attempt's source changes to `tree` (a copy of B). Returns `{ok: false, message}` when
 * the patch does not apply; the tree is then unchanged.
 */
export function applySourceChanges(
  tree: string,
  attempt: Attempt,
  patches: AttemptPatches,
  rules: PathRules,
  signal?: AbortSignal,
) {
  const include = sourcePaths(attempt.files, rules);
  const patch = patches.full.trim() ? patches.full : patches.source;
  return applyPatch(tree, patch, { include, signal });
}
