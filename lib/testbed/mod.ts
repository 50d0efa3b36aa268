/**
 * The testbed: everything the stages need to run tests on trees, in any language. It builds trees
 * (B, a candidate with only its source changes applied), reads each author's tests out of its
 * attempt, runs every owner of rows (authors and the repository's suite) on a tree kept apart from
 * one another (`owners.ts`), turns runs into matrix cells, says what kind of file each changed path
 * is, and drives a per-task stage. It names no language: the tree's runner (`lib/lang/`) says how.
 *
 * It sits between the stages (above) and the languages, the sandbox, git and processes (below).
 * Stages import it through this module only.
 *
 * Requires what its parts require: `--allow-run` (git, cp, the sandbox, the runners),
 * `--allow-read`, `--allow-write` and `--allow-env`.
 *
 * @module
 */

export {
  aloneLayout,
  authorEntries,
  type AuthorFile,
  authorFromChanges,
  type AuthorInput,
  type AuthorLayout,
  type AuthorReading,
  authorRows,
  type AuthorTests,
  hasTests,
  installAuthor,
  readAuthor,
  staticRows,
  testPartOf,
} from "./authors.ts";
export {
  type CapturedPatch,
  type CaptureOptions,
  capturePatch,
  countEntries,
  MAX_CAPTURED_FILE_BYTES,
  type Snapshot,
  takeSnapshot,
} from "./capture.ts";
export {
  assembleCells,
  cellOn,
  type FileOf,
  lookupOutcome,
  type Owner,
  rowIds,
  type TreeResult,
} from "./cells.ts";
export {
  authorOwner,
  type GroupResult,
  type OwnersRun,
  type RowOwner,
  runOwners,
  type RunSettings,
  suiteOwner,
  type TreeBuild,
} from "./owners.ts";
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
export { classifyPath, type PathRules } from "./paths.ts";
export { cellKey, Reuser, reuseSummary } from "./reuse.ts";
export { countOutcomes, type OnSession, RunLog, summariseRun } from "./runs.ts";
export { settleAll, Slots } from "./slots.ts";
export {
  projectTools,
  runInputs,
  runTaskStage,
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
  runSettings,
  taskAuthors,
} from "./task.ts";
export { applySourceChanges, hasCandidate, sourcePaths } from "./trees.ts";
export { reviewedPaths } from "./reviewed.ts";
export {
  capabilityFindings,
  type CapabilityPaths,
  packageBaseline,
  reviewAttemptCapabilities,
} from "./capabilities.ts";
