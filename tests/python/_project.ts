/**
 * The small Python project the runner and environment tests use: a package `calc` whose
 * `pyproject.toml` declares one runtime dependency from PyPI (`six`, small and pure), and a
 * *different* distribution of `calc` (version 9.9, `WHERE = "environment"`) that the test
 * environment installs, to prove that the tree under test always wins.
 *
 * @module
 */

import { join } from "node:path";
import { ensureTestEnv, type EnvRequest, type TestEnv } from "../../lib/lang/python/env.ts";
import { RepoBuilder } from "../../lib/demo/repo.ts";
import { ENVS_DIR, testCache, writeFiles } from "./_shared.ts";

/** The project's packaging file at HEAD. */
export const PYPROJECT = `[project]
name = "calc"
version = "1.0"
dependencies = ["six>=1.16"]

[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"
`;

/** Write the environment's own `calc` 9.9 into the test cache; returns its directory. */
export async function envCopyOfCalc(): Promise<string> {
  const dir = testCache("fixtures", "calc-9.9");
  await writeFiles(dir, {
    "pyproject.toml": `[project]\nname = "calc"\nversion = "9.9"\n\n[build-system]\n` +
      `requires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n` +
      `[tool.setuptools]\npackages = ["calc"]\n`,
    "calc/__init__.py": `WHERE = "environment"\n`,
  });
  return dir;
}

/** A repository whose HEAD declares the runtime dependencies. */
export async function buildEnvRepo(dir: string): Promise<string> {
  const repo = new RepoBuilder();
  repo.commit({
    message: "Initial",
    files: {
      "pyproject.toml": PYPROJECT,
      "calc/__init__.py": `WHERE = "tree"\n`,
      "tests/test_calc.py": "def test_ok():\n    pass\n",
    },
  });
  await repo.build(dir);
  return dir;
}

/** The request for the tests' environment: pytest, the other `calc`, and the project's `six`. */
export async function envRequestFor(
  repository: string,
  home: string,
  over: Partial<EnvRequest> = {},
): Promise<EnvRequest> {
  return {
    home,
    repository,
    source: "calc",
    testDependencies: ["pytest", `calc @ file://${await envCopyOfCalc()}`],
    installProject: true,
    envsDir: ENVS_DIR,
    ...over,
  };
}

/** Build (or reuse) the tests' environment from a fresh repository in `tmp`. */
export async function sharedEnv(tmp: string): Promise<TestEnv> {
  const repo = await buildEnvRepo(join(tmp, "env-repo"));
  return await ensureTestEnv(await envRequestFor(repo, join(tmp, "home")));
}
