/**
 * Which kind of change a path is, for a task: the author's tests, the runner's configuration,
 * source under the task's package, or anything else, as the tree's runner says
 * (`TestRunner.classify`). Scoring applies `source` only; cross-examination installs an author's
 * `test` and `config` files.
 *
 * Pure; no permissions.
 *
 * @module
 */

import type { TestRunner } from "../lang/mod.ts";
import type { PatchFile } from "../records.ts";

/** Where a task's package lies, and the runner that says what is test code and configuration. */
export interface PathRules {
  /** The package directory at B (`src/pkg`, `pkg`, or a module `pkg.py`; `.` for the whole tree). */
  packageDir: string;
  /** The tree's runner. */
  runner: Pick<TestRunner, "classify">;
}

/** Classify one changed path (see the module's documentation). */
export function classifyPath(path: string, rules: PathRules): PatchFile["kind"] {
  return rules.runner.classify(path, rules.packageDir);
}
