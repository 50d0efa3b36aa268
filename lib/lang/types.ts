/**
 * The test-runner interface: what every stage needs from a language's test runner, so that mining,
 * ground truth, the race, cross-examination, judging, scoring and evidence work the same for
 * Python/pytest, Go (`go test`) and TypeScript/JavaScript (vitest, jest, `node --test`).
 *
 * A runner is pure knowledge of one ecosystem plus the few programs it drives: it never decides a
 * verdict. Test ids are strings whose file part {@linkcode TestRunner.fileOf} gives back:
 * pytest `tests/test_a.py::TestK::test_m`, Go `pkg/path/TestName/subtest` (the package directory
 * relative to the module root, `.` at the root), JS `test/a.test.ts > describe > test name`.
 *
 * @module
 */

import type { z } from "../deps.ts";
import type { guardEventSchema, Language, Outcome, RunStatus } from "../records.ts";

/**
 * Something the code under test did to the grading, or that deserves a look (the shape of
 * Python's guard events, from the records, so that this interface needs no runner of its own).
 */
type GuardEvent = z.infer<typeof guardEventSchema>;

export type { Language } from "../records.ts";
import type { Sandbox } from "../sandbox/types.ts";

/** The tests one change added or changed in one test file. */
export type FileTests =
  | {
    /** Every test id of the file after the change, in source order. */
    tests: string[];
    /** Those the change added or changed. */
    changed: string[];
    /**
     * Set when static reading could not name every test (a computed name, a loop of cases):
     * running the file decides, and this says why.
     */
    unsure?: string;
  }
  | {
    /** Why the file after the change cannot be read. */
    error: string;
  };

/** A test environment, prepared once per dependency set before any sandbox closes the network. */
export interface RunnerEnv {
  /** What the environment was made from (the lockfile's or `go.sum`'s hash): its cache key. */
  key: string;
  /** Host paths the tests must be able to read inside the sandbox (toolchain, caches). */
  readable: string[];
  /** Environment variables every test command gets (GOFLAGS, NODE_PATH, ...). */
  env: Record<string, string>;
  /** One line for a person: what was found and used ("go1.26.0, 14 modules", "npm, vitest 3.2"). */
  describe: string;
}

/** One changed file of a patch, as {@linkcode TestRunner.patchFlags} reads it. */
export interface PatchedText {
  /** The path, relative to the tree. */
  path: string;
  /** Its text before the patch; null when the patch adds it. */
  before: string | null;
  /** Its text after the patch; null when the patch deletes it. */
  after: string | null;
}

/** What {@linkcode TestRunner.patchFlags} found. */
export interface PatchFinding {
  /** The file. */
  path: string;
  /** What the patch does there, in words. */
  what: string;
}

/** One group of tests run in a process of its own (one author's each). */
export interface RunnerGroupRun {
  /** `ok`, `timeout`, `out-of-memory`, `infra-error` or `tampered`. */
  status: RunStatus;
  /** The group's run ended and reported so: its outcomes are whole. */
  complete: boolean;
  /** Outcome of every test by id; a file that failed to load or compile appears as its path. */
  outcomes: Record<string, Outcome>;
  /** Duration of every test that ran, in milliseconds. */
  durations: Record<string, number>;
  /** The failure's first line, for tests that failed or errored. */
  failures?: Record<string, string>;
  /** Why the group is not plainly `ok`, in words. */
  message?: string;
  /** What the code under test did to the grading (the reason for `tampered`). */
  tamper: GuardEvent[];
  /** Things worth a look that are not tampering by themselves. */
  suspect: GuardEvent[];
}

/** Options of {@linkcode TestRunner.run}. */
export interface RunnerRunOptions {
  /** The sandbox every test command runs in (network closed). */
  sandbox: Sandbox;
  /** From {@linkcode TestRunner.prepare}. */
  env: RunnerEnv;
  /** The tree to test (a private copy: tests may write into it). */
  tree: string;
  /** Groups of test ids or test files, each run in a process of its own. */
  groups: readonly (readonly string[])[];
  /** Keep the passes of a run cut short (only for the maintainers' trusted tests). */
  trustPartial?: boolean;
  /** `[project] env`. */
  extraEnv?: Record<string, string>;
  /** Wall-clock limit of each group, in milliseconds. */
  timeoutMs: number;
  /** Address-space cap, in MiB. */
  memoryMb?: number;
  /** Host paths that must stay unreadable (the repository, `BUGBOUT_HOME`, results). */
  deny?: readonly string[];
  /** Where to make the run's own scratch directory (reports, channels). */
  scratch?: string;
  /** Stop; `run` then throws `InterruptedError`. */
  signal?: AbortSignal;
}

/** What one run of groups on a tree did. */
export interface RunnerRun extends Omit<RunnerGroupRun, "complete"> {
  /** Wall-clock duration of the whole run in milliseconds. */
  durationMs: number;
  /** Every group, in the order given. */
  groups: RunnerGroupRun[];
}

/** One language's test runner, as every stage uses it. */
export interface TestRunner {
  /** The language. */
  readonly language: Language;
  /** The runner, as a person knows it: `pytest`, `go test`, `vitest`, `jest`, `node --test`. */
  readonly name: string;
  /** Whether `path` (relative to the tree, `/`-separated) is test code: hidden from agents at B. */
  isTestFile(path: string): boolean;
  /**
   * Whether `path` decides which tests run or how they report (runner configs, setup files,
   * `go.mod`, `package.json`'s test script and runner sections, ...): never applied from an
   * agent's patch, and a patch that touches it is flagged.
   */
  isConfig(path: string): boolean;
  /** The file a test id belongs to (`pkg/TestX/case` → the package directory for Go). */
  fileOf(id: string): string;
  /**
   * The tests a change added or changed in one test file, read statically (`before` is null for a
   * new file).
   */
  changedTests(path: string, before: string | null, after: string): FileTests;
  /**
   * Where an author's copy of a test file goes when it is installed beside the project's own for
   * cross-examination, so that both run and neither hides the other; ids of its tests are those
   * of the original with the file part replaced.
   */
  besidePath(path: string, author: string): string;
  /**
   * The text of an author's copy installed at {@linkcode besidePath}: Go renames the copy's
   * top-level names so that both files compile in one package; the others keep it as it is.
   */
  besideSource(path: string, source: string, author: string): string;
  /** The id of an author's copy of test `id` (Go: the renamed function; the others: `id` with the file part at {@linkcode besidePath}). */
  besideId(id: string, author: string): string;
  /**
   * What a patch does that no single path tells (Go: a `TestMain` in the maintainers' test files,
   * a `replace` pointing outside the module; JavaScript: a `package.json` change to how tests
   * run), one finding each, for scoring to flag and never apply.
   */
  patchFlags(files: readonly PatchedText[]): PatchFinding[];
  /**
   * Prepare the test environment of `tree` (cached by its dependency files' hash under `cache`),
   * with the network open. Throws a `BugboutError` that says what to install or fix.
   */
  prepare(tree: string, cache: string, signal?: AbortSignal): Promise<RunnerEnv>;
  /** Run groups of tests on a tree in the sandbox; never throws for what the tree does. */
  run(options: RunnerRunOptions): Promise<RunnerRun>;
}

/** What {@linkcode detectRunner} found in a tree. */
export interface Detected {
  /** The language. */
  language: Language;
  /** The runner's name. */
  runner: string;
  /** What it was told by, in words ("go.mod", "package.json devDependencies: vitest"). */
  evidence: string;
}

/**
 * One language bugbout serves: everything a stage needs that differs between ecosystems, as
 * members of this one interface. The stages see only this (through the registry in `mod.ts`);
 * each language is one folder under `lib/lang/` implementing it, and one line of the registry.
 * See `docs/architecture.md` for what each member is for.
 */
export interface LanguageSpec {
  // -- Identity -------------------------------------------------------------------------------

  /** Its name in `[project] language`: `python`, `go`, `node`, or a registered language's. */
  readonly name: Language;
  /** As a person says it: `Python`, `Go`, `JavaScript/TypeScript`. */
  readonly label: string;
  /** What one run of its tests on a tree is called in summaries: `pytest session`, `test run`. */
  readonly runWord: string;
  /** `[project]` keys a project of this language must set (Python: `source`, its package). */
  readonly requires: readonly string[];

  // -- Projects (init, doctor, `bugbout evidence`) ---------------------------------------------

  /**
   * Whether `tree` (a directory) is a project of this language, with its runner and what said
   * so; undefined when it is not.
   */
  detect(tree: string): Promise<Detected | undefined>;

  // -- Trees ------------------------------------------------------------------------------------

  /**
   * The runner of `tree` as its own configuration makes it (pytest's discovery rules, a
   * JavaScript project's runner and its configuration). Only reads the tree; its `prepare` makes
   * the environment.
   */
  openRunner(tree: string): Promise<TestRunner>;

  // -- Mining -----------------------------------------------------------------------------------

  /** How mining reads this language's changes in a repository's history (see {@linkcode ChangeMiner}). */
  openMiner(context: MiningContext): Promise<ChangeMiner>;
}

// -- Mining -----------------------------------------------------------------------------------
// What mining needs of a language: how it sorts a change's files as of that commit, and how it
// reads the tests a change added (the types below, and `LanguageSpec.openMiner`).

import type { Change, PathChange } from "../history.ts";

/** Git's object store as mining reads it: each object (a blob id or `rev:path`) read once. */
export interface ObjectReader {
  /** The repository. */
  readonly repo: string;
  /** Stops a read under way. */
  readonly signal?: AbortSignal;
  /** The text of each object, one git process for those not read before (absent: undefined). */
  read(names: Iterable<string>): Promise<Map<string, string | undefined>>;
  /** The text of an object read already, or undefined. */
  cached(name: string): string | undefined;
  /** True when an object was read already (absent ones included). */
  has(name: string): boolean;
}

/** What a language's miner is opened with. */
export interface MiningContext {
  /** The repository (possibly bare). */
  repo: string;
  /** The newest commit of the history to mine. */
  head: string;
  /** Reads the repository's objects (shared with the rest of mining). */
  objects: ObjectReader;
  /** `[project] source`, when set (Python's package at HEAD). */
  source?: string;
  /** `[project] tests`: the tests directory. */
  tests: string;
}

/** A change's files as its language sorts them, as of that commit. */
export interface SortedChange {
  /** Source files it changed (paths at G; at B for deletions). */
  sourceFiles: string[];
  /** The files tests may be read from, with their blobs (paths at G). */
  testChanges: PathChange[];
  /** Test data and helpers it added or changed (the hidden tests need them). */
  supportFiles: string[];
  /** For each test file that was renamed: its path at B. */
  renamedFrom: Record<string, string>;
  /** Where the code under test lives at B (Python's package; `.` elsewhere). */
  packageDir: string;
  /** What goes on the import path at B (Python's PYTHONPATH; `.` elsewhere). */
  pythonPath: string;
  /** When it changes no source file: what it changes instead, in the language's words. */
  noSource: string;
  /** When it changes no test file: which files would count, in the language's words. */
  noTests: string;
  /** What reading its tests needs to know of the commit (pytest's rules): the miner's own. */
  reading?: unknown;
}

/** A change whose tests are to be read: what {@linkcode ChangeMiner.addedTests} is given. */
export interface TestsToRead {
  /** G. */
  commit: string;
  /** B. */
  parent: string;
  /** {@linkcode SortedChange.testChanges}. */
  testChanges: readonly PathChange[];
  /** {@linkcode SortedChange.reading}. */
  reading?: unknown;
}

/** The tests one change added or changed, read statically. */
export interface AddedTests {
  /** Files that hold tests, among those it changed (paths at G). */
  testFiles: string[];
  /** Tests it added or changed (ids), file by file. */
  newTests: string[];
  /** Those of them that are new. */
  addedTests: string[];
  /** Files whose tests static reading cannot all tell (collection decides), and why. */
  unsure: { file: string; why: string }[];
  /**
   * Those of {@linkcode newTests} that are always skipped (`it.skip`, `t.Skip()` first), read
   * only where every new test of a file is skipped or checks types only.
   */
  skipped?: string[];
  /** Those of {@linkcode newTests} that check types only (`expectTypeOf`), read the same way. */
  typeOnly?: string[];
  /** When the tests need a dependency the change adds (B's environment lacks it): which. */
  needsDependency?: string;
}

/**
 * How one language reads a repository's history for mining. Mining walks first-parent history
 * newest first and calls {@linkcode step} on every change in order; for each change that may be a
 * task it asks {@linkcode sort} (once the objects {@linkcode needs} names are read), and for the
 * candidates it keeps, {@linkcode addedTests}.
 */
export interface ChangeMiner<At = unknown> {
  /**
   * Step over one change, newest first: where the change stands (Python: where its package is and
   * the discovery rules in force at G), for {@linkcode sort}. Called on every change of the walk,
   * so it must be cheap.
   */
  step(change: Change): At;
  /** The objects {@linkcode sort} must find read before it can sort a change standing at `at`. */
  needs(at: At): string[];
  /** Sort a change's files as of where it stands (everything {@linkcode needs} named is read). */
  sort(change: Change, at: At): SortedChange;
  /** Start reading what {@linkcode addedTests} will need for `changes`. */
  prefetch(changes: readonly TestsToRead[]): void;
  /** For each change, the tests it added or changed. */
  addedTests(changes: readonly TestsToRead[]): Promise<AddedTests[]>;
  /**
   * Whether a change to the source file `path` (its `-U0` removed and added lines) touches only
   * type annotations, which no test run checks; absent when the language cannot tell.
   */
  typingOnly?(path: string, removed: readonly string[], added: readonly string[]): boolean;
}
