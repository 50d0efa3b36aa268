/**
 * The tests each author wrote, ready to install in any tree: the author's version of every file
 * of its test-only patch, which of those hold its tests (and which of their tests are its own),
 * and what each run of them reported, as matrix rows.
 *
 * A file the author added is entirely theirs; in a file the author changed, only the tests it
 * added or changed are (the runner's `readTests` says which: Python compares syntax trees, the
 * others read the file statically); the rest is the repository's and runs with the repository's
 * suite. An author's test file is installed as a copy beside the project's (`besidePath`,
 * `besideSource`) and its tests are known by the copy's ids (`besideId`): two authors' tests never
 * share an id, and the project's own file stays as it is.
 *
 * An author whose files are test files only may share a tree with other authors where the runner
 * allows it (`sharesTrees`: pytest under the guard, each author in a process of its own). Any
 * other author's tests run in a copy of the tree of their own: its helpers and data at their own
 * paths, and — where the runner applies an author's configuration (`appliesAuthorConfig`:
 * `conftest.py`) — every file at its own path, its tests known by the copy's ids all the same;
 * elsewhere its configuration is never applied.
 *
 * Requires `--allow-run` (git; the runner's tools for `readTests`), `--allow-read` and
 * `--allow-write` (scratch space).
 *
 * @module
 */

import { inputsKey } from "../hash.ts";
import type { RunnerEnv, TestRunner } from "../lang/mod.ts";
import type { Outcome, PatchFile } from "../records.ts";
import { type FileChange, type FileState, patchedFiles, stateText, writeState } from "./patched.ts";

/** One of an author's test files that holds tests of its own. */
export interface AuthorFile {
  /** Its path in the author's tree. */
  path: string;
  /** Where its copy goes beside the project's (the author's rows are the copy's ids). */
  beside: string;
  /** The author's tests in it, by id at its own path, in source order (none: the runner decides). */
  ids: string[];
  /** Every test of the file is the author's (a new file). */
  whole: boolean;
  /** Why static reading could not read it: the copy is then one row of its own. */
  unreadable?: string;
}

/** One author's tests, ready to install. */
export interface AuthorTests {
  /** The agent's name. */
  agent: string;
  /** Whether it fixes or only writes tests. */
  role: "contestant" | "examiner";
  /** The tag its copies carry (the language's `authorTags`), unique in the bout. */
  tag: string;
  /** The author's version of every path of its test-only patch (absent: it deleted the path). */
  files: Map<string, FileState>;
  /** Its test files with tests of its own. */
  tests: AuthorFile[];
  /** Its other files that go into a tree of its own at their own paths (helpers, data). */
  helpers: string[];
  /** Its files never applied (configuration, where the runner applies no author's). */
  ignored: string[];
  /** Whether its tests may share a tree with other authors' (test files only). */
  shareable: boolean;
  /** Why none of its tests can run, when that is so (its patch does not apply). */
  problem?: string;
  /** What identifies its tests (its name, tag and test-only patch), for reusing cells. */
  key: string;
}

/** What {@linkcode readAuthor} needs to know about one attempt. */
export interface AuthorInput {
  /** The agent's name. */
  agent: string;
  /** Its role. */
  role: "contestant" | "examiner";
  /** Its tag from the language's `authorTags`. */
  tag: string;
  /** Its test-only patch (`<agent>.tests.patch`). */
  patch: string;
  /** The changed paths the attempt recorded. */
  files: readonly PatchFile[];
}

/** Where an author's tests are read: B's tree, its runner and environment. */
export interface AuthorReading {
  /** B's tree (read only). */
  base: string;
  runner: TestRunner;
  /** B's prepared environment (Python reads test modules with its interpreter). */
  env: RunnerEnv;
  scratch: string;
  signal?: AbortSignal;
}

/** Paths of an attempt that belong to its test-only patch. */
export function testPartOf(files: readonly PatchFile[]): PatchFile[] {
  return files.filter((f) => f.kind === "test" || f.kind === "config");
}

/** Whether an author has tests that can run. */
export function hasTests(author: AuthorTests): boolean {
  return !author.problem && author.tests.length > 0;
}

/**
 * Read an author's tests: apply its test-only patch to B's versions of the files it touches (in
 * scratch space; `base` is only read) and sort its files by what the runner makes of them. A patch
 * that does not apply leaves the author with no tests and a `problem`.
 */
export async function readAuthor(input: AuthorInput, at: AuthorReading): Promise<AuthorTests> {
  const { runner } = at;
  const part = testPartOf(input.files);
  const author: AuthorTests = {
    agent: input.agent,
    role: input.role,
    tag: input.tag,
    files: new Map(),
    tests: [],
    helpers: [],
    ignored: [],
    shareable: runner.sharesTrees,
    key: inputsKey({ agent: input.agent, tag: input.tag, patch: input.patch, files: part }),
  };
  if (part.length === 0 || input.patch.trim() === "") return author;
  let changes: Map<string, FileChange>;
  try {
    changes = await patchedFiles(at.base, input.patch, part, {
      scratch: at.scratch,
      signal: at.signal,
    });
  } catch (error) {
    if (at.signal?.aborted) throw error;
    return { ...author, problem: (error as Error).message };
  }
  return await authorFromChanges(author, changes, at);
}

/**
 * An author's tests from what its change makes of each path (`changes`: every path before and
 * after), sorted by what the runner makes of them, onto `author` (its identity, no files yet).
 */
export async function authorFromChanges(
  author: AuthorTests,
  changes: ReadonlyMap<string, FileChange>,
  at: Pick<AuthorReading, "runner" | "env" | "signal">,
): Promise<AuthorTests> {
  const { runner } = at;
  const toRead: { path: string; before: string | null; after: string }[] = [];
  for (const [path, change] of [...changes].sort(([a], [b]) => a.localeCompare(b))) {
    author.files.set(path, change.after);
    if (runner.isConfig(path) || !runner.isTestFile(path)) {
      if (runner.appliesAuthorConfig) helper(author, path, change.after);
      else author.ignored.push(path);
      continue;
    }
    const after = change.after.kind === "file" ? stateText(change.after) : undefined;
    if (after === undefined) {
      helper(author, path, change.after);
      continue;
    }
    const before = change.before.kind === "file" ? stateText(change.before) ?? null : null;
    toRead.push({ path, before, after });
  }
  const readings = await runner.readTests(toRead, at.env, at.signal);
  toRead.forEach(({ path }, i) => {
    const reading = readings[i];
    if (reading.kind === "helper") helper(author, path, author.files.get(path)!);
    else if (reading.kind === "tests") {
      author.tests.push({
        path,
        beside: runner.besidePath(path, author.tag),
        ids: reading.ids,
        whole: reading.whole,
        ...(reading.unreadable ? { unreadable: reading.unreadable } : {}),
      });
    }
  });
  return author;
}

/** A file that goes with the author's tests into a tree of its own (a deletion shares a tree). */
function helper(author: AuthorTests, path: string, after: FileState) {
  author.helpers.push(path);
  if (after.kind !== "absent") author.shareable = false;
}

/**
 * How an author's files lie in a tree: `beside` the project's (copies, known by their own ids); at
 * their `own` paths (an author alone in its tree whose configuration applies), known by the
 * copies' ids all the same; or `as-is`, at their own paths and known by their own ids (a change
 * checked outside a bout, the only author there is).
 */
export type AuthorLayout = "beside" | "own" | "as-is";

/** The layout an author alone in a tree of its own gets from the runner. */
export function aloneLayout(runner: Pick<TestRunner, "appliesAuthorConfig">): AuthorLayout {
  return runner.appliesAuthorConfig ? "own" : "beside";
}

/** The ids of a file's tests as they run in `layout`. */
function idsIn(file: AuthorFile, runner: TestRunner, tag: string, layout: AuthorLayout): string[] {
  return layout === "beside" ? file.ids.map((id) => runner.besideId(id, tag)) : file.ids;
}

/**
 * Put an author's files into `tree` in `layout`: its configuration stays out where it must, and
 * nothing but its copies goes into a tree it shares (`alone` false).
 */
export async function installAuthor(
  tree: string,
  author: AuthorTests,
  runner: TestRunner,
  placing: { layout: AuthorLayout; alone: boolean },
): Promise<void> {
  if (placing.layout !== "beside") {
    for (const [path, state] of author.files) await writeState(tree, path, state);
    return;
  }
  if (placing.alone) {
    for (const path of author.helpers) await writeState(tree, path, author.files.get(path)!);
  }
  for (const file of author.tests) {
    const state = author.files.get(file.path)!;
    const text = stateText(state);
    const copy: FileState = text !== undefined && !file.unreadable
      ? {
        kind: "file",
        data: new TextEncoder().encode(runner.besideSource(file.path, text, author.tag)),
        executable: false,
      }
      : state;
    await writeState(tree, file.beside, copy);
  }
}

/**
 * What to hand the runner as an author's group in `layout`: its test files whole where the runner
 * runs by file (or where a file is the author's whole), else its tests' ids; with `select`, only
 * those rows (matrix ids) of it.
 */
export function authorEntries(
  author: AuthorTests,
  runner: TestRunner,
  layout: AuthorLayout,
  select?: ReadonlySet<string>,
): string[] {
  if (select) return [...select].map((id) => physicalId(author, runner, layout, id));
  return author.tests.flatMap((f) =>
    runner.runsByFile || f.whole
      ? [layout === "beside" ? f.beside : f.path]
      : idsIn(f, runner, author.tag, layout)
  );
}

/** A matrix id of the author's as the tree in `layout` knows it. */
function physicalId(
  author: AuthorTests,
  runner: TestRunner,
  layout: AuthorLayout,
  id: string,
): string {
  if (layout !== "own") return id;
  const file = author.tests.find((f) => f.beside === runner.fileOf(id));
  return file ? file.path + id.slice(file.beside.length) : id;
}

/** The matrix rows of an author known before anything runs (runners whose static ids are reported). */
export function staticRows(
  author: AuthorTests,
  runner: TestRunner,
  layout: AuthorLayout = "beside",
): string[] {
  if (!runner.reportsStaticIds) return [];
  return author.tests.flatMap((f) =>
    f.unreadable
      ? [layout === "as-is" ? f.path : f.beside]
      : idsIn(f, runner, author.tag, layout === "own" ? "beside" : layout)
  );
}

function failing(outcome: Outcome | undefined): boolean {
  return outcome === "failed" || outcome === "error";
}

/**
 * An author's rows from what one run of its group reported in `layout`, by matrix id: each of its
 * tests and their cases or subtests; every test of a file that is its whole; the file itself when
 * it failed to load; a file static reading could not read as one row of its own (`error` when it
 * did not load; else failed when one of its tests failed, passed when all passed). A test the run
 * says nothing of is left out here (see `fillRows`).
 */
export function authorRows(
  author: AuthorTests,
  runner: TestRunner,
  reported: Readonly<Record<string, Outcome>>,
  layout: AuthorLayout,
): Map<string, Outcome> {
  const out = new Map<string, Outcome>();
  const ids = Object.keys(reported);
  for (const file of author.tests) {
    const physical = layout === "beside" ? file.beside : file.path;
    const container = runner.fileOf(physical);
    const toRow = (id: string) => layout === "own" ? runner.besideId(id, author.tag) : id;
    const ofCopy = (id: string) =>
      id !== container && runner.fileOf(id) === container &&
      (layout !== "beside" || runner.besideOwns(id, physical, author.tag));
    if (file.unreadable) {
      const own = ids.filter(ofCopy).map((id) => reported[id]);
      const whole = reported[physical] ?? reported[container];
      out.set(
        layout === "as-is" ? file.path : file.beside,
        failing(whole) || own.length === 0
          ? whole ?? "not-run"
          : own.some(failing)
          ? "failed"
          : own.every((o) => o === "passed")
          ? "passed"
          : own[0],
      );
      continue;
    }
    const mine = idsIn(file, runner, author.tag, layout);
    for (const id of ids) {
      const isMine = id === container
        ? failing(reported[id])
        : file.whole
        ? ofCopy(id)
        : runner.fileOf(id) === container && mine.some((own) => runner.within(id, own));
      if (isMine) out.set(toRow(id), reported[id]);
    }
  }
  return out;
}
