/**
 * Run groups of JS/TS tests on a tree in the sandbox, each group in a sandboxed process of its
 * own with no network, and read what happened from the harness's signed channel alone (see
 * `_harness.ts` and `channel.ts`): never from the runner's own output or a report file, which the
 * code under test could write.
 *
 * Before each group the tree's `node_modules` is made afresh from links into the prepared
 * environment (see `install.ts`), so that a group that replaced it cannot hand the next group
 * another runner.
 *
 * Requires `--allow-run` (the sandbox), `--allow-read` and `--allow-write` (the tree, the scratch
 * directory).
 *
 * @module
 */

import { join } from "node:path";
import { InterruptedError } from "../../errors.ts";
import { readTextIfExists, removeIfExists } from "../../fs.ts";
import { mergeGroups } from "../results.ts";
import type { Outcome, RunStatus } from "../../records.ts";
import type { RunnerGroupRun, RunnerRun, RunnerRunOptions } from "../types.ts";
import {
  HARNESS_FILE,
  HARNESS_SOURCE,
  JEST_REPORTER_FILE,
  JEST_REPORTER_SOURCE,
} from "./_harness.ts";
import { type NodeChannel, readNodeChannel } from "./channel.ts";
import { testId } from "./changed_tests.ts";
import type { NodeRunnerKind } from "./detect.ts";
import { escapeRegExp } from "../glob.ts";
import { nodeFileOf } from "./paths.ts";

/** Test worker processes per group: few, so that a busy machine still keeps time. */
const WORKERS = 2;
/** The most of a group's stdout kept on disk. */
const CHANNEL_CAP = 256 * 1024 * 1024;

/** What one group asks for: files to run, and the name pattern that selects tests in them. */
export interface Selection {
  /** Files to run (relative), in the order first named. */
  files: string[];
  /** Ids asked for one by one. */
  ids: Set<string>;
  /** Files asked for whole. */
  wholeFiles: Set<string>;
  /** The runner's name pattern (vitest, jest: full names), or null to run whole files. */
  pattern: string | null;
  /** `node --test` name patterns (each test's own name, ancestors included). */
  nodePatterns: string[];
}

/** The files and name patterns of a group of ids and files. Pure. */
export function selectionOf(group: readonly string[]): Selection {
  const files: string[] = [];
  const ids = new Set<string>();
  const wholeFiles = new Set<string>();
  const names: string[] = [];
  const leaves = new Set<string>();
  for (const item of group) {
    const file = nodeFileOf(item);
    if (!files.includes(file)) files.push(file);
    if (file === item) {
      wholeFiles.add(file);
      continue;
    }
    ids.add(item);
    const path = item.slice(file.length + 3).split(" > ");
    names.push(escapeRegExp(path.join(" ")));
    for (const name of path) leaves.add(escapeRegExp(name));
  }
  // A whole file in the group: no pattern may narrow what runs.
  const narrow = wholeFiles.size === 0 && names.length > 0;
  return {
    files,
    ids,
    wholeFiles,
    pattern: narrow ? `(?:^|\\s)(?:${names.join("|")})$` : null,
    nodePatterns: narrow ? [`^(?:${[...leaves].join("|")})$`] : [],
  };
}

/**
 * Make `tree/node_modules` afresh: a directory of links, one to each top-level entry of the
 * environment's (a scope such as `@vitest` whole). The directory itself stays writable, for the
 * caches tools keep there (`.vite-temp`, `.vite`, `.cache`); what a group left there is gone
 * before the next group starts.
 */
async function linkModules(tree: string, nodeModules: string): Promise<void> {
  const dir = join(tree, "node_modules");
  await removeIfExists(dir);
  await Deno.mkdir(dir);
  for await (const entry of Deno.readDir(nodeModules)) {
    if (entry.name === ".package-lock.json" || entry.name === ".modules.yaml") continue;
    await Deno.symlink(join(nodeModules, entry.name), join(dir, entry.name));
  }
}

/** Turn a group's channel and exit into its outcomes. Pure. */
export function classifyGroup(input: {
  channel: NodeChannel;
  selection: Selection;
  timedOut: boolean;
  limit?: string;
  exitCode: number | null;
  trustPartial: boolean;
  output: string;
  timeoutMs: number;
}): RunnerGroupRun {
  const { channel, selection } = input;
  const base = { tamper: channel.tamper, suspect: channel.suspect };
  if (channel.tamper.length) {
    return {
      ...base,
      status: "tampered",
      complete: false,
      outcomes: {},
      durations: {},
      message: `The code under test ${channel.tamper[0].what}: no outcome of this group is kept.`,
    };
  }
  let status: RunStatus = "ok";
  let message: string | undefined;
  if (input.timedOut) {
    status = "timeout";
    message = `The group did not finish within ${Math.round(input.timeoutMs / 1000)}s.`;
  } else if (input.limit === "memory") {
    status = "out-of-memory";
    message = "The group went over its memory limit.";
  } else if (!channel.hello) {
    status = "infra-error";
    message = `Infrastructure error: the harness did not start (exit code ${input.exitCode}): ${
      input.output.trim().split("\n").slice(-3).join(" ")
    }`;
  } else if (channel.crash) {
    status = "infra-error";
    message = `${channel.hello.runner} could not run this tree: ${channel.crash}`;
  } else if (!channel.end) {
    status = "infra-error";
    message = `The harness ended before ${channel.hello.runner} was done (exit code ${
      input.exitCode ?? "none"
    }): something in the run stopped it.`;
  }
  const complete = status === "ok";
  const keepPasses = complete || input.trustPartial;
  const outcomes: Record<string, Outcome> = {};
  const durations: Record<string, number> = {};
  const failures: Record<string, string> = {};
  const rank: Record<Outcome, number> = {
    error: 5,
    failed: 4,
    xfailed: 3,
    passed: 2,
    skipped: 1,
    "not-run": 0,
  };
  for (const t of channel.tests) {
    const id = testId(t.file, t.path);
    if (!selection.ids.has(id) && !selection.wholeFiles.has(t.file)) continue;
    let outcome = t.outcome;
    if (outcome === "passed" && !keepPasses) outcome = "not-run";
    // The same name twice in a file: the worse outcome stands.
    if (outcomes[id] && rank[outcomes[id]] >= rank[outcome]) continue;
    outcomes[id] = outcome;
    if (outcome !== "not-run") durations[id] = t.ms;
    if (t.message && (outcome === "failed" || outcome === "error")) failures[id] = t.message;
  }
  for (const [file, error] of channel.fileErrors) {
    if (!selection.files.includes(file)) continue;
    outcomes[file] = "error";
    failures[file] = error;
  }
  for (const id of selection.ids) {
    if (outcomes[id]) continue;
    const file = nodeFileOf(id);
    outcomes[id] = channel.fileErrors.has(file) ? "error" : "not-run";
    if (channel.fileErrors.has(file)) failures[id] = channel.fileErrors.get(file)!;
  }
  for (const file of selection.wholeFiles) {
    if (!Object.keys(outcomes).some((id) => nodeFileOf(id) === file)) outcomes[file] = "not-run";
  }
  if (status === "ok" && channel.notes.length) {
    base.suspect = [...base.suspect, {
      what: "raised an error outside any test",
      where: "the run",
      detail: channel.notes[0],
    }];
  }
  return {
    ...base,
    status,
    complete,
    outcomes,
    durations,
    ...(Object.keys(failures).length ? { failures } : {}),
    ...(message ? { message } : {}),
  };
}

/**
 * Run `options.groups` with `runner` on `options.tree`; never throws for what the tree does,
 * throws {@linkcode InterruptedError} when `options.signal` aborts.
 */
export async function runNodeTests(
  runner: NodeRunnerKind,
  options: RunnerRunOptions,
): Promise<RunnerRun> {
  const started = performance.now();
  const tree = await Deno.realPath(options.tree);
  if (options.scratch) await Deno.mkdir(options.scratch, { recursive: true });
  const runDir = await Deno.realPath(
    await Deno.makeTempDir({ dir: options.scratch, prefix: "node-run-" }),
  );
  const groups: RunnerGroupRun[] = [];
  try {
    await Deno.writeTextFile(join(runDir, HARNESS_FILE), HARNESS_SOURCE, { mode: 0o644 });
    await Deno.writeTextFile(join(runDir, JEST_REPORTER_FILE), JEST_REPORTER_SOURCE, {
      mode: 0o644,
    });
    await Deno.chmod(runDir, 0o755);
    const nodeModules = options.env.env.NODE_PATH;
    for (const [index, group] of options.groups.entries()) {
      if (options.signal?.aborted) throw new InterruptedError();
      groups.push(
        await runGroup({ runner, options, tree, runDir, nodeModules, group, index }),
      );
    }
  } finally {
    await removeIfExists(runDir);
  }
  return mergeGroups(groups, Math.round(performance.now() - started));
}

async function runGroup(input: {
  runner: NodeRunnerKind;
  options: RunnerRunOptions;
  tree: string;
  runDir: string;
  nodeModules: string | undefined;
  group: readonly string[];
  index: number;
}): Promise<RunnerGroupRun> {
  const { options, tree, runDir } = input;
  const selection = selectionOf(input.group);
  const failed = (message: string): RunnerGroupRun => ({
    status: "infra-error",
    complete: false,
    outcomes: {},
    durations: {},
    message,
    tamper: [],
    suspect: [],
  });
  if (!input.nodeModules) {
    return failed("Infrastructure error: the environment names no node_modules (NODE_PATH).");
  }
  await linkModules(tree, input.nodeModules);
  const key = [...crypto.getRandomValues(new Uint8Array(32))]
    .map((b) => b.toString(16).padStart(2, "0")).join("");
  // The channel's copy on disk lies outside every directory the run can see.
  const channelFile = `${runDir}-${input.index}.out`;
  const settings = JSON.stringify({
    key,
    runner: input.runner,
    root: tree,
    nodeModules: input.nodeModules,
    files: selection.files,
    pattern: selection.pattern,
    nodePatterns: selection.nodePatterns,
    jestReporter: join(runDir, JEST_REPORTER_FILE),
    maxWorkers: WORKERS,
  });
  try {
    let result;
    try {
      result = await options.sandbox.run(["node", join(runDir, HARNESS_FILE)], {
        workdir: tree,
        writable: [],
        readable: [...options.env.readable, runDir],
        deny: options.deny ? [...options.deny] : undefined,
        network: "none",
        env: { ...options.env.env, ...options.extraEnv, NODE_PATH: input.nodeModules },
        stdin: settings,
        timeoutMs: options.timeoutMs,
        ...(options.memoryMb ? { limits: { memoryMb: options.memoryMb } } : {}),
        maxOutputBytes: 256 * 1024,
        stdoutLog: { path: channelFile, capBytes: CHANNEL_CAP },
        signal: options.signal,
      });
    } catch (error) {
      if (options.signal?.aborted) throw new InterruptedError();
      return failed(
        `Infrastructure error: the sandbox could not run the tests: ${(error as Error).message}`,
      );
    }
    if (result.aborted || options.signal?.aborted) throw new InterruptedError();
    const channel = readNodeChannel((await readTextIfExists(channelFile)) ?? "", key);
    return classifyGroup({
      channel,
      selection,
      timedOut: result.timedOut,
      limit: result.limit,
      exitCode: result.code,
      trustPartial: options.trustPartial ?? false,
      output: result.stderr.slice(-4096),
      timeoutMs: options.timeoutMs,
    });
  } finally {
    await removeIfExists(channelFile);
  }
}
