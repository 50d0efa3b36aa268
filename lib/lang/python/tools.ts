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
import { inputsKey } from "../../hash.ts";
import type { LanguageSpec, ProjectTools, ToolsOptions, ToolsProject } from "../types.ts";
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
  let built: Promise<TestEnv> | undefined = options.env ? Promise.resolve(options.env) : undefined;
  const environment = (signal?: AbortSignal) => {
    built ??= ensureTestEnv({ ...envRequest(project, signal), revision: options.revision });
    // A failed build is tried again by the next caller.
    built.catch(() => (built = undefined));
    return built;
  };
  return {
    language,
    key: inputsKey({ harness: HARNESS_KEY, pytestArgs: c.project.pytestArgs }),
    preparing: "Building the test environment (uv installs the project and its test " +
      "dependencies once; later runs reuse it)...",
    prepare: async (signal) => void await environment(signal),
    envKey: async (_commit, signal) => (await environment(signal)).key,
    open: async (tree, options) => {
      const [testEnv, rules] = await Promise.all([
        environment(options?.signal),
        pytestRulesIn(tree),
      ]);
      const runner = new PythonRunner({
        rules,
        testsDir: c.project.tests,
        environment: envRequest(project),
        pythonPath: [options?.task?.pythonPath ?? "."],
        pytestArgs: c.project.pytestArgs,
      });
      return { runner, env: pythonRunnerEnv(testEnv) };
    },
    async agentEnv(dirs, task, signal) {
      const { runner, env } = await this.open(dirs.work, { task, signal });
      const python = (env as PythonRunnerEnv).python;
      return {
        runner,
        // The test environment's bin comes first inside, so `python3` means the same thing there.
        path: [dirname(python)],
        readable: [...env.readable],
        writable: [],
        links: [],
        env: { PYTHONPATH: join(dirs.work, task.pythonPath), PYTHONDONTWRITEBYTECODE: "1" },
        testCommand: `python -m pytest -q ${c.project.tests}`,
        transient: [],
      };
    },
    sharedView: async (signal) => {
      const env = await environment(signal);
      return { path: [dirname(env.python)], readable: [...env.readable] };
    },
  };
}
