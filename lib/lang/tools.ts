/**
 * The tools of a language whose test environment is each tree's own: every tree is prepared from
 * its own dependency files (a lockfile, `go.sum`), which can change along history, and the
 * runner caches an environment by their hash, so trees that share them share it.
 *
 * Requires `--allow-run` (git, the toolchains), `--allow-read`, `--allow-write` (`BUGBOUT_HOME`)
 * and `--allow-env`.
 *
 * @module
 */

import { join } from "node:path";
import { cachedTree } from "../checkout.ts";
import { inputsKey } from "../hash.ts";
import type {
  AgentTestEnv,
  LanguageSpec,
  ProjectTools,
  RunnerTree,
  ToolsOptions,
  ToolsProject,
} from "./types.ts";

/** Bumped when how runners run tests changes in a way that makes saved results stale. */
export const RUNNERS_VERSION = 1;

/** How an agent's working copy gets its tree's environment (see `ProjectTools.agentEnv`). */
export type AgentEnvMaker = (
  opened: RunnerTree,
  dirs: { work: string; state: string },
  signal?: AbortSignal,
) => Promise<AgentTestEnv>;

/**
 * The tools of `language` for `project`, each tree prepared from its own dependency files;
 * `agentEnv` makes an agent's working copy ready to run its tests.
 */
export function perTreeTools(
  language: LanguageSpec,
  project: ToolsProject,
  agentEnv: AgentEnvMaker,
  options: ToolsOptions = {},
): ProjectTools {
  const cache = options.cache ?? join(project.home, "runners", language.name);
  const open = async (tree: string, signal?: AbortSignal): Promise<RunnerTree> => {
    const runner = await language.openRunner(tree);
    return { runner, env: await runner.prepare(tree, cache, signal) };
  };
  return {
    language,
    key: inputsKey(["runners", RUNNERS_VERSION, language.name]),
    prepare: () => Promise.resolve(),
    envKey: async (commit, signal) => {
      const tree = await cachedTree(project.repository, commit, { home: project.home, signal });
      return (await open(tree, signal)).env.key;
    },
    open: (tree, options) => open(tree, options?.signal),
    agentEnv: async (dirs, _task, signal) => agentEnv(await open(dirs.work, signal), dirs, signal),
    // Each tree's environment is its own: nothing is in sight whatever the tree.
    sharedView: () => Promise.resolve({ path: [], readable: [] }),
  };
}
