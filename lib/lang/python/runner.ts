/**
 * Python and pytest as a {@linkcode TestRunner}: the first implementation of the interface, built
 * from what this floor already has, with no test logic of its own.
 *
 * - Test files: pytest's discovery rules of the tree (`python_files` from its configuration file,
 *   {@linkcode isTestModule}), `conftest.py` (test support), and whatever lies under the
 *   configured tests directory when one is given.
 * - Configuration: {@linkcode isPytestConfig}, the paths scoring never applies (`conftest.py`,
 *   pytest's and the packaging tools' configuration files, `sitecustomize.py`, `.pth` files,
 *   pytest plugins).
 * - Ids: pytest node ids (`tests/test_a.py::TestK::test_m[1]`); {@linkcode targetFile} is the
 *   file part.
 * - Changed tests: the miner's static outline reader (`outline.ts`), one module before and after.
 * - Beside: an author's module goes into `_bugbout_<author>/` beside the original, as the testbed
 *   installs a shared author for cross-examination, unchanged; its ids are the original's with the
 *   file part moved there.
 * - Patch flags: a source change that imports pytest or defines a pytest hook
 *   ({@linkcode PYTEST_IMPORT}, {@linkcode PYTEST_HOOK}, the patterns scoring flags with).
 * - Environment: the **project's** uv environment ({@linkcode ensureTestEnv}), not the tree's: it is
 *   built from the repository's packaging files at HEAD, so {@linkcode PythonRunner.prepare} needs
 *   the project's {@linkcode EnvRequest} (given when the runner is made) and ignores its `tree` and
 *   `cache` arguments.
 * - Run: {@linkcode runPytest} under the guard, one process per group, read into a
 *   {@linkcode RunnerRun}.
 *
 * The stages run Python through their own path (the guard's extras: per-author forked groups,
 * in-place authors with their own `conftest.py`, `watchTree`), so their results do not depend on
 * this runner.
 *
 * Requires `--allow-read` (the tree's configuration) for {@linkcode pythonRunner}, and what
 * `env.ts` and `pytest.ts` require for `prepare` and `run`; the rest is pure.
 *
 * @module
 */

import { join } from "node:path";
import { BugboutError } from "../../errors.ts";
import { readTextIfExists } from "../../fs.ts";
import type {
  FileTests,
  PatchedText,
  PatchFinding,
  RunnerEnv,
  RunnerGroupRun,
  RunnerRun,
  RunnerRunOptions,
  TestRunner,
} from "../types.ts";
import type { GroupRun } from "./classify.ts";
import { ensureTestEnv, type EnvRequest, type TestEnv } from "./env.ts";
import { compareOutlines, outlineTests } from "./outline.ts";
import { runPytest, targetFile } from "./pytest.ts";
import { CONFIG_FILES, isTestModule, type PytestRules, pytestRules } from "./pytest_rules.ts";

/** File names that decide how pytest runs or what Python imports, wherever they are. */
const CONFIG_NAMES = new Set([
  "conftest.py",
  "pytest.toml",
  ".pytest.toml",
  "pytest.ini",
  ".pytest.ini",
  "tox.ini",
  "setup.cfg",
  "pyproject.toml",
  "sitecustomize.py",
  "usercustomize.py",
  "noxfile.py",
]);

/**
 * True for a path that can change how pytest runs or what Python imports (conftest.py,
 * pytest/tox/setup.cfg/pyproject configuration, sitecustomize, `.pth` files, pytest plugins),
 * wherever it is: scoring never applies such a change.
 */
export function isPytestConfig(path: string): boolean {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return CONFIG_NAMES.has(name) || name.endsWith(".pth") || /^pytest_.*\.py$/.test(name);
}

/** An import of pytest, in any form: code under test has no business reaching the runner. */
export const PYTEST_IMPORT: RegExp =
  /^\s*(?:import\s+_?pytest\b|from\s+_?pytest\b)|__import__\(\s*["']_?pytest/gm;
/** A pytest hook defined at any depth: only a plugin has reason to, and the code under test is not one. */
export const PYTEST_HOOK: RegExp = /^\s*def\s+pytest_\w+\s*\(/gm;

function count(text: string | null | undefined, pattern: RegExp): number {
  return text === null || text === undefined ? 0 : [...text.matchAll(pattern)].length;
}

/**
 * The directory an author's modules go into beside the originals: `_bugbout_` and the name made
 * into a Python identifier. (The testbed numbers two names that would make the same directory,
 * `_2`, `_3`, ...: that needs every name of the bout.)
 */
export function besideDir(author: string): string {
  const ident = author.toLowerCase().replace(/[^a-z0-9_]+/g, "_").replace(/^_+|_+$/g, "") ||
    "agent";
  return `_bugbout_${ident}`;
}

/** `tests/test_x.py` → `tests/<dir>/test_x.py`. */
export function besideModulePath(path: string, dir: string): string {
  const at = path.lastIndexOf("/");
  return at < 0 ? `${dir}/${path}` : `${path.slice(0, at)}/${dir}/${path.slice(at + 1)}`;
}

/** A prepared Python environment: a {@linkcode RunnerEnv} that knows its interpreter. */
export interface PythonRunnerEnv extends RunnerEnv {
  /** The interpreter to run tests with. */
  python: string;
  /** Top-level modules pytest imports for itself (to explain a crash the tree causes). */
  pytestImports: string[];
}

/** A project's {@linkcode TestEnv} as the interface's environment. */
export function pythonRunnerEnv(env: TestEnv): PythonRunnerEnv {
  return {
    key: env.key,
    readable: [...env.readable],
    env: {},
    describe: `Python ${env.version}, pytest ${env.pytestVersion}${
      env.kind === "interpreter" ? ` (${env.python})` : ""
    }`,
    python: env.python,
    pytestImports: [...env.pytestImports],
  };
}

/** How a {@linkcode PythonRunner} is made. */
export interface PythonRunnerOptions {
  /** pytest's discovery rules in the tree (default: pytest's own). */
  rules?: PytestRules;
  /** `[project] tests`: everything under it counts as test code. */
  testsDir?: string;
  /** The project's environment request (`envRequest(project)`): what `prepare` builds. */
  environment?: EnvRequest;
  /** Directories of the tree to put first on `PYTHONPATH` (default `["."]`). */
  pythonPath?: readonly string[];
  /** `[project] pytest-args`. */
  pytestArgs?: readonly string[];
}

function under(path: string, dir: string): boolean {
  return dir === "." || path === dir || path.startsWith(`${dir}/`);
}

/** pytest, as a {@linkcode TestRunner}; see the module's documentation. */
export class PythonRunner implements TestRunner {
  /** See {@linkcode TestRunner.language}. */
  readonly language = "python" as const;
  /** See {@linkcode TestRunner.name}. */
  readonly name = "pytest";
  /** The discovery rules it reads test files and tests by. */
  readonly rules: PytestRules;
  readonly #options: PythonRunnerOptions;

  /** A runner with `options` (see {@linkcode PythonRunnerOptions}). */
  constructor(options: PythonRunnerOptions = {}) {
    this.#options = options;
    this.rules = options.rules ?? pytestRules({});
  }

  /** A test module by the rules, a `conftest.py`, or anything under the tests directory. */
  isTestFile(path: string): boolean {
    if (isTestModule(path, this.rules)) return true;
    if (path === "conftest.py" || path.endsWith("/conftest.py")) return true;
    const tests = this.#options.testsDir;
    return tests !== undefined && tests !== "" && tests !== "." && under(path, tests);
  }

  /** See {@linkcode isPytestConfig}. */
  isConfig(path: string): boolean {
    return isPytestConfig(path);
  }

  /** See {@linkcode targetFile}. */
  fileOf(id: string): string {
    return targetFile(id);
  }

  /**
   * The miner's static reading (`outlineTests`, `compareOutlines`) of the module before and after,
   * as node ids without parameters (`path::Class::test`).
   */
  changedTests(path: string, before: string | null, after: string): FileTests {
    const now = outlineTests(after, this.rules);
    const changes = compareOutlines(before === null ? null : outlineTests(before, this.rules), now);
    return {
      tests: now.tests.map((t) => `${path}::${t.id}`),
      changed: changes.changed.map((id) => `${path}::${id}`),
      ...(changes.unsure ? { unsure: changes.unsure } : {}),
    };
  }

  /**
   * `tests/test_x.py` → `tests/_bugbout_<author>/test_x.py`, where cross-examination installs a
   * shared author. The directory must be a package (an empty `__init__.py`, as the testbed writes)
   * so that two modules of one name do not clash; {@linkcode run} writes a missing one.
   */
  besidePath(path: string, author: string): string {
    return besideModulePath(path, besideDir(author));
  }

  /** The copy as it is: the directory keeps it apart. */
  besideSource(_path: string, source: string, _author: string): string {
    return source;
  }

  /** `tests/test_x.py::T::t` → `tests/_bugbout_<author>/test_x.py::T::t`. */
  besideId(id: string, author: string): string {
    const file = targetFile(id);
    return this.besidePath(file, author) + id.slice(file.length);
  }

  /**
   * A source change (neither test code nor configuration) that imports pytest or defines a pytest
   * hook, where it did not before. Scoring still applies it, as it applies such a change today.
   */
  patchFlags(files: readonly PatchedText[]): PatchFinding[] {
    const found: PatchFinding[] = [];
    for (const file of files) {
      if (!file.path.endsWith(".py") || this.isConfig(file.path) || this.isTestFile(file.path)) {
        continue;
      }
      if (count(file.after, PYTEST_IMPORT) > count(file.before, PYTEST_IMPORT)) {
        found.push({ path: file.path, what: `imports pytest from the source: ${file.path}` });
      }
      if (count(file.after, PYTEST_HOOK) > count(file.before, PYTEST_HOOK)) {
        found.push({ path: file.path, what: `defines pytest hooks in the source: ${file.path}` });
      }
    }
    return found;
  }

  /**
   * The project's environment (see the module's documentation: `tree` and `cache` are not used).
   * Throws a `BugboutError` when the runner was made without the project's request, or when the
   * environment cannot be built.
   */
  async prepare(_tree: string, _cache: string, signal?: AbortSignal): Promise<RunnerEnv> {
    const request = this.#options.environment;
    if (!request) {
      throw new BugboutError(
        "A Python environment is the project's, not a tree's: make the runner with the project's environment request.",
        { hint: "Use pythonRunner(tree, { environment: envRequest(project) })." },
      );
    }
    return pythonRunnerEnv(await ensureTestEnv({ ...request, signal: signal ?? request.signal }));
  }

  /**
   * {@linkcode runPytest} on the groups (node ids or files; no group: the whole suite as pytest's
   * configuration finds it), the passes of a cut-short group kept only with `trustPartial`.
   * `env` must come from {@linkcode prepare} or {@linkcode pythonRunnerEnv}.
   */
  async run(options: RunnerRunOptions): Promise<RunnerRun> {
    const env = options.env as Partial<PythonRunnerEnv>;
    if (typeof env.python !== "string") {
      throw new TypeError("PythonRunner.run() needs the environment its prepare() made");
    }
    await besidePackages(options.tree, options.groups);
    const result = await runPytest({
      sandbox: options.sandbox,
      env: { python: env.python, readable: env.readable ?? [], pytestImports: env.pytestImports },
      tree: options.tree,
      targets: [],
      groups: options.groups,
      trustPartial: options.trustPartial,
      pythonPath: this.#options.pythonPath,
      pytestArgs: this.#options.pytestArgs,
      extraEnv: { ...env.env, ...options.extraEnv },
      timeoutMs: options.timeoutMs,
      memoryMb: options.memoryMb,
      deny: options.deny,
      scratch: options.scratch,
      signal: options.signal,
    });
    const { complete: _, ...first } = groupRun({ ...result, complete: false });
    return { ...first, durationMs: result.durationMs, groups: result.groups.map(groupRun) };
  }
}

/** One group of a pytest session, in the interface's words. */
function groupRun(group: GroupRun): RunnerGroupRun {
  return {
    status: group.status,
    complete: group.complete,
    outcomes: group.outcomes,
    durations: group.durations,
    ...(group.failures && Object.keys(group.failures).length ? { failures: group.failures } : {}),
    ...(group.message ? { message: group.message } : {}),
    tamper: group.tamper,
    suspect: group.suspect,
  };
}

/** Make each `_bugbout_*` directory the targets lie in a package, as the testbed does. */
async function besidePackages(tree: string, groups: readonly (readonly string[])[]) {
  const dirs = new Set<string>();
  for (const target of groups.flat()) {
    const parts = targetFile(target).split("/");
    for (let n = 1; n < parts.length; n++) {
      if (parts[n - 1].startsWith("_bugbout_")) dirs.add(parts.slice(0, n).join("/"));
    }
  }
  for (const dir of dirs) {
    const init = join(tree, dir, "__init__.py");
    if ((await readTextIfExists(init)) === undefined) {
      try {
        await Deno.writeTextFile(init, "", { createNew: true });
      } catch (error) {
        if (
          !(error instanceof Deno.errors.AlreadyExists || error instanceof Deno.errors.NotFound)
        ) {
          throw error;
        }
      }
    }
  }
}

/** pytest's discovery rules in a tree (from its pytest.ini, pyproject.toml, tox.ini, setup.cfg). */
export async function pytestRulesIn(tree: string): Promise<PytestRules> {
  const files: Record<string, string | undefined> = {};
  for (const name of CONFIG_FILES) files[name] = await readTextIfExists(join(tree, name));
  return pytestRules(files);
}

/** The pytest runner of `tree`, its discovery rules read from the tree's configuration. */
export async function pythonRunner(
  tree: string,
  options: Omit<PythonRunnerOptions, "rules"> = {},
): Promise<PythonRunner> {
  return new PythonRunner({ ...options, rules: await pytestRulesIn(tree) });
}
