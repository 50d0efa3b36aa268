/**
 * The test environment of a stage on a Go or JavaScript project: the language's runner and, per
 * tree, the environment its dependencies need. Dependencies can change along history (a lockfile,
 * `go.sum`), so each tree is prepared from its own dependency files; the runner caches an
 * environment by their hash, so trees that share them share it.
 *
 * Requires `--allow-run` (the toolchains), `--allow-read`, `--allow-write` (`BUGBOUT_HOME`) and
 * `--allow-env`.
 *
 * @module
 */

import { join } from "node:path";
import { inputsKey } from "../hash.ts";
import type { Project } from "../project.ts";
import type { Language } from "../records.ts";
import { openRunner, type RunnerEnv, type TestRunner } from "../lang/mod.ts";

/** Bumped when how runners run tests changes in a way that makes saved results stale. */
export const RUNNERS_VERSION = 1;

/** A tree's runner and its prepared environment. */
export interface RunnerTree {
  /** The runner (JavaScript's has read the tree's runner configuration). */
  runner: TestRunner;
  /** The environment its dependencies need. */
  env: RunnerEnv;
}

/** The runners of one Go or JavaScript project's stage; see the module's documentation. */
export class TreeRunners {
  /** The project's language. */
  readonly language: Exclude<Language, "python">;
  /** Part of every inputs key: the language and how its runner runs tests. */
  readonly key: string;
  readonly #cache: string;

  /** The runners of `project`, whose language must not be Python. */
  constructor(project: Project) {
    const language = project.config.project.language;
    if (language === "python") throw new TypeError("Python's tests run through lib/lang/python/");
    this.language = language;
    this.key = inputsKey(["runners", RUNNERS_VERSION, language]);
    this.#cache = join(project.home, "runners", language);
  }

  /** The runner and environment of `tree` (prepared with the network open; cached). */
  async open(tree: string, signal?: AbortSignal): Promise<RunnerTree> {
    const runner = await openRunner(this.language, tree);
    const env = await runner.prepare(tree, this.#cache, signal);
    return { runner, env };
  }
}
