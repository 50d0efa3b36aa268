/**
 * Evidence roles (BSG-VA) of the tests agents wrote in a Go or JavaScript project: the same
 * replays as Python's (`evidence.ts`). B and S come from the matrix (its B repeats and the column
 * of the agent's own patch); G is run here, `[tasks] reruns` times, after the judge has ruled.
 *
 * On G, every author's tests are installed as cross-examination installs them
 * (`testbed/runner_authors.ts`: copies beside the project's test files, known by the same ids the
 * matrix uses, the author's configuration never applied), each author in a checkout of G of its
 * own (Go compiles every `_test.go` file of a package into one binary; a JavaScript module can
 * patch globals or rewrite the tree), and run as one group. G runs with its own runner and
 * environment (a fix may change `go.mod` or the lockfile). An author's cell on G is reused while
 * its key stands: G, the author's tests, G's environment and the run settings.
 *
 * What G reported is then read for the matrix's rows of each author (`goldRows`), so the pure
 * `evidenceOf` gives the roles exactly as for Python.
 *
 * Requires `--allow-run` (git, cp, the sandbox, the toolchains), `--allow-read`, `--allow-write`
 * and `--allow-env`.
 *
 * @module
 */

import { join } from "node:path";
import { cachedTree, checkout, removeTree } from "../checkout.ts";
import { InterruptedError } from "../errors.ts";
import { inputsKey } from "../hash.ts";
import type { Project } from "../project.ts";
import type { BoutAttempt, Matrix, Outcome, Task } from "../records.ts";
import type { RunnerRun, TestRunner } from "../lang/mod.ts";
import type { Sandbox } from "../sandbox/types.ts";
import {
  authorEntries,
  authorOutcomes,
  cellKey,
  type GroupResult,
  hasRunnerTests,
  installRunnerAuthor,
  type Reuser,
  type RunnerAuthor,
  type Slots,
  taskRunnerAuthors,
  type TreeRunners,
} from "../testbed/mod.ts";
import type { GoldRuns } from "./evidence.ts";

/** Bumped when the way authors' tests are replayed on G changes. */
const RUNNER_EVIDENCE_RULES = 1;

/** What {@linkcode replayRunnerOnGold} needs. */
export interface RunnerGoldOptions {
  /** B's tree (read only): the authors' patches apply to it. */
  base: string;
  /** B's runner: the one the matrix's ids are made with. */
  runner: TestRunner;
  /** The project's runners (G's environment is prepared by them). */
  runners: TreeRunners;
  sandbox: Sandbox;
  /** A working directory of the task's own. */
  work: string;
  slots: Slots;
  /** Cells of the last resolution, and what this one keeps. */
  reuse: Reuser;
  /** Called as a run starts, with its tree (`G`, `G#2`, ...). */
  onStart?: (tree: string) => void;
  /** Called after every run, with its tree. */
  onRun?: (tree: string, run: RunnerRun) => void;
  signal?: AbortSignal;
}

/**
 * Every author's tests on G, `[tasks] reruns` times: one list of group results per run, each
 * group's outcomes as {@linkcode authorOutcomes} reads them (not yet read for the matrix's rows:
 * see {@linkcode goldRows}).
 */
export async function replayRunnerOnGold(
  project: Project,
  task: Task,
  attempts: readonly BoutAttempt[],
  options: RunnerGoldOptions,
): Promise<GoldRuns> {
  const { signal, reuse } = options;
  const c = project.config;
  const authors = (await taskRunnerAuthors(project, attempts, {
    base: options.base,
    runner: options.runner,
    scratch: join(options.work, "scratch"),
    signal,
  })).filter(hasRunnerTests);
  if (authors.length === 0) return [];
  const gold = await cachedTree(project.repository, task.commit, { home: project.home, signal });
  const { runner, env } = await options.runners.open(gold, signal);
  const sessions = inputsKey({
    rules: RUNNER_EVIDENCE_RULES,
    runners: options.runners.key,
    env: env.key,
    testEnv: c.project.env,
    testTimeout: c.run.testTimeout,
    testMemory: c.run.testMemory,
  });
  const keyOf = (index: number, author: RunnerAuthor) =>
    cellKey(`G:${task.commit}#${index}`, author.key, sessions);

  /** One author's tests on a checkout of G of its own. */
  const runAuthor = async (
    tree: string,
    author: RunnerAuthor,
    index: number,
  ): Promise<GroupResult> => {
    const dir = join(options.work, "gold", `${index}-${author.tag}`);
    try {
      await checkout(project.repository, task.commit, dir, { home: project.home, signal });
      await installRunnerAuthor(dir, author, options.runner);
      const ran = await options.slots.use(() => {
        if (signal?.aborted) throw new InterruptedError();
        options.onStart?.(tree);
        return runner.run({
          sandbox: options.sandbox,
          env,
          tree: dir,
          groups: [authorEntries(author)],
          extraEnv: c.project.env,
          timeoutMs: c.run.testTimeout * 1000,
          memoryMb: c.run.testMemory,
          deny: [project.repository, project.home, project.results.path],
          scratch: join(options.work, "runs"),
          signal,
        });
      });
      if (signal?.aborted) throw new InterruptedError();
      options.onRun?.(tree, ran);
      const group = ran.groups[0];
      const message = group?.message ?? ran.message;
      return {
        owner: author.agent,
        status: group?.status ?? ran.status,
        ...(message ? { message } : {}),
        outcomes: group
          ? authorOutcomes(author, options.runner, group.outcomes)
          : new Map<string, Outcome>(),
        tamper: group?.tamper ?? ran.tamper,
        suspect: group?.suspect ?? ran.suspect,
      };
    } finally {
      await removeTree(dir);
    }
  };

  const runs: GoldRuns = [];
  for (let i = 0; i < c.tasks.reruns; i++) {
    const tree = i === 0 ? "G" : `G#${i + 1}`;
    const missing = authors.filter((a) => !reuse.has(keyOf(i, a)));
    const settled = await Promise.allSettled(missing.map((a) => runAuthor(tree, a, i)));
    if (signal?.aborted) throw new InterruptedError();
    const fresh: GroupResult[] = [];
    for (const s of settled) {
      if (s.status === "rejected") throw s.reason;
      fresh.push(s.value);
    }
    for (const g of fresh) reuse.put(keyOf(i, authors.find((a) => a.agent === g.owner)!), g);
    runs.push(
      authors.flatMap((a) =>
        fresh.find((g) => g.owner === a.agent) ?? reuse.take(keyOf(i, a)) ?? []
      ),
    );
  }
  return runs;
}

function failing(outcome: Outcome | undefined): boolean {
  return outcome === "failed" || outcome === "error";
}

/**
 * The outcome of matrix row `id` in what one run on G reported: its own; for a file or package
 * row (one the matrix never saw tests of), what its tests did together (failed when any failed,
 * passed when all passed); for a test, `error` when its file or package failed to load; else
 * `not-run`.
 */
export function runnerOutcome(
  observed: ReadonlyMap<string, Outcome>,
  id: string,
  runner: Pick<TestRunner, "fileOf">,
): Outcome {
  const direct = observed.get(id);
  if (direct !== undefined) return direct;
  const container = runner.fileOf(id);
  if (container !== id) return failing(observed.get(container)) ? "error" : "not-run";
  const inside = [...observed].filter(([key]) => key !== id && runner.fileOf(key) === id)
    .map(([, outcome]) => outcome);
  if (inside.length === 0) return "not-run";
  if (inside.some(failing)) return "failed";
  if (inside.every((o) => o === "passed")) return "passed";
  return inside[0];
}

/**
 * G's runs read for the matrix's rows: each author's group keyed by exactly the ids the matrix
 * lists for that author (see {@linkcode runnerOutcome}), so `evidenceOf` finds each row by its id.
 * Pure.
 */
export function goldRows(
  matrix: Matrix,
  runs: GoldRuns,
  runner: Pick<TestRunner, "fileOf">,
): GoldRuns {
  return runs.map((run) =>
    run.map((group) => ({
      ...group,
      outcomes: new Map(
        matrix.tests.filter((t) => t.author === group.owner).map((
          t,
        ) => [t.id, runnerOutcome(group.outcomes, t.id, runner)]),
      ),
    }))
  );
}
