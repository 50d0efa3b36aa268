/**
 * Run pytest on a tree, sandboxed, and read what happened from its JUnit XML.
 *
 * The tree's `pythonPath` directories come first on `PYTHONPATH`, so the code under test is
 * always the tree's, whatever the environment holds. The project's `addopts` are ignored
 * (`-o addopts=`), the cache provider is off, the JUnit XML (family `xunit1`, which keeps each
 * test's file) and a progress log are written outside the tree, and the command runs with no
 * network, writing only the tree and its own run directory.
 *
 * Requires `--allow-run` (the sandbox, python), `--allow-read` and `--allow-write` (the tree,
 * the run directory).
 *
 * @module
 */

import { dirname, join } from "node:path";
import { InterruptedError } from "../errors.ts";
import type { Sandbox } from "../sandbox/types.ts";
import { PLUGIN_MODULE, PLUGIN_SOURCE, PROGRESS_ENV } from "./_progress_plugin.ts";
import { classifyRun, parseProgress, type PytestRun } from "./classify.ts";
import { readDirIfExists, removeIfExists } from "../fs.ts";

export type { InfraCause, PytestRun } from "./classify.ts";

/** The Python that runs tests: an environment from `env.ts`, or anything shaped like one. */
export interface TestPython {
  /** The interpreter to run (`<env>/bin/python`). */
  python: string;
  /** Host paths the tests must be able to read: the environment and its base interpreter. */
  readable: string[];
  /** Top-level modules pytest imports for itself (to explain a crash the tree causes). */
  pytestImports?: string[];
}

/** Options for {@linkcode runPytest}. */
export interface PytestOptions {
  /** The sandbox every test command runs in. */
  sandbox: Sandbox;
  /** The environment's Python. */
  env: TestPython;
  /** The tree to test (a private copy: tests may write into it). Also pytest's rootdir. */
  tree: string;
  /** Test files or node ids, relative to the tree. */
  targets: readonly string[];
  /** Directories of the tree (relative) to put first on `PYTHONPATH`. Default `["."]`. */
  pythonPath?: readonly string[];
  /** `[project] pytest-args`. */
  pytestArgs?: readonly string[];
  /** `[project] env`. */
  extraEnv?: Record<string, string>;
  /** Wall-clock limit of the session, in milliseconds. */
  timeoutMs: number;
  /** Address-space cap, in MiB. */
  memoryMb?: number;
  /** Host paths that must stay unreadable (the repository, `BUGBOUT_HOME`, results). */
  deny?: readonly string[];
  /** Where to make the run's own directory (JUnit XML, progress log). Default: system temp. */
  scratch?: string;
  /** Keep the run directory (for debugging); it is removed by default. */
  keepRunDir?: boolean;
  /** Stop the session; {@linkcode runPytest} then throws {@linkcode InterruptedError}. */
  signal?: AbortSignal;
}

/** Files a test target names (`tests/test_a.py::TestK::test_m` → `tests/test_a.py`). */
export function targetFile(target: string): string {
  const at = target.indexOf("::");
  return at < 0 ? target : target.slice(0, at);
}

/** The pytest command line for one session (without the interpreter). Pure. */
export function pytestArgv(options: {
  junit: string;
  rootdir: string;
  targets: readonly string[];
  pytestArgs?: readonly string[];
}): string[] {
  return [
    "-m",
    "pytest",
    "-p",
    "no:cacheprovider",
    "-p",
    PLUGIN_MODULE,
    "-o",
    "addopts=",
    "-o",
    "junit_family=xunit1",
    "-o",
    "junit_logging=no",
    `--junitxml=${options.junit}`,
    `--rootdir=${options.rootdir}`,
    "--continue-on-collection-errors",
    "--tb=short",
    ...options.pytestArgs ?? [],
    "--",
    ...options.targets,
  ];
}

/** Top-level modules and packages a tree provides from its `PYTHONPATH` directories. */
async function treeModules(tree: string, pythonPath: readonly string[]): Promise<Set<string>> {
  const names = new Set<string>();
  for (const dir of pythonPath) {
    for (const entry of await readDirIfExists(join(tree, dir))) {
      if (entry.isDirectory && /^[A-Za-z_]\w*$/.test(entry.name)) names.add(entry.name);
      else if (entry.isFile && /^[A-Za-z_]\w*\.py$/.test(entry.name)) {
        names.add(entry.name.slice(0, -3));
      }
    }
  }
  return names;
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/**
 * Run one pytest session on `tree` for `targets` and read it: `{status, exitCode, outcomes,
 * durations, message, durationMs}`. Never throws for what the tree does (timeouts, memory,
 * crashes are in the result); throws {@linkcode InterruptedError} when `signal` aborts.
 */
export async function runPytest(options: PytestOptions): Promise<PytestRun> {
  const tree = await Deno.realPath(options.tree);
  if (options.scratch) await Deno.mkdir(options.scratch, { recursive: true });
  const runDir = await Deno.realPath(
    await Deno.makeTempDir({ dir: options.scratch, prefix: "pytest-" }),
  );
  try {
    const pluginDir = join(runDir, "plugin");
    await Deno.mkdir(pluginDir);
    await Deno.writeTextFile(join(pluginDir, `${PLUGIN_MODULE}.py`), PLUGIN_SOURCE);
    const junit = join(runDir, "junit.xml");
    const progressLog = join(runDir, "progress.jsonl");
    const pythonPath = options.pythonPath?.length ? options.pythonPath : ["."];
    const theirs = options.extraEnv?.PYTHONPATH;
    const env: Record<string, string> = {
      PATH: `${dirname(options.env.python)}:/usr/local/bin:/usr/bin:/bin`,
      LANG: "C.UTF-8",
      PYTHONDONTWRITEBYTECODE: "1",
      ...options.extraEnv,
      PYTHONPATH: [
        ...pythonPath.map((p) => (p === "." ? tree : join(tree, p))),
        pluginDir,
        ...(theirs ? [theirs] : []),
      ].join(":"),
      [PROGRESS_ENV]: progressLog,
    };
    const argv = [
      options.env.python,
      ...pytestArgv({
        junit,
        rootdir: tree,
        targets: options.targets,
        pytestArgs: options.pytestArgs,
      }),
    ];
    let result;
    try {
      result = await options.sandbox.run(argv, {
        workdir: tree,
        writable: [runDir],
        readable: [...options.env.readable],
        deny: options.deny ? [...options.deny] : undefined,
        network: "none",
        env,
        timeoutMs: options.timeoutMs,
        memoryMb: options.memoryMb,
        maxOutputBytes: 256 * 1024,
        signal: options.signal,
      });
    } catch (error) {
      if (options.signal?.aborted) throw new InterruptedError();
      return {
        status: "infra-error",
        cause: "sandbox",
        exitCode: null,
        outcomes: {},
        durations: {},
        message: `Infrastructure error: the sandbox could not run pytest: ${
          (error as Error).message
        }`,
        durationMs: 0,
      };
    }
    if (result.aborted || options.signal?.aborted) throw new InterruptedError();
    const junitText = await readIfExists(junit);
    const progress = parseProgress((await readIfExists(progressLog)) ?? "");
    let sharedModules: string[] = [];
    if (junitText === undefined && options.env.pytestImports?.length) {
      const provided = await treeModules(tree, pythonPath);
      sharedModules = options.env.pytestImports.filter((m) => provided.has(m));
    }
    return classifyRun({
      exitCode: result.code,
      timedOut: result.timedOut,
      timeoutMs: options.timeoutMs,
      memoryMb: options.memoryMb,
      junit: junitText,
      progress,
      files: options.targets.map(targetFile),
      output: `${result.stdout.slice(-8192)}\n${result.stderr.slice(-8192)}`,
      sharedModules,
      durationMs: result.durationMs,
    });
  } finally {
    if (!options.keepRunDir) await removeIfExists(runDir);
  }
}
