/**
 * Scoring one task with the project's language (the phases of `phases.ts`): the keys that decide
 * whether a saved resolution, a patch's score or an author's cell on G stands.
 *
 * Requires `--allow-run` (git, cp, the sandbox, the runner), `--allow-read`, `--allow-write`
 * and `--allow-env`.
 *
 * @module
 */

import { inputsKey } from "../hash.ts";
import { CAPABILITY_RULES, type ProjectTools } from "../lang/mod.ts";
import type { Project } from "../project.ts";
import type { Resolution, Task } from "../records.ts";
import { attemptsFingerprint, runInputs } from "../testbed/mod.ts";
import { SCORE_RULES, type ScoreContext, type ScoreInputs, scorePhases } from "./phases.ts";

/** What shapes every scored run besides the tree and its environment. */
function shapeOf(project: Project, tools: ProjectTools) {
  return { tests: project.config.project.tests, ...runInputs(project, tools) };
}

/** The inputs that decide a task's resolution; a saved one with the same key is reused. */
export function resolutionInputsKey(
  project: Project,
  task: Task,
  inputs: ScoreInputs,
  tools: ProjectTools,
): string {
  return inputsKey({
    rules: SCORE_RULES,
    capabilities: CAPABILITY_RULES,
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
    env: inputs.env,
    ...shapeOf(project, tools),
  });
}

/**
 * Score one task: sanity gates, every contestant's patch, the judge's pick, and every agent's
 * evidence roles (`phases.ts`). Infrastructure failures become an unscored resolution whose
 * reason says so.
 */
export function scoreTask(
  project: Project,
  task: Task,
  inputs: ScoreInputs,
  context: ScoreContext,
): Promise<Resolution> {
  return scorePhases(project, task, inputs, context, {
    resolution: resolutionInputsKey(project, task, inputs, context.tools),
    shape: shapeOf(project, context.tools),
  });
}
