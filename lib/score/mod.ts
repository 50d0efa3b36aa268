/**
 * Scoring: every contestant's patch against the maintainers' hidden tests, after the judge.
 *
 * A patch is scored by applying its source changes only — never its tests, `conftest.py`, pytest
 * configuration or import hooks (see `flags.ts`) — to B, installing the fix's test files from G,
 * and running them once. Two sanity gates come first on every task: the empty patch must not
 * resolve it and the gold patch (G's source changes on B, scored the same way) must; a task that
 * fails either is reported unscored with the reason. The judge's pick is scored too, and every
 * agent's tests get their evidence roles (`evidence.ts`).
 *
 * `.bugbout/resolutions.json` is rewritten after each task; a task whose inputs are unchanged is
 * not scored again (one that hit an infrastructure error always is).
 *
 * Requires `--allow-run` (git, cp, the sandbox, the interpreter), `--allow-read`, `--allow-write`
 * and `--allow-env`.
 *
 * @module
 */

import type { z } from "zod";
import { InterruptedError } from "../errors.ts";
import { boutAttempts, sweepWorkDirs } from "../testbed/context.ts";
import { readMatrix } from "../examine/mod.ts";
import { settleAll, Slots } from "../testbed/slots.ts";
import { readOracles } from "../oracle/mod.ts";
import type { Project } from "../project.ts";
import { testEnvFor } from "../python/env.ts";
import {
  type Resolution,
  resolutionsFileSchema,
  RESULTS_VERSION,
  type RunSummary,
  type Task,
} from "../records.ts";
import { openSandbox } from "../sandbox/mod.ts";
import { INFRA_REASON, resolutionInputsKey, type ScoreInputs, scoreTask } from "./task.ts";
import { readVerdicts } from "../judge/mod.ts";
import type { StageOptions } from "../testbed/stage.ts";

export { type IgnoredFile, type PatchReview, pytestSection, reviewPatch } from "./flags.ts";
export { noFix, scoreRun, type TestScore } from "./outcome.ts";
export { evidenceOf, type GoldRuns, replayOnGold } from "./evidence.ts";
export {
  judgeAgents,
  judgeAll,
  judgeMatrices,
  readVerdicts,
  VERDICTS_FILE,
  type VerdictsFile,
} from "../judge/mod.ts";

export {
  INFRA_REASON,
  resolutionInputsKey,
  type ScoreContext,
  type ScoreInputs,
  scoreTask,
} from "./task.ts";

/** The results file this stage writes, inside `.bugbout/`. */
export const RESOLUTIONS_FILE = "resolutions.json";

/** `resolutions.json`. */
export type ResolutionsFile = z.infer<typeof resolutionsFileSchema>;

/** What {@linkcode scoreAll} reports as it goes. */
export type ScoreProgress =
  | { event: "cached"; task: string; resolution: Resolution }
  | { event: "start"; task: string }
  | { event: "run"; task: string; run: RunSummary }
  | { event: "done"; task: string; resolution: Resolution };

/** Read `resolutions.json`, or an empty file when there is none yet. */
export async function readResolutions(project: Project): Promise<ResolutionsFile> {
  const saved = await project.results.read(RESOLUTIONS_FILE, resolutionsFileSchema, "resolutions");
  return saved ?? { version: RESULTS_VERSION, kind: "resolutions", resolutions: {} };
}

/** Options for {@linkcode scoreAll}. */
export type ScoreOptions = StageOptions<ScoreProgress>;

/**
 * Score `tasks` (those with a ground truth in `oracles.json`) and save `resolutions.json` after
 * each. Reads `verdicts.json` and the matrices. Returns the whole file.
 */
export async function scoreAll(
  project: Project,
  tasks: readonly Task[],
  options: ScoreOptions = {},
): Promise<ResolutionsFile> {
  const { signal } = options;
  const file = await readResolutions(project);
  const oracles = await readOracles(project);
  const verdicts = (await readVerdicts(project))?.verdicts ?? {};
  const chosen = (options.only ? tasks.filter((t) => options.only!.includes(t.id)) : [...tasks])
    .filter((t) => oracles.oracles[t.id] !== undefined);
  if (chosen.length === 0) return file;
  await project.results.ensure();
  await sweepWorkDirs(project.cacheDir("score"));
  const env = options.env ?? await testEnvFor(project, signal);
  const sandbox = options.sandbox ?? await openSandbox(project.config.run.sandbox);
  const slots = new Slots(project.config.run.jobs);
  const taskSlots = new Slots(project.config.run.jobs);
  let saving = Promise.resolve();
  const one = async (task: Task) => {
    const inputs: ScoreInputs = {
      oracle: oracles.oracles[task.id],
      matrix: await readMatrix(project, task.id),
      verdict: verdicts[task.id],
      attempts: await boutAttempts(project, task.id),
    };
    const key = resolutionInputsKey(project, task, inputs, env);
    const saved = file.resolutions[task.id];
    if (saved?.inputsKey === key && !saved.reason?.startsWith(INFRA_REASON)) {
      options.onProgress?.({ event: "cached", task: task.id, resolution: saved });
      return;
    }
    await taskSlots.use(async () => {
      if (signal?.aborted) throw new InterruptedError();
      options.onProgress?.({ event: "start", task: task.id });
      const resolution = await scoreTask(project, task, inputs, {
        sandbox,
        env,
        slots,
        signal,
        onRun: (run) => options.onProgress?.({ event: "run", task: task.id, run }),
      });
      file.resolutions[task.id] = resolution;
      saving = saving.then(() => project.results.write(RESOLUTIONS_FILE, file));
      await saving;
      options.onProgress?.({ event: "done", task: task.id, resolution });
    });
  };
  // Each task waits for its own save, so everything finished is on disk when this returns.
  await settleAll(chosen.map(one), signal);
  return file;
}
