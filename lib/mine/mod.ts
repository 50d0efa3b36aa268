/**
 * The mine stage: walk the project's first-parent history, keep the fixes that name an issue and
 * add tests, read each issue's text (from GitHub when it can), and write `.bugbout/tasks.json`.
 *
 * Requires `--allow-run=git`, `--allow-read`, `--allow-write` (the results directory,
 * `BUGBOUT_HOME` for cached GitHub answers), `--allow-env` and `--allow-net` (GitHub).
 *
 * @module
 */

export { EXCLUSION_REASONS, type ExclusionReason } from "./classify.ts";
export { githubAccess, statementSources } from "./access.ts";

export {
  mineAll,
  type MineOptions,
  type MineProgress,
  type MineResult,
  readTasks,
  runnerAtHead,
  taskId,
  TASKS_FILE,
} from "./mine.ts";
export { type CommitDecision, whyCommit } from "./why.ts";
