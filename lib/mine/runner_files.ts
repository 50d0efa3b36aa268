/**
 * Mining a Go or JavaScript/TypeScript project: the parts of mining that are Python's elsewhere
 * (pytest's discovery rules, the package tracker, reading test modules), done with the project's
 * test runner instead. The runner says which changed files are test code and which are
 * configuration; everything else that is code of the language is source. The tests a change added
 * or changed are the runner's own reading of each test file before and after it, read from git's
 * object store.
 *
 * Requires `--allow-run=git`, `--allow-read` and `--allow-write` (a temporary directory for the
 * root files the runner reads its configuration from).
 *
 * @module
 */

import { join } from "node:path";
import { defaultBranch, git, revParse } from "../git.ts";
import type { Language } from "../records.ts";
import { DEFAULT_RULES } from "../lang/python/mod.ts";
import { openRunner, type TestRunner } from "../lang/mod.ts";
import type { AddedTests } from "./added_tests.ts";
import { BlobReader } from "./blobs.ts";
import type { Candidate, Classified, ClassifyContext, Screened } from "./classify.ts";
import type { PathChange } from "./history.ts";

/** What a runner-mined change needs of the runner. */
export type MiningRunner = Pick<
  TestRunner,
  "language" | "name" | "isTestFile" | "isConfig" | "changedTests"
>;

/** Code of each language (a data file under a test directory is test data, code there is not). */
const SOURCE_CODE: Record<Exclude<Language, "python">, RegExp> = {
  go: /\.(go|s|c|h|cc|cpp|hpp)$/,
  node: /\.([cm]?[jt]sx?|vue|svelte|astro)$/,
};

/** Test code a runner can read tests from (the rest of its test files are support files). */
const TEST_CODE: Record<Exclude<Language, "python">, RegExp> = {
  go: /_test\.go$/,
  node: /\.[cm]?[jt]sx?$/,
};

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
export function isDocsOrMeta(path: string): boolean {
  return DOCS_AND_META.some((re) => re.test(path));
}

/** The language's name as a person says it. */
export function languageLabel(language: Exclude<Language, "python">): string {
  return language === "go" ? "Go" : "JavaScript/TypeScript";
}

/**
 * The runner of `commit`, its configuration read from the files at the root of that commit (a
 * repository may be bare, and its work tree need not be at `commit`).
 */
export async function runnerAt(
  repo: string,
  commit: string,
  language: Exclude<Language, "python">,
  blobs: BlobReader,
): Promise<TestRunner> {
  if (language === "go") return await openRunner("go", repo);
  const listing = await git(["ls-tree", "-z", "--full-tree", commit], { cwd: repo });
  const files = listing.split("\0").filter(Boolean).flatMap((entry) => {
    const m = entry.match(/^\d+ blob ([0-9a-f]+)\t(.+)$/s);
    return m && !m[2].includes("/") ? [{ blob: m[1], name: m[2] }] : [];
  });
  const texts = await blobs.read(files.map((f) => f.blob));
  const dir = await Deno.makeTempDir({ prefix: "bugbout-mine-root-" });
  try {
    for (const f of files) {
      const text = texts.get(f.blob);
      if (text !== undefined) await Deno.writeTextFile(join(dir, f.name), text);
    }
    return await openRunner(language, dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * The runner of the repository's default branch as it is now, its configuration read from git
 * (for `doctor`: the same reading mining does).
 */
export async function runnerAtHead(
  repo: string,
  language: Exclude<Language, "python">,
): Promise<TestRunner> {
  const head = await revParse(repo, await defaultBranch(repo));
  return await runnerAt(repo, head, language, new BlobReader(repo));
}

/** Sort a change's files with the runner: source code, test code, and other test files. */
export function sortRunnerFiles(
  files: readonly PathChange[],
  runner: MiningRunner,
): { sourceFiles: string[]; testChanges: PathChange[]; supportFiles: string[] } {
  const language = runner.language as Exclude<Language, "python">;
  const sourceFiles = new Set<string>();
  const supportFiles = new Set<string>();
  const testChanges: PathChange[] = [];
  // What scoring applies of a patch is everything but tests and configuration: so is source
  // here, less documentation and housekeeping (which would make a fix look bigger than it is) and
  // test data under a test directory.
  const isTestData = (path: string) =>
    TEST_DATA_DIRS.test(path) && !SOURCE_CODE[language].test(path) && !runner.isConfig(path);
  const isSource = (path: string) =>
    !NOT_SOURCE.test(path) && !isDocsOrMeta(path) && !isTestData(path) && !runner.isConfig(path) &&
    !runner.isTestFile(path);
  for (const f of files) {
    const deleted = f.status === "D";
    if (!deleted && !runner.isConfig(f.path) && runner.isTestFile(f.path)) {
      if (TEST_CODE[language].test(f.path)) testChanges.push(f);
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

/**
 * The rules on which files a screened change touched, for a Go or JavaScript project: it must
 * change source code (at most `max-source-files` files) and test code its runner reads.
 */
export function classifyRunnerFiles(
  screened: Screened,
  runner: MiningRunner,
  context: Pick<ClassifyContext, "maxSourceFiles">,
): Classified<Candidate> {
  const { change, text } = screened;
  const language = runner.language as Exclude<Language, "python">;
  const maybe = !screened.titleFix && screened.fragment === undefined;
  const excluded = (
    reason: "no-source-change" | "too-many-source-files" | "no-test-added",
    detail: string,
  ): Classified<Candidate> => ({
    kind: "excluded",
    reason: maybe ? "not-a-fix" : reason,
    title: text.title,
    ...(maybe ? {} : { detail }),
  });
  const files = sortRunnerFiles(change.files, runner);
  if (files.sourceFiles.length === 0) {
    return excluded(
      "no-source-change",
      `changes no ${
        languageLabel(language)
      } source file (only tests, test data, configuration, documentation or housekeeping)`,
    );
  }
  if (files.sourceFiles.length > context.maxSourceFiles) {
    return excluded(
      "too-many-source-files",
      `changes ${files.sourceFiles.length} source files (max-source-files = ${context.maxSourceFiles})`,
    );
  }
  if (files.testChanges.length === 0) {
    return excluded("no-test-added", `changes no test file ${runner.name} runs`);
  }
  const renamedFrom: Record<string, string> = {};
  for (const f of files.testChanges) {
    if (f.oldPath && f.oldPath !== f.path) renamedFrom[f.path] = f.oldPath;
  }
  return {
    kind: "candidate",
    candidate: {
      commit: change.commit,
      parent: change.parents[0],
      time: change.time,
      title: text.title,
      body: text.body,
      ...(text.pullRequest ? { pullRequest: text.pullRequest } : {}),
      merge: change.parents.length > 1,
      reference: screened.reference,
      sourceFiles: files.sourceFiles,
      testModules: files.testChanges.map((f) => f.path),
      renamedFrom,
      // Test code that turns out to hold no test (helpers) is support too: the task keeps those
      // of these files that are not among its test files.
      supportFiles: [...new Set([...files.supportFiles, ...files.testChanges.map((f) => f.path)])]
        .sort(),
      packageDir: ".",
      pythonPath: ".",
      testChanges: files.testChanges,
      // Never read for a runner's candidate: pytest's defaults fill the field.
      rules: DEFAULT_RULES,
      titleFix: screened.titleFix,
      ...(text.branch ? { branch: text.branch } : {}),
      ...(screened.fragment ? { fragment: screened.fragment } : {}),
      changelogs: screened.changelogs,
    },
  };
}

/**
 * Reads the tests each candidate added or changed with the runner's static reading of its test
 * files before and after the change (one `git cat-file` per batch).
 */
export class RunnerTestReader {
  /** The blobs behind it. */
  readonly blobs: BlobReader;
  #runner: MiningRunner;

  /** A reader over `blobs` with `runner`'s reading of test files. */
  constructor(blobs: BlobReader, runner: MiningRunner) {
    this.blobs = blobs;
    this.#runner = runner;
  }

  /** The object names of a test file before and after a change (before: null when new). */
  #sides(c: Candidate, f: PathChange): { before: string | null; after: string } {
    const after = f.newBlob ?? `${c.commit}:${f.path}`;
    if (f.status === "A" || f.status === "C") return { before: null, after };
    const oldPath = f.oldPath ?? f.path;
    if (!this.#runner.isTestFile(oldPath)) return { before: null, after };
    return { before: f.oldBlob ?? `${c.parent}:${oldPath}`, after };
  }

  #names(batch: readonly Candidate[]): string[] {
    return batch.flatMap((c) =>
      c.testChanges.flatMap((f) => {
        const s = this.#sides(c, f);
        return s.before ? [s.after, s.before] : [s.after];
      })
    );
  }

  /** Start reading what {@linkcode examine} will need for `batch`. */
  prefetch(batch: readonly Candidate[]): void {
    this.blobs.read(this.#names(batch)).catch(() => {}); // examine() reads again and sees it
  }

  /** For each candidate, the tests it added or changed. */
  async examine(batch: readonly Candidate[]): Promise<AddedTests[]> {
    await this.blobs.read(this.#names(batch));
    return batch.map((c) => {
      const found: AddedTests = { testFiles: [], newTests: [], addedTests: [], unsure: [] };
      for (const f of c.testChanges) {
        const sides = this.#sides(c, f);
        const after = this.blobs.cached(sides.after);
        if (after === undefined) continue;
        const before = sides.before === null ? null : this.blobs.cached(sides.before) ?? null;
        const now = this.#runner.changedTests(f.path, before, after);
        if ("error" in now) {
          // Running the file decides what it holds.
          found.testFiles.push(f.path);
          found.unsure.push({ file: f.path, why: now.error });
          continue;
        }
        if (now.tests.length === 0 && !now.unsure) continue; // a helper: support, not tests
        found.testFiles.push(f.path);
        if (sides.before !== null && sides.before === sides.after) continue; // moved as it was
        const then = before === null ? undefined : this.#runner.changedTests(f.path, null, before);
        const old = new Set(then && !("error" in then) ? then.tests : []);
        found.newTests.push(...now.changed);
        found.addedTests.push(...now.changed.filter((id) => !old.has(id)));
        // A file static reading cannot wholly tell: unsure when the change made it so, or when it
        // changed the file but no test static reading names (a row of a table of cases). The
        // uncertainty a file had already does not hang on tests the change is known to change.
        const unsureBefore = then && !("error" in then) ? then.unsure : undefined;
        if (now.unsure && (now.unsure !== unsureBefore || now.changed.length === 0)) {
          found.unsure.push({ file: f.path, why: now.unsure });
        }
      }
      return found;
    });
  }
}
