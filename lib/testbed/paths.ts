/**
 * Which kind of change a path is: the author's tests, pytest configuration and import hooks, source
 * under the package, or anything else. Scoring applies `source` only; cross-examination installs an
 * author's `test` and `config` files under a directory of their own.
 *
 * @module
 */

import { isPytestConfig } from "../lang/python/mod.ts";
import type { PatchFile } from "../records.ts";
import type { TestRunner } from "../lang/mod.ts";

/** Where the package and the tests live, for classifying paths. */
export interface PathRules {
  /** The package directory at B (`src/pkg`, `pkg`, or a module `pkg.py`; `.` for Go and JS). */
  packageDir: string;
  /** The tests directory from `[project] tests`. */
  testsDir: string;
  /**
   * A Go or JavaScript project's runner: it alone says what is test code and what is
   * configuration; everything else under `packageDir` is source.
   */
  runner?: Pick<TestRunner, "isTestFile" | "isConfig">;
}

/** True for a file name pytest collects as a test module by default. */
export function isTestFileName(name: string): boolean {
  return /^test_.*\.py$/.test(name) || /_test\.py$/.test(name);
}

function under(path: string, dir: string): boolean {
  if (!dir || dir === ".") return true;
  return path === dir || path.startsWith(`${dir}/`);
}

/**
 * Classify one changed path. `config` covers everything that can change how pytest runs or what
 * Python imports (conftest.py, pytest/tox/setup.cfg/pyproject configuration, sitecustomize, `.pth`
 * files, pytest plugins), wherever it is: such edits are never applied when scoring.
 */
export function classifyPath(path: string, rules: PathRules): PatchFile["kind"] {
  if (rules.runner) {
    if (rules.runner.isConfig(path)) return "config";
    if (rules.runner.isTestFile(path)) return "test";
    return under(path, rules.packageDir) ? "source" : "other";
  }
  if (isPytestConfig(path)) return "config";
  const name = path.split("/").pop() ?? path;
  if (under(path, rules.testsDir) || isTestFileName(name) || /(^|\/)tests?\//.test(path)) {
    return "test";
  }
  const pkg = rules.packageDir.replace(/\.py$/, "");
  if (path === `${pkg}.py` || under(path, pkg)) return "source";
  return "other";
}
