/**
 * Ground truth: for each task, run the test modules the fix touched on B (the parent, with the
 * fix's versions of those test files installed) and on G (the fix), each `[tasks] reruns` times,
 * sandboxed, and decide fail-to-pass, pass-to-pass and unstable tests (see `ground_truth.ts`).
 *
 * `.bugbout/oracles.json` is rewritten atomically after each task finishes, so an interrupt or a
 * kill keeps every finished task; a task whose inputs have not changed since it was saved is not
 * run again (an infrastructure error is always retried). Independent tasks run in parallel, up
 * to `[run] jobs` pytest sessions at a time.
 *
 * Requires `--allow-run` (git, cp, uv, the sandbox), `--allow-read`, `--allow-write` (the
 * results directory, `BUGBOUT_HOME`) and `--allow-env`.
 *
 * @module
 */

import { join } from "node:path";
import { checkout, installFiles, removeTree } from "../checkout.ts";
import { OWNED, ownedSuffix, sweepDead } from "../pids.ts";
import { describeError, InterruptedError } from "../errors.ts";
import { inputsKey } from "../hash.ts";
import type { Project } from "../project.ts";
import { type TestEnv, testEnvFor } from "../python/env.ts";
import type { PytestRun } from "../python/classify.ts";
import { runPytest } from "../python/pytest.ts";
import { mergeRepeats } from "../python/repeats.ts";
import {
  type Oracle,
  type OraclesFile,
  oraclesFileSchema,
  RESULTS_VERSION,
  type RunSummary,
  type Task,
} from "../records.ts";
import { openSandbox } from "../sandbox/mod.ts";
import type { Sandbox } from "../sandbox/types.ts";
import { groundTruth, summarise } from "./ground_truth.ts";
import { settleAll, Slots } from "../testbed/slots.ts";
import { sessionInputs, type StageOptions } from "../testbed/stage.ts";

export { countOutcomes, failsOnB, type GroundTruth, groundTruth } from "./ground_truth.ts";

/** The results file this stage writes, inside `.bugbout/`. */
export const ORACLES_FILE = "oracles.json";

/** Bumped when the oracle's rules change, so saved results are recomputed. */
const ORACLE_RULES = 1;

/** What {@linkcode computeOracles} reports as it goes. */
export type OracleProgress =
  | { event: "cached"; task: string; oracle: Oracle }
  | { event: "start"; task: string }
  | { event: "run"; task: string; run: RunSummary }
  | { event: "done"; task: string; oracle: Oracle };

/** Options for {@linkcode computeOracles}. */
export type OracleOptions = StageOptions<OracleProgress>;

/** The inputs that decide a task's oracle; a saved oracle with the same key is reused. */
export function oracleInputsKey(project: Project, task: Task, env: TestEnv): string {
  return inputsKey({
    rules: ORACLE_RULES,
    commit: task.commit,
    parent: task.parent,
    testFiles: task.testFiles,
    supportFiles: task.supportFiles ?? [],
    pythonPath: task.pythonPath,
    ...sessionInputs(project, env),
  });
}

/** Read `oracles.json`, or an empty file when there is none yet. */
export async function readOracles(project: Project): Promise<OraclesFile> {
  return (await project.results.read(ORACLES_FILE, oraclesFileSchema, "ground truth")) ??
    { version: RESULTS_VERSION, kind: "oracles", oracles: {} };
}

/**
 * Compute the ground truth of `tasks` and save it in `.bugbout/oracles.json` after each task.
 * Returns the whole file (including tasks computed by earlier runs).
 */
export async function computeOracles(
  project: Project,
  tasks: readonly Task[],
  options: OracleOptions = {},
): Promise<OraclesFile> {
  const { signal } = options;
  const file = await readOracles(project);
  const chosen = options.only ? tasks.filter((t) => options.only!.includes(t.id)) : [...tasks];
  if (chosen.length === 0) return file;
  await project.results.ensure();
  await sweepDead(project.cacheDir("oracle"), OWNED, removeTree);
  const env = options.env ?? await testEnvFor(project, signal);
  const sandbox = options.sandbox ?? await openSandbox(project.config.run.sandbox);
  const jobs = project.config.run.jobs;
  const runSlots = new Slots(jobs);
  const taskSlots = new Slots(jobs);
  let saving = Promise.resolve();
  const save = (oracle: Oracle) => {
    file.oracles[oracle.task] = oracle;
    saving = saving.then(() => project.results.write(ORACLES_FILE, file));
    return saving;
  };

  const one = async (task: Task) => {
    const key = oracleInputsKey(project, task, env);
    const saved = file.oracles[task.id];
    if (saved && saved.inputsKey === key && saved.status !== "infra-error") {
      options.onProgress?.({ event: "cached", task: task.id, oracle: saved });
      return;
    }
    await taskSlots.use(async () => {
      if (signal?.aborted) throw new InterruptedError();
      options.onProgress?.({ event: "start", task: task.id });
      const oracle = await oracleOf(project, task, key, { env, sandbox, runSlots, options });
      await save(oracle);
      options.onProgress?.({ event: "done", task: task.id, oracle });
    });
  };
  // Each task waits for its own save, so everything finished is on disk when this returns.
  await settleAll(chosen.map(one), signal);
  return file;
}

interface Shared {
  env: TestEnv;
  sandbox: Sandbox;
  runSlots: Slots;
  options: OracleOptions;
}

/** One task: build B and G, run each side `reruns` times (sides in parallel), decide. */
async function oracleOf(project: Project, task: Task, key: string, s: Shared): Promise<Oracle> {
  const { signal } = s.options;
  const work = project.cacheDir(
    "oracle",
    `${task.id}${ownedSuffix()}`,
  );
  const runs: RunSummary[] = [];
  try {
    const [bTree, gTree] = await Promise.all([
      (async () => {
        const tree = await checkout(project.repository, task.parent, join(work, "B"), {
          home: project.home,
          signal,
        });
        await installFiles(project.repository, task.commit, hiddenTestFiles(task), tree, signal);
        return tree;
      })(),
      checkout(project.repository, task.commit, join(work, "G"), { home: project.home, signal }),
    ]);
    const targets = await existing(gTree, task.testFiles);
    if (targets.length === 0) {
      return blank(task, key, "unscorable", "None of the fix's test files exists on G.", runs);
    }
    const side = async (tree: string, name: "B" | "G") => {
      const done: PytestRun[] = [];
      for (let i = 0; i < project.config.tasks.reruns; i++) {
        const run = await s.runSlots.use(() => {
          if (signal?.aborted) throw new InterruptedError();
          return runPytest({
            sandbox: s.sandbox,
            env: s.env,
            tree,
            targets,
            pythonPath: [task.pythonPath],
            pytestArgs: project.config.project.pytestArgs,
            extraEnv: project.config.project.env,
            timeoutMs: project.config.run.testTimeout * 1000,
            memoryMb: project.config.run.testMemory,
            deny: [project.repository, project.home, project.results.path],
            scratch: join(work, "runs"),
            signal,
          });
        });
        const summary = summarise(name, i, run);
        runs.push(summary);
        s.options.onProgress?.({ event: "run", task: task.id, run: summary });
        done.push(run);
      }
      return mergeRepeats(done);
    };
    const [b, g] = await Promise.all([side(bTree, "B"), side(gTree, "G")]);
    const truth = groundTruth(b, g);
    const gTests = new Set(Object.keys(g.stable).concat(g.unstable));
    const durations: Record<string, number> = {};
    for (const [id, ms] of Object.entries(g.durations)) if (gTests.has(id)) durations[id] = ms;
    return {
      task: task.id,
      inputsKey: key,
      status: truth.status,
      ...(truth.reason ? { reason: truth.reason } : {}),
      failToPass: truth.failToPass,
      passToPass: truth.passToPass,
      unstable: truth.unstable,
      runs: order(runs),
      durations,
    };
  } catch (error) {
    if (error instanceof InterruptedError || signal?.aborted) throw new InterruptedError();
    return blank(task, key, "infra-error", `Infrastructure error: ${describeError(error)}`, runs);
  } finally {
    await removeTree(work);
  }
}

function order(runs: RunSummary[]): RunSummary[] {
  return [...runs].sort((a, b) => a.tree.localeCompare(b.tree) || a.index - b.index);
}

function blank(
  task: Task,
  key: string,
  status: Oracle["status"],
  reason: string,
  runs: RunSummary[],
): Oracle {
  return {
    task: task.id,
    inputsKey: key,
    status,
    reason,
    failToPass: [],
    passToPass: [],
    unstable: [],
    runs: order(runs),
    durations: {},
  };
}

async function existing(tree: string, paths: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const path of paths) {
    try {
      if ((await Deno.stat(join(tree, path))).isFile) found.push(path);
    } catch {
      // not in this tree
    }
  }
  return found;
}

/** The fix's test files to put in place on B: the test modules and their support files. */
export function hiddenTestFiles(task: Task): string[] {
  return [...new Set([...task.testFiles, ...(task.supportFiles ?? [])])];
}
