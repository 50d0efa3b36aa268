/**
 * Where a project declares its runtime dependencies: the packaging file the test environment
 * installs them from (`uv pip install -r <file>`), and a hash of the packaging files, so the
 * environment is rebuilt when they change; and a check that `test-dependencies` can be installed.
 *
 * Requires `--allow-read` on the tree.
 *
 * @module
 */

import { dirname, join } from "node:path";
import { inputsKey } from "../../hash.ts";
import { readTextIfExists } from "../../fs.ts";
import { run } from "../../proc.ts";
import { uvEnv } from "./discover.ts";

/**
 * The file that declares the project's runtime dependencies, relative to `tree`, or null: the
 * nearest directory at or above the package's parent holding a `pyproject.toml` with a
 * `[project]` table, a `setup.py`, a `setup.cfg` with metadata, a `pyproject.toml` with a build
 * backend (which uv asks for the metadata), or failing all of those a `requirements.txt`.
 */
export async function dependencyFile(tree: string, source: string): Promise<string | null> {
  const read = (path: string) => readTextIfExists(join(tree, path));
  const dirs: string[] = [];
  for (let d = dirname(source);; d = dirname(d)) {
    dirs.push(d);
    if (d === "." || d === "/" || d === "") break;
  }
  for (const dir of dirs) {
    const at = (name: string) => dir === "." ? name : `${dir}/${name}`;
    const pyproject = await read(at("pyproject.toml"));
    if (pyproject !== undefined && /^\[project\]/m.test(pyproject)) return at("pyproject.toml");
    if ((await read(at("setup.py"))) !== undefined) return at("setup.py");
    const cfg = await read(at("setup.cfg"));
    if (cfg !== undefined && /^\[(metadata|options)\]/m.test(cfg)) return at("setup.cfg");
    if (pyproject !== undefined && /^\[build-system\]/m.test(pyproject)) {
      return at("pyproject.toml");
    }
    if ((await read(at("requirements.txt"))) !== undefined) return at("requirements.txt");
  }
  return null;
}

/** A hash of the packaging files beside `file`: what the runtime dependencies depend on. */
export async function dependencyHash(tree: string, file: string | null): Promise<string | null> {
  if (file === null) return null;
  const dir = dirname(file);
  const parts: Record<string, string | null> = {};
  for (const name of ["pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"]) {
    const path = dir === "." ? name : `${dir}/${name}`;
    parts[name] = (await readTextIfExists(join(tree, path))) ?? null;
  }
  return inputsKey(parts);
}

/** Whether `[project] test-dependencies` can be installed, and if not, what uv said. */
export interface DependencyCheck {
  /** True when uv resolves every entry for the interpreter. */
  ok: boolean;
  /** What was found, in a line. */
  detail: string;
}

/**
 * Check that `requirements` resolve for the interpreter `python` (`uv pip compile`, which asks the
 * package index and installs nothing). Requires `--allow-run=uv` and the network to the index.
 */
export async function checkTestDependencies(
  python: string,
  requirements: readonly string[],
  signal?: AbortSignal,
): Promise<DependencyCheck> {
  if (requirements.length === 0) return { ok: true, detail: "none" };
  const result = await run(
    ["uv", "pip", "compile", "--quiet", "--no-header", "--python", python, "-"],
    {
      env: uvEnv(),
      clearEnv: true,
      stdin: requirements.join("\n") + "\n",
      okCodes: "any",
      timeoutMs: 120_000,
      signal,
    },
  );
  if (result.code === 0) {
    return {
      ok: true,
      detail: `${requirements.join(", ")}: uv can install ${
        requirements.length === 1 ? "it" : "them"
      }`,
    };
  }
  const said = result.stderr.trim().split("\n").filter(Boolean);
  return {
    ok: false,
    detail: `uv cannot install them: ${said.slice(-3).join(" ") || `exit code ${result.code}`}`,
  };
}
