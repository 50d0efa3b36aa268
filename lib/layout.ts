/**
 * Read a repository's layout: its package directory, its tests directory and the Python version it
 * declares. Used by `bugbout init`.
 *
 * Requires `--allow-read` on the repository.
 *
 * @module
 */

import { join, relative } from "node:path";
import { lstatIfExists, readDirIfExists, readTextIfExists } from "./fs.ts";

/** What `init` found. */
export interface Layout {
  /** Package directory relative to the repository (`src/pkg`, `pkg`, or a module `pkg.py`). */
  source?: string;
  /** Other package candidates that were not chosen. */
  otherSources: string[];
  /** Why `source` was chosen among several. */
  sourceReason?: string;
  /** Tests directory relative to the repository. */
  tests?: string;
  /** The declared Python requirement (`>=3.9`, say) and the file it came from. */
  requiresPython?: { spec: string; from: string };
  /** True when the repository has Python code at all. */
  isPython: boolean;
}

const SKIP = new Set([
  "tests",
  "test",
  "testing",
  "docs",
  "doc",
  "examples",
  "example",
  "scripts",
  "build",
  "dist",
  "benchmarks",
  "bench",
  "site-packages",
  "node_modules",
  "venv",
  ".venv",
  "env",
  ".tox",
  ".nox",
  ".git",
  "__pycache__",
]);

const NOT_MODULES = new Set(["setup.py", "conftest.py", "noxfile.py", "tasks.py", "fabfile.py"]);

async function exists(path: string): Promise<boolean> {
  return (await lstatIfExists(path)) !== undefined;
}

async function entries(dir: string): Promise<Deno.DirEntry[]> {
  return (await readDirIfExists(dir)).sort((a, b) => a.name.localeCompare(b.name));
}

async function packagesIn(repo: string, dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const e of await entries(join(repo, dir))) {
    if (!e.isDirectory || SKIP.has(e.name) || e.name.startsWith(".")) continue;
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(e.name)) continue;
    if (await exists(join(repo, dir, e.name, "__init__.py"))) found.push(join(dir, e.name));
  }
  return found;
}

/** Python files under `dir`, up to a limit, skipping virtual environments and the like. */
async function pythonFiles(root: string, dir: string, limit = 2000): Promise<string[]> {
  const out: string[] = [];
  const walk = async (at: string) => {
    for (const e of await entries(at)) {
      if (out.length >= limit) return;
      const path = join(at, e.name);
      if (e.isDirectory && !e.isSymlink) {
        if (["node_modules", ".git", ".venv", "venv", ".tox", "__pycache__"].includes(e.name)) {
          continue;
        }
        await walk(path);
      } else if (e.isFile && e.name.endsWith(".py")) out.push(relative(root, path));
    }
  };
  await walk(join(root, dir));
  return out;
}

async function importCounts(repo: string, names: string[], testFiles: string[]) {
  const counts = new Map(names.map((n) => [n, 0]));
  for (const file of testFiles.slice(0, 500)) {
    const text = await readTextIfExists(join(repo, file));
    if (text === undefined) continue;
    for (const name of names) {
      const re = new RegExp(`^\\s*(from|import)\\s+${name}\\b`, "m");
      if (re.test(text)) counts.set(name, counts.get(name)! + 1);
    }
  }
  return counts;
}

/** Find the Python requirement a project declares. */
export async function declaredPython(repo: string): Promise<Layout["requiresPython"]> {
  const read = (name: string) => readTextIfExists(join(repo, name));
  const pyproject = await read("pyproject.toml");
  const fromPyproject = pyproject?.match(/^\s*requires-python\s*=\s*["']([^"']+)["']/m);
  if (fromPyproject) return { spec: fromPyproject[1].trim(), from: "pyproject.toml" };
  const setupCfg = await read("setup.cfg");
  const fromCfg = setupCfg?.match(/^\s*python_requires\s*=\s*(.+)$/m);
  if (fromCfg) return { spec: fromCfg[1].trim(), from: "setup.cfg" };
  const setupPy = await read("setup.py");
  const fromPy = setupPy?.match(/python_requires\s*=\s*["']([^"']+)["']/);
  if (fromPy) return { spec: fromPy[1].trim(), from: "setup.py" };
  return undefined;
}

/** Look at a repository and guess its layout. */
export async function detectLayout(repo: string): Promise<Layout> {
  const candidates = [...await packagesIn(repo, "src"), ...await packagesIn(repo, ".")];
  let tests: string | undefined;
  for (const name of ["tests", "test", "testing"]) {
    if (await exists(join(repo, name))) {
      tests = name;
      break;
    }
  }
  if (!tests) {
    for (const pkg of candidates) {
      for (const name of ["tests", "test"]) {
        if (await exists(join(repo, pkg, name))) {
          tests = join(pkg, name);
          break;
        }
      }
      if (tests) break;
    }
  }
  if (candidates.length === 0) {
    for (const e of await entries(repo)) {
      if (
        e.isFile && e.name.endsWith(".py") && !NOT_MODULES.has(e.name) && !e.name.startsWith("test")
      ) {
        candidates.push(e.name.replace(/\.py$/, ""));
      }
    }
  }
  const allPython = await pythonFiles(repo, ".", 50);
  const layout: Layout = {
    otherSources: [],
    tests,
    requiresPython: await declaredPython(repo),
    isPython: allPython.length > 0,
  };
  if (candidates.length === 0) return layout;
  if (candidates.length === 1) {
    layout.source = candidates[0];
    return layout;
  }
  const testFiles = tests ? await pythonFiles(repo, tests) : [];
  const names = candidates.map((c) => c.split("/").pop()!);
  const counts = await importCounts(repo, names, testFiles);
  const ranked = candidates
    .map((c, i) => ({ c, n: counts.get(names[i]) ?? 0, src: c.startsWith("src/") ? 1 : 0 }))
    .sort((a, b) => b.n - a.n || b.src - a.src || a.c.localeCompare(b.c));
  layout.source = ranked[0].c;
  layout.otherSources = ranked.slice(1).map((r) => r.c);
  layout.sourceReason = ranked[0].n > 0
    ? `the tests import ${names[candidates.indexOf(ranked[0].c)]} in ${ranked[0].n} file(s)`
    : `no test imports any candidate; took the first`;
  return layout;
}

/** What goes on PYTHONPATH for a package at `dir`: its parent directory, or `.`. */
export function pythonPathFor(dir: string): string {
  const at = dir.lastIndexOf("/");
  return at < 0 ? "." : dir.slice(0, at);
}
