/**
 * The TypeScript/JavaScript test runners (vitest, jest, `node --test`) as a {@linkcode TestRunner}.
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
