/**
 * The paths of a patch as the runner's review reads them: each path a patch touches (both sides of
 * a rename), classified with today's rules, with its text before and after.
 *
 * Pure; no permissions needed.
 *
 * @module
 */

import type { ReviewedPath } from "../lang/mod.ts";
import type { PatchFile } from "../records.ts";
import { type FileChange, stateText } from "./patched.ts";
import { classifyPath, type PathRules } from "./paths.ts";

/** What a change does to its file: `adds`, `deletes` or `edits`. */
function changeVerb(change: FileChange): ReviewedPath["verb"] {
  if (change.before.kind === "absent") return "adds";
  if (change.after.kind === "absent") return "deletes";
  return "edits";
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
      (path) => {
        const change = changes.get(path) ?? absent;
        const before = stateText(change.before);
        const after = stateText(change.after);
        return {
          path,
          kind: classifyPath(path, rules),
          ...(before !== undefined ? { before } : {}),
          ...(after !== undefined ? { after } : {}),
          verb: changeVerb(change),
        };
      },
    )
  );
}
