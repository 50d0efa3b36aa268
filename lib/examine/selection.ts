/**
 * Test selection for the repository's suite in cross-examination (`[judge] select-suite`): the
 * suite runs once in full on B with coverage by test (which functions of the tree's non-test files
 * each test started, and what ran outside any one test), and on each candidate only the suite's
 * tests a patch can change run; every other test's cell on the candidate is its cell on B.
 *
 * A patch's tests are those that reached a function whose body it changes, and every test that
 * did not pass on B (or that coverage says nothing of). The whole suite runs instead when the
 * patch changes anything else: a file the runner cannot read by function (not `.py`), a module's
 * skeleton (imports, module-level statements, class bodies, a function's decorators, signature or
 * defaults), a file it adds, deletes or renames, a link, or a function that ran outside any one test
 * (at import or collection, or in a fixture wider than a function); or when B's run of the suite
 * did not end plainly `ok` with whole coverage. Coverage is only ever gathered on B, which no
 * agent writes, by the guard (`_covering` in `lib/lang/python/_guard.ts`).
 *
 * Requires `--allow-run` (git, the interpreter), `--allow-read` and `--allow-write` (a scratch
 * directory) for {@linkcode patchChanges}; the rest is pure.
 *
 * @module
 */

import type { RunnerEnv, TestRunner } from "../lang/mod.ts";
import type { Attempt, AttemptPatches, GuardEvent, Outcome } from "../records.ts";
import {
  type GroupResult,
  patchedFiles,
  type PathRules,
  sourcePaths,
  stateText,
} from "../testbed/mod.ts";

/** Where a patch's change to one source file can be felt (see the module's documentation). */
export interface FileChangeReach {
  /** The file's path. */
  path: string;
  /** Line ranges (in B) of the functions whose bodies alone it changes; null: it may reach more. */
  ranges: readonly (readonly [number, number])[] | null;
}

/** Which of the suite's tests to run on a candidate: some (by id or file), or all and why. */
export type SuiteSelection = { ids: Set<string> } | { full: string };

/**
 * The suite's tests a patch can change (see the module's documentation), from B's run of the suite
 * and where the patch's changes reach. Ids of parametrised tests are given by their file, which
 * any runner takes as a target. Pure.
 */
export function selectSuite(
  base: GroupResult | undefined,
  changes: readonly FileChangeReach[] | null,
  fileOf: (id: string) => string,
): SuiteSelection {
  if (!base || base.status !== "ok") return { full: "the suite did not run plainly on B" };
  const coverage = base.coverage;
  if (!coverage) return { full: "no coverage of the suite on B" };
  if (changes === null) return { full: "the patch adds, removes or renames a file" };
  const reach = new Map<string, (readonly [number, number])[]>();
  for (const change of changes) {
    if (change.ranges === null) return { full: `${change.path} changes more than function bodies` };
    reach.set(change.path, [...reach.get(change.path) ?? [], ...change.ranges]);
  }
  const hit = new Set<number>();
  for (const [i, location] of coverage.locations.entries()) {
    const at = location.lastIndexOf(":");
    const ranges = reach.get(location.slice(0, at));
    const line = Number(location.slice(at + 1));
    if (ranges?.some(([start, end]) => start <= line && line <= end)) hit.add(i);
  }
  if (coverage.outside.some((i) => hit.has(i))) {
    return { full: "a changed function ran outside any one test on B" };
  }
  const ids = new Set<string>();
  for (const [id, outcome] of base.outcomes) {
    const reached = coverage.tests[id];
    if (outcome !== "passed" || reached === undefined || reached.some((i) => hit.has(i))) {
      ids.add(id.includes("[") ? fileOf(id) : id);
    }
  }
  return { ids };
}

/**
 * Where an attempt's source changes reach, read by the runner (`TestRunner.changedCode`); null
 * when it adds, removes or renames a file, touches a link or binary, or the runner cannot read
 * changes by function.
 */
export async function patchChanges(
  attempt: Attempt,
  patches: AttemptPatches,
  context: {
    base: string;
    rules: PathRules;
    runner: TestRunner;
    env: RunnerEnv;
    scratch: string;
    signal?: AbortSignal;
  },
): Promise<FileChangeReach[] | null> {
  const { runner } = context;
  if (!runner.changedCode) return null;
  const source = new Set(sourcePaths(attempt.files, context.rules));
  const files = attempt.files.filter((f) => source.has(f.path) || source.has(f.oldPath ?? ""));
  if (files.some((f) => f.change !== "modified" || f.binary || f.symlink)) return null;
  const patch = patches.full.trim() ? patches.full : patches.source;
  const states = await patchedFiles(context.base, patch, attempt.files, {
    scratch: context.scratch,
    signal: context.signal,
  });
  const texts: { path: string; before: string; after: string }[] = [];
  for (const f of files) {
    const state = states.get(f.path);
    const before = state && stateText(state.before);
    const after = state && stateText(state.after);
    if (before === undefined || after === undefined) return null;
    if (before !== after) texts.push({ path: f.path, before, after });
  }
  const reach = await runner.changedCode(texts, context.env, context.signal);
  return texts.map((t, i) => ({ path: t.path, ranges: reach[i] }));
}

/**
 * A candidate's cell of the suite from what ran there on selection: B's outcomes, with every
 * outcome the run reported in their place, and B's events worth a look beside the run's (the tests
 * not run would have raised them again).
 */
export function mergeSelected(base: GroupResult, ran: GroupResult | undefined): GroupResult {
  const { coverage: _, ...onBase } = base;
  if (!ran) return { ...onBase, outcomes: new Map(base.outcomes) };
  const { coverage: __, ...rest } = ran;
  // A run that did not end plainly stands as it is, as it would have in full.
  if (ran.status !== "ok") return rest;
  const outcomes = new Map<string, Outcome>(base.outcomes);
  for (const [id, outcome] of ran.outcomes) outcomes.set(id, outcome);
  const seen = new Set(ran.suspect.map((e) => JSON.stringify(e)));
  const suspect: GuardEvent[] = [
    ...ran.suspect,
    ...base.suspect.filter((e) => !seen.has(JSON.stringify(e))),
  ];
  return { ...rest, outcomes, suspect };
}
