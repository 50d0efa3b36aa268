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
import { inputsKey } from "../../hash.ts";
import { BugboutError } from "../../errors.ts";
import { readTextIfExists } from "../../fs.ts";
import { under } from "../shared.ts";
import type {
  AuthorFileChange,
  AuthorFileReading,
  FileTests,
  PatchedText,
  PatchFinding,
  PatchKind,
  PatchReview,
  ReviewedPath,
  RunnerEnv,
  RunnerRun,
  RunnerRunOptions,
  TestRunner,
} from "../types.ts";
import { changedTests as compareModules } from "./changed_tests.ts";
import { changedFunctions } from "./changed_code.ts";
import { buildVariables, materialize, type ProjectBuild } from "./build.ts";
import { ensureTestEnv, type EnvRequest, type TestEnv } from "./env.ts";
import { compareOutlines, outlineTests } from "./outline.ts";
import { runPytest, targetFile } from "./pytest.ts";
import { CONFIG_FILES, isTestModule, type PytestRules, pytestRules } from "./pytest_rules.ts";
import { PYTEST_HOOK, PYTEST_IMPORT, reviewPythonPatch } from "./review.ts";
import { PYTHON_CAPABILITIES } from "./capabilities.ts";
import type { CapabilityRules, PackageBaseline } from "../capabilities.ts";

export { PYTEST_HOOK, PYTEST_IMPORT } from "./review.ts";

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

/**
 * The test files of a Python change when none are named: anything under the tests directory,
 * `conftest.py`, `test_*.py` and `*_test.py` anywhere.
 */
export function pythonTestGlobs(testsDir?: string): string[] {
  const dir = testsDir?.replace(/\/+$/, "");
  return [...(dir && dir !== "." ? [`${dir}/**`] : []), "conftest.py", "test_*.py", "*_test.py"];
}

/** True for a file name pytest collects as a test module by default. */
export function isTestFileName(name: string): boolean {
  return /^test_.*\.py$/.test(name) || /_test\.py$/.test(name);
}

function count(text: string | null | undefined, pattern: RegExp): number {
  return text === null || text === undefined ? 0 : [...text.matchAll(pattern)].length;
}

/**
 * The directory an author's modules go into beside the originals: `_bugbout_` and the name made
 * into a Python identifier. (The testbed numbers two names that would make the same directory,
 * `_2`, `_3`, ...: that needs every name of the bout.)
 */
export function besideDir(author: string): string {
  return `_bugbout_${identOf(author)}`;
}

/** A name made into a Python identifier's letters: lower case, `_` between words. */
export function identOf(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9_]+/g, "_").replace(/^_+|_+$/g, "") || "agent";
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

/**
 * A project's {@linkcode TestEnv} as the interface's environment; with `build`, a tree's build's
 * overlay (its scripts on `PATH`, its metadata on `PYTHONPATH` after the tree) is part of it.
 */
export function pythonRunnerEnv(env: TestEnv, build?: ProjectBuild | null): PythonRunnerEnv {
  const notes = [...env.notes ?? [], ...(build?.note ? [build.note] : [])];
  return {
    key: build
      ? inputsKey({ env: env.key, build: build.key, built: build.overlay !== null })
      : env.key,
    readable: [...env.readable, ...(build?.overlay ? [build.dir] : [])],
    env: buildVariables(build ?? null, env.python),
    describe: `Python ${env.version}, pytest ${env.pytestVersion}${
      env.kind === "interpreter" ? ` (${env.python})` : ""
    }${build ? (build.overlay ? ", tree built" : ", tree not built") : ""}`,
    python: env.python,
    pytestImports: [...env.pytestImports],
    ...(notes.length ? { notes } : {}),
  };
}

/** `[project] env` over the environment's variables, `PYTHONPATH` joined rather than replaced. */
function variables(
  env: Record<string, string> | undefined,
  extra: Record<string, string> | undefined,
): Record<string, string> {
  const joined = [extra?.PYTHONPATH, env?.PYTHONPATH].filter(Boolean).join(":");
  return { ...env, ...extra, ...(joined ? { PYTHONPATH: joined } : {}) };
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
  /** The build of the tree the runner was opened on: its generated files go into every run's tree. */
  build?: ProjectBuild | null;
}

/** pytest, as a {@linkcode TestRunner}; see the module's documentation. */
export class PythonRunner implements TestRunner {
  /** See {@linkcode TestRunner.language}. */
  readonly language = "python" as const;
  /** See {@linkcode TestRunner.name}. */
  readonly name = "pytest";
  /** The discovery rules it reads test files and tests by. */
  readonly rules: PytestRules;
  /** Node ids name the tests pytest collects, parametrised cases expanded: static ids are not rows. */
  readonly reportsStaticIds = false;
  /** A failing test never ends a pytest session. */
  readonly panicEndsRun = false;
  /** Authors with test modules only share a tree: each runs in a process of its own, watched. */
  readonly sharesTrees = true;
  /** An author's `conftest.py`, helpers and data reach its own tests in a copy of its own. */
  readonly appliesAuthorConfig = true;
  /** pytest is given test modules: the fix's, and an author's, whole. */
  readonly runsByFile = true;
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

  /**
   * `config` for what can change how pytest runs or what Python imports, wherever it is
   * ({@linkcode isPytestConfig}); `test` under the tests directory, for a default test-module name
   * or under a `test`/`tests` directory; `source` in the package (`packageDir`, a directory or a
   * module `pkg.py`); else `other`.
   */
  classify(path: string, packageDir: string): PatchKind {
    if (isPytestConfig(path)) return "config";
    const name = path.split("/").pop() ?? path;
    const tests = this.#options.testsDir ?? "tests";
    if (under(path, tests) || isTestFileName(name) || /(^|\/)tests?\//.test(path)) return "test";
    const pkg = packageDir.replace(/\.py$/, "");
    if (path === `${pkg}.py` || under(path, pkg)) return "source";
    return "other";
  }

  /** A test module by the tree's discovery rules. */
  runsFile(path: string): boolean {
    return isTestModule(path, this.rules);
  }

  /** The test itself, or one of its parametrised cases (`t[1]`). */
  within(id: string, test: string): boolean {
    return id === test || id.startsWith(`${test}[`);
  }

  /**
   * Each test module compared with its version before the change by the environment's
   * interpreter (`ast`): a new module, or one that cannot be parsed, is the author's whole; in a
   * changed one, the tests it added or changed (`path::Class::name`). Other files are helpers.
   */
  async readTests(
    files: readonly AuthorFileChange[],
    env: RunnerEnv,
    signal?: AbortSignal,
  ): Promise<AuthorFileReading[]> {
    const python = (env as Partial<PythonRunnerEnv>).python;
    if (typeof python !== "string") {
      throw new TypeError("PythonRunner.readTests() needs the environment its prepare() made");
    }
    const modules = files.filter((f) => isTestModule(f.path, this.rules));
    const answers = await compareModules(
      python,
      modules.map(({ before, after }) => ({ before, after })),
      this.rules,
      signal,
    );
    const byPath = new Map(modules.map((m, i) => [m.path, answers[i]]));
    return files.map(({ path, before }): AuthorFileReading => {
      const answer = byPath.get(path);
      if (!answer) return { kind: "helper" };
      if (before === null || "error" in answer) return { kind: "tests", whole: true, ids: [] };
      if (answer.changed.length === 0) return { kind: "none" };
      return { kind: "tests", whole: false, ids: answer.changed.map((t) => `${path}::${t}`) };
    });
  }

  /** The test modules under the tests directory. */
  suite(files: readonly string[]): Promise<string[]> {
    const tests = this.#options.testsDir ?? "tests";
    return Promise.resolve(files.filter((p) => under(p, tests) && isTestModule(p, this.rules)));
  }

  /** A test of the module copy at `beside`. */
  besideOwns(id: string, beside: string, _author: string): boolean {
    return targetFile(id) === beside;
  }

  /** See {@linkcode reviewPythonPatch}. */
  review(paths: readonly ReviewedPath[], base?: PackageBaseline): PatchReview {
    return reviewPythonPatch(paths, base);
  }
  /** See {@linkcode PYTHON_CAPABILITIES}. */
  readonly capabilities: CapabilityRules = PYTHON_CAPABILITIES;

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
   * See {@linkcode changedFunctions}: only `.py` files can be read; any other file's change may
   * reach anything (null).
   */
  async changedCode(
    files: readonly { path: string; before: string; after: string }[],
    env: RunnerEnv,
    signal?: AbortSignal,
  ): Promise<([number, number][] | null)[]> {
    const python = (env as Partial<PythonRunnerEnv>).python;
    if (typeof python !== "string") {
      throw new TypeError("PythonRunner.changedCode() needs the environment its prepare() made");
    }
    const modules = files.filter((f) => f.path.endsWith(".py"));
    const answers = await changedFunctions(python, modules, signal);
    const byPath = new Map(modules.map((m, i) => [m.path, answers[i]]));
    return files.map((f) => byPath.get(f.path) ?? null);
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
    if (this.#options.build) await materialize(this.#options.build, options.tree);
    await besidePackages(options.tree, options.groups);
    const result = await runPytest({
      sandbox: options.sandbox,
      env: { python: env.python, readable: env.readable ?? [], pytestImports: env.pytestImports },
      tree: options.tree,
      targets: [],
      groups: options.groups,
      trustPartial: options.trustPartial,
      watchTree: options.watchTree,
      observe: options.observe,
      cover: options.cover,
      pythonPath: this.#options.pythonPath,
      pytestArgs: this.#options.pytestArgs,
      extraEnv: variables(env.env, options.extraEnv),
      timeoutMs: options.timeoutMs,
      memoryMb: options.memoryMb,
      deny: options.deny,
      scratch: options.scratch,
      signal: options.signal,
    });
    return result;
  }

  /** pytest `--collect-only` on the files (see {@linkcode TestRunner.collect}). */
  async collect(
    options: Omit<RunnerRunOptions, "groups"> & { files: readonly string[] },
  ): Promise<RunnerRun> {
    const env = options.env as Partial<PythonRunnerEnv>;
    if (typeof env.python !== "string") {
      throw new TypeError("PythonRunner.collect() needs the environment its prepare() made");
    }
    if (this.#options.build) await materialize(this.#options.build, options.tree);
    return await runPytest({
      sandbox: options.sandbox,
      env: { python: env.python, readable: env.readable ?? [], pytestImports: env.pytestImports },
      tree: options.tree,
      targets: options.files,
      pythonPath: this.#options.pythonPath,
      pytestArgs: [...this.#options.pytestArgs ?? [], "--collect-only"],
      extraEnv: variables(env.env, options.extraEnv),
      timeoutMs: options.timeoutMs,
      memoryMb: options.memoryMb,
      deny: options.deny,
      scratch: options.scratch,
      trustPartial: options.trustPartial,
      watchTree: options.watchTree,
      signal: options.signal,
    });
  }
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
