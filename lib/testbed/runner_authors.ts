/**
 * The tests each author wrote in a Go or JavaScript project, ready to install in a tree of the
 * author's own: which of its files hold its tests, under which ids, and what each run of them
 * reported, as matrix rows.
 *
 * An author's test file with tests of its own (a new file, or one in which it added or changed
 * tests, as {@linkcode TestRunner.changedTests} reads it) is installed as a copy beside the
 * project's file ({@linkcode TestRunner.besidePath}, {@linkcode TestRunner.besideSource}), and its
 * tests are known by the copy's ids ({@linkcode TestRunner.besideId}): two authors' tests never
 * share an id, and the project's own file stays as it is. The author's other test files (helpers,
 * `testdata/`, fixtures, a Go file of `init()` code) go in place. Its configuration (runner
 * configs, setup files, `go.mod`, `package.json`) is never applied: the tree's own runs its
 * tests.
 *
 * Go compiles every `_test.go` file of a package into one binary, and a project's setup files
 * reach every JavaScript test file, so nothing of an author may sit in a tree where anyone
 * else's tests run: each author's tests run in a copy of the tree of their own
 * (`lib/examine/runner.ts`).
 *
 * Requires `--allow-run=git`, `--allow-read` and `--allow-write` (scratch space, the trees).
 *
 * @module
 */

import { inputsKey } from "../hash.ts";
import type { Project } from "../project.ts";
import { type BoutAttempt, nameOf, type Outcome, type PatchFile } from "../records.ts";
import type { TestRunner } from "../lang/mod.ts";
import { type AuthorInput, testPartOf } from "./authors.ts";
import { type FileState, patchedFiles, stateText, writeState } from "./patched.ts";
import { attemptNames } from "./task.ts";

/** One test file of an author, installed beside the project's. */
export interface RunnerAuthorFile {
  /** Its path in the author's tree. */
  path: string;
  /** Where its copy goes. */
  beside: string;
  /** The ids (the copy's) of the author's tests in it, in source order. */
  ids: string[];
  /** Run the whole copy: a new file whose tests static reading could not all name. */
  whole: boolean;
  /** Why static reading could not read it at all: the copy is then one row of its own. */
  unreadable?: string;
}

/** One author's tests in a Go or JavaScript project, ready to install. */
export interface RunnerAuthor {
  /** The agent's name. */
  agent: string;
  /** Whether it fixes or only writes tests. */
  role: "contestant" | "examiner";
  /** The name its copies carry (letters and digits, unique in the bout). */
  tag: string;
  /** The author's version of every path of its test-only patch (absent: it deleted the path). */
  files: Map<string, FileState>;
  /** Its test files with tests of its own, installed beside the project's. */
  tests: RunnerAuthorFile[];
  /** Its other test files, installed at their own paths in its tree. */
  inPlace: string[];
  /** Its configuration, never applied. */
  ignored: string[];
  /** Why none of its tests can run, when that is so (its patch does not apply). */
  problem?: string;
  /** What identifies its tests (its name, tag and test-only patch), for reusing cells. */
  key: string;
}

/**
 * A tag per agent for the names of its copies: letters and digits of the name, numbered when two
 * would collide (whatever their case). Same names in, same tags out.
 */
export function authorTags(names: readonly string[]): Map<string, string> {
  const tags = new Map<string, string>();
  const used = new Set<string>();
  for (const name of names) {
    const base = name.replace(/[^A-Za-z0-9]+/g, "") || "x";
    let tag = base;
    for (let n = 2; used.has(tag.toLowerCase()); n++) tag = `${base}${n}`;
    used.add(tag.toLowerCase());
    tags.set(name, tag);
  }
  return tags;
}

/**
 * Every author's tests at a task of a Go or JavaScript project: each agent whose attempt finished
 * (`patch`), in configuration order, read against B's tree `base` (only read) as
 * {@linkcode readRunnerAuthor} reads them. Tags are made from every configured agent, so they are
 * the same in every stage.
 */
export async function taskRunnerAuthors(
  project: Project,
  attempts: readonly BoutAttempt[],
  options: { base: string; runner: TestRunner; scratch: string; signal?: AbortSignal },
): Promise<RunnerAuthor[]> {
  const tags = authorTags(attemptNames(project));
  const authors: RunnerAuthor[] = [];
  for (const { attempt, patches } of attempts) {
    if (attempt.status !== "patch") continue;
    const name = nameOf(attempt);
    authors.push(
      await readRunnerAuthor({
        agent: name,
        role: attempt.role,
        tag: tags.get(name) ?? authorTags([name]).get(name)!,
        patch: patches.tests,
        files: attempt.files,
      }, options),
    );
  }
  return authors;
}

/** What {@linkcode readRunnerAuthor} needs to know about one attempt. */
export interface RunnerAuthorInput extends Omit<AuthorInput, "dir"> {
  /** Its tag from {@linkcode authorTags}. */
  tag: string;
}

/**
 * Read an author's tests: apply its test-only patch to B's versions of the files it touches (in
 * scratch space; `base` is only read) and sort its files by what `runner` makes of them. A patch
 * that does not apply leaves the author with no tests and a `problem`.
 */
export async function readRunnerAuthor(
  input: RunnerAuthorInput,
  options: {
    /** B's tree (read only). */
    base: string;
    runner: TestRunner;
    scratch: string;
    signal?: AbortSignal;
  },
): Promise<RunnerAuthor> {
  const { runner } = options;
  const part: PatchFile[] = testPartOf(input.files);
  const author: RunnerAuthor = {
    agent: input.agent,
    role: input.role,
    tag: input.tag,
    files: new Map(),
    tests: [],
    inPlace: [],
    ignored: [],
    key: inputsKey({ agent: input.agent, tag: input.tag, patch: input.patch, files: part }),
  };
  if (part.length === 0 || input.patch.trim() === "") return author;
  let changes;
  try {
    changes = await patchedFiles(options.base, input.patch, part, {
      scratch: options.scratch,
      signal: options.signal,
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    return { ...author, problem: (error as Error).message };
  }
  for (const [path, change] of [...changes].sort(([a], [b]) => a.localeCompare(b))) {
    author.files.set(path, change.after);
    if (runner.isConfig(path) || !runner.isTestFile(path)) {
      author.ignored.push(path);
      continue;
    }
    const after = stateText(change.after);
    const before = change.before.kind === "file" ? stateText(change.before) ?? null : null;
    const tests = after === undefined ? undefined : runner.changedTests(path, before, after);
    const beside = runner.besidePath(path, input.tag);
    const ids = (list: readonly string[]) => list.map((id) => runner.besideId(id, input.tag));
    if (tests === undefined || change.after.kind !== "file") {
      author.inPlace.push(path);
    } else if ("error" in tests) {
      // Static reading failed; the runner may still run it (or say why it cannot).
      if (looksLikeTests(runner, path)) {
        author.tests.push({ path, beside, ids: [], whole: true, unreadable: tests.error });
      } else author.inPlace.push(path);
    } else if (before === null) {
      if (tests.tests.length > 0 || tests.unsure) {
        author.tests.push({
          path,
          beside,
          ids: ids(tests.tests),
          whole: tests.unsure !== undefined && runner.language !== "go",
        });
      } else author.inPlace.push(path); // a helper, a Go file of init() code
    } else if (tests.changed.length > 0) {
      author.tests.push({ path, beside, ids: ids(tests.changed), whole: false });
    } else if (tests.tests.length === 0) {
      author.inPlace.push(path);
    }
    // A modified file in which the author added or changed no test holds none of its tests.
  }
  return author;
}

/** A file the runner would run, not a helper or data (judged by its name). */
function looksLikeTests(runner: TestRunner, path: string): boolean {
  return runner.language === "go"
    ? path.endsWith("_test.go")
    : /\.(test|spec)\.[cm]?[jt]sx?$/.test(path) || /(^|\/)__tests__\//.test(path);
}

/**
 * Install an author's tests into `tree` (a copy of its own): copies beside the project's test
 * files, other test files in place. Its configuration stays out.
 */
export async function installRunnerAuthor(
  tree: string,
  author: RunnerAuthor,
  runner: TestRunner,
): Promise<void> {
  for (const path of author.inPlace) await writeState(tree, path, author.files.get(path)!);
  for (const file of author.tests) {
    const state = author.files.get(file.path)!;
    const text = stateText(state);
    let copy: FileState = state;
    if (text !== undefined && !file.unreadable) {
      copy = {
        kind: "file",
        data: new TextEncoder().encode(runner.besideSource(file.path, text, author.tag)),
        executable: false,
      };
    }
    await writeState(tree, file.beside, copy);
  }
}

/** Whether an author has tests that can run. */
export function hasRunnerTests(author: RunnerAuthor): boolean {
  return !author.problem && author.tests.length > 0;
}

/** What to hand {@linkcode TestRunner.run} as the author's group: its ids, or whole copies. */
export function authorEntries(author: RunnerAuthor): string[] {
  return author.tests.flatMap((f) => (f.whole ? [f.beside] : f.ids));
}

/** The separator between a test and its subtests in `runner`'s ids. */
function childSeparator(runner: TestRunner): string {
  return runner.language === "go" ? "/" : " > ";
}

function failing(outcome: Outcome | undefined): boolean {
  return outcome === "failed" || outcome === "error";
}

/**
 * An author's rows from what one run of its group reported: each of its tests (and the subtests
 * each started), every test of a copy run whole, and a copy static reading could not read as one
 * row of its own (`error` when it did not load; else failed when one of its tests failed, passed
 * when all passed). A test the run says nothing of is left out here (see {@linkcode fillRows}).
 */
export function authorOutcomes(
  author: RunnerAuthor,
  runner: TestRunner,
  reported: Readonly<Record<string, Outcome>>,
): Map<string, Outcome> {
  const out = new Map<string, Outcome>();
  const sep = childSeparator(runner);
  const reportedIds = Object.keys(reported);
  for (const file of author.tests) {
    const container = runner.fileOf(file.beside);
    const mine = (id: string) =>
      id !== container && runner.fileOf(id) === container &&
      (runner.language === "go"
        ? id.split("/").some((p) => p.endsWith(`_bugbout_${author.tag}`))
        : true);
    if (file.unreadable) {
      const own = reportedIds.filter(mine).map((id) => reported[id]);
      const whole = reported[file.beside] ?? reported[container];
      out.set(
        file.beside,
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
    for (const id of file.ids) if (reported[id] !== undefined) out.set(id, reported[id]);
    for (const id of reportedIds) {
      const child = file.ids.some((own) => id.startsWith(own + sep));
      if (child || (file.whole && mine(id))) out.set(id, reported[id]);
    }
    if (file.whole && reported[file.beside] !== undefined && failing(reported[file.beside])) {
      out.set(file.beside, reported[file.beside]);
    }
  }
  return out;
}

/**
 * Every tree's outcomes of one owner made whole, in place: each id seen on any tree is a row; a
 * file or package of its own is a row only while no test of it was seen anywhere. On a tree that
 * did not report a row, the row is `error` when its file or package failed to load there, else
 * `not-run`. `statically` lists rows known before anything ran (they come first).
 */
export function fillRows(
  observations: readonly Map<string, Outcome>[],
  runner: Pick<TestRunner, "fileOf">,
  statically: readonly string[] = [],
): string[] {
  const seen: string[] = [...statically];
  const known = new Set(seen);
  for (const o of observations) {
    for (const id of o.keys()) {
      if (!known.has(id)) {
        known.add(id);
        seen.push(id);
      }
    }
  }
  const containers = new Set(seen.filter((id) => runner.fileOf(id) === id));
  const testsIn = new Set(
    seen.filter((id) => !containers.has(id)).map((id) => runner.fileOf(id)),
  );
  const rows = seen.filter((id) => !containers.has(id) || !testsIn.has(id));
  for (const o of observations) {
    for (const id of rows) {
      if (o.has(id)) continue;
      o.set(id, failing(o.get(runner.fileOf(id))) ? "error" : "not-run");
    }
    for (const id of [...o.keys()]) if (!rows.includes(id)) o.delete(id);
  }
  return rows;
}
