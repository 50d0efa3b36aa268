/**
 * Run pytest on a tree, sandboxed, under bugbout's guard (`_guard.ts`), and read what happened
 * from the guard's results channel alone (`channel.ts`, `classify.ts`).
 *
 * The tree's `pythonPath` directories come first on `PYTHONPATH`, so the code under test is
 * always the tree's, whatever the environment holds. The project's `addopts` are ignored
 * (`-o addopts=`), the cache provider is off, and the command runs with no network, writing only
 * the tree. Groups of targets run in processes of their own within the one session.
 *
 * Requires `--allow-run` (the sandbox, python), `--allow-read` and `--allow-write` (the tree,
 * the run directory).
 *
 * @module
 */

import { dirname, join } from "node:path";
import { InterruptedError } from "../../errors.ts";
import type { Sandbox } from "../../sandbox/types.ts";
import { readDirIfExists, readTextIfExists, removeIfExists } from "../../fs.ts";
import { inputsKey } from "../../hash.ts";
import { GUARD_SOURCE, LAUNCHER_FILE, launcherSource } from "./_guard.ts";
import { readChannel } from "./channel.ts";
import { classifyRun, type PytestRun } from "./classify.ts";

/**
 * What identifies the harness sessions run under (the guard's source): part of every saved
 * result's key, so a result made under another guard is made again.
 */
export const HARNESS_KEY: string = inputsKey([GUARD_SOURCE, launcherSource("", "")]);

/** The most of a results channel kept on disk (60,000 tests take about 15 MB). */
const CHANNEL_CAP = 512 * 1024 * 1024;

export type { GroupRun, InfraCause, PytestRun } from "./classify.ts";

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
  /** Test files or node ids, relative to the tree (one group). */
  targets: readonly string[];
  /**
   * Groups of targets, each run by pytest in a process of its own so that no group can reach
   * another's tests (one author's each); `targets` is then ignored.
   */
  groups?: readonly (readonly string[])[];
  /**
   * Keep the passes of a session cut short (timeout, memory, crash). Only for code that is
   * trusted, as the ground truth's is (the maintainers'); by default a cut-short session yields
   * no pass at all.
   */
  trustPartial?: boolean;
  /**
   * Stop and call it tampering when a group changes files of the tree that decide what Python
   * runs (default true; the ground truth runs the maintainers' tests, which may write anything).
   */
  watchTree?: boolean;
  /** Directories of the tree (relative) to put first on `PYTHONPATH`. Default `["."]`. */
  pythonPath?: readonly string[];
  /** `[project] pytest-args`. */
  pytestArgs?: readonly string[];
  /** `[project] env`. */
  extraEnv?: Record<string, string>;
  /** Tests (node ids) whose view of the code under test to record (`_observing` in the guard). */
  observe?: readonly string[];
  /** Indexes of the groups whose coverage by test to record (`_covering` in the guard). */
  cover?: readonly number[];
  /** Wall-clock limit of each group's run, in milliseconds. */
  timeoutMs: number;
  /** Address-space cap, in MiB. */
  memoryMb?: number;
  /** Host paths that must stay unreadable (the repository, `BUGBOUT_HOME`, results). */
  deny?: readonly string[];
  /** Where to make the run's own directory (the guard). Default: system temp. */
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

/** The pytest flags of every session (before `[project] pytest-args` and the targets). Pure. */
export function pytestFlags(rootdir: string): string[] {
  return [
    "-p",
    "no:cacheprovider",
    "-o",
    "addopts=",
    `--rootdir=${rootdir}`,
    "--continue-on-collection-errors",
    "--tb=short",
  ];
}

/** `bytes` random bytes, in hex. */
function randomHex(bytes: number): string {
  return [...crypto.getRandomValues(new Uint8Array(bytes))]
    .map((b) => b.toString(16).padStart(2, "0")).join("");
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
  // The channel's copy on disk lies outside every directory the session can see.
  const channelFile = `${runDir}.channel`;
  const groups = options.groups?.length ? options.groups : [options.targets];
  try {
    // The guard runs as a module of a name of this session's own, started by a launcher.
    const name = `_bugbout_${randomHex(8)}`;
    const guard = join(runDir, `${name}.py`);
    const launcher = join(runDir, LAUNCHER_FILE);
    await Deno.writeTextFile(guard, GUARD_SOURCE, { mode: 0o644 });
    await Deno.writeTextFile(launcher, launcherSource(name, guard), { mode: 0o644 });

    // Readable by whichever user the sandbox runs the session as; nothing in it is secret.
    await Deno.chmod(runDir, 0o755);
    const pythonPath = options.pythonPath?.length ? options.pythonPath : ["."];
    const theirs = options.extraEnv?.PYTHONPATH;
    const env: Record<string, string> = {
      PATH: `${dirname(options.env.python)}:/usr/local/bin:/usr/bin:/bin`,
      LANG: "C.UTF-8",
      ...options.extraEnv,
      // (The guard removes the bytecode a tree holds; nothing may write more.)
      PYTHONDONTWRITEBYTECODE: "1",
      PYTHONPATH: [
        ...pythonPath.map((p) => (p === "." ? tree : join(tree, p))),
        ...(theirs ? [theirs] : []),
      ].join(":"),
    };
    // The secret travels on stdin, which the guard reads and closes before the tree's code runs.
    const key = randomHex(32);
    const settings = JSON.stringify({
      key,
      rootdir: tree,
      args: [...pytestFlags(tree), ...options.pytestArgs ?? []],
      groups: groups.map((g) => [...g]),
      groupTimeout: options.timeoutMs / 1000,
      watch: options.watchTree ?? true,
      observe: [...options.observe ?? []],
      cover: [...options.cover ?? []],
    });
    let result;
    try {
      result = await options.sandbox.run([options.env.python, launcher], {
        workdir: tree,
        writable: [],
        readable: [...options.env.readable, runDir],
        deny: options.deny ? [...options.deny] : undefined,
        network: "none",
        env,
        stdin: settings,
        // The guard gives each group the limit; this only ends a guard that itself went astray.
        timeoutMs: options.timeoutMs * groups.length + 30_000,
        memoryMb: options.memoryMb,
        maxOutputBytes: 256 * 1024,
        stdoutLog: { path: channelFile, capBytes: CHANNEL_CAP },
        signal: options.signal,
      });
    } catch (error) {
      if (options.signal?.aborted) throw new InterruptedError();
      const message = `Infrastructure error: the sandbox could not run pytest: ${
        (error as Error).message
      }`;
      const failed = {
        status: "infra-error" as const,
        cause: "sandbox" as const,
        outcomes: {},
        durations: {},
        message,
        tamper: [],
        suspect: [],
      };
      return {
        ...failed,
        exitCode: null,
        durationMs: 0,
        groups: groups.map(() => ({ ...failed, complete: false, unreached: true })),
      };
    }
    if (result.aborted || options.signal?.aborted) throw new InterruptedError();
    const channel = readChannel((await readTextIfExists(channelFile)) ?? "", key, groups.length);
    let sharedModules: string[] = [];
    if (!channel.hello && options.env.pytestImports?.length) {
      const provided = await treeModules(tree, pythonPath);
      sharedModules = options.env.pytestImports.filter((m) => provided.has(m));
    }
    return classifyRun({
      exitCode: result.code,
      timedOut: result.timedOut,
      timeoutMs: options.timeoutMs,
      memoryMb: options.memoryMb,
      channel,
      trustPartial: options.trustPartial ?? false,
      output: result.stderr.slice(-16384),
      sharedModules,
      durationMs: result.durationMs,
    });
  } finally {
    if (!options.keepRunDir) await removeIfExists(runDir);
    await removeIfExists(channelFile);
  }
}
