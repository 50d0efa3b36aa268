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
export { type AddedTests, type FindAddedOptions, findAddedTests } from "./added_tests.ts";
export {
  type Candidate,
  type Classified,
  classifyChange,
  type ClassifyContext,
  EXCLUSION_REASONS,
  type ExclusionReason,
} from "./classify.ts";
export { cleanStatement, composeStatement } from "./clean.ts";
export {
  type EnvLike,
  GithubClient,
  type GithubClientOptions,
  type GithubItem,
  githubToken,
  type RateLimit,
  type TokenSource,
} from "./github.ts";
export {
  type Change,
  type FileChange,
  firstParentHistory,
  type HistoryOptions,
} from "./history.ts";
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
export {
  DEFAULT_RULES,
  isTestModule,
  type PytestRules,
  pytestRules,
} from "../python/pytest_rules.ts";
export { addedTestFunctions, testFunctions } from "./python_tests.ts";
export { findReferences, primaryReference, type Reference } from "./refs.ts";
export { type ChangeText, changeText, readsLikeFix } from "./titles.ts";
export { githubCheck } from "./github_check.ts";
