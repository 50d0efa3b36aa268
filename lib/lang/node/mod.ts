/**
 * TypeScript and JavaScript: the test runner of npm, pnpm and yarn projects tested with vitest,
 * jest or `node --test`, behind the shared {@linkcode TestRunner} interface.
 *
 * - {@linkcode detectNode}: what a tree is (`package.json`, lockfile, runner), or undefined.
 * - {@linkcode openNodeRunner}: the runner of a tree, its config read statically.
 * - {@linkcode NodeRunner}: the same from what was read ({@linkcode NodeProject}).
 * - {@linkcode packageJsonTestChanges}: whether a `package.json` change touches how tests run.
 *
 * Test ids are `path/to/a.test.ts > describe > test name`. Outcomes come from a harness that
 * drives the project's own runner in the sandbox and signs every result (see `_harness.ts`).
 *
 * Requires `--allow-read`; `prepare` and `run` also `--allow-run`, `--allow-write` and
 * `--allow-env`.
 *
 * @module
 */

export {
  detectNode,
  managerOf,
  type NodeProject,
  type NodeRunnerKind,
  type PackageManager,
  readNodeProject,
  runnerOfScript,
} from "./detect.ts";
export { packageJsonTestChanges } from "./paths.ts";
export type {
  Detected,
  FileTests,
  RunnerEnv,
  RunnerGroupRun,
  RunnerRun,
  RunnerRunOptions,
  TestRunner,
} from "../types.ts";
export { findNode, installArgs, type NodeBinary, prepareNode } from "./install.ts";
export { nodeChangedTests } from "./changed_tests.ts";
export { runNodeTests, type Selection, selectionOf } from "./run.ts";

export { NodeRunner, openNodeRunner } from "./runner.ts";
export { node } from "./language.ts";
export { NODE_CAPABILITIES } from "./capabilities.ts";
