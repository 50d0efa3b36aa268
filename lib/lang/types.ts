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

import type {
  Coverage,
  GuardEvent,
  Language,
  Observation,
  Outcome,
  RunStatus,
  Task,
} from "../records.ts";

export type { GuardEvent } from "../records.ts";

export type { Language } from "../records.ts";
import type { Project } from "../project.ts";
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
  /** What stood in for what was asked (resolved at HEAD, a tree not built), in lines. */
  notes?: string[];
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

/** Why a run is an infrastructure error. */
export type InfraCause =
  /**
   * The runner refused to start on this tree (a usage error, a conftest that cannot be imported,
   * the tree breaking the runner itself): a property of the tree, the same on every rerun.
   */
  | "unrunnable"
  /** The run cannot be trusted: the harness never reported, the runner crashed, a channel broke. */
  | "harness"
  /** The sandbox itself could not start: no test ran, whatever the tree holds. */
  | "sandbox";

/** One group of tests run in a process of its own (one author's each). */
export interface RunnerGroupRun {
  /** `ok`, `timeout`, `out-of-memory`, `infra-error` or `tampered`. */
  status: RunStatus;
  /** For `infra-error`: whether the tree cannot run at all, or the run is not to be trusted. */
  cause?: InfraCause;
  /** The group's run ended and reported so: its outcomes are whole. */
  complete: boolean;
  /** The group never started (an earlier group's trouble ended the run first). */
  unreached?: boolean;
  /** Outcome of every test by id; a file that failed to load or compile appears as its path. */
  outcomes: Record<string, Outcome>;
  /** Duration of every test that ran, in milliseconds. */
  durations: Record<string, number>;
  /** The failure's first line, for tests that failed or errored. */
  failures?: Record<string, string>;
  /** The failure's whole report (traceback, captured output; its end), where the runner keeps it. */
  tracebacks?: Record<string, string>;
  /** Why the group is not plainly `ok`, in words. */
  message?: string;
  /** What the code under test did to the grading (the reason for `tampered`). */
  tamper: GuardEvent[];
  /** Things worth a look that are not tampering by themselves. */
  suspect: GuardEvent[];
  /** With {@linkcode RunnerRunOptions.observe}: what each test saw of the code under test. */
  observed?: Record<string, Observation[]>;
  /**
   * With {@linkcode RunnerRunOptions.cover}: what each test reached of the tree's code, only when
   * the group ran whole and the runner recorded all of it.
   */
  coverage?: Coverage;
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
  /**
   * Stop and call it tampering when a group changes files of the tree that decide what runs, where
   * the runner can tell (default true; the ground truth runs the maintainers' tests, which may
   * write anything).
   */
  watchTree?: boolean;
  /** `[project] env`. */
  extraEnv?: Record<string, string>;
  /**
   * Tests (ids) whose view of the code under test to record, for comparison with another tree's
   * run (`RunnerGroupRun.observed`). Runners that cannot observe ignore it.
   */
  observe?: readonly string[];
  /**
   * The indexes of the groups whose coverage by test to record (`RunnerGroupRun.coverage`), on a
   * tree no agent wrote. Runners that cannot record it ignore it.
   */
  cover?: readonly number[];
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

/**
 * What one run of groups on a tree did: its first group's fields (most runs have one) but for the
 * status, which is the worst of its groups', and every group.
 */
export interface RunnerRun extends Omit<RunnerGroupRun, "complete" | "unreached"> {
  /** The process's exit code; null when it was killed, or when a run is one process per group. */
  exitCode: number | null;
  /** Wall-clock duration of the whole run in milliseconds. */
  durationMs: number;
  /** Every group, in the order given. */
  groups: RunnerGroupRun[];
  /** A group changed files of the tree that decide what runs (then the run stopped). */
  treeChanged?: { group: number; paths: string[] };
}

/** Several runs of one session, merged. */
export interface RepeatedRuns {
  /** Every run, in order. */
  runs: RunnerRun[];
  /** The outcome of each test that had the same outcome in every run. */
  stable: Record<string, Outcome>;
  /**
   * Tests whose outcome differed between runs, sorted. A test missing from a run counts as
   * `not-run` there. Infrastructure-error runs take no part in the comparison.
   */
  unstable: string[];
  /** The slowest duration of each test over the runs, in milliseconds. */
  durations: Record<string, number>;
  /** The first run that is an infrastructure error, if any. */
  infraError?: RunnerRun;
}

/** What a language can say about why its tests did not run, for ground truth's reasons. */
export interface TruthAdvice {
  /** Modules failures say are missing (Python: `No module named 'x'`), sorted. */
  missingModules(failures: Readonly<Record<string, string>>): string[];
  /** What to set for modules the tests import and the environment lacks (" Add ..."); "" for none. */
  dependencyHint(modules: readonly string[]): string;
  /** A sentence after a failure's line (" A pytest older than 9 runs it..."); "" for none. */
  failureNote(message: string): string;
  /**
   * When failures on G say the environment is at fault rather than the task (the project's own
   * package, or a module its build generates, cannot be imported; its console script is not
   * there): what, in a sentence; undefined otherwise.
   */
  environmentFault?(failures: Readonly<Record<string, string>>): string | undefined;
}

/** How one of an author's test files holds the author's tests, as {@linkcode TestRunner.readTests} reads it. */
export type AuthorFileReading =
  | {
    /** The file holds tests of the author's. */
    kind: "tests";
    /**
     * Every test of the file is the author's (a new file): all its tests are the author's rows,
     * and the file is run whole where the runner can run a file.
     */
    whole: boolean;
    /** The author's tests in it, by id at the file's own path, in source order. */
    ids: string[];
    /** Why static reading could not read it: the file is then one row of its own. */
    unreadable?: string;
  }
  | {
    /** A file that holds no test of the author's but goes with them (a helper, data). */
    kind: "helper";
  }
  | {
    /** A file the author changed in which it added or changed no test: nothing of it is run. */
    kind: "none";
  };

/** One of an author's files to read, as {@linkcode TestRunner.readTests} takes it. */
export interface AuthorFileChange {
  /** Its path. */
  path: string;
  /** Its text before the author's change; null when the author added it. */
  before: string | null;
  /** Its text after the author's change. */
  after: string;
}

/** What scoring makes of a patch's files: the flags, and what it does not apply. */
export interface PatchReview {
  /** Tricks noticed, one line each. */
  flags: string[];
  /** Files not applied, and why. */
  ignored: { path: string; reason: string }[];
}

/** B's package as a review compares a patch with: each source file's text, by path. */
export type PackageBaseline = ReadonlyMap<string, string>;

/** One capability a language looks for in a patch's source. */
export interface CapabilityRule {
  /** Its short name, as findings carry it: `frames`, `test-framework`, ... */
  id: string;
  /** Why a new use deserves a look, in words. */
  reason: string;
  /** Where the text (comments blanked) uses it: the offset of each use. */
  find(text: string): number[];
}

/** What one language's capability review looks for, and in which files. */
export interface CapabilityRules {
  /** The source files worth reading (by path): `.py`, non-test `.go`, `.js`/`.ts`, ... */
  files: RegExp;
  /** Comments blanked out (same length, newlines kept) so that they never count as a use. */
  blank(text: string): string;
  /** The rules, in the order findings are listed. */
  rules: readonly CapabilityRule[];
}

/** One path of a patch as {@linkcode TestRunner.review} sees it. */
export interface ReviewedPath {
  /** The path. */
  path: string;
  /** Its kind by the runner's rules today. */
  kind: PatchKind;
  /** Its text before the patch (undefined: absent or binary). */
  before?: string;
  /** Its text after the patch (undefined: absent or binary). */
  after?: string;
  /** `adds`, `deletes` or `edits`. */
  verb: "adds" | "deletes" | "edits";
}

/** What a changed path is: source, test code, configuration of the runner, or anything else. */
export type PatchKind = "source" | "test" | "config" | "other";

/** One language's test runner, as every stage uses it: the rules of one tree and how its tests run. */
export interface TestRunner {
  /** The language. */
  readonly language: Language;
  /** The runner, as a person knows it: `pytest`, `go test`, `vitest`, `jest`, `node --test`. */
  readonly name: string;

  // -- Paths ------------------------------------------------------------------------------------

  /** Whether `path` (relative to the tree, `/`-separated) is test code: hidden from agents at B. */
  isTestFile(path: string): boolean;
  /**
   * Whether `path` decides which tests run or how they report (runner configs, setup files,
   * `go.mod`, `package.json`'s test script and runner sections, ...): never applied from an
   * agent's patch, and a patch that touches it is flagged.
   */
  isConfig(path: string): boolean;
  /**
   * What a changed path is, for a task whose package lies at `packageDir` (`.` for the whole
   * tree): scoring applies `source` only, cross-examination installs `test` and `config`.
   */
  classify(path: string, packageDir: string): PatchKind;
  /** Whether the runner runs `path` as a test file (judged by its name; not a helper or data). */
  runsFile(path: string): boolean;

  // -- Ids --------------------------------------------------------------------------------------

  /** The file a test id belongs to (`pkg/TestX/case` → the package directory for Go). */
  fileOf(id: string): string;
  /**
   * Whether reported id `id` is test `test` itself or one of its cases (a parametrised case
   * `t[1]`, a subtest `TestX/case`, a nested test `d > t`).
   */
  within(id: string, test: string): boolean;
  /**
   * Whether every id {@linkcode changedTests} names is an id the runner's runs report (no
   * parametrised expansion): such ids are a matrix's rows before anything runs.
   */
  readonly reportsStaticIds: boolean;
  /**
   * Whether a failing test can end the whole process and every test after it (Go's panic): tests
   * whose outcomes must not depend on each other then run in processes of their own.
   */
  readonly panicEndsRun: boolean;

  // -- Tests of a change ------------------------------------------------------------------------

  /**
   * The tests a change added or changed in one test file, read statically (`before` is null for a
   * new file).
   */
  changedTests(path: string, before: string | null, after: string): FileTests;

  /**
   * Where a change to each source file can be felt, for choosing the repository's tests a patch
   * can change: the line ranges (in `before`) of the functions whose bodies alone it touches, or
   * null when it may reach more (what imports the file). Absent: the runner cannot tell, and the
   * whole suite runs on every patch.
   */
  changedCode?(
    files: readonly { path: string; before: string; after: string }[],
    env: RunnerEnv,
    signal?: AbortSignal,
  ): Promise<([number, number][] | null)[]>;
  /**
   * How each of an author's changed test files holds the author's tests (in order; `files` are
   * test files by {@linkcode isTestFile}). May run the environment's tools (Python compares
   * syntax trees with its interpreter); `env` is the tree's prepared environment.
   */
  readTests(
    files: readonly AuthorFileChange[],
    env: RunnerEnv,
    signal?: AbortSignal,
  ): Promise<AuthorFileReading[]>;
  /**
   * What the repository's own suite is in a tree whose files are `files` (`read` gives a file's
   * text): the entries to run (test files; Go: packages), in order.
   */
  suite(files: readonly string[], read: (path: string) => Promise<string | undefined>): Promise<
    string[]
  >;

  // -- Authors' copies --------------------------------------------------------------------------

  /**
   * Whether authors whose files are test files only can share one tree, each run in a process of
   * its own with the tree watched (pytest under the guard); otherwise every author's tests run in
   * a copy of the tree of their own (Go compiles every `_test.go` of a package into one binary).
   */
  readonly sharesTrees: boolean;
  /**
   * Whether an author alone in its tree gets its configuration and helpers at their own paths,
   * reaching its tests (a `conftest.py`); otherwise the author's configuration is never applied
   * and its test files go beside the project's.
   */
  readonly appliesAuthorConfig: boolean;
  /**
   * Where an author's copy of a test file goes when it is installed beside the project's own for
   * cross-examination, so that both run and neither hides the other; ids of its tests are those
   * of the original with the file part replaced. `author` is the author's tag
   * ({@linkcode LanguageSpec.authorTags}).
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
   * Whether reported id `id` is a test of the copy at `beside` of `author`'s file (Go: a renamed
   * test in that package; the others: a test of that file).
   */
  besideOwns(id: string, beside: string, author: string): boolean;

  // -- Scoring ----------------------------------------------------------------------------------

  /**
   * Whether runs are given whole test files (pytest's modules) rather than test ids: the hidden
   * tests are then the fix's test files, and an author's test file runs whole, its rows picked
   * from what it reports.
   */
  readonly runsByFile: boolean;
  /**
   * What scoring makes of a patch's paths: what it flags (configuration changed, skip markers
   * added to the repository's tests, source that reaches the test framework, and what no single
   * path tells: {@linkcode patchFlags}) and what it does not apply, with why. With `base` (the
   * source files of B's package), source that reaches the test framework is flagged only when no
   * file of B's package already did.
   */
  review(paths: readonly ReviewedPath[], base?: PackageBaseline): PatchReview;
  /**
   * What the capability review looks for in a patch's source (reflection, frames, threads, the
   * test framework's internals, reads of test files); a patch whose source uses one that B's
   * package never did is `suspect`. Absent: the language has no capability review.
   */
  readonly capabilities?: CapabilityRules;
  /**
   * What a patch does that no single path tells (Go: a `TestMain` in the maintainers' test files,
   * a `replace` pointing outside the module; JavaScript: a `package.json` change to how tests
   * run), one finding each, for scoring to flag and never apply.
   */
  patchFlags(files: readonly PatchedText[]): PatchFinding[];

  // -- Running ----------------------------------------------------------------------------------

  /**
   * Prepare the test environment of `tree` (cached by its dependency files' hash under `cache`),
   * with the network open. Throws a `BugboutError` that says what to install or fix.
   */
  prepare(tree: string, cache: string, signal?: AbortSignal): Promise<RunnerEnv>;
  /** Run groups of tests on a tree in the sandbox; never throws for what the tree does. */
  run(options: RunnerRunOptions): Promise<RunnerRun>;
  /**
   * The test ids the runner collects from `files` without running them, as a run's outcomes, for
   * runners that can (pytest `--collect-only`): what static reading could not tell (a test factory,
   * a parametrised list), collection does. Absent: the runner cannot collect without running.
   */
  collect?(options: Omit<RunnerRunOptions, "groups"> & { files: readonly string[] }): Promise<
    RunnerRun
  >;
}

/**
 * Where a task's package and import path lie in its trees (`.` for the whole tree), and the date
 * its trees' dependencies are resolved as of (the fix's; absent: today).
 */
export type TreePlace = Pick<Task, "packageDir" | "pythonPath"> & Partial<Pick<Task, "date">>;

/**
 * What a language's tools need of a project: its repository, `BUGBOUT_HOME`, and the `[project]`
 * settings that shape its test environments and runs (a {@linkcode Project} has them; so has what
 * `bugbout evidence` makes of a repository without a `bugbout.toml`).
 */
export interface ToolsProject {
  /** The repository (bare or not). */
  repository: string;
  /** `BUGBOUT_HOME`. */
  home: string;
  /** The configuration: where it lies, and the `[project]` settings the tools read. */
  config: {
    /** Where relative paths of the configuration start. */
    root: string;
    project: Pick<
      Project["config"]["project"],
      | "source"
      | "tests"
      | "python"
      | "interpreter"
      | "testDependencies"
      | "installProject"
      | "pytestArgs"
      | "env"
    >;
  };
}

/** How {@linkcode LanguageSpec.tools} makes a project's tools. */
export interface ToolsOptions {
  /**
   * The revision whose dependency declarations shape an environment every tree shares (default:
   * the default branch's head).
   */
  revision?: string;
  /** Where environments prepared per tree are kept (default: under `BUGBOUT_HOME`). */
  cache?: string;
}

/** A tree's runner and the environment its tests run in. */
export interface RunnerTree {
  /** The runner, with the tree's own configuration read. */
  runner: TestRunner;
  /** The environment its dependencies need, prepared. */
  env: RunnerEnv;
}

/**
 * A language's tools for one project: how each tree's tests run, and what identifies how they
 * run. Made by {@linkcode LanguageSpec.tools}; one per stage (it caches the environments it
 * prepares).
 */
export interface ProjectTools {
  /** The language. */
  readonly language: LanguageSpec;
  /**
   * What shapes every run besides a tree's environment (the harness, the runner's rules,
   * language settings of `bugbout.toml`): part of every saved result's key.
   */
  readonly key: string;
  /**
   * What {@linkcode prepare} tells a person when it builds what it prepares (undefined: nothing
   * worth saying), e.g. that the project's test environment is being built.
   */
  readonly preparing?: string;
  /**
   * Make what every tree shares, once, with the network open (Python: the project's test
   * environment), calling `onBuilding` only when it builds it (not when it reuses it). Throws a
   * `BugboutError` that says what to install or fix.
   */
  prepare(signal?: AbortSignal, onBuilding?: () => void): Promise<void>;
  /**
   * The key of the environment the tree at `commit` gets: its dependency files' (prepared with
   * the network open and cached, so that a later {@linkcode open} of that tree is quick), or the
   * project's when every tree shares one.
   */
  envKey(commit: string, signal?: AbortSignal, at?: { date?: string }): Promise<string>;
  /**
   * The runner and prepared environment of `tree`; `task` says where its package and import path
   * lie (a Python task's `packageDir` and `pythonPath`).
   */
  open(tree: string, options?: { task?: TreePlace; signal?: AbortSignal }): Promise<RunnerTree>;
  /**
   * The test environment of an agent's working copy `dirs.work` (a fresh checkout of B whose
   * snapshot is taken), using `dirs.state` (the attempt's writable state directory) for caches.
   */
  agentEnv(
    dirs: { work: string; state: string },
    task: TreePlace,
    signal?: AbortSignal,
  ): Promise<AgentTestEnv>;
  /**
   * What every agent's sandbox shows of the environment whatever its tree (Python: the project's
   * test environment), for the race's look for other copies of the project in sight.
   */
  sharedView(signal?: AbortSignal): Promise<{ path: string[]; readable: string[] }>;
}

/** An agent's test environment on its working copy: what its sandbox gets, and its test command. */
export interface AgentTestEnv {
  /** The tree's runner (it classifies the attempt's changed paths). */
  runner: TestRunner;
  /** Directories to put first on `PATH` inside. */
  path: string[];
  /** Host paths to make readable. */
  readable: string[];
  /** Host paths to make writable (besides the working copy). */
  writable: string[];
  /** Links to make inside (a package manager found through a link). */
  links: { path: string; target: string }[];
  /** Variables the agent gets (before its own invocation's). */
  env: Record<string, string>;
  /** The command that runs the project's tests inside the sandbox. */
  testCommand: string;
  /** Paths in the working copy to remove before the patch is captured. */
  transient: string[];
}

/** What differs between languages in the prompt: where tests go, in the prompt's own words. */
export interface PromptWords {
  /** The contestant's instruction, as lines. */
  fix: string[];
  /** The examiner's tests and where they go ("pytest tests under `tests/`"). */
  tests: string;
  /** What an examiner may change ("`tests/`", "test files"). */
  within: string;
}

/** The language a tree is a project of, as `init` (and `bugbout evidence`) decide it. */
export interface ProjectDetection {
  /** The tree looked at. */
  tree: string;
  /** The language. */
  language: Language;
  /** What the language said of the tree (none: nothing was found, the default language). */
  detected?: Detected;
  /** The other languages found, each with what told it. */
  others: Detected[];
}

/** What `init` writes of a language's project: its `[project]` lines, and what it noticed. */
export interface InitConfig {
  /** The lines after `[project]`. */
  lines: string[];
  /** What was found, as labelled lines for the terminal (`package`, `src/pkg`). */
  summary: [string, string][];
  /** Sentences for the person running init. */
  notes: string[];
}

/** One check of `bugbout doctor`. */
export interface DoctorCheck {
  /** Short name: `git`, `config`, `uv`, `go`, ... */
  name: string;
  /** ok: fine; warn: works but worth knowing; fail: `bugbout run` cannot work. */
  status: "ok" | "warn" | "fail";
  /** What was found. */
  detail: string;
  /** What to do about a warning or failure. */
  fix?: string;
}

/** What a language's doctor checks are told. */
export interface DoctorContext {
  /** The local repository, when one can be read. */
  repository?: string;
  /** The project, when its `bugbout.toml` loaded. */
  project?: Project;
  /** The runner of the default branch's head, read from git as mining reads it. */
  headRunner(): Promise<TestRunner>;
}

/** What {@linkcode detectRunner} found in a tree. */
export interface Detected {
  /** The language. */
  language: Language;
  /** The runner's name. */
  runner: string;
  /** What it was told by, in words ("go.mod", "package.json devDependencies: vitest"). */
  evidence: string;
  /** Where the package lies, when the language names one (Python's package directory). */
  source?: string;
  /** Where the tests lie, when the language names a directory. */
  tests?: string;
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
  /** What a project of it is called in a sentence: `a Go module`, `a JavaScript project`. */
  readonly kind: string;

  // -- Projects (init, doctor, `bugbout evidence`) ---------------------------------------------

  /**
   * Whether `tree` (a directory) is a project of this language, with its runner and what said
   * so; undefined when it is not.
   */
  detect(tree: string): Promise<Detected | undefined>;
  /**
   * What `bugbout init` writes after `[project]` for the project `found` describes, and what it
   * noticed. Throws a `BugboutError` when the tree is no project of this language bugbout can
   * replay (saying what would make it one).
   */
  initConfig(found: ProjectDetection): Promise<InitConfig> | InitConfig;
  /** What `bugbout doctor` checks of the language's toolchain, one result each. */
  doctor(context: DoctorContext): Promise<DoctorCheck[]>;

  // -- Trees ------------------------------------------------------------------------------------

  /**
   * The runner of `tree` as its own configuration makes it (pytest's discovery rules, a
   * JavaScript project's runner and its configuration). Only reads the tree; its `prepare` makes
   * the environment.
   */
  openRunner(tree: string): Promise<TestRunner>;

  // -- Stages -----------------------------------------------------------------------------------

  /**
   * Where a project's package and import path lie in its trees, from `[project] source` (Python:
   * the package directory, and the directory above it on `PYTHONPATH`; the others: the whole tree).
   */
  placeOf(source: string | undefined): TreePlace;
  /** The tools a stage runs a project's tests with (see {@linkcode ProjectTools}). */
  tools(project: ToolsProject, options?: ToolsOptions): ProjectTools;
  /**
   * The globs of test files `bugbout evidence` takes when it is given none, for a project whose
   * tests lie in `testsDir`; absent: the runner's own test files.
   */
  testGlobs?(testsDir: string | undefined): string[];
  /**
   * A tag per author for the names of its copies (letters and digits of the name, or an
   * identifier), unique in the bout whatever their case; same names in, same tags out.
   */
  authorTags(names: readonly string[]): Map<string, string>;
  /**
   * The file whose code raised a runner's tampering event (`pkg/__init__.py:12` → the file), if
   * the event names one: who tampered, for the matrix's blame. Absent: events name no file.
   */
  originOf?(event: GuardEvent): string | undefined;
  /**
   * The prompt's words for where tests go, for a task (`testsDir`: `[project] tests`; `runner`:
   * the tree's runner's name).
   */
  promptWords(
    context: { task: Pick<Task, "packageDir">; testsDir: string; runner: string },
  ): PromptWords;

  // -- Ground truth -----------------------------------------------------------------------------

  /** What the language can say about runs that failed, for a task's reasons (absent: nothing). */
  truthAdvice?(task: Pick<Task, "packageDir">): TruthAdvice;
  /**
   * What today's runner refuses in `tree`'s configuration, in a line, when the tree says so
   * itself (Python: a `[pytest]` section in `setup.cfg`); undefined when nothing.
   */
  configRefusal?(tree: string): Promise<string | undefined>;
  /**
   * The names a scorable task needs that an agent cannot know, when every fail-to-pass test fails
   * on B only because the fix adds them (a new API) and the statement does not name them; such a
   * task is left out. Undefined when that is not so (or the language cannot tell).
   */
  newApiNames?(
    task: Task,
    failToPass: readonly string[],
    b: RepeatedRuns,
    trees: { B: string; G: string },
  ): Promise<string[] | undefined>;

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
   * Whether one hunk of a change to the source file `path` (its `-U0` removed and added lines)
   * touches only type annotations, which no test run checks; absent when the language cannot
   * tell. A change is typing-only when every hunk of every source file is.
   */
  typingOnly?(path: string, removed: readonly string[], added: readonly string[]): boolean;
}
