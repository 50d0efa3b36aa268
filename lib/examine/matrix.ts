/**
 * What cross-examination is in every language, written once: the stage (which tasks, their saved
 * matrices, when one stands, how it is saved, the summary), the trees of a task (B, its repeats,
 * every contestant's candidate) and which of their cells run or are reused, and the matrix they
 * make. What differs per language comes in a {@linkcode MatrixMaker}: how the owners' tests are
 * read and installed, and how they run on a tree (Python's in `mod.ts`, a Go or JavaScript
 * project's in `runner.ts`).
 *
 * Requires `--allow-run` (git, cp, the sandbox, the test tools), `--allow-read`, `--allow-write`
 * and `--allow-env`.
 *
 * @module
 */

import { checkout } from "../checkout.ts";
import { InterruptedError } from "../errors.ts";
import { inputsKey } from "../hash.ts";
import { readOracles } from "../oracle/mod.ts";
import type { Project } from "../project.ts";
import type { TestEnv } from "../lang/python/mod.ts";
import { readAttempts } from "../race/mod.ts";
import {
  type BoutAttempt,
  type Matrix,
  matrixSchema,
  nameOf,
  REPOSITORY,
  RESULTS_VERSION,
  type RunSummary,
  type Task,
} from "../records.ts";
import type { Sandbox } from "../sandbox/types.ts";
import {
  applySourceChanges,
  assembleCells,
  attemptsFingerprint,
  cellKey,
  type GroupResult,
  hasCandidate,
  type Owner,
  type PathRules,
  Reuser,
  reuseSummary,
  runTaskStage,
  type Slots,
  type StageOptions,
  type TreeResult,
} from "../testbed/mod.ts";
import { plural } from "../words.ts";

/** The directory of `.bugbout/` that holds one matrix per task. */
export const MATRICES_DIR = "matrices";

/** The file of a task's matrix, relative to `.bugbout/`. */
function matrixFile(task: string): string {
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

/**
 * What cross-examining one task needs besides the task; `E` is the test environment (Python's, or
 * a Go or JavaScript project's runners).
 */
export interface ExamineContext<E = TestEnv> {
  /** The sandbox every run happens in. */
  sandbox: Sandbox;
  /** The test environment. */
  env: E;
  /** A working directory of the task's own (removed by the caller). */
  work: string;
  /** Bounds runs across tasks; by default `[run] jobs` for this task alone. */
  slots?: Slots;
  /** Called after every run. */
  onRun?: (run: RunSummary) => void;
  /** Called as every run starts, with its tree. */
  onStart?: (tree: string) => void;
  /** Stop: runs in flight are killed, then {@linkcode InterruptedError} is thrown. */
  signal?: AbortSignal;
  /** The task's last matrix: its cells whose keys stand are not run again. */
  previous?: Matrix;
}

/** Options for the examine stage (`E` as in {@linkcode ExamineContext}). */
export type ExamineOptions<E = TestEnv> = StageOptions<Matrix, E>;

/** What the examine stage did. */
export interface ExamineStage {
  /** The matrices of the tasks examined (new or reused), in task order. */
  matrices: Matrix[];
  /** One line for a person. */
  summary: string;
}

/** What decides a task's matrix in every language; each adds what shapes its own runs. */
export function matrixInputs(project: Project, task: Task, attempts: readonly BoutAttempt[]) {
  const c = project.config;
  return {
    task: task.id,
    commit: task.commit,
    parent: task.parent,
    tests: c.project.tests,
    agents: project.agents.map((a) => [a.name, a.role]),
    attempts: attemptsFingerprint(attempts),
    runSuite: c.judge.runSuite,
  };
}

/** Builds a tree in a directory: B, or a candidate (false when its changes do not apply). */
export type TreeBuild = (dir: string) => Promise<{ ok: true } | { ok: false; message: string }>;

/** The rows a tree runs for each owner when it runs only some of them (a repeat of B). */
export type RowSelection = ReadonlyMap<string, ReadonlySet<string>>;

/** How one language cross-examines one task, once its owners' tests are read. */
export interface MatrixMaker {
  /** The matrix's inputs key. */
  inputsKey: string;
  /** How the candidates' source changes are told from the rest. */
  paths: PathRules;
  /** What a candidate tree's key holds besides its parent, patch and files. */
  treeInputs: Record<string, unknown>;
  /** Every author, in the matrix's order (the repository's suite follows). */
  authors: readonly { agent: string; role: Owner["role"] }[];
  /** Who runs on every tree, in order (each author with tests, then the suite): each one's key. */
  owners: ReadonlyMap<string, string>;
  /** The key of how runs are made: a cell made another way is not reused. */
  sessions: string;
  /** Where a tree is built; `n` numbers the candidates. */
  treeDir(tree: ExaminedTree, n?: number): string;
  /**
   * Build the tree in `dir` with `build` and run these owners on it (with `select`, only those
   * rows of each); or say why it cannot be made.
   */
  runTree(
    tree: ExaminedTree,
    dir: string,
    build: TreeBuild,
    owners: string[],
    select?: RowSelection,
  ): Promise<GroupResult[] | { failed: string }>;
  /** What B's repeats run, by owner (see `repeatSelection` in `mod.ts`). */
  repeatSelection(base: TreeResult, candidates: readonly TreeResult[]): Map<string, Set<string>>;
  /** The trees' results as their cells are assembled (by default as they ran). */
  filled?(results: readonly TreeResult[], owners: readonly Owner[]): TreeResult[];
  /** Whose code a group's tampering points to. */
  blame(group: GroupResult): ("author" | "tree")[];
  /** Every run so far, in the order of `trees`. */
  runs(trees: readonly string[]): RunSummary[];
}

function treeStatus(groups: readonly GroupResult[]): Pick<ExaminedTree, "status" | "message"> {
  const main = groups.find((g) => g.owner === REPOSITORY) ?? groups[0];
  if (!main) return { status: "ok" };
  return { status: main.status, ...(main.message ? { message: main.message } : {}) };
}

/**
 * Cross-examine one task with what `maker` says of its language: build B and every contestant's
 * candidate, run every owner's tests on them and assemble the matrix. Never looks at G or at the
 * hidden tests. Cells whose key stands in `context.previous` are taken from it, and a tree none of
 * whose cells must run is never built.
 */
export async function examineWith(
  project: Project,
  task: Task,
  attempts: readonly BoutAttempt[],
  context: ExamineContext<unknown>,
  maker: MatrixMaker,
): Promise<Matrix> {
  const { signal } = context;
  const c = project.config;
  const { owners, paths } = maker;
  const reuse = new Reuser(context.previous?.reuse);
  /** A cell's key; on a repeat of B that runs only some tests, those tests are part of it. */
  const keyOf = (tree: string, owner: string, ids?: ReadonlySet<string>) =>
    cellKey(
      tree,
      ids ? inputsKey([owners.get(owner)!, [...ids].sort()]) : owners.get(owner)!,
      maker.sessions,
    );
  /**
   * A tree's cells: those that must run are run on the tree `build` makes (also when `options.build`
   * is set), the rest reused; with `select`, only those tests of each owner. A tree that cannot be
   * made (a patch that does not apply) runs nothing.
   */
  const run = async (
    tree: ExaminedTree,
    treeKey: string,
    dir: string,
    build: TreeBuild,
    options: { build?: boolean; select?: RowSelection } = {},
  ): Promise<TreeResult> => {
    const { select } = options;
    const names = [...owners.keys()].filter((o) => select?.get(o)?.size !== 0);
    const key = (owner: string) => keyOf(treeKey, owner, select?.get(owner));
    const missing = names.filter((o) => !reuse.has(key(o)));
    const ran = missing.length > 0 || options.build
      ? await maker.runTree(tree, dir, build, missing, select)
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
  // B runs once in full, side by side with the candidates.
  const firstBase = run(baseTree("B"), repeatKey(0), maker.treeDir(baseTree("B")), checkoutBase);
  const patchRuns = Promise.all(
    attempts.filter(({ attempt }) => hasCandidate(attempt, paths)).map(
      async ({ attempt, patches }, n): Promise<TreeResult> => {
        const tree: ExaminedTree = {
          id: nameOf(attempt),
          kind: "patch",
          agent: attempt.agent,
          status: "ok",
        };
        // A candidate is B and its source changes: the patch and how paths are classified.
        const treeKey = inputsKey({
          parent: task.parent,
          patch: patches.full,
          files: attempt.files,
          ...maker.treeInputs,
        });
        const unit = `tree:${tree.id}`;
        const known = reuse.unitStands(unit, treeKey);
        reuse.unit(unit, treeKey);
        const before = context.previous?.trees.find((t) => t.id === tree.id);
        if (known && before?.status === "patch-failed") return { tree: before, groups: [] };
        // A tree never made before is made even when no cell runs: to learn whether it applies.
        return await run(tree, treeKey, maker.treeDir(tree, n), async (dir) => {
          await checkout(project.repository, task.parent, dir, { home: project.home, signal });
          return await applySourceChanges(dir, attempt, patches, paths, signal);
        }, { build: !known });
      },
    ),
  );
  const settled = await Promise.allSettled([firstBase, patchRuns]);
  if (signal?.aborted) throw new InterruptedError();
  for (const s of settled) if (s.status === "rejected") throw s.reason;
  const first = await firstBase;
  const candidates = await patchRuns;
  // B's repeats, one after another, run only the tests whose stability can change a verdict.
  const select = maker.repeatSelection(first, candidates);
  const repeats: TreeResult[] = [];
  for (let i = 1; i < c.tasks.reruns; i++) {
    const tree = baseTree(`B#${i + 1}`);
    repeats.push(await run(tree, repeatKey(i), maker.treeDir(tree), checkoutBase, { select }));
  }
  const results = [first, ...repeats, ...candidates];
  const listed: Owner[] = [
    ...maker.authors.map((a) => ({ name: a.agent, role: a.role })),
    { name: REPOSITORY, role: "repository" as const },
  ];
  return {
    version: RESULTS_VERSION,
    kind: "matrix",
    task: task.id,
    inputsKey: maker.inputsKey,
    trees: results.map((r) => r.tree),
    ...assembleCells(listed, maker.filled?.(results, listed) ?? results),
    tampering: results.flatMap((r) =>
      r.groups.filter((g) => g.tamper.length > 0 || g.suspect.length > 0).map((g) => ({
        tree: r.tree.id,
        author: g.owner,
        events: g.tamper,
        suspect: g.suspect,
        blame: maker.blame(g),
      }))
    ),
    runs: maker.runs(results.map((r) => r.tree.id)),
    reuse: reuse.saved(),
  };
}

/** How one language's examine stage reads and runs a task. */
export interface ExamineLanguage<E> {
  /** Make the stage's test environment (default: Python's). */
  environment?(): Promise<E>;
  /** A task's matrix inputs key. */
  key(task: Task, attempts: BoutAttempt[], env: E): string;
  /** How many candidates a task's attempts make, for progress. */
  candidates(task: Task, attempts: readonly BoutAttempt[]): number;
  /** Cross-examine one task. */
  examine(task: Task, attempts: BoutAttempt[], context: ExamineContext<E>): Promise<Matrix>;
  /** What its runs are called in the summary (`pytest session`). */
  runs: string;
}

/**
 * The examine stage in any language: cross-examine the scorable ones among `tasks` that have at
 * least one attempt by a configured agent, and save each matrix in `.bugbout/matrices/<task>.json`
 * as it is done.
 */
export async function runExamineStage<E>(
  project: Project,
  tasks: readonly Task[],
  options: ExamineOptions<E>,
  language: ExamineLanguage<E>,
): Promise<ExamineStage> {
  const oracles = (await readOracles(project)).oracles;
  const scorable = tasks.filter((t) => oracles[t.id]?.status === "scorable");
  const saved = new Map<string, Matrix | undefined>();
  const stage = await runTaskStage<BoutAttempt[], Matrix, E>(project, scorable, {
    name: "examine",
    ...(language.environment ? { environment: language.environment } : {}),
    inputs: async (task) => {
      const attempts = await readAttempts(project, task.id);
      saved.set(task.id, await readMatrix(project, task.id));
      return attempts.length > 0 ? attempts : "no attempts";
    },
    key: (task, attempts, env) => language.key(task, attempts, env),
    saved: (task) => saved.get(task.id),
    reusable: (matrix) => !matrix.trees.some((t) => t.status === "infra-error"),
    trees: (task, attempts) => project.config.tasks.reruns + language.candidates(task, attempts),
    run: (task, attempts, context) =>
      language.examine(task, attempts, { ...context, previous: saved.get(task.id) }),
    save: (task, matrix) => project.results.write(matrixFile(task.id), matrix),
  }, options);
  const matrices = [...stage.results.values()];
  const made = matrices.filter((m) => stage.made.has(m.task));
  return {
    matrices,
    summary: `${plural(matrices.length, "matrix", "matrices")} (${made.length} new, ${
      matrices.length - made.length
    } unchanged): ${reuseSummary(made.map((m) => m.reuse))}, ${
      plural(stage.sessions, language.runs)
    }`,
  };
}
