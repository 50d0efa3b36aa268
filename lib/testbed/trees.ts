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

import { classifyPath, type PathRules } from "./paths.ts";
import type { Attempt, AttemptPatches, PatchFile } from "../records.ts";
import { applyPatch, readState, writeState } from "./patched.ts";

/**
 * The paths of an attempt that are source changes. A rename is a deletion of its old path and an
 * addition of its new one, each a source change only where that path is source.
 */
export function sourcePaths(files: readonly PatchFile[], rules: PathRules): string[] {
  return files.flatMap((f) => f.oldPath && f.oldPath !== f.path ? [f.oldPath, f.path] : [f.path])
    .filter((path) => classifyPath(path, rules) === "source");
}

/** Whether an attempt offers a candidate fix: it finished with a patch holding source changes. */
export function hasCandidate(attempt: Attempt, rules: PathRules): boolean {
  return attempt.status === "patch" && attempt.role === "contestant" &&
    sourcePaths(attempt.files, rules).length > 0;
}

/**
 * Apply an attempt's source changes to `tree` (a copy of B). Returns `{ok: false, message}` when
 * the patch does not apply; the tree is then unchanged. A rename across kinds (`pytest.ini` moved
 * into the package, a module moved into the tests) applies only its source side: `git apply`
 * applies a rename whole, so the other path is put back as it was on B.
 */
export async function applySourceChanges(
  tree: string,
  attempt: Attempt,
  patches: AttemptPatches,
  rules: PathRules,
  signal?: AbortSignal,
) {
  const source = new Set(sourcePaths(attempt.files, rules));
  const renames = attempt.files.filter((f) =>
    f.oldPath && f.oldPath !== f.path && (source.has(f.oldPath) || source.has(f.path))
  );
  // `git apply --include` matches a rename by its new path.
  const include = [...new Set([...source, ...renames.map((f) => f.path)])];
  const kept = renames.flatMap((f) => [f.oldPath!, f.path]).filter((p) => !source.has(p));
  const before = await Promise.all(kept.map((p) => readState(tree, p)));
  const patch = patches.full.trim() ? patches.full : patches.source;
  const applied = await applyPatch(tree, patch, { include, signal });
  if (applied.ok) {
    for (const [i, path] of kept.entries()) await writeState(tree, path, before[i]);
  }
  return applied;
}
