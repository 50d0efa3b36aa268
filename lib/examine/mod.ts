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
 * Requires `--allow-run` (git, cp, the sandbox, the interpreter), `--allow-read`, `--allow-write`
 * (the results directory, `BUGBOUT_HOME`) and `--allow-env`.
 *
 * @module
 */

import { join } from "node:path";
import { cachedTree, checkout, listFiles, removeTree } from "../checkout.ts";
import { InterruptedError } from "../errors.ts";
import { inputsKey } from "../hash.ts";
import { isTestModule } from "../python/pytest_rules.ts";
import { summarise } from "../oracle/ground_truth.ts";
import type { Project } from "../project.ts";
import { type TestEnv, testEnvFor } from "../python/env.ts";
import {
  type Matrix,
  matrixSchema,
  RESULTS_VERSION,
  type RunSummary,
  type Task,
} from "../records.ts";
import { openSandbox } from "../sandbox/mod.ts";
import type { Sandbox } from "../sandbox/types.ts";
import {
  attemptsFingerprint,
  boutAgents,
  type BoutAttempt,
  boutAttempts,
  boutAuthors,
  sessionSettings,
  sweepWorkDirs,
  taskPathRules,
  taskWorkDir,
  treeRules,
} from "../testbed/context.ts";
import { assembleCells, type Owner, type TreeResult } from "../testbed/cells.ts";
import { REPOSITORY } from "../testbed/install.ts";
import {
  type GroupResult,
  type PreparedTree,
  prepareTree,
  runPrepared,
} from "../testbed/sessions.ts";
import { settleAll, Slots } from "../testbed/slots.ts";
import { applySourceChanges, hasCandidate } from "../testbed/trees.ts";
import { sessionInputs, type StageOptions } from "../testbed/stage.ts";

export { type BoutAttempt, boutAttempts } from "../testbed/context.ts";
export { REPOSITORY } from "../testbed/install.ts";
export { Slots } from "../testbed/slots.ts";

/** The directory of `.bugbout/` that holds one matrix per task. */
export const MATRICES_DIR = "matrices";

/** Bumped when the way matrices are made changes, so saved ones are recomputed. */
const EXAMINE_RULES = 1;

/** What {@linkcode examineAll} reports as it goes. */
export type ExamineProgress =
  | { event: "cached"; task: string; matrix: Matrix }
  | { event: "skipped"; task: string; reason: string }
  | { event: "start"; task: string; trees: number }
  | { event: "run"; task: string; run: RunSummary }
  | { event: "done"; task: string; matrix: Matrix };

/** What {@linkcode examineTask} needs besides the task. */
export interface ExamineContext {
  /** The sandbox every session runs in. */
  sandbox: Sandbox;
  /** The test environment. */
  env: TestEnv;
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
    agents: boutAgents(project).map((a) => [a.name, a.role]),
    attempts: attemptsFingerprint(attempts),
    runSuite: c.judge.runSuite,
    ...sessionInputs(project, env),
  });
}

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
  const { signal } = context;
  const c = project.config;
  const work = taskWorkDir(project, "examine", task.id);
  const runs: RunSummary[] = [];
  try {
    const base = await cachedTree(project.repository, task.parent, { home: project.home, signal });
    const rules = await treeRules(base);
    const paths = taskPathRules(project, task);
    const authors = await boutAuthors(project, attempts, {
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
    const settings = sessionSettings(project, task, {
      sandbox: context.sandbox,
      env: context.env,
      slots: context.slots ?? new Slots(c.run.jobs),
      scratch: join(work, "runs"),
      signal,
    });
    const pending: Pending[] = [];
    const baseDir = await checkout(project.repository, task.parent, join(work, "trees", "B"), {
      home: project.home,
      signal,
    });
    const bases = Array.from({ length: c.tasks.reruns }, (_, i) => ({
      tree: { id: i === 0 ? "B" : `B#${i + 1}`, kind: "base" as const, status: "ok" as const },
    }));
    const baseTree = await prepareTree(baseDir, authors, signal);
    for (const { attempt, patches } of attempts) {
      if (!hasCandidate(attempt, paths)) continue;
      const tree = { id: attempt.agent, kind: "patch" as const, agent: attempt.agent };
      const dir = await checkout(
        project.repository,
        task.parent,
        join(work, "trees", `p${pending.length}`),
        { home: project.home, signal },
      );
      const applied = await applySourceChanges(dir, attempt, patches, paths, signal);
      if (!applied.ok) {
        pending.push({ tree: { ...tree, status: "patch-failed", message: applied.message } });
        continue;
      }
      pending.push({
        tree: { ...tree, status: "ok" },
        prepared: await prepareTree(dir, authors, signal),
      });
    }
    const record = (id: string) => {
      let index = 0;
      return (run: Parameters<typeof summarise>[2]) => {
        const summary = summarise(id, index++, run);
        runs.push(summary);
        context.onRun?.(summary);
      };
    };
    const baseRuns = (async () => {
      const results: TreeResult[] = [];
      for (const b of bases) {
        const groups = await runPrepared(baseTree, suite, settings, record(b.tree.id));
        results.push({ tree: { ...b.tree, ...treeStatus(groups) }, groups });
      }
      return results;
    })();
    const patchRuns = Promise.all(pending.map(async (p): Promise<TreeResult> => {
      if (!p.prepared) return { tree: p.tree, groups: [] };
      const groups = await runPrepared(p.prepared, suite, settings, record(p.tree.id));
      return { tree: { ...p.tree, ...treeStatus(groups) }, groups };
    }));
    const settled = await Promise.allSettled([baseRuns, patchRuns]);
    if (signal?.aborted) throw new InterruptedError();
    for (const s of settled) if (s.status === "rejected") throw s.reason;
    const results = [...await baseRuns, ...await patchRuns];
    const order = new Map(results.map((r, i) => [r.tree.id, i]));
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
      runs: runs.sort((a, b) => order.get(a.tree)! - order.get(b.tree)! || a.index - b.index),
    };
  } finally {
    await removeTree(work).catch(() => {});
  }
}

/** Options for {@linkcode examineAll}. */
export type ExamineOptions = StageOptions<ExamineProgress>;

/**
 * Cross-examine `tasks` (those with at least one attempt by a configured agent) and save each
 * matrix in `.bugbout/matrices/<task>.json` as it is done. Returns the matrices of those tasks,
 * reused or new, in task order.
 */
export async function examineAll(
  project: Project,
  tasks: readonly Task[],
  options: ExamineOptions = {},
): Promise<Matrix[]> {
  const { signal } = options;
  const chosen = options.only ? tasks.filter((t) => options.only!.includes(t.id)) : [...tasks];
  if (chosen.length === 0) return [];
  await project.results.ensure();
  await sweepWorkDirs(project.cacheDir("examine"));
  const inputs = new Map<string, BoutAttempt[]>();
  for (const task of chosen) inputs.set(task.id, await boutAttempts(project, task.id));
  const needed = [...inputs.values()].some((a) => a.length > 0);
  // The environment and sandbox are made once, before tasks run side by side.
  const env = options.env ?? (needed ? await testEnvFor(project, signal) : undefined);
  const sandbox = options.sandbox ??
    (needed ? await openSandbox(project.config.run.sandbox) : undefined);
  const jobs = project.config.run.jobs;
  const slots = new Slots(jobs);
  const taskSlots = new Slots(jobs);
  const found = new Map<string, Matrix>();
  const one = async (task: Task) => {
    const attempts = inputs.get(task.id)!;
    if (attempts.length === 0 || !env || !sandbox) {
      options.onProgress?.({ event: "skipped", task: task.id, reason: "no attempts" });
      return;
    }
    const key = matrixInputsKey(project, task, attempts, env);
    const saved = await readMatrix(project, task.id);
    if (saved?.inputsKey === key && !saved.trees.some((t) => t.status === "infra-error")) {
      found.set(task.id, saved);
      options.onProgress?.({ event: "cached", task: task.id, matrix: saved });
      return;
    }
    await taskSlots.use(async () => {
      if (signal?.aborted) throw new InterruptedError();
      const candidates = attempts.filter((a) =>
        hasCandidate(a.attempt, taskPathRules(project, task))
      ).length;
      options.onProgress?.({
        event: "start",
        task: task.id,
        trees: project.config.tasks.reruns + candidates,
      });
      const matrix = await examineTask(project, task, attempts, {
        sandbox,
        env,
        slots,
        signal,
        onRun: (run) => options.onProgress?.({ event: "run", task: task.id, run }),
      });
      await project.results.write(matrixFile(task.id), matrix);
      found.set(task.id, matrix);
      options.onProgress?.({ event: "done", task: task.id, matrix });
    });
  };
  await settleAll(chosen.map(one), signal);
  return chosen.flatMap((t) => (found.has(t.id) ? [found.get(t.id)!] : []));
}
