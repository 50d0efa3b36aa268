/**
 * Where a project declares its runtime dependencies: the packaging file the test environment
 * installs them from (`uv pip install -r <file>`), and a hash of the packaging files, so the
 * environment is rebuilt when they change.
 *
 * Requires `--allow-read` on the tree.
 *
 * @module
 */

import { dirname, join } from "node:path";
import { inputsKey } from "../hash.ts";
import { readTextIfExists } from "../fs.ts";

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
