/**
 * Mining for a language whose runner's configuration at HEAD stands for all its history (Go,
 * JavaScript/TypeScript, a registered toy): the runner says which changed files are test code and
 * which are configuration; files matching the language's source pattern are source; the tests a
 * change added or changed are the runner's own static reading of each test file before and after
 * it, read from git's object store. A language gives {@linkcode openRunnerMiner} its code patterns
 * and, when it can tell them, which new tests only skip or only check types.
 *
 * Requires `--allow-run=git`, `--allow-read` and `--allow-write` (a temporary directory for the
 * root files the runner reads its configuration from).
 *
 * @module
 */

import { join } from "node:path";
import { git } from "../git.ts";
import type { PathChange } from "../history.ts";
import type {
  AddedTests,
  ChangeMiner,
  LanguageSpec,
  MiningContext,
  ObjectReader,
  SortedChange,
  TestRunner,
  TestsToRead,
} from "./types.ts";

/** What a runner language tells mining beside its runner. */
export interface RunnerCode {
  /** Code of the language (a data file under a test directory is test data, code there is not). */
  source: RegExp;
  /** Test code the runner reads tests from (the rest of its test files are support files). */
  tests: RegExp;
  /**
   * Of the tests a change added or changed in one file (its text after the change), those that
   * are always skipped and those that check types only, when every one of them is either (else
   * none: a file with one test a run checks is no file of tests that check nothing).
   */
  marks?(path: string, text: string, ids: readonly string[]): TestMarks;
  /**
   * The files that declare dependencies (`go.mod`, `package.json`) and which ones a change adds
   * (before: null for a new file): the hidden tests of a change that adds one cannot run on B.
   */
  dependencies?: {
    file: RegExp;
    added(before: string | null, after: string): string[];
  };
  /** See {@linkcode ChangeMiner.typingOnly}. */
  typingOnly?(path: string, removed: readonly string[], added: readonly string[]): boolean;
}

/** Tests a static reading can tell will check nothing when run. */
export interface TestMarks {
  /** Always skipped (`it.skip`, `t.Skip()` first). */
  skipped: string[];
  /** Checking types only (`expectTypeOf`, `assertType`). */
  typeOnly: string[];
}

/** What reading a runner-mined change's tests needs besides them: its dependency files. */
interface RunnerReading {
  dependencies: PathChange[];
}

/** What a runner-mined change needs of the runner. */
export type MiningRunner = Pick<TestRunner, "name" | "isTestFile" | "isConfig" | "changedTests">;

/**
 * Directories of test data by their name: a data file the fix added or changed under one is a
 * support file (the hidden tests read it), even where the runner does not call it test code
 * (`internal/toml-test/tests/valid/x.toml` beside a Go module's tests).
 */
const TEST_DATA_DIRS =
  /(^|\/)(testdata|test_data|test-data|tests?|__tests__|fixtures?|__fixtures__|testfixtures|test-fixtures|__snapshots__|snapshots|golden|spec|specs)\//i;

/** Directories whose files are never the project's own source (vendored, installed). */
const NOT_SOURCE = /(^|\/)(vendor|node_modules)\//;

/** Documentation, examples and the project's housekeeping: changed beside a fix, never the fix. */
const DOCS_AND_META = [
  // Dotfiles and dot-directories (.github/, .changeset/, .eslintrc, .goreleaser.yml, ...).
  /(^|\/)\./,
  /^(docs?|examples?|_examples|website|site|bench|benchmarks?)\//,
  /(^|\/)(license|licence|copying|authors|contributors|codeowners|changelog|changes|history|news|notice|readme|security|code_of_conduct|contributing|makefile|dockerfile|justfile|taskfile)(\.[^/]*)?$/i,
  /\.(md|markdown|mdx|rst|adoc|txt|png|jpe?g|gif|svg|ico|webp|pdf)$/i,
  // Tool settings at the root (renovate.json, codecov.yml, netlify.toml, ...).
  /^[^/]+\.(json|ya?ml|toml|ini|cfg|lock)$/,
];

/** Whether a file the runner calls neither test nor configuration is documentation or meta. */
function isDocsOrMeta(path: string): boolean {
  return DOCS_AND_META.some((re) => re.test(path));
}

/**
 * The runner of `language` at `commit`, its configuration read from the files at the root of that
 * commit (a repository may be bare, and its work tree need not be at `commit`).
 */
export async function runnerAt(
  language: Pick<LanguageSpec, "openRunner">,
  repo: string,
  commit: string,
  objects: Pick<ObjectReader, "read">,
): Promise<TestRunner> {
  const listing = await git(["ls-tree", "-z", "--full-tree", commit], { cwd: repo });
  const files = listing.split("\0").filter(Boolean).flatMap((entry) => {
    const m = entry.match(/^\d+ blob ([0-9a-f]+)\t(.+)$/s);
    return m && !m[2].includes("/") ? [{ blob: m[1], name: m[2] }] : [];
  });
  const texts = await objects.read(files.map((f) => f.blob));
  const dir = await Deno.makeTempDir({ prefix: "bugbout-mine-root-" });
  try {
    for (const f of files) {
      const text = texts.get(f.blob);
      if (text !== undefined) await Deno.writeTextFile(join(dir, f.name), text);
    }
    return await language.openRunner(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Sort a change's files with the runner: source code, test code, and other test files. */
export function sortRunnerFiles(
  files: readonly PathChange[],
  runner: MiningRunner,
  code: Pick<RunnerCode, "source" | "tests">,
): { sourceFiles: string[]; testChanges: PathChange[]; supportFiles: string[] } {
  const sourceFiles = new Set<string>();
  const supportFiles = new Set<string>();
  const testChanges: PathChange[] = [];
  // What scoring applies of a patch is everything but tests and configuration: so is source
  // here, less documentation and housekeeping (which would make a fix look bigger than it is) and
  // test data under a test directory.
  const isTestData = (path: string) =>
    TEST_DATA_DIRS.test(path) && !code.source.test(path) && !runner.isConfig(path);
  const isSource = (path: string) =>
    !NOT_SOURCE.test(path) && !isDocsOrMeta(path) && !isTestData(path) && !runner.isConfig(path) &&
    !runner.isTestFile(path);
  for (const f of files) {
    const deleted = f.status === "D";
    if (!deleted && !runner.isConfig(f.path) && runner.isTestFile(f.path)) {
      if (code.tests.test(f.path)) testChanges.push(f);
      else supportFiles.add(f.path);
      continue;
    }
    // A deleted or moved source file counts by its path before the change too.
    const before = f.status !== "A" && isSource(f.oldPath ?? f.path);
    if ((!deleted && isSource(f.path)) || before) sourceFiles.add(f.path);
    else if (!deleted && isTestData(f.path)) supportFiles.add(f.path);
  }
  testChanges.sort((a, b) => a.path.localeCompare(b.path));
  return {
    sourceFiles: [...sourceFiles].sort(),
    testChanges,
    supportFiles: [...supportFiles].sort(),
  };
}

/** Mining through a runner whose configuration at HEAD holds for every commit. */
class RunnerMiner implements ChangeMiner<undefined> {
  constructor(
    readonly runner: MiningRunner,
    readonly label: string,
    readonly code: RunnerCode,
    readonly objects: ObjectReader,
  ) {}

  step(): undefined {
    return undefined;
  }

  needs(): string[] {
    return [];
  }

  sort(change: { files: readonly PathChange[] }): SortedChange {
    const files = sortRunnerFiles(change.files, this.runner, this.code);
    const renamedFrom: Record<string, string> = {};
    for (const f of files.testChanges) {
      if (f.oldPath && f.oldPath !== f.path) renamedFrom[f.path] = f.oldPath;
    }
    const deps = this.code.dependencies;
    const dependencies = deps
      ? change.files.filter((f) => f.status !== "D" && deps.file.test(f.path))
      : [];
    return {
      sourceFiles: files.sourceFiles,
      testChanges: files.testChanges,
      // Test code that turns out to hold no test (helpers) is support too: the task keeps those
      // of these files that are not among its test files.
      supportFiles: [...new Set([...files.supportFiles, ...files.testChanges.map((f) => f.path)])]
        .sort(),
      renamedFrom,
      packageDir: ".",
      pythonPath: ".",
      noSource: `changes no ${this.label} source file (only tests, test data, configuration, ` +
        `documentation or housekeeping)`,
      noTests: `changes no test file ${this.runner.name} runs`,
      ...(dependencies.length ? { reading: { dependencies } satisfies RunnerReading } : {}),
    };
  }

  typingOnly(path: string, removed: readonly string[], added: readonly string[]): boolean {
    return this.code.typingOnly?.(path, removed, added) ?? false;
  }

  /** A dependency file's versions before and after a change, as objects to read. */
  #dependencySides(c: TestsToRead): { path: string; before: string | null; after: string }[] {
    const reading = c.reading as RunnerReading | undefined;
    return (reading?.dependencies ?? []).map((f) => ({
      path: f.path,
      after: f.newBlob ?? `${c.commit}:${f.path}`,
      before: f.status === "A" || f.status === "C"
        ? null
        : f.oldBlob ?? `${c.parent}:${f.oldPath ?? f.path}`,
    }));
  }

  /** The dependencies a change adds, in words, when it adds any. */
  #addedDependencies(c: TestsToRead): string | undefined {
    const deps = this.code.dependencies;
    if (!deps) return undefined;
    for (const side of this.#dependencySides(c)) {
      const after = this.objects.cached(side.after);
      if (after === undefined) continue;
      const before = side.before === null ? null : this.objects.cached(side.before) ?? null;
      const added = deps.added(before, after);
      if (added.length) return `${side.path} adds ${added.join(", ")}`;
    }
    return undefined;
  }

  /** The object names of a test file before and after a change (before: null when new). */
  #sides(c: TestsToRead, f: PathChange): { before: string | null; after: string } {
    const after = f.newBlob ?? `${c.commit}:${f.path}`;
    if (f.status === "A" || f.status === "C") return { before: null, after };
    const oldPath = f.oldPath ?? f.path;
    if (!this.runner.isTestFile(oldPath)) return { before: null, after };
    return { before: f.oldBlob ?? `${c.parent}:${oldPath}`, after };
  }

  #names(batch: readonly TestsToRead[]): string[] {
    return batch.flatMap((c) =>
      [...c.testChanges.map((f) => this.#sides(c, f)), ...this.#dependencySides(c)].flatMap((s) =>
        s.before ? [s.after, s.before] : [s.after]
      )
    );
  }

  prefetch(batch: readonly TestsToRead[]): void {
    this.objects.read(this.#names(batch)).catch(() => {}); // addedTests() reads again and sees it
  }

  async addedTests(batch: readonly TestsToRead[]): Promise<AddedTests[]> {
    await this.objects.read(this.#names(batch));
    return batch.map((c) => this.#added(c));
  }

  #added(c: TestsToRead): AddedTests {
    const found: AddedTests = {
      testFiles: [],
      newTests: [],
      addedTests: [],
      unsure: [],
      skipped: [],
      typeOnly: [],
    };
    const needs = this.#addedDependencies(c);
    if (needs) found.needsDependency = needs;
    for (const f of c.testChanges) {
      const sides = this.#sides(c, f);
      const after = this.objects.cached(sides.after);
      if (after === undefined) continue;
      const before = sides.before === null ? null : this.objects.cached(sides.before) ?? null;
      const now = this.runner.changedTests(f.path, before, after);
      if ("error" in now) {
        // Running the file decides what it holds.
        found.testFiles.push(f.path);
        found.unsure.push({ file: f.path, why: now.error });
        continue;
      }
      if (now.tests.length === 0 && !now.unsure) continue; // a helper: support, not tests
      found.testFiles.push(f.path);
      if (sides.before !== null && sides.before === sides.after) continue; // moved as it was
      const then = before === null ? undefined : this.runner.changedTests(f.path, null, before);
      const old = new Set(then && !("error" in then) ? then.tests : []);
      found.newTests.push(...now.changed);
      found.addedTests.push(...now.changed.filter((id) => !old.has(id)));
      const marks = now.changed.length ? this.code.marks?.(f.path, after, now.changed) : undefined;
      if (marks) {
        found.skipped!.push(...marks.skipped);
        found.typeOnly!.push(...marks.typeOnly);
      }
      // A file static reading cannot wholly tell: unsure when the change made it so, or when it
      // changed the file but no test static reading names (a row of a table of cases). The
      // uncertainty a file had already does not hang on tests the change is known to change.
      const unsureBefore = then && !("error" in then) ? then.unsure : undefined;
      if (now.unsure && (now.unsure !== unsureBefore || now.changed.length === 0)) {
        found.unsure.push({ file: f.path, why: now.unsure });
      }
    }
    return found;
  }
}

/**
 * The miner of a runner language: its runner as the configuration at HEAD makes it sorts every
 * change's files (source by `code.source`, tests by the runner and `code.tests`) and reads their
 * tests statically.
 */
export async function openRunnerMiner(
  language: Pick<LanguageSpec, "openRunner" | "label">,
  context: MiningContext,
  code: RunnerCode,
): Promise<ChangeMiner> {
  const runner = await runnerAt(language, context.repo, context.head, context.objects);
  return new RunnerMiner(runner, language.label, code, context.objects);
}
