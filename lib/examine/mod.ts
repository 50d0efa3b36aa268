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
import { cachedTree, listFiles } from "../checkout.ts";
import { inputsKey } from "../hash.ts";
import type { Project } from "../project.ts";
import { type GuardEvent, isTestModule, type TestEnv } from "../lang/python/mod.ts";
import { type BoutAttempt, type Matrix, REPOSITORY, type Task } from "../records.ts";
import {
  type AuthorTests,
  cellOn,
  hasCandidate,
  prepareTree,
  rowIds,
  RunLog,
  runPrepared,
  sessionInputs,
  sessionSettings,
  Slots,
  taskAuthors,
  taskPathRules,
  type TreeResult,
  treeRules,
} from "../testbed/mod.ts";
import {
  type ExamineContext,
  type ExamineOptions,
  type ExamineStage,
  examineWith,
  matrixInputs,
  runExamineStage,
} from "./matrix.ts";
import { examineRunnerAll } from "./runner.ts";

export {
  type ExamineContext,
  type ExamineOptions,
  type ExamineStage,
  MATRICES_DIR,
  readMatrices,
  readMatrix,
} from "./matrix.ts";
export {
  examineRunnerAll,
  examineRunnerTask,
  type RunnerExamineContext,
  type RunnerExamineOptions,
  runnerMatrixInputsKey,
  runnerPathRules,
} from "./runner.ts";

/** Bumped when the way matrices are made changes, so saved ones are recomputed. */
const EXAMINE_RULES = 2;

/** The inputs that decide a task's matrix; a saved matrix with the same key is reused. */
export function matrixInputsKey(
  project: Project,
  task: Task,
  attempts: readonly BoutAttempt[],
  env: TestEnv,
): string {
  return inputsKey({
    rules: EXAMINE_RULES,
    ...matrixInputs(project, task, attempts),
    packageDir: task.packageDir,
    pythonPath: task.pythonPath,
    ...sessionInputs(project, env),
  });
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
 * run the sessions and assemble the matrix (see `examineWith`). Never looks at G or at the hidden
 * tests. Cells whose key stands in `context.previous` are taken from it, and a tree none of whose
 * cells must run is never built.
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
  // Who runs on every tree: each author with tests, then the repository's suite.
  const owners = new Map<string, string>();
  for (const a of authors) {
    if (!a.problem && a.modules.length > 0) owners.set(a.agent, a.key);
  }
  if (suite.length > 0) owners.set(REPOSITORY, inputsKey(suite));
  const log = new RunLog(context.onRun, context.onStart);
  const settings = sessionSettings(project, task, {
    sandbox: context.sandbox,
    env: context.env,
    slots: context.slots ?? new Slots(c.run.jobs),
    scratch: join(work, "runs"),
    signal,
  });
  const chosen = (names: readonly string[]) => authors.filter((a) => names.includes(a.agent));
  const paths = taskPathRules(project, task);
  return await examineWith(project, task, attempts, context, {
    inputsKey: matrixInputsKey(project, task, attempts, context.env),
    paths,
    treeInputs: { paths },
    authors,
    owners,
    sessions: sessionsKey(project, task, context.env),
    treeDir: (tree, n) => join(work, "trees", tree.kind === "base" ? tree.id : `p${n}`),
    // The tree with these owners' tests installed; `build` makes it again after a crash.
    runTree: async (tree, dir, build, names, select) => {
      const built = await build(dir);
      if (!built.ok) return { failed: built.message };
      const prepared = await prepareTree(dir, chosen(names), build, signal);
      return await runPrepared(prepared, settings, log.on(tree.id), {
        suite,
        only: new Set(names),
        select,
      });
    },
    repeatSelection: (first, candidates) => repeatSelection(first, candidates, [...owners.keys()]),
    blame: (g) => blameOf(g.tamper, authors.find((a) => a.agent === g.owner)),
    runs: (trees) => log.sorted(trees),
  });
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
  return await runExamineStage(project, tasks, options, {
    key: (task, attempts, env) => matrixInputsKey(project, task, attempts, env),
    candidates: (task, attempts) =>
      attempts.filter((a) => hasCandidate(a.attempt, taskPathRules(project, task))).length,
    examine: (task, attempts, context) => examineTask(project, task, attempts, context),
    runs: "pytest session",
  });
}
