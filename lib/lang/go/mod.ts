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

import type {
  FileTests,
  PatchedText,
  PatchFinding,
  RunnerEnv,
  RunnerRun,
  RunnerRunOptions,
  TestRunner,
} from "../types.ts";
import { besidePath } from "./beside.ts";
import { prepareGo } from "./env.ts";
import { fileOf, isConfig, isTestFile } from "./ids.ts";
import { runGo } from "./run.ts";
import { goChangedTests } from "./tests.ts";
import { besideId, besideSource } from "./beside.ts";
import { patchFlags } from "./flags.ts";

export type {
  Detected,
  FileTests,
  RunnerEnv,
  RunnerGroupRun,
  RunnerRun,
  RunnerRunOptions,
  TestRunner,
} from "../types.ts";
export type { GuardEvent } from "../python/mod.ts";
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

/** The `go test` runner. */
export class GoRunner implements TestRunner {
  /** See {@linkcode TestRunner.language}. */
  readonly language = "go" as const;
  /** See {@linkcode TestRunner.name}. */
  readonly name = "go test";
  /** `*_test.go`, and anything under a `testdata/` directory. */
  isTestFile(path: string): boolean {
    return isTestFile(path);
  }
  /** `go.mod`, `go.sum`, `go.work`, `go.work.sum` (see {@linkcode patchFlags} for the rest). */
  isConfig(path: string): boolean {
    return isConfig(path);
  }
  /** The package directory of an id, test file or package (`.` at the module root). */
  fileOf(id: string): string {
    return fileOf(id);
  }
  /** See {@linkcode goChangedTests}. */
  changedTests(path: string, before: string | null, after: string): FileTests {
    return goChangedTests(path, before, after);
  }
  /**
   * `pkg/foo_test.go` → `pkg/foo_bugbout_<author>_test.go`. The copy must also be rewritten with
   * {@linkcode besideSource}, and its ids are {@linkcode besideId}'s, not the original's.
   */
  besidePath(path: string, author: string): string {
    return besidePath(path, author);
  }
  /** The copy with every top-level name renamed for `author` (see {@linkcode besideSource}). */
  besideSource(_path: string, source: string, author: string): string {
    return besideSource(source, author);
  }
  /** `pkg/TestX/case` → `pkg/TestX_bugbout_<author>/case` (see {@linkcode besideId}). */
  besideId(id: string, author: string): string {
    return besideId(id, author);
  }
  /** See {@linkcode patchFlags}. */
  patchFlags(files: readonly PatchedText[]): PatchFinding[] {
    return patchFlags(files);
  }
  /** See {@linkcode prepareGo}. */
  prepare(tree: string, cache: string, signal?: AbortSignal): Promise<RunnerEnv> {
    return prepareGo(tree, cache, signal);
  }
  /** See {@linkcode runGo}. */
  run(options: RunnerRunOptions): Promise<RunnerRun> {
    return runGo(options);
  }
}

/** The `go test` runner. */
export function goRunner(): GoRunner {
  return new GoRunner();
}
