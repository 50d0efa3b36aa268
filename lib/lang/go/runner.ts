/**
 * `go test` as a {@linkcode TestRunner}.
 *
 * @module
 */

import { kindByRunner, readTestsStatically, reviewByRunner } from "../shared.ts";
import { GO_CAPABILITIES } from "./capabilities.ts";
import type { CapabilityRules, PackageBaseline } from "../capabilities.ts";
import type {
  AuthorFileChange,
  AuthorFileReading,
  FileTests,
  PatchedText,
  PatchFinding,
  PatchKind,
  PatchReview,
  ReviewedPath,
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

/** Go's test2json framing byte, written literally or as an escape. */
// deno-lint-ignore no-control-regex -- the byte itself is what is looked for
const FRAMING = /\x16|\\x16|\\026|\\u0016|\\U00000016/g;

/** The `go test` runner. */
export class GoRunner implements TestRunner {
  /** See {@linkcode TestRunner.language}. */
  readonly language = "go" as const;
  /** See {@linkcode TestRunner.name}. */
  readonly name = "go test";
  /** A test's id is its function's: subtests are its children. */
  readonly reportsStaticIds = true;
  /** A panic ends the test binary and every test after it. */
  readonly panicEndsRun = true;
  /** Every `_test.go` of a package is in one binary: authors never share a tree. */
  readonly sharesTrees = false;
  /** An author's `go.mod` and the like are never applied. */
  readonly appliesAuthorConfig = false;
  /** Tests run by id (`-run`), package by package. */
  readonly runsByFile = false;
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
  /** Configuration, test code, and everything else under the package directory as source. */
  classify(path: string, packageDir: string): PatchKind {
    return kindByRunner(this, path, packageDir);
  }
  /** A `_test.go` file. */
  runsFile(path: string): boolean {
    return path.endsWith("_test.go");
  }
  /** The test itself, or one of its subtests (`TestX/case`). */
  within(id: string, test: string): boolean {
    return id === test || id.startsWith(`${test}/`);
  }
  /** Read statically ({@linkcode goChangedTests}). */
  readTests(files: readonly AuthorFileChange[]): Promise<AuthorFileReading[]> {
    return Promise.resolve(readTestsStatically(this, files));
  }
  /** Every package with a `_test.go` file (outside `testdata/`). */
  suite(files: readonly string[]): Promise<string[]> {
    const dirs = files.filter((p) =>
      isTestFile(p) && !isConfig(p) && p.endsWith("_test.go") && !/(^|\/)testdata\//.test(p)
    ).map((p) => fileOf(p));
    return Promise.resolve([...new Set(dirs)]);
  }
  /** A test of the copy's package renamed for `author` (see {@linkcode besideId}). */
  besideOwns(id: string, beside: string, author: string): boolean {
    const dir = fileOf(beside);
    return id !== dir && fileOf(id) === dir &&
      id.split("/").some((part) => part.endsWith(`_bugbout_${author}`));
  }
  /** The review of a runner language, with Go's skip calls and framework reach. */
  review(paths: readonly ReviewedPath[], base?: PackageBaseline): PatchReview {
    return reviewByRunner(this, paths, {
      markers: /\.Skip(?:Now|f)?\(/g,
      source: [
        {
          pattern: /"testing(?:\/[\w/]+)?"/g,
          flag: (path) => `reaches the test framework from the source: ${path}`,
        },
        {
          pattern: FRAMING,
          flag: (path) => `writes go test's framing byte from the source: ${path}`,
        },
      ],
    }, base);
  }
  /** See {@linkcode GO_CAPABILITIES}. */
  readonly capabilities: CapabilityRules = GO_CAPABILITIES;
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
