/**
 * What the reviews of a patch's files share in every language (`flags.ts` for Python,
 * `runner_review.ts` for Go and JavaScript): each path a patch touches, classified with today's
 * rules, and how a change is told.
 *
 * Pure; no permissions needed.
 *
 * @module
 */

import type { PatchFile } from "../records.ts";
import { classifyPath, type FileChange, type PathRules, stateText } from "../testbed/mod.ts";

/** One path a patch touches: its kind by today's rules, and its change. */
export interface ReviewedPath {
  path: string;
  kind: ReturnType<typeof classifyPath>;
  change: FileChange;
}

/**
 * Every path of a patch's files (both sides of a rename), classified by `rules`, with its change
 * (`changes` holds each path before and after, from `patchedFiles`; a path it lacks is absent on
 * both sides).
 */
export function reviewedPaths(
  files: readonly PatchFile[],
  changes: ReadonlyMap<string, FileChange>,
  rules: PathRules,
): ReviewedPath[] {
  const absent = { before: { kind: "absent" }, after: { kind: "absent" } } as const;
  return files.flatMap((file) =>
    (file.oldPath && file.oldPath !== file.path ? [file.oldPath, file.path] : [file.path]).map(
      (path) => ({ path, kind: classifyPath(path, rules), change: changes.get(path) ?? absent }),
    )
  );
}

function count(text: string | undefined, pattern: RegExp): number {
  return text === undefined ? 0 : [...text.matchAll(pattern)].length;
}

/** Whether a change made `pattern` appear more often than before. */
export function gained(change: FileChange, pattern: RegExp): boolean {
  return count(stateText(change.after), pattern) > count(stateText(change.before), pattern);
}

/** What a change does to its file: `adds`, `deletes` or `edits`. */
export function changeVerb(change: FileChange): string {
  if (change.before.kind === "absent") return "adds";
  if (change.after.kind === "absent") return "deletes";
  return "edits";
}
