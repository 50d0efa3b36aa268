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
  type GroupResult,
  hasCandidate,
  type Owner,
  type PreparedTree,
  prepareTree,
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
} from "../testbed/mod.ts";
import { plural } from "../words.ts";

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
  /** Stop: sessions in flight are killed, then {@linkcode InterruptedError} is thrown. */
  signal?: AbortSignal;
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

/** One tree of the matrix while it is being built. */
interface Pending {
  tree: Matrix["trees"][number];
  prepared?: PreparedTree;
}

function treeStatus(groups: readonly GroupResult[]): Pick<Pending["tree"], "status" | "message"> {
  const main = groups.find((g) => g.owner === REPOSITORY) ?? groups[0];
  if (!main) return { status: "ok" };
  return { status: main.status, ...(main.message ? { message: main.message } : {}) };
}

/**
 * Cross-examine one task: build B and every contestant's candidate, install every author's tests,
 * run the sessions and assemble the matrix. Never looks at G or at the hidden tests.
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
    : null;
  const buildBase = (dir: string) =>
    checkout(project.repository, task.parent, dir, {
      home: project.home,
      signal,
    });
  const baseDir = join(work, "trees", "B");
  await buildBase(baseDir);
  const baseTree = await prepareTree(baseDir, authors, buildBase, signal);
  const candidates = await candidateTrees(project, task, attempts, authors, context);
  const log = new RunLog(context.onRun);
  const settings = sessionSettings(project, task, {
    sandbox: context.sandbox,
    env: context.env,
    slots: context.slots ?? new Slots(c.run.jobs),
    scratch: join(work, "runs"),
    signal,
  });
  const run = async (tree: Pending["tree"], prepared: PreparedTree): Promise<TreeResult> => {
    const groups = await runPrepared(prepared, suite, settings, log.on(tree.id));
    return { tree: { ...tree, ...treeStatus(groups) }, groups };
  };
  // B runs `reruns` times, one after another; candidates run side by side with it.
  const baseRuns = (async () => {
    const results: TreeResult[] = [];
    for (let i = 0; i < c.tasks.reruns; i++) {
      const id = i === 0 ? "B" : `B#${i + 1}`;
      results.push(await run({ id, kind: "base", status: "ok" }, baseTree));
    }
    return results;
  })();
  const patchRuns = Promise.all(
    candidates.map((p) => p.prepared ? run(p.tree, p.prepared) : { tree: p.tree, groups: [] }),
  );
  const settled = await Promise.allSettled([baseRuns, patchRuns]);
  if (signal?.aborted) throw new InterruptedError();
  for (const s of settled) if (s.status === "rejected") throw s.reason;
  const results = [...await baseRuns, ...await patchRuns];
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
  };
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

/** Every contestant's candidate: B with its source changes, every author's tests installed. */
async function candidateTrees(
  project: Project,
  task: Task,
  attempts: readonly BoutAttempt[],
  authors: Parameters<typeof prepareTree>[1],
  context: ExamineContext,
): Promise<Pending[]> {
  const paths = taskPathRules(project, task);
  const pending: Pending[] = [];
  for (const { attempt, patches } of attempts) {
    if (!hasCandidate(attempt, paths)) continue;
    const tree = { id: attempt.agent, kind: "patch" as const, agent: attempt.agent };
    const build = async (dir: string) => {
      await checkout(project.repository, task.parent, dir, {
        home: project.home,
        signal: context.signal,
      });
      return await applySourceChanges(dir, attempt, patches, paths, context.signal);
    };
    const dir = join(context.work, "trees", `p${pending.length}`);
    const applied = await build(dir);
    pending.push(
      applied.ok
        ? {
          tree: { ...tree, status: "ok" },
          prepared: await prepareTree(dir, authors, build, context.signal),
        }
        : { tree: { ...tree, status: "patch-failed", message: applied.message } },
    );
  }
  return pending;
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
  const oracles = (await readOracles(project)).oracles;
  const scorable = tasks.filter((t) => oracles[t.id]?.status === "scorable");
  const stage = await runTaskStage(project, scorable, {
    name: "examine",
    inputs: async (task) => {
      const attempts = await readAttempts(project, task.id);
      return attempts.length > 0 ? attempts : "no attempts";
    },
    key: (task, attempts, env) => matrixInputsKey(project, task, attempts, env),
    saved: (task) => readMatrix(project, task.id),
    reusable: (saved) => !saved.trees.some((t) => t.status === "infra-error"),
    trees: (task, attempts) =>
      project.config.tasks.reruns +
      attempts.filter((a) => hasCandidate(a.attempt, taskPathRules(project, task))).length,
    run: (task, attempts, context) => examineTask(project, task, attempts, context),
    save: (task, matrix) => project.results.write(matrixFile(task.id), matrix),
  }, options);
  const matrices = [...stage.results.values()];
  return {
    matrices,
    summary: `${plural(matrices.length, "matrix", "matrices")} (${stage.ran} new, ${
      matrices.length - stage.ran
    } unchanged), ${plural(stage.sessions, "pytest session")}`,
  };
}
