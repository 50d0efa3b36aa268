/**
 * Scoring one task of a Go or JavaScript project: the phases and rules of `phases.ts`, as Python's
 * (`task.ts`), with the project's test runner (`lib/runner/`) in place of pytest.
 *
 * Every tree is B, changed (nothing for the empty patch, G's source changes for the gold patch, a
 * contestant's source changes only), with G's test files and support files put in place; the
 * oracle's fail-to-pass and pass-to-pass tests run on it by id, in one group of their own (one
 * process per package for Go, one runner process for JavaScript), never trusted with a partial
 * run. Paths are classified by the runner (`classifyPath` with `runner`): its configuration
 * (`go.mod`, `package.json`, lockfiles, runner configs) and test files are never applied, and a
 * patch touching its configuration, or doing what the runner's `patchFlags` finds, is flagged
 * (`runner_review.ts`). A run the runner found tampered with is never resolved.
 *
 * Every tree keeps B's dependency files (a patch's or G's changes to them are configuration, not
 * applied), so the runner and environment are those of B, prepared once per task.
 *
 * With a matrix, every agent's tests are replayed on G for their evidence roles, as Python's are
 * (`runner_evidence.ts`): B and S from the matrix, G run here, the same pure `evidenceOf`.
 *
 * Requires `--allow-run` (git, cp, the sandbox, the toolchain), `--allow-read`, `--allow-write`
 * and `--allow-env`.
 *
 * @module
 */

import { join } from "node:path";
import { cachedTree } from "../checkout.ts";
import { InterruptedError } from "../errors.ts";
import { inputsKey } from "../hash.ts";
import type { Project } from "../project.ts";
import type { Oracle, Resolution, RunSummary, Task } from "../records.ts";
import type { RunnerEnv, RunnerRun, TestRunner } from "../lang/mod.ts";
import {
  attemptsFingerprint,
  countOutcomes,
  type PathRules,
  Slots,
  type TreeRunners,
} from "../testbed/mod.ts";
import {
  type ScoreInputs,
  scorePhases,
  type ScoringLanguage,
  type TaskScoreContext,
} from "./phases.ts";
import { goldRows, replayRunnerOnGold } from "./runner_evidence.ts";
import { reviewRunnerPatch } from "./runner_review.ts";

/** Bumped when the way Go and JavaScript patches are scored changes. */
const RUNNER_SCORE_RULES = 2;

/** How the message of a patch whose run could not be trusted begins. */
const UNTRUSTED = "the test runner gave no trustworthy result on this patch";

/**
 * What {@linkcode scoreTaskWithRunner} needs besides the task: the project's runners (each tree's
 * environment is prepared and cached by them).
 */
export type RunnerScoreContext = TaskScoreContext<TreeRunners>;

/** What shapes every run of the hidden tests besides the tree. */
function runInputs(project: Project, runners: TreeRunners) {
  const c = project.config;
  return {
    runners: runners.key,
    testEnv: c.project.env,
    testTimeout: c.run.testTimeout,
    testMemory: c.run.testMemory,
  };
}

/** The inputs that decide a Go or JavaScript task's resolution. */
export function runnerResolutionKey(
  project: Project,
  task: Task,
  inputs: ScoreInputs,
  runners: TreeRunners,
): string {
  return inputsKey({
    rules: RUNNER_SCORE_RULES,
    task: [task.id, task.commit, task.parent],
    hidden: [task.testFiles, task.supportFiles ?? []],
    oracle: [
      inputs.oracle.inputsKey,
      inputs.oracle.status,
      inputs.oracle.failToPass,
      inputs.oracle.passToPass,
    ],
    matrix: inputs.matrix?.inputsKey ?? null,
    pick: inputs.verdict?.pick ?? null,
    attempts: attemptsFingerprint(inputs.attempts),
    ...runInputs(project, runners),
  });
}

/** What decides every scored tree besides its patch. */
function hiddenKey(project: Project, task: Task, oracle: Oracle, runners: TreeRunners): string {
  return inputsKey({
    rules: RUNNER_SCORE_RULES,
    task: [task.commit, task.parent],
    hidden: [task.testFiles, task.supportFiles ?? []],
    oracle: [oracle.status, oracle.failToPass, oracle.passToPass],
    ...runInputs(project, runners),
  });
}

/** The runs of one task, numbered per tree, as the results files record them. */
class Runs {
  readonly runs: RunSummary[] = [];
  #next = new Map<string, number>();
  constructor(
    private onRun?: (run: RunSummary) => void,
    private onStart?: (tree: string) => void,
  ) {}

  starting(tree: string): void {
    this.onStart?.(tree);
  }

  record(tree: string, run: RunnerRun): void {
    const index = this.#next.get(tree) ?? 0;
    this.#next.set(tree, index + 1);
    const summary: RunSummary = {
      tree,
      index,
      status: run.status,
      // A run is one process per group or package: no single exit code says how it ended.
      exitCode: null,
      durationMs: Math.max(0, Math.round(run.durationMs)),
      counts: countOutcomes(run.outcomes),
      ...(run.message ? { message: run.message } : {}),
    };
    this.runs.push(summary);
    this.onRun?.(summary);
  }

  sorted(): RunSummary[] {
    const by = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
    return [...this.runs].sort((a, b) => by(a.tree, b.tree) || a.index - b.index);
  }
}

/**
 * Score one task of a Go or JavaScript project: sanity gates, every contestant's patch, the
 * judge's pick and (with a matrix) every agent's evidence roles (`phases.ts`), with the project's
 * test runner. Infrastructure failures become an unscored resolution whose reason says so.
 */
export async function scoreTaskWithRunner(
  project: Project,
  task: Task,
  inputs: ScoreInputs,
  context: RunnerScoreContext,
): Promise<Resolution> {
  const { signal } = context;
  const c = project.config;
  const runs = new Runs(context.onRun, context.onStart);
  const slots = context.slots ?? new Slots(project.config.run.jobs);
  /** B, checked out read-only, and its runner and environment (set once B is read). */
  let base: string | undefined;
  let runner: TestRunner | undefined;
  let env: RunnerEnv | undefined;
  /** The runner's rules for classifying paths. */
  const rules = (): PathRules & { runner: TestRunner } => ({
    packageDir: ".",
    testsDir: c.project.tests,
    runner: runner!,
  });
  const language: ScoringLanguage = {
    untrusted: UNTRUSTED,
    prepare: async () => {
      base = await cachedTree(project.repository, task.parent, { home: project.home, signal });
      const opened = await context.env.open(base, signal);
      runner = opened.runner;
      env = opened.env;
    },
    base: () => Promise.resolve(base!),
    paths: rules,
    review: (files, changes) => reviewRunnerPatch(files, changes, rules()),
    flags: (reviewed, noticed) => [...new Set([...reviewed, ...noticed])],
    runHidden: async (tree, name) => {
      const run = await slots.use(async () => {
        if (signal?.aborted) throw new InterruptedError();
        runs.starting(name);
        return await runner!.run({
          sandbox: context.sandbox,
          env: env!,
          tree,
          groups: [hiddenIds(inputs.oracle)],
          extraEnv: c.project.env,
          timeoutMs: c.run.testTimeout * 1000,
          memoryMb: c.run.testMemory,
          deny: [project.repository, project.home, project.results.path],
          scratch: join(context.work, "runs"),
          signal,
        });
      });
      if (signal?.aborted) throw new InterruptedError();
      runs.record(name, run);
      return {
        status: run.status,
        message: run.message,
        outcomes: new Map(Object.entries(run.outcomes)),
        tamper: run.tamper,
        suspect: run.suspect,
        // A run that ends in an infrastructure error cannot be trusted.
        ...(run.status === "infra-error"
          ? { untrusted: run.message ?? `${runner!.name} could not run` }
          : {}),
      };
    },
    tamperedNote: (run) => (run.message ? { message: run.message } : {}),
    // Phase 3: every author's tests on G, read for the matrix's rows.
    replay: async (base, reuse) =>
      goldRows(
        inputs.matrix!,
        await replayRunnerOnGold(project, task, inputs.attempts, {
          base,
          runner: runner!,
          runners: context.env,
          sandbox: context.sandbox,
          work: context.work,
          slots,
          reuse,
          onStart: (tree) => runs.starting(tree),
          onRun: (tree, run) => runs.record(tree, run),
          signal,
        }),
        runner!,
      ),
    runs: () => runs.sorted(),
  };
  return await scorePhases(project, task, inputs, context, {
    resolution: runnerResolutionKey(project, task, inputs, context.env),
    hidden: hiddenKey(project, task, inputs.oracle, context.env),
  }, language);
}

/** The ids the hidden tests are run by: the oracle's fail-to-pass, then pass-to-pass. */
function hiddenIds(oracle: Oracle): string[] {
  return [...new Set([...oracle.failToPass, ...oracle.passToPass])];
}
