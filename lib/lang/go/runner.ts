/**
 * `go test` as a {@linkcode TestRunner}.
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
