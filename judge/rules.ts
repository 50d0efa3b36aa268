/**
 * The judge's rules as plain facts about one cross-examination matrix: which tests reproduce the
 * bug (rule 1), which authors are independent of a patch (rule 2), and which broken repository
 * tests count against a patch (rule 3). Rule 4 (abstain) lives in the policies and the pick.
 *
 * Pure functions; no permissions needed.
 *
 * @module
 */

import { agentOfName, type Matrix, type Outcome, type Tampering } from "../lib/records.ts";

/** A tree of the matrix: a B repeat or a contestant's patch. */
export type MatrixTree = Matrix["trees"][number];
/** A test of the matrix and who wrote it. */
export type MatrixTest = Matrix["tests"][number];

/** Whether an outcome counts as failing: `failed` or `error` (never skipped, xfailed, not-run). */
export function isFailing(outcome: Outcome): boolean {
  return outcome === "failed" || outcome === "error";
}

/** The outcome of `test` on `tree`; a cell the matrix lacks is `not-run`. */
export function cellOf(matrix: Matrix, test: string, tree: string): Outcome {
  return matrix.cells[test]?.[tree] ?? "not-run";
}

/** The agent a patch tree belongs to: its `agent`, or its id when that is absent. */
export function patchAuthor(tree: MatrixTree): string {
  return tree.agent ?? tree.id;
}

/**
 * What the rules need to know about a matrix, computed once.
 *
 * - `baseRuns`: B repeats whose tree ran (`status: "ok"`). A repeat that did not run says nothing
 *   about any test, so it is left out rather than counted as a failure or a pass.
 * - `reproductions` (rule 1): agent-written tests (contestant or examiner; never the repository's)
 *   that are not unstable on B and fail (`failed`/`error`) on every B repeat that ran. Empty when
 *   no B repeat ran.
 * - `repositoryGuards`: repository tests, stable on B, that pass on every B repeat that ran: the
 *   tests whose breakage rule 3 weighs.
 * - `examinerGuards`: examiners' tests, stable on B, that pass on every B repeat that ran: the
 *   behaviour the issue does not ask to change, which the `strict` policy protects.
 * - `patches`: every patch tree, in matrix order; `ranPatches` only those with `status: "ok"`
 *   whose code neither tampered with the grading nor is suspect (the capability review).
 */
export interface MatrixFacts {
  /** The matrix the facts describe. */
  matrix: Matrix;
  /** B repeats that ran. */
  baseRuns: MatrixTree[];
  /** Rule 1: agent-written tests that fail on every B repeat that ran. */
  reproductions: MatrixTest[];
  /** Repository tests that pass on every B repeat that ran. */
  repositoryGuards: MatrixTest[];
  /** Examiners' tests that pass on every B repeat that ran. */
  examinerGuards: MatrixTest[];
  /** Every patch tree. */
  patches: MatrixTree[];
  /** Patch trees that ran. */
  ranPatches: MatrixTree[];
  /** Who interfered with the grading (see {@linkcode tamperers}). */
  tamperers: Tamperers;
}

/** Trees whose code, and authors whose tests, interfered with the grading, and how. */
export interface Tamperers {
  /** Tree id → what its code did (it did so in every session on it, whoever's tests ran). */
  trees: Map<string, Tampering["events"]>;
  /** Author → what its tests did (in a session on a tree that is not itself to blame). */
  authors: Map<string, Tampering["events"]>;
}

/**
 * Who interfered with the grading, from the files the guard's evidence points to (see
 * `Tampering.blame`): an author's own test files blame the author, the tree's code blames the
 * candidate whose tree it is (B's code, the maintainers', blames nobody).
 */
export function tamperers(matrix: Matrix): Tamperers {
  const found = (matrix.tampering ?? []).filter((t) => t.events.length > 0);
  const patches = new Set(matrix.trees.filter((t) => t.kind === "patch").map((t) => t.id));
  const trees = new Map<string, Tampering["events"]>();
  const authors = new Map<string, Tampering["events"]>();
  const blame = (map: Map<string, Tampering["events"]>, key: string, t: Tampering) =>
    map.set(key, [...(map.get(key) ?? []), ...t.events]);
  const bases = new Set(matrix.trees.filter((t) => t.kind === "base").map((t) => t.id));
  const same = (a: Tampering["events"][number], b: Tampering["events"][number]) =>
    a.what === b.what && a.where === b.where;
  // What an author's tests did on B, whose code is the maintainers': theirs, not any tree's.
  const onBase = (t: Tampering) =>
    found.some((o) =>
      bases.has(o.tree) && o.author === t.author &&
      t.events.every((e) => o.events.some((b) => same(e, b)))
    );
  for (const t of found) {
    // An event that names no file (a forged line on the results channel, a file of the tree
    // changed) is decided by comparing with B: what an author's session does on B as well is
    // that author's tests' doing (the repository's: the suite's own behaviour, nobody's
    // tampering); else it is the tree's when the repository's session or another session on the
    // same tree suffered it too.
    const shared = found.filter((o) => o.tree === t.tree);
    const whose = t.blame?.length
      ? t.blame
      : bases.has(t.tree) || onBase(t)
      ? ["author"]
      : shared.length >= 2 || shared.some((o) => o.author === "repository")
      ? ["tree"]
      : ["author"];
    if (whose.includes("tree") && patches.has(t.tree)) blame(trees, t.tree, t);
    if (whose.includes("author") && t.author !== "repository") blame(authors, t.author, t);
  }
  return { trees, authors };
}

/** The first thing a tamperer did, in words: "changed pytest's reporting machinery (x.py:3)". */
export function firstTampering(events: Tampering["events"]): string {
  const e = events[0];
  if (!e) return "interfered with the grading";
  const where = [e.where, e.detail].filter(Boolean).join(": ");
  return where ? `${e.what} (${where})` : e.what;
}

/** Collect the {@linkcode MatrixFacts} of a matrix. */
export function matrixFacts(matrix: Matrix): MatrixFacts {
  const baseRuns = matrix.trees.filter((t) => t.kind === "base" && t.status === "ok");
  const unstable = new Set(matrix.unstableOnB);
  // A repeat of B that did not run a test on purpose (it passed everywhere) has no cell for it.
  const onBase = (test: MatrixTest, accept: (o: Outcome) => boolean) => {
    const row = matrix.cells[test.id] ?? {};
    const ran = baseRuns.filter((tree) => row[tree.id] !== undefined);
    return ran.length > 0 && !unstable.has(test.id) && ran.every((tree) => accept(row[tree.id]));
  };
  const passes = (o: Outcome) => o === "passed";
  const patches = matrix.trees.filter((t) => t.kind === "patch");
  const blamed = tamperers(matrix);
  // Tests by an author that tampered with the grading are no evidence anywhere.
  const honest = (t: MatrixTest) => !blamed.authors.has(t.author);
  return {
    matrix,
    baseRuns,
    tamperers: blamed,
    reproductions: matrix.tests.filter((t) =>
      t.authorRole !== "repository" && honest(t) && onBase(t, isFailing)
    ),
    repositoryGuards: matrix.tests.filter((t) =>
      t.authorRole === "repository" && onBase(t, passes)
    ),
    examinerGuards: matrix.tests.filter((t) =>
      t.authorRole === "examiner" && honest(t) && onBase(t, passes)
    ),
    patches,
    // A suspect patch's behaviour (its code reaches what B's never did) is no quorum either.
    ranPatches: patches.filter((t) =>
      t.status === "ok" && !blamed.trees.has(t.id) && !t.suspect?.length
    ),
  };
}

/** Rule 2: a test's author may support a patch only when it is not the patch's own agent. */
export function isOtherAuthor(test: MatrixTest, patch: MatrixTree): boolean {
  // An agent's repeats are the same agent: `codex#2` never vouches for `codex`'s patch.
  return agentOfName(test.author) !== patchAuthor(patch);
}

/** A repository test that passes on B but not on a patch, and how the other patches fared. */
export interface Breakage {
  /** The repository test. */
  test: MatrixTest;
  /** Its outcome on the patch (anything but `passed`). */
  outcome: Outcome;
  /** Other patches that ran and keep the test passing. */
  keptBy: string[];
  /** How many of `others` keep the test passing (identical patches count once). */
  kept: number;
  /** Other distinct patches that ran, in all (identical patches count once). */
  others: number;
  /** Rule 3: whether it counts against the patch (more than half of `others` keep it passing). */
  counted: boolean;
}

/**
 * Rule 3: every repository guard (see {@linkcode MatrixFacts}) the patch does not keep passing,
 * with the quorum decision. A breakage counts against the patch only when strictly more than half
 * of the *other* patches whose trees ran keep the test passing; with no other patch that ran there
 * is no quorum and nothing counts, because nothing shows whether the issue asked for the change.
 * Any outcome but `passed` (failed, error, skipped, xfailed, not-run) is "not passing".
 *
 * Identical patches (the same `fingerprints`, see `patchFingerprint`) are one patch in the quorum:
 * three agents shipping one change are one opinion about what the issue asks, and a patch's twins
 * are not "other" patches at all. A group keeps a test passing when most of its trees do.
 */
export function breakages(
  facts: MatrixFacts,
  patch: MatrixTree,
  fingerprints: Readonly<Record<string, string>> = {},
): Breakage[] {
  const { matrix } = facts;
  const own = fingerprints[patch.id];
  const groups = new Map<string, MatrixTree[]>();
  for (const t of facts.ranPatches) {
    if (t.id === patch.id) continue;
    const print = fingerprints[t.id];
    if (own !== undefined && print === own) continue;
    const key = print === undefined ? `tree\0${t.id}` : `print\0${print}`;
    groups.set(key, [...(groups.get(key) ?? []), t]);
  }
  const found: Breakage[] = [];
  for (const test of facts.repositoryGuards) {
    const outcome = cellOf(matrix, test.id, patch.id);
    if (outcome === "passed") continue;
    const keeps = (t: MatrixTree) => cellOf(matrix, test.id, t.id) === "passed";
    const kept = [...groups.values()].filter((g) => 2 * g.filter(keeps).length > g.length);
    found.push({
      test,
      outcome,
      keptBy: [...groups.values()].flat().filter(keeps).map((t) => t.id),
      kept: kept.length,
      others: groups.size,
      counted: 2 * kept.length > groups.size,
    });
  }
  return found;
}

/** Examiner guards the patch does not keep passing (the `strict` policy rejects on any). */
export function examinerBreakages(
  facts: MatrixFacts,
  patch: MatrixTree,
): { test: MatrixTest; outcome: Outcome }[] {
  return facts.examinerGuards
    .map((test) => ({ test, outcome: cellOf(facts.matrix, test.id, patch.id) }))
    .filter((b) => b.outcome !== "passed");
}

/**
 * Whether two trees behave alike on every test that is stable on B: the same outcome everywhere,
 * with `failed` and `error` taken as one. Returns the ids of the tests where they differ.
 */
export function differingTests(matrix: Matrix, a: string, b: string): string[] {
  const unstable = new Set(matrix.unstableOnB);
  const norm = (o: Outcome) => (o === "error" ? "failed" : o);
  return matrix.tests
    .filter((t) => !unstable.has(t.id))
    .filter((t) => norm(cellOf(matrix, t.id, a)) !== norm(cellOf(matrix, t.id, b)))
    .map((t) => t.id);
}
