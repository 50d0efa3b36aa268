/**
 * What a project built by code knows about itself: its history's fixes (issue, B and G, the
 * fail-to-pass tests, the gold and a wrong patch) and the issues a stand-in GitHub serves for it.
 * The demo's project is one; the test suite's fixture projects are others.
 *
 * No permissions needed.
 *
 * @module
 */

/** How a fix landed on first-parent history. */
export type FixShape = "commit" | "squash" | "merge";

/** An issue or pull request as the fake GitHub server serves it. */
export interface GithubRecord {
  /** Its number. */
  number: number;
  /** Its title. */
  title: string;
  /** Its body (Markdown). */
  body: string;
  /** True for a pull request. */
  pullRequest?: boolean;
  /** For a pull request: the issues GitHub links as closed by it (GraphQL). */
  closes?: number[];
  /** Its labels' names. */
  labels?: string[];
}

/** One fix in a fixture project's history, and what mining and the oracle should make of it. */
export interface FixtureFix {
  /** A short name, e.g. `empty-quantity`. */
  key: string;
  /** The change's title (the pull request's title for a merge commit). */
  title: string;
  /** How it landed. */
  shape: FixShape;
  /** The issue (or pull request) it is about, as its commit message names it. */
  issue: number;
  /** The task id mining gives it offline, or the reason it is left out. */
  expected: { taskId: string } | { excluded: string };
  /** The task id when GitHub answers (a squash naming a PR becomes `pr-N`). */
  onlineTaskId?: string;
  /** G: the commit on first-parent history. */
  commit: string;
  /** B: its first parent. */
  parent: string;
  /** Where the package lives at B. */
  packageDir: string;
  /** What goes on PYTHONPATH at B. */
  pythonPath: string;
  /** Python files of the package the fix changed. */
  sourceFiles: string[];
  /** Test modules the fix added or changed (paths at G). */
  testFiles: string[];
  /** Test functions the fix added, as mining reports them (`path::name`). */
  newTests: string[];
  /** pytest node ids that fail on B (with G's tests) and pass on G, flaky ones left out. */
  failToPass: string[];
  /** Tests that fail at random (set `BUGSHOP_FLAKY_STATE` to a file to make them alternate). */
  flaky: string[];
  /** True when the fix's tests pass on B too: no fail-to-pass, not scorable. */
  noFlip: boolean;
  /** True when the fix changes more source files than the default `max-source-files`. */
  tooBroad: boolean;
  /** `git diff B G` of the source files: what a correct agent's patch looks like. */
  goldPatch: string;
  /** The source files at G (path → content). */
  goldFiles: Record<string, string>;
  /** The source files at B (path → content). */
  sourceAtB: Record<string, string>;
  /** The fix's test modules at G (path → content): the hidden tests. */
  hiddenTests: Record<string, string>;
  /** A plausible wrong fix: source files (path → content at B with the wrong change). */
  wrongFiles: Record<string, string>;
  /** The wrong fix as a unified diff against B. */
  wrongPatch: string;
  /** A regression test an agent might write (a new module that fails on B, passes on G). */
  reproTest?: { path: string; content: string };
  /**
   * A test written from the issue alone that pins the expected behaviour down: it fails on B and
   * on the wrong fix, and passes on G.
   */
  specTest?: { path: string; content: string };
}

/** A built fixture project. */
export interface FixtureProject {
  /** `textkit`, `bugshop` or `measures`. */
  name: string;
  /** The repository (a work tree on `main`). */
  dir: string;
  /** The package directory at HEAD (`[project] source`). */
  source: string;
  /** The tests directory. */
  tests: string;
  /** HEAD of `main`. */
  head: string;
  /** What a fake GitHub serves for this project. */
  github: { repository: string; items: GithubRecord[] };
  /** Every fix, oldest first. */
  fixes: FixtureFix[];
}

/** Options of the builders. */
export interface BuildOptions {
  /** Add an `origin` remote on github.com (nothing is fetched from it). */
  origin?: boolean;
}
