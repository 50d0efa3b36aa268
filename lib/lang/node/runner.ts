/**
 * The TypeScript/JavaScript test runners (vitest, jest, `node --test`) as a {@linkcode TestRunner}.
 *
 * @module
 */

import { kindByRunner, readTestsStatically, reviewByRunner } from "../shared.ts";
import { NODE_CAPABILITIES } from "./capabilities.ts";
import type { CapabilityRules, PackageBaseline } from "../capabilities.ts";
import type {
  AuthorFileChange,
  AuthorFileReading,
  FileTests,
  PatchedText,
  PatchFinding,
  PatchKind,
  PatchReview,
  ReviewedPath,
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
  /** A test's id names it exactly. */
  readonly reportsStaticIds = true;
  /** A failing test never ends the runner. */
  readonly panicEndsRun = false;
  /** A setup file and module globals reach every test file: authors never share a tree. */
  readonly sharesTrees = false;
  /** An author's runner configuration is never applied. */
  readonly appliesAuthorConfig = false;
  /** Tests run by id. */
  readonly runsByFile = false;

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

  /** Configuration, test code, and everything else under the package directory as source. */
  classify(path: string, packageDir: string): PatchKind {
    return kindByRunner(this, path, packageDir);
  }

  /** A `*.test.*` or `*.spec.*` file, or one under `__tests__/`. */
  runsFile(path: string): boolean {
    return /\.(test|spec)\.[cm]?[jt]sx?$/.test(path) || /(^|\/)__tests__\//.test(path);
  }

  /** The test itself, or a test nested in it (`d > t`). */
  within(id: string, test: string): boolean {
    return id === test || id.startsWith(`${test} > `);
  }

  /** Read statically ({@linkcode nodeChangedTests}). */
  readTests(files: readonly AuthorFileChange[]): Promise<AuthorFileReading[]> {
    return Promise.resolve(readTestsStatically(this, files));
  }

  /** Every test file with tests in it (or whose tests static reading cannot tell). */
  async suite(
    files: readonly string[],
    read: (path: string) => Promise<string | undefined>,
  ): Promise<string[]> {
    const entries: string[] = [];
    for (const path of files) {
      if (!this.isTestFile(path) || this.isConfig(path) || !/\.[cm]?[jt]sx?$/.test(path)) continue;
      const text = await read(path);
      if (text === undefined) continue;
      const found = this.changedTests(path, null, text);
      if ("error" in found || found.tests.length > 0 || found.unsure) entries.push(path);
    }
    return entries;
  }

  /** A test of the copy at `beside`. */
  besideOwns(id: string, beside: string, _author: string): boolean {
    return id !== beside && nodeFileOf(id) === beside;
  }

  /** The review of a runner language, with the JavaScript runners' markers and imports. */
  review(paths: readonly ReviewedPath[], base?: PackageBaseline): PatchReview {
    return reviewByRunner(this, paths, {
      markers:
        /\b(?:it|test|describe|suite)\.(?:skip|todo|only|fails)\b|\bx(?:it|test|describe)\s*\(|\bf(?:it|describe)\s*\(|\{\s*(?:skip|todo|only)\s*:/g,
      source: [{
        pattern:
          /\bfrom\s*["'](?:vitest|@vitest\/[\w-]+|@jest\/globals|jest|node:test|test)["']|\b(?:require|import)\s*\(\s*["'](?:vitest|@vitest\/[\w-]+|@jest\/globals|jest|node:test)["']\s*\)/g,
        flag: (path) => `reaches the test framework from the source: ${path}`,
      }],
    }, base);
  }
  /** See {@linkcode NODE_CAPABILITIES}. */
  readonly capabilities: CapabilityRules = NODE_CAPABILITIES;

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
