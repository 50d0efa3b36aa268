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
 * A Go or JavaScript project is scored the same way with its test runner (`runner.ts`): the
 * runner says what is test code and configuration, its configuration is never applied and is
 * flagged with what its `patchFlags` finds (`runner_review.ts`), the oracle's tests run by id, and
 * a tampered run resolves nothing; agents' tests get their evidence roles the same way, each
 * author's tests installed as cross-examination installs them (`runner_evidence.ts`).
 *
 * `.bugbout/resolutions.json` is rewritten after each task; a task whose inputs are unchanged is
 * not scored again (one that hit an infrastructure error always is).
 *
 * Requires `--allow-run` (git, cp, the sandbox, the interpreter), `--allow-read`, `--allow-write`
 * and `--allow-env`.
 *
 * @module
 */

import type { z } from "../deps.ts";
import { BugboutError, describeError } from "../errors.ts";
import { readMatrix } from "../examine/mod.ts";
import { languageOf } from "../lang/mod.ts";
import { readVerdicts } from "../judge/mod.ts";
import { readOracles } from "../oracle/mod.ts";
import type { Project } from "../project.ts";
import { readAttempts } from "../race/mod.ts";
import { type Resolution, resolutionsFileSchema, RESULTS_VERSION, type Task } from "../records.ts";
import { reuseSummary, runTaskStage, type StageOptions } from "../testbed/mod.ts";
import { plural } from "../words.ts";
import { INFRA_REASON, type ScoreInputs } from "./phases.ts";
import { resolutionInputsKey, scoreTask } from "./task.ts";

export { noFix, scoreRun, type TestScore } from "./outcome.ts";
export { evidenceOf, type GoldRuns, replayOnGold } from "./evidence.ts";
export { INFRA_REASON, type ScoreContext, type ScoreInputs } from "./phases.ts";
export { reviewedPaths } from "./review.ts";
export { resolutionInputsKey, scoreTask } from "./task.ts";

/** The results file this stage writes, inside `.bugbout/`. */
export const RESOLUTIONS_FILE = "resolutions.json";

/** `resolutions.json`. */
export type ResolutionsFile = z.infer<typeof resolutionsFileSchema>;

/** Read `resolutions.json`, or an empty file when there is none yet. */
export async function readResolutions(project: Project): Promise<ResolutionsFile> {
  const saved = await project.results.read(RESOLUTIONS_FILE, resolutionsFileSchema, "resolutions");
  return saved ?? { version: RESULTS_VERSION, kind: "resolutions", resolutions: {} };
}

/** Options for {@linkcode scoreAll}. */
export type ScoreOptions = StageOptions<Resolution>;

/** What the score stage did. */
export interface ScoreStage {
  /** `resolutions.json` as written (including tasks scored by earlier runs). */
  file: ResolutionsFile;
  /** One line for a person. */
  summary: string;
}

/**
 * Score the ones among `tasks` that have a ground truth, reading the matrices, the verdicts and
 * the attempts, and save `resolutions.json` after each task.
 */
export async function scoreAll(
  project: Project,
  tasks: readonly Task[],
  options: ScoreOptions = {},
): Promise<ScoreStage> {
  const file = await readResolutions(project);
  const oracles = (await readOracles(project)).oracles;
  const verdicts = (await readVerdicts(project))?.verdicts ?? {};
  const stage = await runTaskStage<ScoreInputs, Resolution>(project, tasks, {
    name: "score",
    inputs: async (task, tools) => {
      const oracle = oracles[task.id];
      if (!oracle) return "no ground truth";
      return {
        oracle,
        matrix: await readMatrix(project, task.id),
        verdict: verdicts[task.id],
        attempts: await readAttempts(project, task.id),
        // A tree whose dependencies cannot be installed is scored as an infrastructure error.
        env: await tools.envKey(task.parent, undefined, { date: task.date }).catch((error) => {
          if (error instanceof BugboutError) return `unprepared: ${describeError(error)}`;
          throw error;
        }),
      };
    },
    key: (task, inputs, tools) => resolutionInputsKey(project, task, inputs, tools),
    saved: (task) => file.resolutions[task.id],
    reusable: (saved) => !saved.reason?.startsWith(INFRA_REASON),
    run: (task, inputs, context) =>
      scoreTask(project, task, inputs, { ...context, previous: file.resolutions[task.id] }),
    save: (task, resolution) => {
      file.resolutions[task.id] = resolution;
      return project.results.write(RESOLUTIONS_FILE, file);
    },
  }, options);
  const mine = [...stage.results.values()];
  const scored = mine.filter((r) => r.scored);
  const patches = scored.flatMap((r) => Object.values(r.patches));
  const resolved = patches.filter((p) => p.outcome === "resolved").length;
  const made = mine.filter((r) => stage.made.has(r.task)).map((r) => r.reuse);
  return {
    file,
    summary: `${plural(scored.length, "task")} scored, ${mine.length - scored.length} not; ${
      plural(resolved, "patch", "patches")
    } of ${patches.length} resolved; ${reuseSummary(made)}, ${
      plural(stage.sessions, languageOf(project.config.project.language).runWord)
    }`,
  };
}
