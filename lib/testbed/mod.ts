/**
 * The testbed: everything the stages need to run tests on trees. It builds trees (B, a candidate
 * with only its source changes applied), reads each author's tests out of its attempt and installs
 * them beside the project's own, runs pytest sessions that several authors share (with a fallback
 * that keeps one author's crash from costing the others their outcomes), turns sessions into
 * matrix cells, says what kind of file each changed path is, and drives a per-task stage.
 *
 * It sits between the stages (above) and Python, the sandbox, git and processes (below). Stages
 * import it through this module only.
 *
 * Requires what its parts require: `--allow-run` (git, cp, uv, the sandbox, the interpreter),
 * `--allow-read`, `--allow-write` and `--allow-env`.
 *
 * @module
 */

export {
  type AuthorModule,
  authorModules,
  type AuthorTests,
  siblingPath,
  testPartOf,
} from "./authors.ts";
export {
  type CapturedPatch,
  capturePatch,
  MAX_CAPTURED_FILE_BYTES,
  type Snapshot,
  takeSnapshot,
} from "./capture.ts";
export {
  assembleCells,
  cellOn,
  lookupOutcome,
  type Owner,
  rowIds,
  type TreeResult,
} from "./cells.ts";
export {
  authorGroup,
  installBeside,
  installInPlace,
  suiteGroup,
  type TestGroup,
} from "./install.ts";
export {
  applyPatch,
  type ChangedPath,
  type FileChange,
  type FileState,
  isTreePath,
  patchedFiles,
  readState,
  stateText,
  writeState,
} from "./patched.ts";
export { classifyPath, isTestFileName, type PathRules } from "./paths.ts";
export {
  type AgentEvidence,
  agentEvidence,
  COMPARABLE_ROLES,
  type ComparableRole,
  type EvidenceRole,
  evidenceRole,
  type EvidenceTest,
  evidenceTest,
  inadequateClosure,
  type Replay,
  replayClass,
} from "./roles.ts";
export { cellKey, Reuser, reuseSummary } from "./reuse.ts";
export { countOutcomes, type OnSession, RunLog, summariseRun } from "./runs.ts";
export {
  type GroupResult,
  type PreparedTree,
  prepareTree,
  runGroups,
  runPrepared,
  type RunSelection,
  type SessionSettings,
} from "./sessions.ts";
export { RUNNERS_VERSION, type RunnerTree, TreeRunners } from "./runners.ts";
export {
  authorEntries,
  authorOutcomes,
  authorTags,
  fillRows,
  hasRunnerTests,
  installRunnerAuthor,
  readRunnerAuthor,
  type RunnerAuthor,
  type RunnerAuthorFile,
  type RunnerAuthorInput,
  taskRunnerAuthors,
} from "./runner_authors.ts";
export { settleAll, Slots } from "./slots.ts";
export {
  runTaskStage,
  sessionInputs,
  type StageOptions,
  type StageRun,
  type TaskContext,
  type TaskProgress,
  type TaskStage,
} from "./stage.ts";
export {
  attemptNames,
  attemptsFingerprint,
  hiddenTestFiles,
  sessionSettings,
  taskAuthors,
  taskPathRules,
  treeRules,
} from "./task.ts";
export { applySourceChanges, hasCandidate, sourcePaths } from "./trees.ts";
