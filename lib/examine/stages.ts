/**
 * The examine, judge and score stages as the bout pipeline (`lib/bout.ts`) runs them: each takes
 * the tasks of the bout, does what is not done yet, and returns what it did with a one-line
 * summary. The work itself lives in `examine/mod.ts` and `score/mod.ts`.
 *
 * Requires what those modules require.
 *
 * @module
 */

import type { Project } from "../project.ts";
import type { Matrix, OraclesFile, Resolution, Task, Verdict } from "../records.ts";
import type { StageOptions } from "../testbed/stage.ts";
import {
  judgeAll as judgeMatrices,
  readResolutions as readResolutionsFile,
  readVerdicts as readVerdictsFile,
  type ResolutionsFile,
  scoreAll as scoreTasks,
  type ScoreProgress,
  type VerdictsFile,
} from "../score/mod.ts";
import { examineAll as examineTasks, type ExamineProgress, readMatrices } from "./mod.ts";

function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

function scorable(tasks: readonly Task[], oracles: OraclesFile): Task[] {
  return tasks.filter((t) => oracles.oracles[t.id]?.status === "scorable");
}

/** What the examine stage did. */
export interface ExamineStage {
  /** The matrices of the tasks examined (new or reused). */
  matrices: Matrix[];
  /** One line for a person. */
  summary: string;
}

/** Cross-examine the bout's scorable tasks (see `examineAll` in `examine/mod.ts`). */
export async function examineAll(
  project: Project,
  tasks: readonly Task[],
  oracles: OraclesFile,
  options: StageOptions<ExamineProgress> = {},
): Promise<ExamineStage> {
  let fresh = 0, sessions = 0;
  const matrices = await examineTasks(project, scorable(tasks, oracles), {
    ...options,
    onProgress: (event) => {
      if (event.event === "done") fresh++;
      if (event.event === "run") sessions++;
      options.onProgress?.(event);
    },
  });
  return {
    matrices,
    summary: `${plural(matrices.length, "matrix", "matrices")} (${fresh} new, ${
      matrices.length - fresh
    } unchanged), ${plural(sessions, "pytest session")}`,
  };
}

/** What the judge stage did. */
export interface JudgeStage {
  /** `verdicts.json` as written. */
  file: VerdictsFile;
  /** One line for a person. */
  summary: string;
}

/** Judge every task of the bout that has a matrix and write `verdicts.json`. */
export async function judgeAll(project: Project, tasks: readonly Task[]): Promise<JudgeStage> {
  const matrices = await readMatrices(project, tasks.map((t) => t.id));
  const file = await judgeMatrices(project, matrices);
  const judged = matrices.map((m) => file.verdicts[m.task]);
  const picks = judged.filter((v) => v?.pick !== null).length;
  return {
    file,
    summary: `${plural(judged.length, "task")} judged under ${file.policy}: ${
      plural(picks, "pick")
    }, ${plural(judged.length - picks, "abstention")}`,
  };
}

/** What the score stage did. */
export interface ScoreStage {
  /** `resolutions.json` as written. */
  file: ResolutionsFile;
  /** One line for a person. */
  summary: string;
}

/** Score the bout's tasks that have a ground truth and write `resolutions.json`. */
export async function scoreAll(
  project: Project,
  tasks: readonly Task[],
  oracles: OraclesFile,
  options: StageOptions<ScoreProgress> = {},
): Promise<ScoreStage> {
  const chosen = tasks.filter((t) => oracles.oracles[t.id] !== undefined);
  const file = await scoreTasks(project, chosen, options);
  const mine = chosen.map((t) => file.resolutions[t.id]).filter((r) => r !== undefined);
  const scored = mine.filter((r) => r.scored);
  const patches = scored.flatMap((r) => Object.values(r.patches));
  const resolved = patches.filter((p) => p.outcome === "resolved").length;
  return {
    file,
    summary: `${plural(scored.length, "task")} scored, ${mine.length - scored.length} not; ${
      plural(resolved, "patch", "patches")
    } of ${patches.length} resolved`,
  };
}

/** The saved verdicts by task (none yet: empty). */
export async function readVerdicts(project: Project): Promise<Record<string, Verdict>> {
  return (await readVerdictsFile(project))?.verdicts ?? {};
}

/** The saved resolutions by task (none yet: empty). */
export async function readResolutions(project: Project): Promise<Record<string, Resolution>> {
  return (await readResolutionsFile(project)).resolutions;
}
