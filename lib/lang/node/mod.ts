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

import type {
  FileTests,
  PatchedText,
  PatchFinding,
  RunnerEnv,
  RunnerRun,
  RunnerRunOptions,
  TestRunner,
} from "../types.ts";
import { nodeChangedTests } from "./changed_tests.ts";
import { type NodeProject, readNodeProject, RUNNER_NAMES } from "./detect.ts";
import { prepareNode } from "./install.ts";
import {
  isNodeConfig,
  isNodeTestFile,
  nodeBesidePath,
  nodeFileOf,
  packageJsonTestChanges,
} from "./paths.ts";
import { runNodeTests } from "./run.ts";
import { BugboutError } from "../../errors.ts";

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

/** The test runner of one JS/TS project. */
export class NodeRunner implements TestRunner {
  /** Always `node`. */
  readonly language = "node" as const;
  /** `vitest`, `jest` or `node --test`. */
  readonly name: string;
  /** What was read of the project. */
  readonly project: NodeProject;

  /** A runner for what {@linkcode readNodeProject} read. */
  constructor(project: NodeProject) {
    this.project = project;
    this.name = RUNNER_NAMES[project.runner];
  }

  /** See {@linkcode TestRunner.isTestFile}. */
  isTestFile(path: string): boolean {
    return isNodeTestFile(this.project, path);
  }

  /** See {@linkcode TestRunner.isConfig}. */
  isConfig(path: string): boolean {
    return isNodeConfig(this.project, path);
  }

  /** See {@linkcode TestRunner.fileOf}. */
  fileOf(id: string): string {
    return nodeFileOf(id);
  }

  /** See {@linkcode TestRunner.changedTests}. */
  changedTests(path: string, before: string | null, after: string): FileTests {
    return nodeChangedTests(path, before, after);
  }

  /** See {@linkcode TestRunner.besidePath}. */
  besidePath(path: string, author: string): string {
    return nodeBesidePath(this.project, path, author);
  }

  /** The copy as it is: a file of its own needs no renaming. */
  besideSource(_path: string, source: string, _author: string): string {
    return source;
  }

  /** `a.test.ts > d > t` → `a.bugbout-<author>.test.ts > d > t`. */
  besideId(id: string, author: string): string {
    const file = nodeFileOf(id);
    return this.besidePath(file, author) + id.slice(file.length);
  }

  /** A `package.json` change to how tests run (see {@linkcode packageJsonTestChanges}). */
  patchFlags(files: readonly PatchedText[]): PatchFinding[] {
    return files.filter((f) => f.path === "package.json" || f.path.endsWith("/package.json"))
      .flatMap((f) =>
        packageJsonTestChanges(f.before, f.after).map((what) => ({
          path: f.path,
          what: `changes how tests run: ${what}`,
        }))
      );
  }

  /** See {@linkcode TestRunner.prepare}. */
  prepare(tree: string, cache: string, signal?: AbortSignal): Promise<RunnerEnv> {
    return prepareNode(tree, cache, signal);
  }

  /** See {@linkcode TestRunner.run}. */
  run(options: RunnerRunOptions): Promise<RunnerRun> {
    return runNodeTests(this.project.runner, options);
  }
}

/**
 * The runner of `tree`, its package manager and runner config read statically. Throws a
 * {@linkcode BugboutError} when the tree is no JS/TS project bugbout serves.
 */
export async function openNodeRunner(tree: string): Promise<NodeRunner> {
  const project = await readNodeProject(tree);
  if (!project) {
    throw new BugboutError(`Cannot test ${tree} as a JavaScript project: no runner found.`, {
      hint:
        'bugbout serves vitest, jest and node --test: set scripts.test in package.json ("vitest run", "jest", "node --test").',
    });
  }
  return new NodeRunner(project);
}
