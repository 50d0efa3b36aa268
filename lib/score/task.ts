/**
 * Scoring one task of a Python project: the phases of `phases.ts` (the sanity gates, every
 * contestant's patch against the hidden tests, every agent's tests replayed on G for their
 * evidence roles, and the resolution that puts them together; see `mod.ts` for the rules) with
 * pytest: the hidden test modules run in one session, paths classified by the task's package, a
 * patch reviewed by `flags.ts` and authors' tests replayed on G by `evidence.ts`.
 *
 * Requires `--allow-run` (git, cp, the sandbox, the interpreter), `--allow-read`, `--allow-write`
 * and `--allow-env`.
 *
 * @module
 */

import { join } from "node:path";
import { cachedTree, listFiles } from "../checkout.ts";
import { inputsKey } from "../hash.ts";
import type { Project } from "../project.ts";
import type { PytestRun, TestEnv } from "../lang/python/mod.ts";
import type { Oracle, Resolution, Task } from "../records.ts";
import {
  attemptsFingerprint,
  cellKey,
  type Reuser,
  runGroups,
  RunLog,
  sessionInputs,
  type SessionSettings,
  sessionSettings,
  Slots,
  suiteGroup,
  taskAuthors,
  taskPathRules,
  treeRules,
} from "../testbed/mod.ts";
import { replayOnGold } from "./evidence.ts";
import { reviewPatch } from "./flags.ts";
import {
  type HiddenRun,
  type ScoreInputs,
  scorePhases,
  type ScoringLanguage,
  type TaskScoreContext,
} from "./phases.ts";

/** Bumped when the way patches are scored changes, so saved results are recomputed. */
const SCORE_RULES = 2;

/** What {@linkcode scoreTask} needs besides the task: Python's test environment. */
export type ScoreContext = TaskScoreContext<TestEnv>;

/** The inputs that decide a task's resolution; a saved one with the same key is reused. */
export function resolutionInputsKey(
  project: Project,
  task: Task,
  inputs: ScoreInputs,
  env: TestEnv,
): string {
  return inputsKey({
    rules: SCORE_RULES,
    task: [task.id, task.commit, task.parent, task.packageDir, task.pythonPath],
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
    tests: project.config.project.tests,
    ...sessionInputs(project, env),
  });
}

/** How the message of a patch whose run could not be trusted begins. */
const UNTRUSTED = "pytest gave no trustworthy result on this patch";

/**
 * What decides every scored tree besides its patch: the task, its hidden tests, its ground truth
 * and how sessions run. With a patch's identity, the key of that patch's score.
 */
function hiddenKey(project: Project, task: Task, oracle: Oracle, env: TestEnv): string {
  return inputsKey({
    rules: SCORE_RULES,
    task: [task.commit, task.parent, task.packageDir, task.pythonPath],
    hidden: [task.testFiles, task.supportFiles ?? []],
    oracle: [oracle.status, oracle.failToPass, oracle.passToPass],
    tests: project.config.project.tests,
    ...sessionInputs(project, env),
  });
}

/** The key of an author's tests in one repeat on G. */
function goldCellKey(project: Project, task: Task, env: TestEnv, index: number, author: string) {
  return cellKey(
    `G:${task.commit}#${index}`,
    author,
    inputsKey({
      rules: SCORE_RULES,
      task: [task.packageDir, task.pythonPath],
      tests: project.config.project.tests,
      ...sessionInputs(project, env),
    }),
  );
}

/**
 * Score one task: sanity gates, every contestant's patch, the judge's pick, and every agent's
 * evidence roles (`phases.ts`), with pytest. Infrastructure failures become an unscored resolution
 * whose reason says so.
 */
export async function scoreTask(
  project: Project,
  task: Task,
  inputs: ScoreInputs,
  context: ScoreContext,
): Promise<Resolution> {
  const { signal } = context;
  const log = new RunLog(context.onRun, context.onStart);
  const paths = taskPathRules(project, task);
  const settings = sessionSettings(project, task, {
    sandbox: context.sandbox,
    env: context.env,
    slots: context.slots ?? new Slots(project.config.run.jobs),
    scratch: join(context.work, "runs"),
    signal,
  });
  /** The hidden test modules on G (read once the phases begin). */
  let targets: string[] = [];
  const python: ScoringLanguage = {
    untrusted: UNTRUSTED,
    prepare: async () => {
      targets = await listFiles(project.repository, task.commit, task.testFiles);
    },
    base: () => cachedTree(project.repository, task.parent, { home: project.home, signal }),
    paths: () => paths,
    review: (files, changes) => reviewPatch(files, changes, paths),
    flags: (reviewed, noticed) => [...reviewed, ...noticed],
    runHidden: (tree, name) => runHiddenTests(log, settings, targets, tree, name),
    // A tampered run's record keeps pytest's message, whatever it is.
    tamperedNote: (run) => ({ message: run.message }),
    replay: (base, reuse) =>
      replayAuthors(project, task, inputs, context, { settings, log, reuse }, base),
    runs: () => log.sorted(),
  };
  return await scorePhases(project, task, inputs, context, {
    resolution: resolutionInputsKey(project, task, inputs, context.env),
    hidden: hiddenKey(project, task, inputs.oracle, context.env),
  }, python);
}

/**
 * The hidden tests, once, on one prepared tree: a run the harness cannot trust is one whose
 * guard's channel was missing, cut short or contradicted the exit code (a module pytest cannot
 * even run is not such a run).
 */
async function runHiddenTests(
  log: RunLog,
  settings: SessionSettings,
  targets: string[],
  tree: string,
  name: string,
): Promise<HiddenRun> {
  const record = log.on(name);
  let untrusted: string | undefined;
  let sandboxFailed = false;
  const [result] = await runGroups(tree, [suiteGroup(targets)], settings, (run: PytestRun) => {
    record(run);
    if (run.status === "infra-error" && run.cause !== "unrunnable") {
      untrusted = run.message ?? "pytest could not run";
      sandboxFailed ||= run.cause === "sandbox";
    }
  });
  return { ...result, ...(untrusted !== undefined ? { untrusted } : {}), sandboxFailed };
}

/** Phase 3: every author's tests on G, for their evidence roles. */
async function replayAuthors(
  project: Project,
  task: Task,
  inputs: ScoreInputs,
  context: ScoreContext,
  s: { settings: SessionSettings; log: RunLog; reuse: Reuser },
  base: string,
) {
  const authors = await taskAuthors(project, inputs.attempts, {
    base,
    python: context.env.python,
    rules: await treeRules(base),
    scratch: join(context.work, "scratch"),
    signal: context.signal,
  });
  return replayOnGold(project, task, authors, {
    work: context.work,
    settings: s.settings,
    onSession: (i) => s.log.on(i === 0 ? "G" : `G#${i + 1}`),
    reuse: s.reuse,
    keyOf: (i, author) => goldCellKey(project, task, context.env, i, author.key),
  });
}
