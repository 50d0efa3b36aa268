/**
 * The command runner as a {@linkcode TestRunner}: a project's own test command, its files sorted
 * by the `[command]` globs, its tests named by the JUnit XML the command writes.
 *
 * Static reading cannot name a test here (the runner knows no language): a changed test file's
 * tests are "unsure" until a run of it reports them, and a file is always run whole.
 *
 * Pure but for `run` (see `run.ts`).
 *
 * @module
 */

import { inputsKey } from "../../hash.ts";
import { kindByRunner, reviewByRunner } from "../shared.ts";
import type {
  AuthorFileChange,
  AuthorFileReading,
  FileTests,
  PatchFinding,
  PatchKind,
  PatchReview,
  ReviewedPath,
  RunnerEnv,
  RunnerRun,
  RunnerRunOptions,
  TestRunner,
} from "../types.ts";
import { idFile } from "./ids.ts";
import {
  type CommandPaths,
  commandPaths,
  isConfigPath,
  isTestPath,
  isTestSource,
} from "./paths.ts";
import { runTestCommand } from "./run.ts";
import type { CommandSettings } from "../../config_command.ts";

/** Why static reading of a command project's test file is never sure. */
export const UNSURE =
  "the test command's JUnit report names the tests: a run of the file decides which it holds";

/** Skip markers of the common test tools, which a patch may not add to the repository's tests. */
const SKIP_MARKERS =
  /\bGTEST_SKIP\b|\bDISABLED_\w|@Disabled\b|@Ignore\b|#\[ignore\]|\.skip\(|\bxit\(|\bt\.Skip\(|pytest\.mark\.skip/g;

/** The `[command]` runner of one project (see the module's documentation). */
export class CommandRunner implements TestRunner {
  /** See {@linkcode TestRunner.language}. */
  readonly language: string = "command";
  /** Ids come from the report, never from reading the files. */
  readonly reportsStaticIds = false;
  /** A crash ends the whole command: authors' tests run apart. */
  readonly panicEndsRun = true;
  /** Each author gets a tree of its own. */
  readonly sharesTrees = false;
  /** An author's configuration (`[command] config-files`) is never applied. */
  readonly appliesAuthorConfig = false;
  /** Files are handed to the command (`{files}`) and run whole. */
  readonly runsByFile = true;
  readonly #paths: CommandPaths;

  constructor(readonly settings: CommandSettings) {
    this.#paths = commandPaths(settings);
  }

  /** `[command] name`. */
  get name(): string {
    return this.settings.name;
  }
  /** What the runner's settings make of every run: part of an environment's key. */
  get key(): string {
    return inputsKey(["command", JSON.stringify(this.settings)]);
  }
  /** `[command] test-files` or `support-files`. */
  isTestFile(path: string): boolean {
    return isTestPath(this.#paths, path);
  }
  /** `[command] config-files`. */
  isConfig(path: string): boolean {
    return isConfigPath(this.#paths, path);
  }
  /** Configuration, test code; source by `[command] source-files` (all else when unset). */
  classify(path: string, packageDir: string): PatchKind {
    const kind = kindByRunner(this, path, packageDir);
    if (kind !== "source" || this.#paths.source.length === 0) return kind;
    return this.#paths.source.some((g) => g.test(path)) ? "source" : "other";
  }
  /** A file of `[command] test-files`. */
  runsFile(path: string): boolean {
    return isTestSource(this.#paths, path);
  }
  /** `file::Class.name` → `file`. */
  fileOf(id: string): string {
    return idFile(id);
  }
  /** The test itself (a report's cases are separate test cases). */
  within(id: string, test: string): boolean {
    return id === test;
  }
  /** Unsure: a run of the file names its tests (see {@linkcode UNSURE}). */
  changedTests(path: string, before: string | null, after: string): FileTests {
    if (!this.runsFile(path)) return { tests: [], changed: [] };
    return { tests: [], changed: [], ...(before === after ? {} : { unsure: UNSURE }) };
  }
  /** Every test file the author changed runs whole, its tests read from the report. */
  readTests(files: readonly AuthorFileChange[]): Promise<AuthorFileReading[]> {
    return Promise.resolve(
      files.map((f): AuthorFileReading =>
        this.runsFile(f.path) && f.before !== f.after
          ? { kind: "tests", whole: true, ids: [] }
          : this.runsFile(f.path)
          ? { kind: "none" }
          : { kind: "helper" }
      ),
    );
  }
  /** Every test file of the tree. */
  suite(files: readonly string[]): Promise<string[]> {
    return Promise.resolve(files.filter((f) => this.runsFile(f)));
  }
  /**
   * `tests/calc_test.cpp` → `tests/calc_bugbout_<author>_test.cpp`, or another spelling that the
   * test-file globs still match.
   */
  besidePath(path: string, author: string): string {
    const slash = path.lastIndexOf("/");
    const dir = path.slice(0, slash + 1);
    const base = path.slice(slash + 1);
    const dot = base.indexOf(".") < 0 ? base.length : base.indexOf(".");
    const stem = base.slice(0, dot);
    const ext = base.slice(dot);
    const tag = `bugbout_${author}`;
    const suffix = stem.match(/(_test|_spec|Test|Tests|Spec|IT)$/);
    const candidates = [
      ...(suffix ? [`${dir}${stem.slice(0, -suffix[1].length)}_${tag}${suffix[1]}${ext}`] : []),
      ...(/^test/i.test(stem) ? [`${dir}${stem}_${tag}${ext}`] : []),
      `${dir}${tag}_${base}`,
      `${dir}${stem}_${tag}${ext}`,
      `${dir}${stem}.${tag}${ext}`,
    ];
    return candidates.find((c) => this.runsFile(c)) ?? candidates.at(-1)!;
  }
  /** The copy as it is. */
  besideSource(_path: string, source: string): string {
    return source;
  }
  /** The id with its file part at {@linkcode besidePath}. */
  besideId(id: string, author: string): string {
    const file = idFile(id);
    return file === id ? id : this.besidePath(file, author) + id.slice(file.length);
  }
  /** A test the report puts in the copy. */
  besideOwns(id: string, beside: string): boolean {
    return id !== beside && idFile(id) === beside;
  }
  /** Configuration flagged and never applied; skip markers added to the repository's tests flagged. */
  review(paths: readonly ReviewedPath[]): PatchReview {
    return reviewByRunner(this, paths, { markers: SKIP_MARKERS, source: [] });
  }
  /** Nothing beyond the paths. */
  patchFlags(): PatchFinding[] {
    return [];
  }
  /** Nothing to fetch: the command finds its tools on the machine. */
  prepare(): Promise<RunnerEnv> {
    return Promise.resolve({
      key: this.key,
      readable: [],
      env: {},
      describe: `${this.name}: ${this.settings.test.join(" ")}`,
    });
  }
  /** See {@linkcode runTestCommand}. */
  run(options: RunnerRunOptions): Promise<RunnerRun> {
    return runTestCommand({
      name: this.name,
      test: this.settings.test,
      report: this.settings.report,
      join: this.settings.join,
      isFile: (entry) => !entry.includes("::") && this.isTestFile(entry),
    }, options);
  }
}
