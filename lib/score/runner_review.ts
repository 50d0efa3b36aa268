/**
 * What scoring refuses to apply from a Go or JavaScript patch, and the tricks it notices — the
 * counterpart of `flags.ts` for a project whose runner (`lib/runner/`) says what is test code and
 * what is configuration. Only source changes are applied; everything else is listed in `ignored`
 * with the reason. Flagged:
 *
 * - the runner's configuration (`go.mod`, `go.sum`, `go.work`; `package.json`, lockfiles, vitest /
 *   jest / TypeScript configuration, setup files), added, edited, deleted or renamed;
 * - what the runner's `patchFlags` finds that no path tells: Go: a `TestMain` in a test file, a
 *   `replace` pointing outside the module; JavaScript: a `package.json` change to how tests run;
 * - skip, todo and only markers added to a test file that exists on B (the maintainers' tests);
 * - a source change that reaches the test framework (Go: imports `testing` or writes the
 *   `test2json` framing byte; JavaScript: imports vitest, jest or `node:test`): code under test
 *   has no business talking to the runner. Such changes are still applied — they may be
 *   legitimate — but the report shows them.
 *
 * Pure; no permissions needed.
 *
 * @module
 */

import type { PatchFile } from "../records.ts";
import type { PatchedText, TestRunner } from "../lang/mod.ts";
import { type FileChange, type PathRules, stateText } from "../testbed/mod.ts";
import type { PatchReview } from "./flags.ts";
import { changeVerb, gained, reviewedPaths } from "./review.ts";

/** What {@linkcode reviewRunnerPatch} needs of the runner. */
export type ReviewRunner = Pick<
  TestRunner,
  "language" | "name" | "isTestFile" | "isConfig" | "patchFlags"
>;

/** Skip markers a test file can gain, by language. */
const MARKERS = {
  go: /\.Skip(?:Now|f)?\(/g,
  node:
    /\b(?:it|test|describe|suite)\.(?:skip|todo|only|fails)\b|\bx(?:it|test|describe)\s*\(|\bf(?:it|describe)\s*\(|\{\s*(?:skip|todo|only)\s*:/g,
} as const;

/** Source that reaches the test framework, by language. */
const FRAMEWORK = {
  go: /"testing(?:\/[\w/]+)?"/g,
  node:
    /\bfrom\s*["'](?:vitest|@vitest\/[\w-]+|@jest\/globals|jest|node:test|test)["']|\b(?:require|import)\s*\(\s*["'](?:vitest|@vitest\/[\w-]+|@jest\/globals|jest|node:test)["']\s*\)/g,
} as const;

/** Go's test2json framing byte, written literally or as an escape. */
// deno-lint-ignore no-control-regex -- the byte itself is what is looked for
const FRAMING = /\x16|\\x16|\\026|\\u0016|\\U00000016/g;

/** Every changed path of a patch as the runner's `patchFlags` reads it. */
export function patchedTexts(changes: ReadonlyMap<string, FileChange>): PatchedText[] {
  return [...changes].filter(([, c]) => c.before.kind !== "absent" || c.after.kind !== "absent")
    .map(([path, c]) => ({
      path,
      before: stateText(c.before) ?? null,
      after: stateText(c.after) ?? null,
    }));
}

/**
 * Review a Go or JavaScript patch's files (`changes` holds each path before and after, from
 * `patchedFiles`). Paths are classified again with the runner's rules.
 */
export function reviewRunnerPatch(
  files: readonly PatchFile[],
  changes: ReadonlyMap<string, FileChange>,
  rules: PathRules & { runner: ReviewRunner },
): PatchReview {
  const { runner } = rules;
  const reasons = {
    config: `${runner.name} configuration: never applied when scoring`,
    test: "a test change: scoring runs the maintainers' tests",
    other: "outside the source directory: only source changes are applied",
  } as const;
  const flags: string[] = [];
  const ignored: PatchReview["ignored"] = [];
  for (const { path, kind, change } of reviewedPaths(files, changes, rules)) {
    if (kind === "source") {
      if (gained(change, FRAMEWORK[runner.language === "go" ? "go" : "node"])) {
        flags.push(`reaches the test framework from the source: ${path}`);
      }
      if (runner.language === "go" && gained(change, FRAMING)) {
        flags.push(`writes go test's framing byte from the source: ${path}`);
      }
      continue;
    }
    ignored.push({ path, reason: reasons[kind] });
    if (kind === "config") {
      flags.push(`${changeVerb(change)} ${path} (${runner.name} configuration)`);
    } else if (kind === "test" && change.before.kind === "file") {
      if (gained(change, MARKERS[runner.language === "go" ? "go" : "node"])) {
        flags.push(`adds skip markers to the repository's tests in ${path}`);
      }
    }
  }
  for (const finding of runner.patchFlags(patchedTexts(changes))) {
    flags.push(`${finding.what} (${finding.path})`);
  }
  return { flags: [...new Set(flags)], ignored };
}
