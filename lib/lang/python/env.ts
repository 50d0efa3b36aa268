/**
 * The test environment: one uv virtual environment per project, holding the test dependencies
 * and the project's runtime dependencies but **not the project itself** (every tree under test
 * goes first on `PYTHONPATH` instead).
 *
 * The runtime dependencies are installed with `uv pip install -r <file>`, where `<file>` is the
 * project's `pyproject.toml`, `setup.py` or `setup.cfg` at HEAD: uv reads (or builds) the
 * project's metadata and installs what it declares, never the project's own distribution. This
 * beats installing the project and uninstalling it afterwards, which would break the environment
 * when the project is one of pytest's own dependencies (`packaging`, `pluggy`): removing it would
 * remove what pytest needs.
 *
 * Environments live in `BUGBOUT_HOME/envs/`, named by a key of everything that shapes them (the
 * interpreter, the test dependencies, the packaging files' content), and are reused by every
 * later run and every other bugbout process: building takes an exclusive file lock, and an
 * environment counts only once its manifest is written last. uv never downloads a Python.
 *
 * Requires `--allow-run` (uv, git, python), `--allow-read`, `--allow-write` (`BUGBOUT_HOME`) and
 * `--allow-env`.
 *
 * @module
 */

import { dirname, join, resolve } from "node:path";
import { z } from "../../deps.ts";
import { cachedTree, copyTree } from "../../checkout.ts";
import { BugboutError } from "../../errors.ts";
import { revParse } from "../../git.ts";
import { inputsKey } from "../../hash.ts";
import type { ToolsProject } from "../types.ts";
import { run } from "../../proc.ts";
import { writeJsonAtomic } from "../../store.ts";
import { dependencyFile, dependencyHash } from "./dependencies.ts";
import { type PythonChoice, resolvePython, uvEnv } from "./discover.ts";
import type { TestPython } from "./pytest.ts";
import { readTextIfExists, realPathIfExists, removeIfExists } from "../../fs.ts";

/** Bumped when the way environments are built changes, so old ones are not reused. */
const ENV_LAYOUT = 1;

/** A ready test environment. */
export interface TestEnv extends TestPython {
  /** Key of the inputs that shaped it. */
  key: string;
  /** `uv`: built by bugbout; `interpreter`: the configured Python, used as it is. */
  kind: "uv" | "interpreter";
  /** The interpreter to run tests with. */
  python: string;
  /** Its Python version. */
  version: string;
  /** `sys.prefix`: the environment's directory for `uv`. */
  prefix: string;
  /** Real host paths the tests must read: the environment and its base interpreter's prefix. */
  readable: string[];
  /** pytest's version in the environment. */
  pytestVersion: string;
  /** Top-level non-standard modules pytest imports for itself. */
  pytestImports: string[];
  /** The project file the runtime dependencies came from, or null when none were installed. */
  dependencies: string | null;
  /** What was used in place of what was asked for, in lines (absent: nothing). */
  notes?: string[];
}

/** What shapes an environment (from `[project]` in `bugbout.toml`). */
export interface EnvRequest {
  /** `BUGBOUT_HOME`. */
  home: string;
  /** The repository (bare or not). */
  repository: string;
  /** The package directory relative to the repository root, to find the packaging files. */
  source: string;
  /** `python`: the version to build with. */
  python?: string;
  /** `interpreter`: an existing Python to use as it is. */
  interpreter?: string;
  /** `test-dependencies`. */
  testDependencies: readonly string[];
  /** `install-project`. */
  installProject: boolean;
  /** Where relative paths in `test-dependencies` start (bugbout.toml's directory). */
  cwd?: string;
  /** Where environments live. Default `<home>/envs`. */
  envsDir?: string;
  /** The revision whose packaging files declare the runtime dependencies. Default `HEAD`. */
  revision?: string;
  /** Stop a long build. */
  signal?: AbortSignal;
  /** Called when the environment is built, not when an existing one is reused. */
  onBuilding?: () => void;
}

/** The request for a project's environment, from its configuration. */
export function envRequest(project: ToolsProject, signal?: AbortSignal): EnvRequest {
  const p = project.config.project;
  return {
    home: project.home,
    repository: project.repository,
    source: p.source,
    python: p.python,
    interpreter: p.interpreter,
    testDependencies: p.testDependencies,
    installProject: p.installProject,
    cwd: project.config.root,
    signal,
  };
}

const manifestSchema = z.object({
  layout: z.literal(ENV_LAYOUT),
  key: z.string(),
  python: z.string(),
  version: z.string(),
  prefix: z.string(),
  readable: z.array(z.string()),
  pytestVersion: z.string(),
  pytestImports: z.array(z.string()),
  dependencies: z.string().nullable(),
  testDependencies: z.array(z.string()),
  created: z.string(),
});
const MANIFEST = "bugbout-env.json";

const PROBE = `
import contextlib, io, json, os, platform, site, sys
info = {"version": platform.python_version(), "prefix": sys.prefix,
        "prefixes": [sys.prefix, sys.exec_prefix, getattr(sys, "base_prefix", sys.prefix),
                     getattr(sys, "base_exec_prefix", sys.exec_prefix)],
        "site": list(site.getsitepackages()) if hasattr(site, "getsitepackages") else []}
sink = io.StringIO()
try:
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        import pytest
        pytest.main(["--version"])
    info["pytest"] = pytest.__version__
except BaseException as error:
    info["pytestError"] = repr(error)
roots = [os.path.realpath(p) for p in info["site"]]
mods = set()
for name, module in list(sys.modules.items()):
    path = getattr(module, "__file__", None)
    if "." in name or not path:
        continue
    path = os.path.realpath(path)
    if any(path.startswith(root + os.sep) for root in roots):
        mods.add(name)
info["pytestImports"] = sorted(mods - {"pytest", "_pytest"})
print(json.dumps(info))
`;

interface Probe {
  version: string;
  prefix: string;
  prefixes: string[];
  site: string[];
  pytest?: string;
  pytestError?: string;
  pytestImports: string[];
}

async function probe(python: string, signal?: AbortSignal): Promise<Probe> {
  const dir = await Deno.makeTempDir({ prefix: "bugbout-probe-" });
  try {
    const result = await run([python, "-c", PROBE], {
      cwd: dir,
      env: { PATH: `${dirname(python)}:/usr/local/bin:/usr/bin:/bin`, LANG: "C.UTF-8" },
      clearEnv: true,
      timeoutMs: 120_000,
      signal,
    });
    return JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "");
  } finally {
    await removeIfExists(dir);
  }
}

/** Real paths of `paths`, without duplicates or paths inside another of them. */
async function realRoots(paths: readonly string[]): Promise<string[]> {
  const real: string[] = [];
  for (const p of paths) {
    // A prefix that does not exist needs no mount.
    const path = await realPathIfExists(p);
    if (path) real.push(path);
  }
  const unique = [...new Set(real)];
  return unique.filter((p) => !unique.some((q) => q !== p && p.startsWith(q + "/")));
}

const building = new Map<string, Promise<TestEnv>>();

/**
 * The project's test environment, built on first use and reused afterwards (by this process and
 * any other). With `interpreter`, nothing is built: that Python is probed and used as it is.
 * Throws a {@linkcode BugboutError} with uv's output and what to change in `bugbout.toml` when
 * the environment cannot be built.
 */
export function ensureTestEnv(request: EnvRequest): Promise<TestEnv> {
  if (request.interpreter) return interpreterEnv(request.interpreter, request.signal);
  return uvTestEnv(request);
}

async function interpreterEnv(interpreter: string, signal?: AbortSignal): Promise<TestEnv> {
  let info: Probe;
  try {
    info = await probe(interpreter, signal);
  } catch (error) {
    throw new BugboutError(
      `[project] interpreter ${interpreter} cannot run: ${(error as Error).message}`,
      { hint: "Point interpreter in bugbout.toml at a working python executable, or remove it." },
    );
  }
  if (!info.pytest) {
    throw new BugboutError(
      `[project] interpreter ${interpreter} cannot import pytest: ${info.pytestError}`,
      { hint: `Install pytest for that Python, or remove interpreter from bugbout.toml.` },
    );
  }
  const python = (await realPathIfExists(interpreter)) ?? interpreter;
  return {
    key: inputsKey({ python, version: info.version, pytest: info.pytest }),
    kind: "interpreter",
    python: interpreter,
    version: info.version,
    prefix: info.prefix,
    readable: await realRoots([...info.prefixes, ...info.site, python]),
    pytestVersion: info.pytest,
    pytestImports: info.pytestImports,
    dependencies: null,
  };
}

async function uvTestEnv(request: EnvRequest): Promise<TestEnv> {
  const head = await revParse(request.repository, request.revision ?? "HEAD");
  const tree = await cachedTree(request.repository, head, {
    home: request.home,
    signal: request.signal,
  });
  const choice = await resolvePython(tree, { python: request.python });
  const file = request.installProject ? await dependencyFile(tree, request.source) : null;
  const key = inputsKey({
    layout: ENV_LAYOUT,
    python: (await realPathIfExists(choice.path)) ?? choice.path,
    version: choice.version,
    testDependencies: request.testDependencies,
    installProject: request.installProject,
    dependencies: await dependencyHash(tree, file),
  });
  const dir = resolve(request.envsDir ?? join(request.home, "envs"), `py${choice.version}-${key}`);
  let pending = building.get(dir);
  if (!pending) {
    pending = lockedBuild(dir, () => {
      request.onBuilding?.();
      return build(dir, key, choice, request, tree, file);
    });
    building.set(dir, pending);
    pending.catch(() => building.delete(dir));
  }
  return await pending;
}

async function readManifest(dir: string): Promise<TestEnv | undefined> {
  // An environment counts only once its manifest is written, last: no manifest, not built.
  const text = await readTextIfExists(join(dir, MANIFEST));
  if (text === undefined) return undefined;
  try {
    const data = manifestSchema.parse(JSON.parse(text));
    return {
      key: data.key,
      kind: "uv",
      python: data.python,
      version: data.version,
      prefix: data.prefix,
      readable: data.readable,
      pytestVersion: data.pytestVersion,
      pytestImports: data.pytestImports,
      dependencies: data.dependencies,
    };
  } catch (error) {
    // A manifest of an older bugbout, or garbled: the environment is built again.
    if (error instanceof SyntaxError || error instanceof z.ZodError) return undefined;
    throw error;
  }
}

async function lockedBuild(dir: string, make: () => Promise<TestEnv>): Promise<TestEnv> {
  const ready = await readManifest(dir);
  if (ready) return ready;
  await Deno.mkdir(dirname(dir), { recursive: true });
  using lock = await Deno.open(`${dir}.lock`, { create: true, write: true });
  await lock.lock(true);
  try {
    // Another process may have built it while this one waited for the lock.
    const built = await readManifest(dir);
    if (built) return built;
    await removeIfExists(dir);
    try {
      return await make();
    } catch (error) {
      await removeIfExists(dir);
      throw error;
    }
  } finally {
    await lock.unlock();
  }
}

async function uv(args: string[], options: { cwd?: string; signal?: AbortSignal }) {
  try {
    return await run(["uv", ...args], {
      cwd: options.cwd,
      // The project's metadata is built from a copy without `.git`: a version taken from git
      // (setuptools-scm, hatch-vcs, versioneer) needs a stand-in, which changes no dependency.
      env: uvEnv({ SETUPTOOLS_SCM_PRETEND_VERSION: "0.0.0" }),
      clearEnv: true,
      okCodes: "any",
      timeoutMs: 1_800_000,
      signal: options.signal,
    });
  } catch (error) {
    throw new BugboutError(`Cannot run uv: ${(error as Error).message}`, {
      hint: "Install uv (pip install uv, or see https://docs.astral.sh/uv/).",
    });
  }
}

async function build(
  dir: string,
  key: string,
  choice: PythonChoice,
  request: EnvRequest,
  tree: string,
  file: string | null,
  pinned?: string,
): Promise<TestEnv> {
  const venv = await uv(["venv", "--quiet", "--no-project", "--python", choice.path, dir], {
    cwd: dirname(dir),
    signal: request.signal,
  });
  if (venv.code !== 0) {
    throw new BugboutError(
      `Cannot create the test environment with Python ${choice.version} (${choice.path}):\n${venv.stderr.trim()}`,
      {
        hint:
          "Set [project] python in bugbout.toml to a version this machine has (`uv python list --only-installed`), or set interpreter to an existing Python.",
      },
    );
  }
  const python = join(dir, "bin", "python");
  // Building a project's metadata may write into its tree (`*.egg-info`): use a scratch copy.
  const scratch = await Deno.makeTempDir({ prefix: "bugbout-deps-" });
  try {
    const args = ["pip", "install", "--python", python];
    if (pinned !== undefined) {
      await Deno.writeTextFile(join(scratch, "pinned.txt"), pinned);
      args.push("-r", join(scratch, "pinned.txt"));
    } else args.push(...request.testDependencies);
    if (file !== null && pinned === undefined) {
      await copyTree(tree, join(scratch, "tree"), request.signal);
      args.push("-r", join(scratch, "tree", file));
    }
    const install = await uv(args, { cwd: request.cwd ?? scratch, signal: request.signal });
    if (install.code !== 0) {
      const what = pinned !== undefined
        ? "the dependencies resolved for this commit"
        : file === null
        ? "the test dependencies"
        : `the test dependencies and the project's runtime dependencies (declared in ${file})`;
      throw new BugboutError(
        `Cannot build the test environment: uv could not install ${what}:\n${install.stderr.trim()}`,
        {
          hint: file === null
            ? "Fix [project] test-dependencies in bugbout.toml so that `uv pip install` accepts each entry."
            : "Fix [project] test-dependencies in bugbout.toml, or set install-project = false there and list everything the tests need in test-dependencies.",
        },
      );
    }
  } finally {
    await removeIfExists(scratch);
  }
  const info = await probe(python, request.signal);
  if (!info.pytest) {
    throw new BugboutError(
      `The test environment cannot import pytest: ${info.pytestError}`,
      { hint: `Add "pytest" to [project] test-dependencies in bugbout.toml.` },
    );
  }
  const env: TestEnv = {
    key,
    kind: "uv",
    python,
    version: info.version,
    prefix: info.prefix,
    readable: await realRoots([dir, ...info.prefixes]),
    pytestVersion: info.pytest,
    pytestImports: info.pytestImports,
    dependencies: file,
  };
  await writeJsonAtomic(join(dir, MANIFEST), {
    ...env,
    ...(pinned !== undefined ? { pinned } : {}),
    layout: ENV_LAYOUT,
    testDependencies: request.testDependencies,
    created: new Date().toISOString(),
  });
  return env;
}

/** What {@linkcode ensurePinnedEnv} builds: an exact requirement set for one interpreter. */
export interface PinnedRequest {
  /** The request it stands in for (home, where environments live, cwd, signal). */
  request: EnvRequest;
  /** The interpreter. */
  choice: PythonChoice;
  /** The resolved requirements, one pinned line each (`uv pip compile`'s output). */
  pinned: string;
  /** The packaging file the runtime dependencies came from, or null. */
  dependencies: string | null;
}

/**
 * The environment of an exact requirement set, shared by every commit that resolves to the same
 * set with the same interpreter: built on first use (under the same lock as
 * {@linkcode ensureTestEnv}'s), reused afterwards.
 */
export async function ensurePinnedEnv(p: PinnedRequest): Promise<TestEnv> {
  const python = (await realPathIfExists(p.choice.path)) ?? p.choice.path;
  const key = inputsKey({
    layout: ENV_LAYOUT,
    python,
    version: p.choice.version,
    pinned: p.pinned,
  });
  const home = p.request.envsDir ?? join(p.request.home, "envs");
  const dir = resolve(home, `at-py${p.choice.version}-${key}`);
  let pending = building.get(dir);
  if (!pending) {
    const file = p.dependencies;
    pending = lockedBuild(dir, () => build(dir, key, p.choice, p.request, "", file, p.pinned))
      .then((env) => ({ ...env, dependencies: file }));
    building.set(dir, pending);
    pending.then(() => building.delete(dir), () => building.delete(dir));
  }
  const env = await pending;
  // Last use decides which environments a bound on their number keeps.
  const now = new Date();
  await Deno.utime(join(dir, MANIFEST), now, now).catch(() => {});
  return env;
}

/** The test environment of a project (see {@linkcode ensureTestEnv}). */
export function testEnvFor(project: ToolsProject, signal?: AbortSignal): Promise<TestEnv> {
  return ensureTestEnv(envRequest(project, signal));
}
