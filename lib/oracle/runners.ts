/**
 * Ground truth of a Go or JavaScript project: the same trees, the same number of runs and the
 * same rules as Python's (`mod.ts`, `ground_truth.ts`), with the language's runner in place of
 * pytest. B is the parent with the fix's test files (and support files) installed, G is the fix;
 * each side runs the fix's test files that exist on G, as one group, `[tasks] reruns` times, in
 * the sandbox, trusting what passed before a hang (the maintainers' own tests).
 *
 * Each tree gets the environment its own dependency files need (`TreeRunners`); the keys of the
 * environments of B and G are part of the task's inputs key, so a saved oracle stands only while
 * the toolchain and the dependencies it was computed with are unchanged.
 *
 * Requires `--allow-run` (git, cp, the toolchains, the sandbox), `--allow-read`, `--allow-write`
 * (the results directory, `BUGBOUT_HOME`) and `--allow-env`.
 *
 * @module
 */

import { join } from "node:path";
import { cachedTree, checkout, installFiles } from "../checkout.ts";
import { BugboutError, describeError, InterruptedError } from "../errors.ts";
import { inputsKey } from "../hash.ts";
import type { Project } from "../project.ts";
import type { InfraCause, PytestRun } from "../lang/python/mod.ts";
import type { Oracle, OraclesFile, Task } from "../records.ts";
import type { RunnerRun } from "../lang/mod.ts";
import {
  hiddenTestFiles,
  RunLog,
  type RunnerTree,
  type TaskContext,
  type TaskStage,
  TreeRunners,
} from "../testbed/mod.ts";
import { groundTruth } from "./ground_truth.ts";
import { blankOracle, durationsOnG, existing, runSide } from "./sides.ts";

/** What a task's ground truth depends on besides the task: its trees' environments. */
export type RunnerOracleInputs =
  | {
    /** The environment keys of B (the parent's dependency files) and G. */
    envs: { B: string; G: string };
  }
  | {
    /** Why an environment could not be prepared (the task is an infrastructure error). */
    error: string;
  };

/**
 * A runner's run as the oracle's rules read pytest's: the same fields, no single exit code
 * (`null`: a run is one process per group or package), and, for an infrastructure error, its
 * cause read from the message: the sandbox could not start, the runner refused the tree (a
 * property of the tree, the same every time), or else the run is not to be trusted.
 */
export function asPytestRun(run: RunnerRun): PytestRun {
  const converted: PytestRun = { ...run, exitCode: null };
  if (run.status === "infra-error") converted.cause = causeOf(run.message ?? "");
  return converted;
}

function causeOf(message: string): InfraCause {
  if (/the sandbox could not run/i.test(message)) return "sandbox";
  if (/ could not run this tree: /.test(message)) return "unrunnable";
  return "harness";
}

/** The environment keys of a task's two sides, from the trees of its commits (cached). */
async function inputsOf(
  project: Project,
  runners: TreeRunners,
  task: Task,
): Promise<RunnerOracleInputs> {
  try {
    const key = async (commit: string) => {
      const tree = await cachedTree(project.repository, commit, { home: project.home });
      return (await runners.open(tree)).env.key;
    };
    const [B, G] = await Promise.all([key(task.parent), key(task.commit)]);
    return { envs: { B, G } };
  } catch (error) {
    // A tree whose dependencies cannot be installed is this task's trouble, not the stage's.
    if (error instanceof BugboutError) {
      return { error: describeError(error) + (error.hint ? `\nhint: ${error.hint}` : "") };
    }
    throw error;
  }
}

/** The stage of ground truth on a Go or JavaScript project, saving into `file`. */
export function runnerOracleStage(
  project: Project,
  file: OraclesFile,
  rules: number,
  save: () => Promise<void>,
): TaskStage<RunnerOracleInputs, Oracle, TreeRunners> {
  const runners = new TreeRunners(project);
  const c = project.config;
  return {
    name: "oracle",
    environment: () => Promise.resolve(runners),
    inputs: (task) => inputsOf(project, runners, task),
    key: (task, inputs, env) =>
      inputsKey({
        rules,
        commit: task.commit,
        parent: task.parent,
        testFiles: task.testFiles,
        supportFiles: task.supportFiles ?? [],
        runners: env.key,
        envs: "envs" in inputs ? inputs.envs : { error: inputs.error },
        testEnv: c.project.env,
        reruns: c.tasks.reruns,
        testTimeout: c.run.testTimeout,
        testMemory: c.run.testMemory,
      }),
    saved: (task) => file.oracles[task.id],
    reusable: (saved) => saved.status !== "infra-error",
    run: (task, inputs, context) => runnerOracleOf(project, task, inputs, context),
    save: (_, oracle) => {
      file.oracles[oracle.task] = oracle;
      return save();
    },
  };
}

/** One task: build B and G, run each side `reruns` times with its runner (sides in parallel). */
async function runnerOracleOf(
  project: Project,
  task: Task,
  inputs: RunnerOracleInputs,
  context: TaskContext<TreeRunners>,
): Promise<Oracle> {
  const { signal, work } = context;
  const log = new RunLog(context.onRun, context.onStart);
  const blank = blankOracle(task, context.key, log);
  if ("error" in inputs) {
    const error = inputs.error.replace(/^Cannot prepare the test environment: /, "");
    return blank("infra-error", `Cannot prepare the test environment: ${error}`);
  }
  try {
    const home = { home: project.home, signal };
    const [bTree, gTree] = await Promise.all([
      (async () => {
        const tree = await checkout(project.repository, task.parent, join(work, "B"), home);
        await installFiles(project.repository, task.commit, hiddenTestFiles(task), tree, signal);
        return tree;
      })(),
      checkout(project.repository, task.commit, join(work, "G"), home),
    ]);
    const targets = await existing(gTree, task.testFiles);
    if (targets.length === 0) {
      return blank("unscorable", "None of the fix's test files exists on G.");
    }
    const [bSide, gSide] = await Promise.all([
      context.env.open(bTree, signal),
      context.env.open(gTree, signal),
    ]);
    const side = (tree: string, name: "B" | "G", opened: RunnerTree) =>
      runSide(context, log, name, project.config.tasks.reruns, async () =>
        asPytestRun(
          await opened.runner.run({
            sandbox: context.sandbox,
            env: opened.env,
            tree,
            groups: [targets],
            extraEnv: project.config.project.env,
            timeoutMs: project.config.run.testTimeout * 1000,
            memoryMb: project.config.run.testMemory,
            deny: [project.repository, project.home, project.results.path],
            scratch: join(work, "runs"),
            // The maintainers' own code and tests: what passed before a hang stands.
            trustPartial: true,
            signal,
          }),
        ));
    const [b, g] = await Promise.all([side(bTree, "B", bSide), side(gTree, "G", gSide)]);
    const truth = groundTruth(b, g, { runner: gSide.runner.name });
    const durations = durationsOnG(g);
    return {
      task: task.id,
      inputsKey: context.key,
      status: truth.status,
      ...(truth.reason ? { reason: truth.reason } : {}),
      failToPass: truth.failToPass,
      passToPass: truth.passToPass,
      unstable: truth.unstable,
      runs: log.sorted(),
      durations,
    };
  } catch (error) {
    if (error instanceof InterruptedError || signal?.aborted) throw new InterruptedError();
    return blank("infra-error", `Infrastructure error: ${describeError(error)}`);
  }
}
