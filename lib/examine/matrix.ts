/**
 * The trees of one task's cross-examination and the matrix they make, in every language: B once
 * in full, side by side with every contestant's candidate (B and its source changes), then B's
 * repeats on only the rows whose stability can change a verdict; which cells of each tree run and
 * which are reused; and the saved matrices' readers.
 *
 * Requires `--allow-run` (git, cp, the sandbox, the runner), `--allow-read`, `--allow-write` and
 * `--allow-env`.
 *
 * @module
 */

import { join } from "node:path";
import { checkout } from "../checkout.ts";
import { BugboutError, InterruptedError } from "../errors.ts";
import { inputsKey } from "../hash.ts";
import type { RunnerEnv, TestRunner } from "../lang/mod.ts";
import type { Project } from "../project.ts";
import {
  type BoutAttempt,
  type CapabilityFinding,
  type GuardEvent,
  type Matrix,
  matrixSchema,
  nameOf,
  REPOSITORY,
  RESULTS_VERSION,
  type RunSummary,
  type Task,
} from "../records.ts";
import {
  applySourceChanges,
  assembleCells,
  type AuthorTests,
  cellKey,
  type GroupResult,
  hasCandidate,
  type Owner,
  Reuser,
  type RowOwner,
  RunLog,
  runOwners,
  type RunSettings,
  type TreeBuild,
  type TreeResult,
} from "../testbed/mod.ts";
import {
  type FileChangeReach,
  mergeSelected,
  selectSuite,
  type SuiteSelection,
} from "./selection.ts";

/** The directory of `.bugbout/` that holds one matrix per task. */
export const MATRICES_DIR = "matrices";

/** The file of a task's matrix, relative to `.bugbout/`. */
export function matrixFile(task: string): string {
  return `${MATRICES_DIR}/${task}.json`;
}

/** Read a task's saved matrix, or undefined when there is none. */
export function readMatrix(project: Project, task: string): Promise<Matrix | undefined> {
  return project.results.read(matrixFile(task), matrixSchema, "cross-examination");
}

/** Read the saved matrices of these tasks (tasks without one are left out). */
export async function readMatrices(project: Project, tasks: readonly string[]): Promise<Matrix[]> {
  const found: Matrix[] = [];
  for (const task of tasks) {
    const matrix = await readMatrix(project, task);
    if (matrix) found.push(matrix);
  }
  return found;
}

/** One tree as a matrix lists it. */
export type ExaminedTree = Matrix["trees"][number];

/** What {@linkcode examineTrees} needs: the task's runner, owners and how runs are made. */
export interface TreesContext {
  /** A working directory of the task's own (removed by the caller). */
  work: string;
  /** The matrix's inputs key. */
  inputsKey: string;
  /** B's runner and environment (every tree keeps B's dependency files). */
  runner: TestRunner;
  env: RunnerEnv;
  /** Every author, in the matrix's order (the repository's suite follows). */
  authors: readonly Pick<AuthorTests, "agent" | "role">[];
  /** Who runs on every tree, in order (each author with tests, then the suite). */
  owners: ReadonlyMap<string, RowOwner>;
  /** The key of how runs are made: a cell made another way is not reused. */
  sessions: string;
  settings: RunSettings;
  /** What B's repeats run, by owner. */
  repeatSelection(base: TreeResult, candidates: readonly TreeResult[]): Map<string, Set<string>>;
  /** Whose code an owner's tampering points to. */
  blame(events: readonly GuardEvent[], owner: string): ("author" | "tree")[];
  /** Called after every run. */
  onRun?: (run: RunSummary) => void;
  /** Called as every run starts, with its tree. */
  onStart?: (tree: string) => void;
  /** The task's last matrix: its cells whose keys stand are not run again. */
  previous?: Matrix;
  /**
   * The capability review of a contestant's patch against B (what its source uses that B's
   * package never did), put on its tree for the judge; absent: no review.
   */
  review?: (attempt: BoutAttempt["attempt"], patch: string) => Promise<CapabilityFinding[]>;
  /**
   * Test selection of the repository's suite (`selection.ts`): B's first run of it records
   * coverage, and each candidate runs only the tests its patch can change; absent: the whole suite
   * runs everywhere.
   */
  selection?: {
    /** Where an attempt's source changes reach (null: anywhere). */
    changes(attempt: BoutAttempt["attempt"], patches: BoutAttempt["patches"]): Promise<
      FileChangeReach[] | null
    >;
    /** Told of each candidate's selection (for counting what it saved). */
    onSelect?: (tree: string, selection: SuiteSelection) => void;
  };
  signal?: AbortSignal;
}

function treeStatus(groups: readonly GroupResult[]): Pick<ExaminedTree, "status" | "message"> {
  const main = groups.find((g) => g.owner === REPOSITORY) ?? groups[0];
  if (!main) return { status: "ok" };
  return { status: main.status, ...(main.message ? { message: main.message } : {}) };
}

/**
 * Cross-examine one task: build B and every contestant's candidate, run every owner's tests on
 * them and assemble the matrix. Never looks at G or at the hidden tests. Cells whose key stands in
 * `context.previous` are taken from it, and a tree none of whose cells must run is never built.
 */
export async function examineTrees(
  project: Project,
  task: Task,
  attempts: readonly BoutAttempt[],
  context: TreesContext,
): Promise<Matrix> {
  const { signal, owners, runner } = context;
  const paths = { packageDir: task.packageDir, runner };
  const reuse = new Reuser(context.previous?.reuse);
  const log = new RunLog(context.onRun, context.onStart);
  /** A cell's key; on a repeat of B that runs only some tests, those tests are part of it. */
  const keyOf = (tree: string, owner: string, ids?: ReadonlySet<string>) =>
    cellKey(
      tree,
      ids ? inputsKey([owners.get(owner)!.key, [...ids].sort()]) : owners.get(owner)!.key,
      context.sessions,
    );
  const dirOf = (tree: ExaminedTree) =>
    join(context.work, "trees", tree.id.replace(/[^A-Za-z0-9._-]+/g, "_"));
  /**
   * A tree's cells: those that must run are run on the tree `build` makes (also when `options.build`
   * is set), the rest reused; with `select`, only those tests of each owner. A tree that cannot be
   * made (a patch that does not apply) runs nothing.
   */
  const run = async (
    tree: ExaminedTree,
    treeKey: string,
    build: TreeBuild,
    options: {
      build?: boolean;
      select?: ReadonlyMap<string, ReadonlySet<string>>;
      cover?: string;
    } = {},
  ): Promise<TreeResult> => {
    const { select } = options;
    const names = [...owners.keys()].filter((o) => select?.get(o)?.size !== 0);
    const key = (owner: string) =>
      owner === options.cover
        ? keyOf(treeKey, owner, select?.get(owner)) + ":covered"
        : keyOf(treeKey, owner, select?.get(owner));
    const missing = names.filter((o) => !reuse.has(key(o)));
    const ran = missing.length > 0 || options.build
      ? await runOwners({
        dir: dirOf(tree),
        build,
        owners: missing.map((o) => owners.get(o)!),
        runner,
        env: context.env,
        settings: context.settings,
        select,
        onSession: log.on(tree.id),
        ...(options.cover ? { cover: options.cover } : {}),
        ...(selecting ? { first: REPOSITORY } : {}),
      })
      : [];
    if ("failed" in ran) {
      return { tree: { ...tree, status: "patch-failed", message: ran.failed }, groups: [] };
    }
    for (const g of ran) reuse.put(key(g.owner), g);
    const groups = names.flatMap((owner) =>
      ran.find((g) => g.owner === owner) ?? reuse.take(key(owner)) ?? []
    );
    return {
      tree: { ...tree, ...treeStatus(groups) },
      groups,
      ...(select ? { only: select } : {}),
    };
  };
  const checkoutBase: TreeBuild = async (dir) => {
    await checkout(project.repository, task.parent, dir, { home: project.home, signal });
    return { ok: true };
  };
  const baseKey = inputsKey({ tree: "B", parent: task.parent });
  const repeatKey = (i: number) => `${baseKey}#${i}`;
  const baseTree = (id: string): ExaminedTree => ({ id, kind: "base", status: "ok" });
  // B runs once in full, side by side with the candidates (which wait for it when selecting).
  const selecting = context.selection !== undefined && owners.has(REPOSITORY);
  const firstBase = run(
    baseTree("B"),
    repeatKey(0),
    checkoutBase,
    selecting ? { cover: REPOSITORY } : {},
  );
  /** What of the suite a candidate runs: undefined for all of it. */
  const suiteSelection = async (
    tree: string,
    attempt: BoutAttempt["attempt"],
    patches: BoutAttempt["patches"],
  ) => {
    if (!selecting) return undefined;
    const suite = (await firstBase).groups.find((g) => g.owner === REPOSITORY);
    const changes = await context.selection!.changes(attempt, patches).catch((error) => {
      // A patch that does not apply makes no tree: nothing of the suite runs there anyway.
      if (error instanceof BugboutError) return null;
      throw error;
    });
    const chosen = selectSuite(suite, changes, (id) => runner.fileOf(id));
    context.selection!.onSelect?.(tree, chosen);
    return "ids" in chosen ? { suite: suite!, ids: chosen.ids } : undefined;
  };
  const patchRuns = Promise.all(
    attempts.filter(({ attempt }) => hasCandidate(attempt, paths)).map(
      async ({ attempt, patches }): Promise<TreeResult> => {
        const suspect = await context.review?.(attempt, patches.full) ?? [];
        const tree: ExaminedTree = {
          id: nameOf(attempt),
          kind: "patch",
          agent: attempt.agent,
          status: "ok",
          ...(suspect.length > 0 ? { suspect } : {}),
        };
        // A candidate is B and its source changes: the patch and how paths are classified.
        const treeKey = inputsKey({
          parent: task.parent,
          patch: patches.full,
          files: attempt.files,
          packageDir: task.packageDir,
          tests: project.config.project.tests,
          language: runner.language,
        });
        const unit = `tree:${tree.id}`;
        const known = reuse.unitStands(unit, treeKey);
        reuse.unit(unit, treeKey);
        const before = context.previous?.trees.find((t) => t.id === tree.id);
        if (known && before?.status === "patch-failed") return { tree: before, groups: [] };
        const chosen = await suiteSelection(tree.id, attempt, patches);
        // A tree never made before is made even when no cell runs: to learn whether it applies.
        const result = await run(tree, treeKey, async (dir) => {
          await checkout(project.repository, task.parent, dir, { home: project.home, signal });
          return await applySourceChanges(dir, attempt, patches, paths, signal);
        }, { build: !known, ...(chosen ? { select: new Map([[REPOSITORY, chosen.ids]]) } : {}) });
        if (!chosen || result.tree.status === "patch-failed") return result;
        // The suite's tests not run here are as they were on B.
        const ran = result.groups.find((g) => g.owner === REPOSITORY);
        const merged = mergeSelected(chosen.suite, ran);
        const groups = [...result.groups.filter((g) => g !== ran), merged];
        return { tree: { ...result.tree, ...treeStatus(groups) }, groups };
      },
    ),
  );
  const settled = await Promise.allSettled([firstBase, patchRuns]);
  if (signal?.aborted) throw new InterruptedError();
  for (const s of settled) if (s.status === "rejected") throw s.reason;
  const first = await firstBase;
  const candidates = await patchRuns;
  // B's repeats, one after another, run only the tests whose stability can change a verdict.
  const select = context.repeatSelection(first, candidates);
  const repeats: TreeResult[] = [];
  for (let i = 1; i < project.config.tasks.reruns; i++) {
    repeats.push(await run(baseTree(`B#${i + 1}`), repeatKey(i), checkoutBase, { select }));
  }
  const results = [first, ...repeats, ...candidates];
  const listed: Owner[] = [
    ...context.authors.map((a) => ({ name: a.agent, role: a.role })),
    { name: REPOSITORY, role: "repository" as const },
  ];
  return {
    version: RESULTS_VERSION,
    kind: "matrix",
    task: task.id,
    inputsKey: context.inputsKey,
    trees: results.map((r) => r.tree),
    ...assembleCells(
      listed,
      results,
      (id) => runner.fileOf(id),
      (owner) => owners.get(owner)?.statically ?? [],
    ),
    tampering: results.flatMap((r) =>
      r.groups.filter((g) => g.tamper.length > 0 || g.suspect.length > 0).map((g) => ({
        tree: r.tree.id,
        author: g.owner,
        events: g.tamper,
        suspect: g.suspect,
        blame: context.blame(g.tamper, g.owner),
      }))
    ),
    runs: log.sorted(results.map((r) => r.tree.id)),
    reuse: reuse.saved(),
  };
}
