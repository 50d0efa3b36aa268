/**
 * Read a repository's layout: its package directory (the one the tests import, not a thin façade
 * over it), its tests directory, the Python version it declares and what its tests need installed.
 * Used by `bugbout init`.
 *
 * Requires `--allow-read` on the repository.
 *
 * @module
 */

import { dirname, join, relative } from "node:path";
import { parseToml, TomlError } from "../../deps.ts";
import { lstatIfExists, readDirIfExists, readTextIfExists } from "../../fs.ts";

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
  /**
   * What the tests need installed besides the project, and where that was declared; `tooling`:
   * what the same declaration lists that no test imports (tox, linters, coverage, docs
   * builders), left out.
   */
  testDependencies?: { requirements: string[]; from: string; tooling?: string[] };
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

/** Names a directory of tests goes by (a package of them too: `qa/__init__.py`). */
const TEST_DIR_NAMES =
  /^(tests?|testing|qa|integration(_tests?)?|e2e|functional(_tests?)?|acceptance(_tests?)?)$/i;

/**
 * Whether the package `dir` holds tests rather than the project's code: its name says so (`qa`,
 * `integration`), or most of its own modules are test modules (`test_*.py`, `*_test.py`).
 */
async function isTestPackage(repo: string, dir: string): Promise<boolean> {
  if (TEST_DIR_NAMES.test(dir.split("/").pop()!)) return true;
  // Its own modules, not those of a tests folder inside it.
  const modules = (await entries(join(repo, dir)))
    .filter((e) => e.isFile && e.name.endsWith(".py"))
    .map((e) => e.name)
    .filter((name) => name !== "__init__.py" && name !== "conftest.py");
  const tests = modules.filter((name) => /^test_.*\.py$|_test\.py$/.test(name));
  return modules.length > 0 && tests.length * 2 > modules.length;
}

/**
 * Packages of sub-projects: a top-level directory that is not a package name but holds a
 * project of its own (`gitlint-core/pyproject.toml` over `gitlint-core/gitlint/`), and its
 * `src/`.
 */
async function subProjectPackages(repo: string): Promise<string[]> {
  const found: string[] = [];
  for (const e of await entries(repo)) {
    if (!e.isDirectory || e.isSymlink || SKIP.has(e.name) || e.name.startsWith(".")) continue;
    if (
      /^[A-Za-z_][A-Za-z0-9_]*$/.test(e.name) && await exists(join(repo, e.name, "__init__.py"))
    ) {
      continue; // a package itself
    }
    const marked = await Promise.all(
      ["pyproject.toml", "setup.py", "setup.cfg"].map((f) => exists(join(repo, e.name, f))),
    );
    if (!marked.some(Boolean)) continue;
    found.push(...await packagesIn(repo, join(e.name, "src")), ...await packagesIn(repo, e.name));
  }
  return found;
}

/** Look at a repository and guess its layout. */
export async function detectLayout(repo: string): Promise<Layout> {
  const found = [...await packagesIn(repo, "src"), ...await packagesIn(repo, ".")];
  if (
    found.length === 0 ||
    (await Promise.all(found.map((d) => isTestPackage(repo, d)))).every(Boolean)
  ) {
    found.push(...await subProjectPackages(repo));
  }
  // A package of tests (`qa/` with `__init__.py`) is where tests lie, not the code they test.
  const testPackages: string[] = [];
  const candidates: string[] = [];
  for (const dir of found) (await isTestPackage(repo, dir) ? testPackages : candidates).push(dir);
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
  if (!tests && testPackages.length) tests = testPackages[0];
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
  const testDependencies = await declaredTestDependencies(repo);
  const layout: Layout = {
    otherSources: [],
    tests,
    requiresPython: await declaredPython(repo),
    isPython: allPython.length > 0,
    ...(testDependencies ? { testDependencies } : {}),
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
  let chosen = ranked[0];
  let reason = chosen.n > 0
    ? `the tests import ${names[candidates.indexOf(chosen.c)]} in ${chosen.n} file(s)`
    : `no test imports any candidate; took the first`;
  // A thin public package that only re-exports another (`src/pytest` over `src/_pytest`): the
  // fixes land in the other one.
  const facade = await facadeOver(repo, chosen.c, ranked.slice(1).map((r) => r.c));
  if (facade) {
    const real = ranked.find((r) => r.c === facade.real)!;
    reason = `${chosen.c} only re-exports ${real.c} (${facade.lines[0]} lines of Python against ` +
      `${facade.lines[1]}), where the fixes land; the tests import ` +
      `${names[candidates.indexOf(real.c)]} in ${real.n} file(s)`;
    chosen = real;
  }
  layout.source = chosen.c;
  layout.otherSources = ranked.filter((r) => r !== chosen).map((r) => r.c);
  layout.sourceReason = reason;
  return layout;
}

async function linesOfPython(repo: string, dir: string): Promise<number> {
  let lines = 0;
  for (const file of await pythonFiles(repo, dir, 5000)) {
    lines += ((await readTextIfExists(join(repo, file))) ?? "").split("\n").length;
  }
  return lines;
}

/**
 * When `pkg` is a thin façade over one of `others` (its modules import from it and it has a
 * tenth of its code or less), that one and both sizes; else undefined.
 */
async function facadeOver(
  repo: string,
  pkg: string,
  others: string[],
): Promise<{ real: string; lines: [number, number] } | undefined> {
  const own = await linesOfPython(repo, pkg);
  const texts = await Promise.all(
    (await pythonFiles(repo, pkg, 50)).map((f) => readTextIfExists(join(repo, f))),
  );
  for (const other of others) {
    const name = other.split("/").pop()!;
    const imports = new RegExp(`^\\s*(?:from|import)\\s+${name}\\b`, "m");
    if (!texts.some((t) => t !== undefined && imports.test(t))) continue;
    const theirs = await linesOfPython(repo, other);
    if (own * 10 <= theirs) return { real: other, lines: [own, theirs] };
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Test dependencies

const TEST_GROUPS = ["test", "tests", "testing"];

function isRequirement(entry: string): boolean {
  const text = entry.trim();
  return text !== "" && !text.startsWith("#") && !text.startsWith("-") && !text.startsWith(".") &&
    !/^(?:file:|git\+|https?:)/.test(text) && !text.includes("{");
}

function nameOf(requirement: string): string {
  return (requirement.match(/^[A-Za-z0-9._-]+/)?.[0] ?? "").toLowerCase().replace(/[-_.]+/g, "-");
}

/** Plain requirements in a requirements file, following `-r other.txt` (once each). */
async function requirementsIn(
  repo: string,
  file: string,
  seen = new Set<string>(),
): Promise<string[]> {
  if (seen.has(file)) return [];
  seen.add(file);
  const text = await readTextIfExists(join(repo, file));
  if (text === undefined) return [];
  const out: string[] = [];
  for (const raw of text.split("\n")) {
    // (A marker separator with no marker after it, `pytest==4.6.3;`, is what pip accepts.)
    const line = raw.replace(/\s+#.*$/, "").trim().replace(/\s*;\s*$/, "");
    const include = line.match(/^-r\s+(\S+)$|^--requirement[= ](\S+)$/);
    if (include) {
      const target = join(dirname(file), include[1] ?? include[2]);
      out.push(...await requirementsIn(repo, target, seen));
    } else if (isRequirement(line)) out.push(line);
  }
  return out;
}

type Table = Record<string, unknown>;

/** A group of `[dependency-groups]` with its `include-group`s resolved. */
function dependencyGroup(groups: Table, name: string, seen = new Set<string>()): string[] {
  if (seen.has(name)) return [];
  seen.add(name);
  const entries = groups[name];
  if (!Array.isArray(entries)) return [];
  return entries.flatMap((e) =>
    typeof e === "string"
      ? [e]
      : typeof (e as Table)?.["include-group"] === "string"
      ? dependencyGroup(groups, (e as Table)["include-group"] as string, seen)
      : []
  );
}

/** Extras of the project itself (`pytest[dev]` inside pytest) replaced by what they list. */
function expandSelf(
  entries: string[],
  self: string,
  extras: Table,
  seen = new Set<string>(),
): string[] {
  const out: string[] = [];
  for (const entry of entries) {
    const match = entry.match(/^([A-Za-z0-9._-]+)\[([^\]]+)\]/);
    if (match && nameOf(match[1]) === self) {
      for (const extra of match[2].split(",").map((e) => e.trim())) {
        if (seen.has(extra) || !Array.isArray(extras[extra])) continue;
        seen.add(extra);
        out.push(...expandSelf(extras[extra] as string[], self, extras, seen));
      }
    } else if (nameOf(entry) !== self || !match) out.push(entry);
  }
  return out;
}

function firstGroup(table: Table | undefined, names: string[]): [string, unknown] | undefined {
  if (!table) return undefined;
  for (const name of names) if (table[name] !== undefined) return [name, table[name]];
  return undefined;
}

function mentionsPytest(entries: string[]): boolean {
  return entries.some((e) => nameOf(e).startsWith("pytest") || nameOf(e) === "hypothesis");
}

/**
 * What a project declares its tests need, from the first of: `[dependency-groups]` (test, tests,
 * testing, then dev when it lists pytest), `[project.optional-dependencies]` (the same names), a
 * Poetry group, `[options.extras_require]` in setup.cfg, a `requirements*test*.txt` or
 * `test-requirements.txt`, tox's `[testenv]` `deps`/`extras`, a nox session's plain
 * `session.install(...)`, or a development requirements file that lists pytest. `pytest` is
 * always there. Undefined when the project declares nothing.
 */
export async function declaredTestDependencies(
  repo: string,
): Promise<Layout["testDependencies"]> {
  const found = await findTestDependencies(repo);
  if (!found) return undefined;
  const self = await projectName(repo);
  const all = [...new Set(found.requirements.map((r) => r.trim()).filter(isRequirement))];
  const candidates = all.filter((r) => isTooling(r) && nameOf(r) !== self);
  const imported = candidates.length ? await importedByTests(repo, candidates) : new Set();
  const tooling = candidates.filter((r) => !imported.has(r));
  const requirements = all.filter((r) => !tooling.includes(r));
  if (!requirements.some((r) => nameOf(r) === "pytest")) requirements.unshift("pytest");
  return { requirements, from: found.from, ...(tooling.length ? { tooling } : {}) };
}

/**
 * Tools a project's test requirements list that its tests never import: runners of test
 * environments (tox, nox), linters, formatters and type checkers, coverage and its upload
 * services, documentation builders, release tools. Pinned to their own era they only make
 * resolution fail (`tox<3.0` beside a 2023 pytest), and nothing a test runs needs them. pytest
 * plugins (`pytest-cov`) are kept, since a configuration's `addopts` may name them, and so is a
 * tool a test file imports (a test that runs mypy).
 */
const TOOLING = new RegExp(
  "^(?:tox|tox-.*|detox|nox|pre-commit|flake8|flake8-.*|pyflakes|pycodestyle|" +
    "pep8|pep8-naming|pylint|pylint-.*|black|isort|autopep8|yapf|ruff|mypy|pyright|pytype|" +
    "types-.*|bandit|safety|pydocstyle|doc8|rstcheck|codespell|coverage|coveralls|" +
    "python-coveralls|codecov|sphinx|sphinx-.*|sphinxcontrib-.*|furo|mkdocs|mkdocs-.*|" +
    "mkdocstrings.*|readme-renderer|twine|check-manifest|bump2version|bumpversion|" +
    "zest-releaser|pyroma)$",
);

/** Whether requirement `r` names a tool the tests never import (see {@linkcode TOOLING}). */
export function isTooling(r: string): boolean {
  return TOOLING.test(nameOf(r));
}

/** The name of a requirement (`Foo_Bar[x]>=1` → `foo-bar`), normalised as PyPI does. */
export function requirementName(requirement: string): string {
  return nameOf(requirement.trim());
}

/** Those of `requirements` whose module a test file or conftest of the tree imports. */
async function importedByTests(repo: string, requirements: string[]): Promise<Set<string>> {
  const files = (await pythonFiles(repo, ".", 2000)).filter((f) =>
    /(?:^|\/)(?:test_[^/]*|[^/]*_test|conftest)\.py$/.test(f) || /(?:^|\/)tests?\//.test(f)
  ).slice(0, 500);
  const modules = new Map(requirements.map((r) => [r, nameOf(r).replace(/-/g, "_")]));
  const found = new Set<string>();
  for (const file of files) {
    const text = await readTextIfExists(join(repo, file));
    if (text === undefined) continue;
    for (const [r, module] of modules) {
      if (new RegExp(`^\\s*(?:from|import)\\s+${module}\\b`, "m").test(text)) found.add(r);
    }
    if (found.size === modules.size) break;
  }
  return found;
}

/** The project's name in `pyproject.toml`, normalised, or "" when it has none there. */
async function projectName(repo: string): Promise<string> {
  const text = await readTextIfExists(join(repo, "pyproject.toml"));
  if (text === undefined) return "";
  try {
    return nameOf(String(((parseToml(text) as Table).project as Table | undefined)?.name ?? ""));
  } catch (error) {
    if (error instanceof TomlError) return "";
    throw error;
  }
}

async function findTestDependencies(repo: string): Promise<Layout["testDependencies"]> {
  const read = (name: string) => readTextIfExists(join(repo, name));
  let pyproject: Table = {};
  const pyprojectText = await read("pyproject.toml");
  if (pyprojectText !== undefined) {
    try {
      pyproject = parseToml(pyprojectText) as Table;
    } catch (error) {
      if (!(error instanceof TomlError)) throw error;
    }
  }
  const project = (pyproject.project ?? {}) as Table;
  const self = nameOf(String(project.name ?? ""));
  const extras = (project["optional-dependencies"] ?? {}) as Table;
  const groups = pyproject["dependency-groups"] as Table | undefined;
  const pick = (
    table: Table | undefined,
    where: string,
    entries: (name: string) => string[],
  ): Layout["testDependencies"] => {
    const test = firstGroup(table, TEST_GROUPS);
    if (test) {
      return {
        requirements: expandSelf(entries(test[0]), self, extras),
        from: `${where} ${test[0]}`,
      };
    }
    const dev = firstGroup(table, ["dev"]);
    if (dev) {
      const requirements = expandSelf(entries("dev"), self, extras);
      if (mentionsPytest(requirements)) return { requirements, from: `${where} dev` };
    }
    return undefined;
  };
  const fromGroups = pick(groups, "[dependency-groups]", (n) => dependencyGroup(groups!, n));
  if (fromGroups) return { ...fromGroups, from: `${fromGroups.from} in pyproject.toml` };
  const fromExtras = pick(
    extras,
    "[project.optional-dependencies]",
    (n) => Array.isArray(extras[n]) ? extras[n] as string[] : [],
  );
  if (fromExtras) return { ...fromExtras, from: `${fromExtras.from} in pyproject.toml` };
  const poetry = ((pyproject.tool as Table | undefined)?.poetry ?? {}) as Table;
  const poetryGroups = (poetry.group ?? {}) as Table;
  for (const name of [...TEST_GROUPS, "dev"]) {
    const deps = ((poetryGroups[name] as Table | undefined)?.dependencies ??
      (name === "dev" ? poetry["dev-dependencies"] : undefined)) as Table | undefined;
    if (deps && Object.keys(deps).length) {
      return {
        requirements: Object.keys(deps).filter((d) => d !== "python"),
        from: `[tool.poetry.group.${name}] in pyproject.toml`,
      };
    }
  }
  const setupCfg = await read("setup.cfg");
  const cfgExtras = setupCfg ? parseIniSection(setupCfg, "options.extras_require") : undefined;
  const cfgTest = firstGroup(cfgExtras, TEST_GROUPS);
  if (cfgTest) {
    return {
      requirements: String(cfgTest[1]).split(/\n|;(?=\s*\w+\s*$)/).map((l) => l.trim()),
      from: `[options.extras_require] ${cfgTest[0]} in setup.cfg`,
    };
  }
  const files = [
    ...(await readDirIfExists(repo)).map((e) => e.name),
    ...(await readDirIfExists(join(repo, "requirements"))).map((e) => `requirements/${e.name}`),
  ].filter((f) => f.endsWith(".txt") || f.endsWith(".in")).sort();
  const testFile = files.find((f) =>
    /(?:^|\/)(?:requirements[^/]*test[^/]*|test[^/]*requirements[^/]*|requirements\/test[^/]*)\.(?:txt|in)$/i
      .test(f)
  );
  if (testFile) return { requirements: await requirementsIn(repo, testFile), from: testFile };
  const tox = await read("tox.ini");
  const testenv = tox ? parseIniSection(tox, "testenv") : undefined;
  if (testenv?.extras) {
    // Factor-conditional lines (`unit: diagrams`) count too: what follows the factor.
    const names = String(testenv.extras).split("\n")
      .flatMap((l) => l.replace(/^[\w,-]+:\s*/, "").split(/[\s,]+/)).filter(Boolean);
    const requirements = names.flatMap((n) =>
      Array.isArray(extras[n]) ? extras[n] as string[] : []
    );
    if (requirements.length) {
      return {
        requirements: expandSelf(requirements, self, extras),
        from: `tox.ini [testenv] extras (${names.join(", ")})`,
      };
    }
  }
  if (testenv?.deps) {
    const requirements: string[] = [];
    for (const line of String(testenv.deps).split("\n").map((l) => l.trim())) {
      const include = line.match(/^-r\s*(\S+)$/);
      if (include && !include[1].includes("{")) {
        requirements.push(...await requirementsIn(repo, include[1]));
      } else requirements.push(line);
    }
    if (requirements.some(isRequirement)) return { requirements, from: "tox.ini [testenv] deps" };
  }
  const nox = await read("noxfile.py");
  if (nox) {
    const session = nox.match(/def\s+tests?\s*\([^)]*\)[^:]*:\n((?:[ \t]+.*\n|\s*\n)+)/);
    const body = session?.[1] ?? "";
    const installs = [...body.matchAll(/session\.install\(([^)]*)\)/g)]
      .flatMap((m) => [...m[1].matchAll(/["']([^"']+)["']/g)].map((s) => s[1]));
    if (installs.some(isRequirement)) return { requirements: installs, from: "noxfile.py" };
  }
  const devFile = files.find((f) =>
    /(?:^|\/)(?:requirements[^/]*dev[^/]*|dev[^/]*requirements[^/]*|requirements\.txt)$/i.test(f)
  );
  if (devFile) {
    const requirements = await requirementsIn(repo, devFile);
    if (mentionsPytest(requirements)) return { requirements, from: devFile };
  }
  return undefined;
}

/** One section of an ini file: key → value (continuation lines joined with newlines). */
function parseIniSection(text: string, name: string): Table | undefined {
  let inside = false;
  let key: string | undefined;
  const out: Record<string, string> = {};
  for (const raw of text.replace(/\r\n?/g, "\n").split("\n")) {
    const header = raw.match(/^\[([^\]]+)\]\s*$/);
    if (header) {
      if (inside) break;
      inside = header[1].trim() === name;
      key = undefined;
      continue;
    }
    if (!inside || /^\s*[#;]/.test(raw)) continue;
    if (/^\s/.test(raw) && key) {
      if (raw.trim()) out[key] = out[key] ? `${out[key]}\n${raw.trim()}` : raw.trim();
      continue;
    }
    const pair = raw.match(/^([^=:]+?)\s*[=:]\s*(.*)$/);
    if (pair) {
      key = pair[1].trim();
      out[key] = pair[2].trim();
    }
  }
  return inside || Object.keys(out).length ? out : undefined;
}

/** What goes on PYTHONPATH for a package at `dir`: its parent directory, or `.`. */
export function pythonPathFor(dir: string): string {
  const at = dir.lastIndexOf("/");
  return at < 0 ? "." : dir.slice(0, at);
}
