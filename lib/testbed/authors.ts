/**
 * The tests each author wrote, ready to install in any tree: the author's version of every file
 * of its test-only patch, and which of those are test modules with which tests in them.
 *
 * A module the author added is entirely theirs. In a module the author modified, only the test
 * functions it added or changed are theirs (found by comparing syntax trees with B's version); the
 * rest is the repository's and runs with the repository's suite.
 *
 * An author whose test-only patch holds nothing but test modules is **shared**: its modules are
 * installed beside the originals in a directory of its own (`tests/_bugbout_<name>/test_x.py`), so
 * they run in the same pytest session as everyone else's under module names no other author can
 * shadow. An author who also wrote `conftest.py`, pytest configuration, helpers or data files is
 * **in place**: its files go into a private copy of the tree at their own paths, and its tests run
 * in a session of their own, so its configuration reaches its tests and nobody else's. Either way
 * its tests are known by the same ids: the shared layout's node ids.
 *
 * Requires `--allow-run` (git, the interpreter), `--allow-read` and `--allow-write` (scratch).
 *
 * @module
 */

import { dirname } from "node:path";
import { inputsKey } from "../hash.ts";
import {
  besideDir,
  besideModulePath,
  changedTests,
  isTestModule,
  type PytestRules,
} from "../lang/python/mod.ts";
import type { PatchFile } from "../records.ts";
import { type FileChange, type FileState, patchedFiles, stateText } from "./patched.ts";

/** A test module of an author, at its own path. */
export interface AuthorModule {
  /** Path of the module in the author's tree. */
  path: string;
  /** The whole module is the author's (a new module, or one that cannot be parsed). */
  whole: boolean;
  /** The author's tests in it (`name`, `Class::name`), when not `whole`. */
  tests: string[];
}

/** One author's tests, ready to install. */
export interface AuthorTests {
  /** The agent's name. */
  agent: string;
  /** Whether it fixes or only writes tests. */
  role: "contestant" | "examiner";
  /** The directory name its shared modules go into (`_bugbout_<name>`), unique in the bout. */
  dir: string;
  /** True when it wrote test modules only, so its tests can share a session with others'. */
  shared: boolean;
  /** The author's version of every path of its test-only patch (absent: it deleted the path). */
  files: Map<string, FileState>;
  /** Its test modules, with its tests in each. */
  modules: AuthorModule[];
  /** Why none of its tests can run, when that is so (its patch does not apply). */
  problem?: string;
  /** What identifies its tests (its name, directory and test-only patch), for reusing cells. */
  key: string;
}

/**
 * A directory name per agent: `_bugbout_` and the name made into a Python identifier, numbered
 * when two names would collide. Same names in, same directories out.
 */
export function authorDirs(names: readonly string[]): Map<string, string> {
  const dirs = new Map<string, string>();
  const used = new Set<string>();
  for (const name of names) {
    const base = besideDir(name);
    let dir = base;
    for (let n = 2; used.has(dir); n++) dir = `${base}_${n}`;
    used.add(dir);
    dirs.set(name, dir);
  }
  return dirs;
}

/** Where a shared author's module goes: `tests/test_x.py` → `tests/<dir>/test_x.py`. */
export function siblingPath(path: string, dir: string): string {
  return besideModulePath(path, dir);
}

/**
 * The test modules among an author's files and the author's tests in each, comparing each
 * modified module with its version before the change using `python`'s `ast`. A modified module
 * in which the author added or changed no test is left out.
 */
export async function authorModules(
  files: ReadonlyMap<string, FileChange>,
  options: { python: string; rules: PytestRules; signal?: AbortSignal },
): Promise<AuthorModule[]> {
  const candidates: { path: string; before: string | null; after: string }[] = [];
  for (const [path, change] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    if (change.after.kind !== "file" || !isTestModule(path, options.rules)) continue;
    const after = stateText(change.after);
    if (after === undefined) continue;
    const before = change.before.kind === "file" ? stateText(change.before) ?? null : null;
    candidates.push({ path, before, after });
  }
  const answers = await changedTests(
    options.python,
    candidates.map(({ before, after }) => ({ before, after })),
    options.rules,
    options.signal,
  );
  const modules: AuthorModule[] = [];
  candidates.forEach((c, i) => {
    const answer = answers[i];
    if (c.before === null || "error" in answer) {
      modules.push({ path: c.path, whole: true, tests: [] });
    } else if (answer.changed.length > 0) {
      modules.push({ path: c.path, whole: false, tests: answer.changed });
    }
  });
  return modules;
}

/** What {@linkcode readAuthorTests} needs to know about one attempt. */
export interface AuthorInput {
  /** The agent's name. */
  agent: string;
  /** Its role. */
  role: "contestant" | "examiner";
  /** Its directory from {@linkcode authorDirs}. */
  dir: string;
  /** Its test-only patch (`<agent>.tests.patch`). */
  patch: string;
  /** The changed paths the attempt recorded. */
  files: readonly PatchFile[];
}

/** Paths of an attempt that belong to its test-only patch. */
export function testPartOf(files: readonly PatchFile[]): PatchFile[] {
  return files.filter((f) => f.kind === "test" || f.kind === "config");
}

/**
 * Read an author's tests: apply its test-only patch to B's versions of the files it touches (in
 * scratch space; `base` is only read) and find its test modules and tests. A patch that does not
 * apply leaves the author with no tests and a `problem`.
 */
export async function readAuthorTests(
  input: AuthorInput,
  options: {
    /** B's tree (read only). */
    base: string;
    python: string;
    rules: PytestRules;
    scratch: string;
    signal?: AbortSignal;
  },
): Promise<AuthorTests> {
  const part = testPartOf(input.files);
  const author: AuthorTests = {
    agent: input.agent,
    role: input.role,
    dir: input.dir,
    shared: true,
    files: new Map(),
    modules: [],
    key: inputsKey({ agent: input.agent, dir: input.dir, patch: input.patch, files: part }),
  };
  if (part.length === 0 || input.patch.trim() === "") return author;
  let changes: Map<string, FileChange>;
  try {
    changes = await patchedFiles(options.base, input.patch, part, {
      scratch: options.scratch,
      signal: options.signal,
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    return { ...author, problem: (error as Error).message };
  }
  for (const [path, change] of changes) author.files.set(path, change.after);
  author.modules = await authorModules(changes, options);
  author.shared = [...author.files].every(([path, state]) =>
    state.kind === "absent" || (state.kind === "file" && isTestModule(path, options.rules))
  );
  return author;
}

/** The directories a shared author's modules are installed into (each gets an `__init__.py`). */
export function siblingDirs(author: AuthorTests): string[] {
  return [...new Set(author.modules.map((m) => dirname(siblingPath(m.path, author.dir))))];
}
