/**
 * Which tests each candidate fix added or changed: one `git log -p -U0` per batch of candidates
 * says which lines of their test modules changed, and each module is read after the change
 * straight from git's object store (each blob once, however many candidates share it) and mapped
 * onto its tests (see `outline.ts`). A new module's tests are all new.
 *
 * Requires `--allow-run=git`.
 *
 * @module
 */

import { BlobReader } from "../../blobs.ts";
import { gitLineBatches } from "../../git.ts";
import {
  type Change,
  hunkLogArgs,
  LOG_FORMAT,
  LogParser,
  type PathChange,
  unquotePath,
} from "../../history.ts";
import type { AddedTests, ObjectReader } from "../types.ts";
import {
  changedByHunks,
  compareOutlines,
  definedBy,
  type ModuleHunks,
  outlineTests,
  type TestOutline,
} from "./outline.ts";
import { pythonMarks } from "./marks.ts";
import { isTestModule, type PytestRules } from "./pytest_rules.ts";

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
  /**
   * Those of its changed modules that pytest collects only if a collected module imports them
   * (`python_files = "__main__.py"`, whose `tests/__main__.py` imports the test classes).
   */
  imported?: readonly string[];
}

/** Reads and compares test modules, each blob and each outline at most once. */
export class TestReader {
  #outlines = new Map<string, TestOutline | null>();
  #reading = new Map<string, Promise<Map<string, ModuleHunks>>>();
  /** The blobs behind it. */
  readonly blobs: ObjectReader;

  /** A reader over `blobs` (shared with whatever else reads files of the same repository). */
  constructor(blobs: ObjectReader) {
    this.blobs = blobs;
  }

  /** The object names of a test module before and after a change (before: null when new). */
  #sides(set: TestChangeSet, f: PathChange): { before: string | null; after: string } {
    const after = f.newBlob ?? `${set.commit}:${f.path}`;
    if (f.status === "A" || f.status === "C") return { before: null, after };
    const oldPath = f.oldPath ?? f.path;
    const was = isTestModule(oldPath, set.rules) || set.imported?.includes(f.path);
    if (!was) return { before: null, after };
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

  /**
   * Start reading what {@linkcode examine} will need for `sets` (the diff and the modules), so
   * that the git processes run while the caller does something else.
   */
  prefetch(sets: readonly TestChangeSet[]): void {
    this.#reads(sets).catch(() => {}); // examine() awaits the same reads and sees any failure
  }

  #reads(sets: readonly TestChangeSet[]): Promise<Map<string, ModuleHunks>> {
    const key = sets.map((s) => s.commit).join(",");
    let reads = this.#reading.get(key);
    if (!reads) {
      const names: string[] = [];
      const diffed = new Set<string>();
      const paths = new Set<string>();
      for (const set of sets) {
        for (const path of set.imported ?? []) {
          names.push(...collectorsOf(path, set.rules).map((c) => `${set.commit}:${c}`));
        }
        for (const f of set.testChanges) {
          const sides = this.#sides(set, f);
          names.push(sides.after);
          if (sides.before && sides.before !== sides.after) {
            diffed.add(set.commit);
            paths.add(f.path);
          }
        }
      }
      reads = Promise.all([
        diffed.size ? this.#hunks([...diffed], [...paths]) : new Map<string, ModuleHunks>(),
        this.blobs.read(names),
      ]).then(([hunks]) => hunks);
      this.#reading.set(key, reads);
    }
    return reads;
  }

  /**
   * For each change, the tests it added or changed: one `git log -p -U0` for the changed modules
   * of all of them, one `git cat-file` for the modules after the change.
   */
  async examine(sets: readonly TestChangeSet[]): Promise<AddedTests[]> {
    const hunks = await this.#reads(sets);
    return sets.map((set) => {
      const found: AddedTests = { testFiles: [], newTests: [], addedTests: [], unsure: [] };
      for (const f of [...set.testChanges].sort((a, b) => a.path.localeCompare(b.path))) {
        const sides = this.#sides(set, f);
        const after = this.#outline(sides.after, set.rules);
        if (!after) continue;
        if (set.imported?.includes(f.path) && !this.#collected(set, f.path, after)) continue;
        found.testFiles.push(f.path);
        if (sides.before === sides.after) continue; // renamed as it was: nothing changed
        const module = sides.before ? hunks.get(`${set.commit}\u0000${f.path}`) : undefined;
        const changes = sides.before && module
          ? changedByHunks(after, module)
          : sides.before
          ? { changed: [], added: [] }
          : compareOutlines(null, after);
        const ids = changes.changed.map((id) => `${f.path}::${id}`);
        found.newTests.push(...ids);
        found.addedTests.push(...changes.added.map((id) => `${f.path}::${id}`));
        if (ids.length) {
          const marks = pythonMarks(this.blobs.cached(sides.after) ?? "", ids, after);
          (found.skipped ??= []).push(...marks.skipped);
          (found.typeOnly ??= []).push(...marks.typeOnly);
        }
        if ("unsure" in changes && changes.unsure) {
          found.unsure.push({ file: f.path, why: changes.unsure });
        }
      }
      return found;
    });
  }

  /**
   * Whether pytest collects the tests of a module it finds only through an import: it has tests,
   * and a collected module beside it or above it imports it.
   */
  #collected(set: TestChangeSet, path: string, outline: TestOutline): boolean {
    if (outline.tests.length === 0 && outline.dynamic.size === 0) return false;
    return collectorsOf(path, set.rules).some((collector) => {
      const text = this.blobs.cached(`${set.commit}:${collector}`);
      return text !== undefined && importsModule(text, collector, path);
    });
  }

  /** The `-U0` hunks of `paths` in each of `commits`, against the first parent. */
  async #hunks(commits: string[], paths: string[]): Promise<Map<string, ModuleHunks>> {
    const args = hunkLogArgs(commits, paths);
    const parser = new HunkParser();
    const signal = this.blobs.signal;
    for await (const lines of gitLineBatches(args, { cwd: this.blobs.repo, signal })) {
      parser.push(lines);
    }
    return parser.found;
  }
}

/**
 * The modules that may import `path` and that pytest collects by a literal `python_files` name
 * (`tests/__main__.py` for `tests/test_trees.py` under `python_files = "__main__.py"`): in its
 * directory and every directory above it.
 */
export function collectorsOf(path: string, rules: PytestRules): string[] {
  const literal = rules.files.filter((p) => !/[*?[]/.test(p));
  const dirs: string[] = [];
  for (let at = path.lastIndexOf("/"); at > 0; at = path.lastIndexOf("/", at - 1)) {
    dirs.push(path.slice(0, at));
  }
  dirs.push("");
  return dirs.flatMap((dir) => literal.map((name) => (dir ? `${dir}/${name}` : name)))
    .filter((c) => c !== path);
}

/**
 * Whether the module at `from` imports the module at `path`: `from .test_trees import TestTrees`,
 * `from tests.test_trees import *`, `import tests.test_trees`, `from . import test_trees`.
 */
export function importsModule(text: string, from: string, path: string): boolean {
  const dir = from.includes("/") ? from.slice(0, from.lastIndexOf("/") + 1) : "";
  if (!path.startsWith(dir)) return false;
  const dotted = path.slice(dir.length).replace(/(?:\/__init__)?\.py$/, "").split("/");
  const name = dotted.at(-1)!.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const tail = dotted.map((d) => d.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("\\.");
  const statement = new RegExp(
    String.raw`^\s*(?:from\s+(?:[\w.]*\.|\.+)?${tail}\s+import\b|import\s+(?:[\w.]+\.)?${tail}\b|` +
      String.raw`from\s+\.+\s+import\s+(?:\(\s*)?(?:[\w\s,]*,\s*)?${name}\b)`,
    "m",
  );
  return statement.test(text);
}

/** Reads `git log -p -U0` output into each commit's and file's hunks (paths after the change). */
export class HunkParser {
  /** `commit\0path` → the hunks of that file in that commit. */
  readonly found = new Map<string, ModuleHunks>();
  #commit = "";
  #file: ModuleHunks | undefined;
  #oldLeft = 0;
  #newLeft = 0;
  /** In a hunk that only removes lines: where, and whether they end in decorators so far. */
  #removal: { at: number; decorator: boolean } | undefined;

  /** Read some lines. */
  push(lines: Iterable<string>): void {
    for (const line of lines) {
      if (this.#oldLeft > 0 || this.#newLeft > 0) {
        const mark = line[0];
        if (mark === "-" && this.#oldLeft > 0) {
          this.#oldLeft--;
          const name = definedBy(line.slice(1));
          if (name && this.#file) this.#file.removedNames.push(name);
          const removal = this.#removal;
          if (removal) {
            const text = line.slice(1).trim();
            if (text.startsWith("@")) removal.decorator = true;
            else if (/^(?:async\s+def|def|class)\s/.test(text)) removal.decorator = false;
            if (this.#oldLeft === 0 && removal.decorator && this.#file) {
              (this.#file.decoratorsRemovedAt ??= []).push(removal.at);
            }
          }
          continue;
        }
        if (mark === "+" && this.#newLeft > 0) {
          this.#newLeft--;
          const name = definedBy(line.slice(1));
          if (name && this.#file) this.#file.writtenNames.push(name);
          continue;
        }
        if (mark === "\\") continue;
        this.#oldLeft = this.#newLeft = 0; // the hunk is over
      }
      if (line.startsWith("\x1e")) {
        this.#commit = line.slice(1).trim();
        this.#file = undefined;
      } else if (line.startsWith("+++ ")) {
        const path = unquotePath(line.slice(4).trim());
        if (path === "/dev/null") this.#file = undefined;
        else {
          this.#file = { written: [], removedAt: [], removedNames: [], writtenNames: [] };
          this.found.set(`${this.#commit}\u0000${path.replace(/^b\//, "")}`, this.#file);
        }
      } else if (line.startsWith("@@ ")) {
        const hunk = line.match(/^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/);
        if (!hunk || !this.#file) continue;
        const oldCount = hunk[1] === undefined ? 1 : Number(hunk[1]);
        const start = Number(hunk[2]);
        const newCount = hunk[3] === undefined ? 1 : Number(hunk[3]);
        if (newCount > 0) this.#file.written.push({ start: start - 1, end: start + newCount - 2 });
        else this.#file.removedAt.push(start);
        this.#removal = newCount === 0 ? { at: start, decorator: false } : undefined;
        this.#oldLeft = oldCount;
        this.#newLeft = newCount;
      }
    }
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
