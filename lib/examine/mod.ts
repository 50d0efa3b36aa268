/**
 * Cross-examination: before anything looks at the hidden tests or the gold fix, every test written
 * by every author — each contestant's regression tests, each examiner's tests — runs on B (no
 * patch, `[tasks] reruns` times) and on every contestant's candidate, and the repository's own
 * suite runs on all of them too (`[judge] run-suite`). The cost is one pytest session per tree,
 * plus one per tree for each author that wrote configuration of its own (see `authors.ts`), not
 * one per cell. The result, `matrices/<task>.json`, is what the judge reads.
 *
 * Each task's matrix is written atomically as soon as it is done, and is not computed again while
 * its inputs (the task, the attempts, the settings) are unchanged; a matrix with a tree that hit an
 * infrastructure error is always computed again.
 *
 * Only tasks whose ground truth is scorable are examined.
 *
 * Requires `--allow-run` (git, cp, the sandbox, the interpreter), `--allow-read`, `--allow-write`
 * (the results directory, `BUGBOUT_HOME`) and `--allow-env`.
 *
 * @module
 */

import { join } from "node:path";
import { cachedTree, checkout, listFiles } from "../checkout.ts";
import { InterruptedError } from "../errors.ts";
import { inputsKey } from "../hash.ts";
import { readOracles } from "../oracle/mod.ts";
import type { Project } from "../project.ts";
import { type GuardEvent, isTestModule, type TestEnv } from "../python/mod.ts";
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
  type AuthorTests,
  cellKey,
  cellOn,
  type GroupResult,
  hasCandidate,
  type Owner,
  type PreparedTree,
  prepareTree,
  Reuser,
  reuseSummary,
  rowIds,
  RunLog,
  runPrepared,
  runTaskStage,
  sessionInputs,
  sessionSettings,
  Slots,
  type StageOptions,
  taskAuthors,
  taskPathRules,
  type TreeResult,
  treeRules,
  TreeRunners,
} from "../testbed/mod.ts";
import { plural } from "../words.ts";
import { examineRunnerTask, runnerMatrixInputsKey } from "./runner.ts";

export {
  examineRunnerTask,
  type RunnerExamineContext,
  runnerMatrixInputsKey,
  runnerPathRules,
} from "./runner.ts";

/** The directory of `.bugbout/` that holds one matrix per task. */
export const MATRICES_DIR = "matrices";

/** Bumped when the way matrices are made changes, so saved ones are recomputed. */
const EXAMINE_RULES = 2;

/** What {@linkcode examineTask} needs besides the task. */
export interface ExamineContext {
  /** The sandbox every session runs in. */
  sandbox: Sandbox;
  /** The test environment. */
  env: TestEnv;
  /** A working directory of the task's own (removed by the caller). */
  work: string;
  /** Bounds sessions across tasks; by default `[run] jobs` for this task alone. */
  slots?: Slots;
  /** Called after every pytest session. */
  onRun?: (run: RunSummary) => void;
  /** Called as every pytest session starts, with its tree. */
  onStart?: (tree: string) => void;
  /** Stop: sessions in flight are killed, then {@linkcode InterruptedError} is thrown. */
  signal?: AbortSignal;
  /** The task's last matrix: its cells whose keys stand are not run again. */
  previous?: Matrix;
}

/** The inputs that decide a task's matrix; a saved matrix with the same key is reused. */
export function matrixInputsKey(
  project: Project,
  task: Task,
  attempts: readonly BoutAttempt[],
  env: TestEnv,
): string {
  const c = project.config;
  return inputsKey({
    rules: EXAMINE_RULES,
    task: task.id,
    commit: task.commit,
    parent: task.parent,
    packageDir: task.packageDir,
    pythonPath: task.pythonPath,
    tests: c.project.tests,
    agents: project.agents.map((a) => [a.name, a.role]),
    attempts: attemptsFingerprint(attempts),
    runSuite: c.judge.runSuite,
    ...sessionInputs(project, env),
  });
}

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

type MatrixTree = Matrix["trees"][number];

function treeStatus(groups: readonly GroupResult[]): Pick<MatrixTree, "status" | "message"> {
  const main = groups.find((g) => g.owner === REPOSITORY) ?? groups[0];
  if (!main) return { status: "ok" };
  return { status: main.status, ...(main.message ? { message: main.message } : {}) };
}

/** The key of how a task's sessions run: a cell made another way is not reused. */
function sessionsKey(project: Project, task: Task, env: TestEnv): string {
  return inputsKey({
    rules: EXAMINE_RULES,
    task: [task.packageDir, task.pythonPath],
    tests: project.config.project.tests,
    ...sessionInputs(project, env),
  });
}

/**
 * Cross-examine one task: build B and every contestant's candidate, install every author's tests,
 * run the sessions and assemble the matrix. Never looks at G or at the hidden tests. Cells whose
 * key stands in `context.previous` are taken from it, and a tree none of whose cells must run is
 * never built.
 */
export async function examineTask(
  project: Project,
  task: Task,
  attempts: readonly BoutAttempt[],
  context: ExamineContext,
): Promise<Matrix> {
  const { signal, work } = context;
  const c = project.config;
  const base = await cachedTree(project.repository, task.parent, { home: project.home, signal });
  const rules = await treeRules(base);
  const authors = await taskAuthors(project, attempts, {
    base,
    python: context.env.python,
    rules,
    scratch: join(work, "scratch"),
    signal,
  });
  const suite = c.judge.runSuite
    ? (await listFiles(project.repository, task.parent, [c.project.tests]))
      .filter((p) => isTestModule(p, rules))
    : [];
  const reuse = new Reuser(context.previous?.reuse);
  const sessions = sessionsKey(project, task, context.env);
  // Who runs on every tree: each author with tests, then the repository's suite.
  const runners = new Map<string, { key: string; author?: AuthorTests }>();
  for (const a of authors) {
    if (!a.problem && a.modules.length > 0) runners.set(a.agent, { key: a.key, author: a });
  }
  if (suite.length > 0) runners.set(REPOSITORY, { key: inputsKey(suite) });
  /** A cell's key; on a repeat of B that runs only some tests, those tests are part of it. */
  const keyOf = (tree: string, owner: string, ids?: ReadonlySet<string>) =>
    cellKey(
      tree,
      ids ? inputsKey([runners.get(owner)!.key, [...ids].sort()]) : runners.get(owner)!.key,
      sessions,
    );
  const log = new RunLog(context.onRun, context.onStart);
  const settings = sessionSettings(project, task, {
    sandbox: context.sandbox,
    env: context.env,
    slots: context.slots ?? new Slots(c.run.jobs),
    scratch: join(work, "runs"),
    signal,
  });
  /**
   * A tree's cells: those that must run are run on the tree `prepare` makes (also when `build` is
   * set), the rest reused; with `select`, only those tests of each owner. A tree that cannot be
   * made (a patch that does not apply) runs nothing.
   */
  const run = async (
    tree: MatrixTree,
    treeKey: string,
    prepare: (owners: string[]) => Promise<PreparedTree | { failed: string }>,
    options: { build?: boolean; select?: ReadonlyMap<string, ReadonlySet<string>> } = {},
  ): Promise<TreeResult> => {
    const { select } = options;
    const owners = [...runners.keys()].filter((o) => select?.get(o)?.size !== 0);
    const key = (owner: string) => keyOf(treeKey, owner, select?.get(owner));
    const missing = owners.filter((o) => !reuse.has(key(o)));
    const prepared = missing.length > 0 || options.build ? await prepare(missing) : undefined;
    if (prepared && "failed" in prepared) {
      return { tree: { ...tree, status: "patch-failed", message: prepared.failed }, groups: [] };
    }
    const fresh = prepared
      ? await runPrepared(prepared, settings, log.on(tree.id), {
        suite,
        only: new Set(missing),
        select,
      })
      : [];
    for (const g of fresh) reuse.put(key(g.owner), g);
    const groups = owners.flatMap((owner) =>
      fresh.find((g) => g.owner === owner) ?? reuse.take(key(owner)) ?? []
    );
    return {
      tree: { ...tree, ...treeStatus(groups) },
      groups,
      ...(select ? { only: select } : {}),
    };
  };
  const chosen = (owners: readonly string[]) => authors.filter((a) => owners.includes(a.agent));
  /** A fresh checkout of B with these owners' tests installed. */
  const prepareBase = (name: string) => async (owners: string[]) => {
    const build = (dir: string) =>
      checkout(project.repository, task.parent, dir, { home: project.home, signal });
    const dir = join(work, "trees", name);
    await build(dir);
    return await prepareTree(dir, chosen(owners), build, signal);
  };
  const baseKey = inputsKey({ tree: "B", parent: task.parent });
  const repeatKey = (i: number) => `${baseKey}#${i}`;
  // B runs once in full, side by side with the candidates.
  const firstBase = run({ id: "B", kind: "base", status: "ok" }, repeatKey(0), prepareBase("B"));
  const paths = taskPathRules(project, task);
  const patchRuns = Promise.all(
    attempts.filter(({ attempt }) => hasCandidate(attempt, paths)).map(
      async ({ attempt, patches }, n): Promise<TreeResult> => {
        const tree: MatrixTree = {
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
          paths,
        });
        const unit = `tree:${tree.id}`;
        const known = reuse.unitStands(unit, treeKey);
        reuse.unit(unit, treeKey);
        const before = context.previous?.trees.find((t) => t.id === tree.id);
        if (known && before?.status === "patch-failed") return { tree: before, groups: [] };
        const build = async (dir: string) => {
          await checkout(project.repository, task.parent, dir, { home: project.home, signal });
          return await applySourceChanges(dir, attempt, patches, paths, signal);
        };
        const dir = join(work, "trees", `p${n}`);
        // A tree never made before is made even when no cell runs: to learn whether it applies.
        return await run(tree, treeKey, async (owners) => {
          const applied = await build(dir);
          return applied.ok
            ? await prepareTree(dir, chosen(owners), build, signal)
            : { failed: applied.message };
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
  const select = repeatSelection(first, candidates, [...runners.keys()]);
  const repeats: TreeResult[] = [];
  for (let i = 1; i < c.tasks.reruns; i++) {
    const id = `B#${i + 1}`;
    repeats.push(
      await run({ id, kind: "base", status: "ok" }, repeatKey(i), prepareBase(id), { select }),
    );
  }
  const results = [first, ...repeats, ...candidates];
  const owners: Owner[] = [
    ...authors.map((a) => ({ name: a.agent, role: a.role })),
    { name: REPOSITORY, role: "repository" as const },
  ];
  return {
    version: RESULTS_VERSION,
    kind: "matrix",
    task: task.id,
    inputsKey: matrixInputsKey(project, task, attempts, context.env),
    trees: results.map((r) => r.tree),
    ...assembleCells(owners, results),
    tampering: results.flatMap((r) =>
      r.groups.filter((g) => g.tamper.length > 0 || g.suspect.length > 0).map((g) => ({
        tree: r.tree.id,
        author: g.owner,
        events: g.tamper,
        suspect: g.suspect,
        blame: blameOf(g.tamper, authors.find((a) => a.agent === g.owner)),
      }))
    ),
    runs: log.sorted(results.map((r) => r.tree.id)),
    reuse: reuse.saved(),
  };
}

/**
 * What a repeat of B runs, by owner: the tests that fail on B's first run, or whose outcome on some
 * candidate differs from it. A test that passes on B and on every candidate decides nothing
 * whether or not it is stable, so it is not run again: neither a reproduction (it passes on B) nor
 * a breakage (no patch breaks it) can come of it.
 */
export function repeatSelection(
  base: TreeResult,
  candidates: readonly TreeResult[],
  owners: readonly string[],
): Map<string, Set<string>> {
  const select = new Map<string, Set<string>>();
  const ran = candidates.filter((c) => c.groups.length > 0);
  for (const owner of owners) {
    const ids = new Set<string>();
    const observations = [base, ...ran].flatMap((r) =>
      r.groups.filter((g) => g.owner === owner).map((g) => g.outcomes)
    );
    for (const id of rowIds(observations)) {
      const onBase = cellOn(base, owner, id);
      if (
        onBase !== "passed" || ran.some((c) => cellOn(c, owner, id) !== onBase)
      ) ids.add(id);
    }
    select.set(owner, ids);
  }
  return select;
}

/**
 * The file whose code raised a guard event (`pkg/__init__.py:12`), if it names one; events that
 * name a test (`tests/x.py::test`) or a file that was changed are what happened, not who did it.
 */
function originOf(where: string): string | undefined {
  return where.match(/^([^\s:]+\.py):\d+$/)?.[1];
}

/**
 * Whose code tampering events point to: the author's own files (its modules beside the
 * originals, or its files in place), or the tree's.
 */
function blameOf(
  events: readonly GuardEvent[],
  author: AuthorTests | undefined,
): ("author" | "tree")[] {
  const own = (path: string) =>
    author !== undefined &&
    (author.files.has(path) || path.split("/").includes(author.dir));
  const origins = events.map((e) => originOf(e.where)).filter((o) => o !== undefined);
  const blame: ("author" | "tree")[] = [];
  if (origins.some(own)) blame.push("author");
  if (origins.some((o) => !own(o))) blame.push("tree");
  return blame;
}

/** Options for {@linkcode examineAll}. */
export type ExamineOptions = StageOptions<Matrix>;

/** What the examine stage did. */
export interface ExamineStage {
  /** The matrices of the tasks examined (new or reused), in task order. */
  matrices: Matrix[];
  /** One line for a person. */
  summary: string;
}

/**
 * Cross-examine the scorable ones among `tasks` that have at least one attempt by a configured
 * agent, and save each matrix in `.bugbout/matrices/<task>.json` as it is done.
 */
export async function examineAll(
  project: Project,
  tasks: readonly Task[],
  options: ExamineOptions = {},
): Promise<ExamineStage> {
  if (project.config.project.language !== "python") {
    const { env: _python, ...rest } = options;
    return await examineRunnerAll(project, tasks, rest);
  }
  const oracles = (await readOracles(project)).oracles;
  const scorable = tasks.filter((t) => oracles[t.id]?.status === "scorable");
  const saved = new Map<string, Matrix | undefined>();
  const stage = await runTaskStage(project, scorable, {
    name: "examine",
    inputs: async (task) => {
      const attempts = await readAttempts(project, task.id);
      saved.set(task.id, await readMatrix(project, task.id));
      return attempts.length > 0 ? attempts : "no attempts";
    },
    key: (task, attempts, env) => matrixInputsKey(project, task, attempts, env),
    saved: (task) => saved.get(task.id),
    reusable: (matrix) => !matrix.trees.some((t) => t.status === "infra-error"),
    trees: (task, attempts) =>
      project.config.tasks.reruns +
      attempts.filter((a) => hasCandidate(a.attempt, taskPathRules(project, task))).length,
    run: (task, attempts, context) =>
      examineTask(project, task, attempts, { ...context, previous: saved.get(task.id) }),
    save: (task, matrix) => project.results.write(matrixFile(task.id), matrix),
  }, options);
  const matrices = [...stage.results.values()];
  const made = matrices.filter((m) => stage.made.has(m.task));
  return {
    matrices,
    summary: `${plural(matrices.length, "matrix", "matrices")} (${made.length} new, ${
      matrices.length - made.length
    } unchanged): ${reuseSummary(made.map((m) => m.reuse))}, ${
      plural(stage.sessions, "pytest session")
    }`,
  };
}

/** Options for {@linkcode examineRunnerAll}. */
export type RunnerExamineOptions = StageOptions<Matrix, TreeRunners>;

/**
 * {@linkcode examineAll} for a Go or JavaScript project: the same tasks, the same matrices and
 * files, each task through `examineRunnerTask` (every owner's tests in a copy of each tree of
 * its own).
 */
export async function examineRunnerAll(
  project: Project,
  tasks: readonly Task[],
  options: RunnerExamineOptions = {},
): Promise<ExamineStage> {
  const oracles = (await readOracles(project)).oracles;
  const scorable = tasks.filter((t) => oracles[t.id]?.status === "scorable");
  const saved = new Map<string, Matrix | undefined>();
  // For progress only: the runner classifies paths again when the trees are built.
  const candidates = (attempts: readonly BoutAttempt[]) =>
    attempts.filter(({ attempt: a }) =>
      a.status === "patch" && a.role === "contestant" && a.files.some((f) => f.kind === "source")
    ).length;
  const stage = await runTaskStage<BoutAttempt[], Matrix, TreeRunners>(project, scorable, {
    name: "examine",
    environment: () => Promise.resolve(new TreeRunners(project)),
    inputs: async (task) => {
      const attempts = await readAttempts(project, task.id);
      saved.set(task.id, await readMatrix(project, task.id));
      return attempts.length > 0 ? attempts : "no attempts";
    },
    key: (task, attempts, env) => runnerMatrixInputsKey(project, task, attempts, env),
    saved: (task) => saved.get(task.id),
    reusable: (matrix) => !matrix.trees.some((t) => t.status === "infra-error"),
    trees: (_task, attempts) => project.config.tasks.reruns + candidates(attempts),
    run: (task, attempts, context) =>
      examineRunnerTask(project, task, attempts, { ...context, previous: saved.get(task.id) }),
    save: (task, matrix) => project.results.write(matrixFile(task.id), matrix),
  }, options);
  const matrices = [...stage.results.values()];
  const made = matrices.filter((m) => stage.made.has(m.task));
  return {
    matrices,
    summary: `${plural(matrices.length, "matrix", "matrices")} (${made.length} new, ${
      matrices.length - made.length
    } unchanged): ${reuseSummary(made.map((m) => m.reuse))}, ${plural(stage.sessions, "test run")}`,
  };
}
