/**
 * Go modules, tested with `go test`: the runner every stage uses for a tree with a `go.mod` at
 * its root (see `lib/runner/types.ts`).
 *
 * - {@linkcode detectGo}: a `go.mod` at the tree's root (module path, Go version).
 * - {@linkcode goRunner}: the {@linkcode TestRunner}: ids `pkg/TestX/case` (`./TestX` at the
 *   module root), `_test.go` files and `testdata/` as test code, `go.mod`, `go.sum`, `go.work*`
 *   as configuration, an environment prepared once per dependency set (`env.ts`), tests run in
 *   the sandbox with no network, one test binary per package (`run.ts`), outcomes read from the
 *   binary's framed output and exit status (`report.ts`).
 * - {@linkcode patchFlags}: what a patch may not do that no path tells (`TestMain`, a `replace`
 *   pointing outside the module).
 * - {@linkcode besideSource}, {@linkcode besideId}, {@linkcode fromBesideId}: an author's copy of
 *   a test file beside the project's, renamed so that both compile in one package.
 *
 * Requires `--allow-run` (go, the sandbox), `--allow-read`, `--allow-write` and `--allow-env`
 * for `prepare` and `run`; the rest is pure.
 *
 * @module
 */

export type {
  Detected,
  FileTests,
  RunnerEnv,
  RunnerGroupRun,
  RunnerRun,
  RunnerRunOptions,
  TestRunner,
} from "../types.ts";
export type { GuardEvent } from "../../records.ts";
export type { Outcome, RunStatus } from "../../records.ts";
export {
  authorTag,
  besideId,
  besidePath,
  besideSource,
  besideSuffix,
  fromBesideId,
} from "./beside.ts";
export {
  compareGoVersions,
  detectGo,
  findGo,
  type GoMod,
  type GoToolchain,
  parseGoMod,
} from "./detect.ts";
export { goEnv, prepareGo } from "./env.ts";
export { type PatchedFile, type PatchFlag, patchFlags, replaceDirectives } from "./flags.ts";
export {
  fileOf,
  type GoId,
  isConfig,
  isTestFile,
  isTestName,
  makeId,
  packageDirOf,
  parseId,
  quoteMeta,
  rewriteSubtestName,
  runPattern,
} from "./ids.ts";
export {
  type BinaryEnd,
  type BinaryOutput,
  type BinaryVerdict,
  judgeBinary,
  MARKER,
  readOutput,
} from "./report.ts";
export { firstCompilerLine, runGo } from "./run.ts";
export {
  type FileReading,
  type FoundTest,
  goChangedTests,
  readTests,
  topLevelTests,
} from "./tests.ts";

export { GoRunner, goRunner } from "./runner.ts";
export { go } from "./language.ts";
export { GO_CAPABILITIES } from "./capabilities.ts";
