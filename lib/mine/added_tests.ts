/**
 * Which tests each candidate fix added or changed: its test modules are read before and after
 * the change straight from git's object store (each blob once, however many candidates share it)
 * and compared test by test (see `python_tests.ts`), so no diff text is produced at all.
 *
 * Requires `--allow-run=git`.
 *
 * @module
 */

import { gitLineBatches } from "../git.ts";
import { isTestModule, type PytestRules } from "../python/mod.ts";
import { BlobReader } from "./blobs.ts";
import { type Change, LOG_FORMAT, LogParser, type PathChange } from "./history.ts";
import { compareOutlines, outlineTests, type TestOutline } from "./python_tests.ts";

/** The tests one change added or changed, and the test modules it changed. */
export interface AddedTests {
  /** Test modules added or changed (paths at G). */
  testFiles: string[];
  /** Tests added or changed, as `path::name` or `path::Class::name`, module by module. */
  newTests: string[];
  /** Those of them that are new. */
  addedTests: string[];
  /** Modules whose tests static reading cannot all tell (collection decides), and why. */
  unsure: { file: string; why: string }[];
}

/** What {@linkcode TestReader.examine} needs of a change. */
export interface TestChangeSet {
  /** G. */
  commit: string;
  /** B. */
  parent: string;
  /** The test modules' entries in the change (paths at G), with their blobs when known. */
  testChanges: readonly PathChange[];
  /** The discovery rules in force at G. */
  rules: PytestRules;
}

/** Reads and compares test modules, each blob and each outline at most once. */
export class TestReader {
  #outlines = new Map<string, TestOutline | null>();
  /** The blobs behind it. */
  readonly blobs: BlobReader;

  /** A reader over `blobs` (shared with whatever else reads files of the same repository). */
  constructor(blobs: BlobReader) {
    this.blobs = blobs;
  }

  /** The object names of a test module before and after a change (before: null when new). */
  #sides(set: TestChangeSet, f: PathChange): { before: string | null; after: string } {
    const after = f.newBlob ?? `${set.commit}:${f.path}`;
    if (f.status === "A" || f.status === "C") return { before: null, after };
    const oldPath = f.oldPath ?? f.path;
    if (!isTestModule(oldPath, set.rules)) return { before: null, after };
    return { before: f.oldBlob ?? `${set.parent}:${oldPath}`, after };
  }

  #outline(name: string, rules: PytestRules): TestOutline | null {
    const key = `${name}\u0000${rules.functions.join(" ")}\u0000${rules.classes.join(" ")}`;
    let outline = this.#outlines.get(key);
    if (outline === undefined) {
      const text = this.blobs.cached(name);
      outline = text === undefined ? null : outlineTests(text, rules);
      this.#outlines.set(key, outline);
    }
    return outline;
  }

  /** For each change, the tests it added or changed. One git process for all of them. */
  async examine(sets: readonly TestChangeSet[]): Promise<AddedTests[]> {
    const names: string[] = [];
    for (const set of sets) {
      for (const f of set.testChanges) {
        const sides = this.#sides(set, f);
        names.push(sides.after);
        if (sides.before) names.push(sides.before);
      }
    }
    await this.blobs.read(names);
    return sets.map((set) => {
      const found: AddedTests = { testFiles: [], newTests: [], addedTests: [], unsure: [] };
      for (const f of [...set.testChanges].sort((a, b) => a.path.localeCompare(b.path))) {
        const sides = this.#sides(set, f);
        const after = this.#outline(sides.after, set.rules);
        if (!after) continue;
        found.testFiles.push(f.path);
        const before = sides.before ? this.#outline(sides.before, set.rules) : null;
        const changes = compareOutlines(before, after);
        found.newTests.push(...changes.changed.map((id) => `${f.path}::${id}`));
        found.addedTests.push(...changes.added.map((id) => `${f.path}::${id}`));
        if (changes.unsure) found.unsure.push({ file: f.path, why: changes.unsure });
      }
      return found;
    });
  }
}

/**
 * For each commit, the tests it added or changed in test modules (against its first parent, so a
 * merge commit counts everything its pull request brought in): its files are listed by one
 * `git log --no-walk`, its test modules read by one `git cat-file`.
 */
export async function findAddedTests(
  repo: string,
  commits: readonly string[],
  rules: PytestRules,
  options: { signal?: AbortSignal } = {},
): Promise<Map<string, AddedTests>> {
  const found = new Map<string, AddedTests>();
  if (commits.length === 0) return found;
  const parser = new LogParser();
  const changes: Change[] = [];
  const args = [
    "log",
    "--no-walk=unsorted",
    "--diff-merges=first-parent",
    "--raw",
    "--no-renames",
    "--no-abbrev",
    LOG_FORMAT,
    ...commits,
    "--",
  ];
  for await (const lines of gitLineBatches(args, { cwd: repo, signal: options.signal })) {
    changes.push(...parser.push(lines));
  }
  changes.push(...parser.end());
  const reader = new TestReader(new BlobReader(repo, options.signal));
  const sets = changes.filter((c) => c.parents.length > 0).map((c) => ({
    commit: c.commit,
    parent: c.parents[0],
    rules,
    testChanges: c.files.filter((f) => f.status !== "D" && isTestModule(f.path, rules)),
  }));
  const results = await reader.examine(sets);
  sets.forEach((set, i) => found.set(set.commit, results[i]));
  for (const commit of commits) {
    if (!found.has(commit)) {
      found.set(commit, { testFiles: [], newTests: [], addedTests: [], unsure: [] });
    }
  }
  return found;
}
