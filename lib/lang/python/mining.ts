/**
 * Mining a Python project: where the package is at each commit (`package.ts`), pytest's discovery
 * rules in force at each commit (`rules_at.ts`), a change's files sorted by them into source files,
 * test modules and support files, and the tests a change added read from its `-U0` hunks and the
 * modules after it (`added_tests.ts`), as the {@linkcode ChangeMiner} of Python.
 *
 * Requires `--allow-run=git`.
 *
 * @module
 */

import { type Change, type PathChange, pickFiles } from "../../history.ts";
import { pythonPathFor } from "./layout.ts";
import type {
  AddedTests,
  ChangeMiner,
  MiningContext,
  ObjectReader,
  SortedChange,
  TestsToRead,
} from "../types.ts";
import { TestReader } from "./added_tests.ts";
import { inPackage, PackageTracker } from "./package.ts";
import { inTestpaths, isTestModule, type PytestRules } from "./pytest_rules.ts";
import { isConfigFile, mayBeConfigLine, RulesHistory } from "./rules_at.ts";
import { pythonTypingOnly } from "./typing_only.ts";

/** What reading a change's tests needs: the rules at G, and the modules only an import collects. */
interface PythonReading {
  rules: PytestRules;
  imported?: string[];
}

/** Where a change stands: its package after and before it, and its discovery rules' key. */
interface PythonAt {
  where: { atG: string; atB: string };
  rules: string;
}

function underDir(path: string, dir: string): boolean {
  return dir === "." || dir === "" || path.startsWith(`${dir}/`);
}

/** A change's files as pytest's rules sort them. */
export interface SortedFiles {
  /** Python files of the package it changed (paths at G; at B for deletions). */
  sourceFiles: string[];
  /** Test modules it added or changed (paths at G). */
  testModules: string[];
  /** Other files under the tests directory, and conftest.py files, it added or changed. */
  supportFiles: string[];
  /** For each test module that was renamed: its path at B. */
  renamedFrom: Record<string, string>;
  /** The test modules' entries in the change, with their blobs. */
  testChanges: PathChange[];
  /**
   * Modules among the test modules that pytest collects only if a collected module imports them
   * (under a `python_files` that names a module, such as `__main__.py`); absent when none.
   */
  imported?: string[];
}

/** True when some `python_files` pattern names one module (`__main__.py`), not a glob. */
function namesAModule(rules: PytestRules): boolean {
  return rules.files.some((p) => !/[*?[]/.test(p));
}

/** Sort the files a change touched into source files, test modules and support files. */
export function sortFiles(
  change: Pick<Change, "files">,
  where: { atG: string; atB: string },
  rules: PytestRules,
  tests: string,
): SortedFiles {
  const sourceFiles = new Set<string>();
  const testModules = new Set<string>();
  const supportFiles = new Set<string>();
  const testChanges: PathChange[] = [];
  const renamedFrom: Record<string, string> = {};
  const imported: string[] = [];
  const importable = namesAModule(rules);
  for (const f of change.files) {
    const deleted = f.status === "D";
    const python = f.path.endsWith(".py") || (f.oldPath?.endsWith(".py") ?? false);
    if (!python) {
      // Data, docs and the like: only support files matter among them.
      if (!deleted && underDir(f.path, tests)) supportFiles.add(f.path);
      continue;
    }
    const name = f.path.slice(f.path.lastIndexOf("/") + 1);
    const isTest = isTestModule(f.path, rules);
    if (!deleted && isTest && inTestpaths(f.path, rules)) {
      testModules.add(f.path);
      testChanges.push(f);
      if (f.oldPath && f.oldPath !== f.path) renamedFrom[f.path] = f.oldPath;
      continue;
    }
    const atG = !deleted && inPackage(f.path, where.atG);
    const atB = f.status !== "A" && inPackage(f.oldPath ?? f.path, where.atB);
    if ((atG || atB) && name !== "conftest.py" && !isTest) {
      sourceFiles.add(f.path);
      continue;
    }
    if (!deleted && (name === "conftest.py" || underDir(f.path, tests))) supportFiles.add(f.path);
    // A module of the tests' own that a collected module may import: its tests then count.
    const inTests = underDir(f.path, tests) || (rules.testpaths && inTestpaths(f.path, rules));
    if (!deleted && importable && inTests && name !== "conftest.py" && name !== "__init__.py") {
      testModules.add(f.path);
      testChanges.push(f);
      imported.push(f.path);
      if (f.oldPath && f.oldPath !== f.path) renamedFrom[f.path] = f.oldPath;
    }
  }
  return {
    sourceFiles: [...sourceFiles].sort(),
    testModules: [...testModules].sort(),
    supportFiles: [...supportFiles].sort(),
    renamedFrom,
    testChanges,
    ...(imported.length ? { imported: imported.sort() } : {}),
  };
}

/** Python's miner: the package and the discovery rules followed back from HEAD, change by change. */
class PythonMiner implements ChangeMiner<PythonAt> {
  #tracker: PackageTracker;
  #reader: TestReader;

  constructor(
    readonly rulesAt: RulesHistory,
    readonly objects: ObjectReader,
    readonly context: MiningContext,
  ) {
    this.#tracker = new PackageTracker(context.source ?? ".");
    this.#reader = new TestReader(objects);
  }

  step(change: Change): PythonAt {
    // Only a change that touches the package's __init__.py can move it; only one that touches a
    // configuration file at the root can change the discovery rules.
    const init = `${this.#tracker.current}/__init__.py`;
    const moved = pickFiles(change, (p) => p === init, (l) => l.endsWith("__init__.py"));
    const where = this.#tracker.step(moved.length ? change.files : []);
    const configs = pickFiles(change, isConfigFile, mayBeConfigLine);
    return { where, rules: this.rulesAt.step(configs, change.parents[0]) };
  }

  needs(at: PythonAt): string[] {
    if (this.rulesAt.known(at.rules, this.objects)) return [];
    return this.rulesAt.blobsOf(at.rules).filter((name) => !this.objects.has(name));
  }

  sort(change: Change, at: PythonAt): SortedChange {
    const rules = this.rulesAt.known(at.rules, this.objects);
    if (!rules) throw new Error(`the discovery rules at ${change.commit} were not read`);
    const { where } = at;
    const { testModules: _, imported, ...files } = sortFiles(
      change,
      where,
      rules,
      this.context.tests,
    );
    const reading: PythonReading = { rules, ...(imported ? { imported } : {}) };
    return {
      ...files,
      packageDir: where.atB,
      pythonPath: pythonPathFor(where.atB),
      noSource: `changes no Python file under ${where.atG}`,
      noTests: `changes no test module${rules.from ? ` (python_files from ${rules.from})` : ""}`,
      reading,
    };
  }

  #sets(changes: readonly TestsToRead[]) {
    return changes.map((c) => ({ ...c, ...(c.reading as PythonReading) }));
  }

  prefetch(changes: readonly TestsToRead[]): void {
    this.#reader.prefetch(this.#sets(changes));
  }

  addedTests(changes: readonly TestsToRead[]): Promise<AddedTests[]> {
    return this.#reader.examine(this.#sets(changes));
  }

  typingOnly(path: string, removed: readonly string[], added: readonly string[]): boolean {
    return pythonTypingOnly(path, removed, added);
  }
}

/** Python's {@linkcode ChangeMiner}: HEAD's configuration is read while the walk starts. */
export async function openPythonMiner(context: MiningContext): Promise<ChangeMiner> {
  const rulesAt = await RulesHistory.at(context.repo, context.head);
  // Read now, so that most changes (under HEAD's rules) are sorted as soon as they are walked; a
  // failed read is read again, and seen, when a change needs it.
  context.objects.read(rulesAt.blobsOf(rulesAt.key)).catch(() => {});
  return new PythonMiner(rulesAt, context.objects, context);
}
