/**
 * Python's tools for a project's stages: one test environment for the whole project (a uv
 * environment built from its packaging files and test dependencies, `env.ts`), and per tree a
 * pytest runner with that tree's discovery rules and the task's import path first on
 * `PYTHONPATH`.
 *
 * Requires `--allow-run` (uv, python), `--allow-read`, `--allow-write` (`BUGBOUT_HOME`) and
 * `--allow-env`.
 *
 * @module
 */

import { dirname, join } from "node:path";
import { cachedTree } from "../../checkout.ts";
import { BugboutError, describeError } from "../../errors.ts";
import { git } from "../../git.ts";
import { ensureCommitEnv } from "./commit_env.ts";
import { inputsKey } from "../../hash.ts";
import type { LanguageSpec, ProjectTools, ToolsOptions, ToolsProject } from "../types.ts";
import { BUILD_LAYOUT, buildTree, materialize, type ProjectBuild } from "./build.ts";
import { ensureTestEnv, envRequest, type TestEnv } from "./env.ts";
import { HARNESS_KEY } from "./pytest.ts";
import { pytestRulesIn, PythonRunner, type PythonRunnerEnv, pythonRunnerEnv } from "./runner.ts";

/**
 * Python's tools for `project`; `env`, when given, is its test environment already built (else it
 * is built on first use, once, from the packaging files at `options.revision`).
 */
export function pythonTools(
  language: LanguageSpec,
  project: ToolsProject,
  options: ToolsOptions & { env?: TestEnv } = {},
): ProjectTools {
  const c = project.config;
  const commitDate = (commit: string) =>
    git(["show", "-s", "--format=%cI", commit], { cwd: project.repository });
  // A configured interpreter is used as it is, and install-project = false installs nothing of
  // the project: no build either.
  const builds = (env: TestEnv) => env.kind !== "interpreter" && c.project.installProject;
  const treeBuild = (
    tree: string,
    env: TestEnv,
    signal?: AbortSignal,
  ): Promise<ProjectBuild | null> =>
    !builds(env) ? Promise.resolve(null) : buildTree({
      tree,
      source: c.project.source,
      python: env.python,
      envKey: env.key,
      // Beside the environment they are built for: what a sandbox shows of one, it shows of both.
      buildsDir: join(dirname(env.prefix), "builds"),
      signal,
    });
  let built: Promise<TestEnv> | undefined = options.env ? Promise.resolve(options.env) : undefined;
  const environment = (signal?: AbortSignal, onBuilding?: () => void) => {
    built ??= ensureTestEnv({
      ...envRequest(project, signal),
      revision: options.revision,
      onBuilding,
    });
    // A failed build is tried again by the next caller.
    built.catch(() => (built = undefined));
    return built;
  };
  // Each commit gets what it declares as of its date, unless the environment is given or an
  // interpreter is to be used as it is.
  const perCommit = !options.env && !c.project.interpreter;
  const commitEnvs = new Map<string, Promise<TestEnv>>();
  const environmentOf = (tree: string, date?: string, signal?: AbortSignal): Promise<TestEnv> => {
    if (!perCommit) return environment(signal);
    const at = `${tree}\0${date ?? ""}`;
    let pending = commitEnvs.get(at);
    if (!pending) {
      pending = ensureCommitEnv({ request: envRequest(project, signal), tree, date }).catch(
        async (error) => {
          if (!(error instanceof BugboutError)) throw error;
          const head = await environment(signal);
          const why = describeError(error).split("\n")[0];
          return { ...head, notes: [...head.notes ?? [], `Resolved at HEAD: ${why}`] };
        },
      );
      commitEnvs.set(at, pending);
      pending.catch(() => commitEnvs.delete(at));
    }
    return pending;
  };
  return {
    language,
    key: inputsKey({ harness: HARNESS_KEY, build: BUILD_LAYOUT, pytestArgs: c.project.pytestArgs }),
    preparing: "Building the test environment (uv installs the project and its test " +
      "dependencies once; later runs reuse it)...",
    prepare: async (signal, onBuilding) => void await environment(signal, onBuilding),
    // The key open() gives the tree at `commit`: its environment's and, when the tree is built,
    // its build's (a stage's saved result made on a tree built otherwise does not stand).
    envKey: async (commit, signal, at) => {
      if (!perCommit) {
        const shared = await environment(signal);
        if (!builds(shared)) return shared.key;
      }
      const tree = await cachedTree(project.repository, commit, { home: project.home, signal });
      const testEnv = perCommit
        ? await environmentOf(tree, at?.date ?? await commitDate(commit), signal)
        : await environment(signal);
      return pythonRunnerEnv(testEnv, await treeBuild(tree, testEnv, signal)).key;
    },
    open: async (tree, options) => {
      const [testEnv, rules] = await Promise.all([
        environmentOf(tree, options?.task?.date, options?.signal),
        pytestRulesIn(tree),
      ]);
      const build = await treeBuild(tree, testEnv, options?.signal);
      const runner = new PythonRunner({
        rules,
        testsDir: c.project.tests,
        environment: envRequest(project),
        pythonPath: [options?.task?.pythonPath ?? "."],
        pytestArgs: c.project.pytestArgs,
        build,
      });
      return { runner, env: pythonRunnerEnv(testEnv, build) };
    },
    async agentEnv(dirs, task, signal) {
      const testEnv = await environmentOf(dirs.work, task.date, signal);
      const build = await treeBuild(dirs.work, testEnv, signal);
      const { runner, env } = await this.open(dirs.work, { task, signal });
      const python = (env as PythonRunnerEnv).python;
      // What the build writes into the tree is the build's, not the agent's: gone before capture.
      const transient = build ? await materialize(build, dirs.work) : [];
      return {
        runner,
        // The tree's scripts, then the test environment's bin, so `python3` means the same thing
        // there.
        path: [...(build?.overlay ? [join(build.overlay, "bin")] : []), dirname(python)],
        readable: [...env.readable],
        writable: [],
        links: [],
        env: {
          PYTHONPATH: [join(dirs.work, task.pythonPath), ...(build?.overlay ? [build.overlay] : [])]
            .join(":"),
          PYTHONDONTWRITEBYTECODE: "1",
        },
        testCommand: `python -m pytest -q ${c.project.tests}`,
        transient,
      };
    },
    sharedView: async (signal) => {
      const env = await environment(signal);
      return { path: [dirname(env.python)], readable: [...env.readable] };
    },
  };
}
