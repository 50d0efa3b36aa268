/**
 * Mining tasks from a project's history: the `mine` stage, its rules, and issue texts from GitHub.
 *
 * @module
 */

export {
  type AccessOptions,
  type GithubAccess,
  githubAccess,
  type GithubSetup,
  githubSetup,
} from "./access.ts";
export { type AddedTests, findAddedTests } from "./added_tests.ts";
export {
  type Candidate,
  classifyChange,
  EXCLUSION_REASONS,
  type ExclusionReason,
} from "./classify.ts";
export { cleanStatement, composeStatement } from "./clean.ts";
export {
  GithubClient,
  type GithubClientOptions,
  type GithubItem,
  githubToken,
  type RateLimit,
} from "./github.ts";
export { type Change, type FileChange, firstParentHistory } from "./history.ts";
export {
  type MineOptions,
  type MineProgress,
  MINER_VERSION,
  type MineResult,
  mineTasks,
  readTasks,
  taskId,
  TASKS_FILE,
} from "./mine.ts";
export { inPackage, PackageTracker, pythonPathFor } from "./package.ts";
export { DEFAULT_RULES, isTestModule, type PytestRules, pytestRules } from "./pytest_rules.ts";
export { addedTestFunctions, testFunctions } from "./python_tests.ts";
export { findReferences, primaryReference, type Reference } from "./refs.ts";
export { changeText, readsLikeFix } from "./titles.ts";
