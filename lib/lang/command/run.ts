/**
 * One run of a `[command]` test command on a tree in the sandbox: each group in a process of its
 * own, its JUnit XML read afterwards for outcomes. The report is written by the process under
 * test, so what it says is taken as the run's word (see docs/languages.md for what that leaves
 * open); what is checked is that a fresh report exists, parses, and agrees with the exit code.
 *
 * Requires `--allow-run` (the sandbox), `--allow-read` and `--allow-write` (the scratch space
 * and the tree's old reports).
 *
 * @module
 */

import { mergeGroups } from "../results.ts";
import { join, relative } from "node:path";
import { InterruptedError } from "../../errors.ts";
import type { GuardEvent, Outcome } from "../../records.ts";
import type { RunnerGroupRun, RunnerRun, RunnerRunOptions } from "../types.ts";
import { globToRegExp } from "../glob.ts";
import { caseId, caseName, idFile, idName } from "./ids.ts";
import { type JUnitCase, parseJUnit } from "./junit.ts";
import { expandArgv } from "../../config_command.ts";

/** What a run needs of the runner. */
export interface CommandRunSpec {
  /** The runner's name, for messages. */
  name: string;
  /** The test command's argv, with placeholders. */
  test: readonly string[];
  /** `{report}`, or a glob relative to the tree of where the command writes its XML. */
  report: string;
  /** How a placeholder inside a longer argument joins its items. */
  join: string;
  /** Whether an entry of a group is a test file (else a test id). */
  isFile(entry: string): boolean;
}

const OUTPUT_CAP = 1024 * 1024;

/** Every file under `dir` (relative, `/`-separated), `.git` left out. */
async function walk(dir: string, base = dir, out: string[] = []): Promise<string[]> {
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name === ".git") continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory) await walk(path, base, out);
    else if (entry.isFile) out.push(relative(base, path).replaceAll("\\", "/"));
  }
  return out;
}

/** The last non-empty line of a process's output, for a failure's message. */
function lastLine(text: string): string {
  const lines = text.split("\n").map((l) => l.trim()).filter(Boolean);
  return (lines.find((l) => /error/i.test(l)) ?? lines.at(-1) ?? "").slice(0, 300);
}

/**
 * Run `options.groups` with the command of `spec`. Never throws for what the tree does; throws
 * {@linkcode InterruptedError} when `options.signal` aborts.
 */
export async function runTestCommand(
  spec: CommandRunSpec,
  options: RunnerRunOptions,
): Promise<RunnerRun> {
  const started = performance.now();
  const tree = await Deno.realPath(options.tree);
  if (options.scratch) await Deno.mkdir(options.scratch, { recursive: true });
  const runDir = await Deno.realPath(
    await Deno.makeTempDir({ dir: options.scratch, prefix: "command-run-" }),
  );
  try {
    const groups: RunnerGroupRun[] = [];
    for (const [index, group] of options.groups.entries()) {
      groups.push(await runGroup(spec, options, { tree, dir: join(runDir, `g${index}`) }, group));
    }
    return mergeGroups(groups, Math.round(performance.now() - started));
  } finally {
    await Deno.remove(runDir, { recursive: true }).catch(() => {});
  }
}

async function runGroup(
  spec: CommandRunSpec,
  options: RunnerRunOptions,
  place: { tree: string; dir: string },
  group: readonly string[],
): Promise<RunnerGroupRun> {
  await Deno.mkdir(place.dir, { recursive: true });
  // Writable by whichever user the sandbox runs the command as.
  await Deno.chmod(place.dir, 0o777);
  const whole = group.filter((e) => spec.isFile(e));
  const ids = group.filter((e) => !spec.isFile(e));
  // The command is given the files of the tests asked for too.
  const files = [...new Set([...whole, ...ids.map(idFile).filter((f) => spec.isFile(f))])];
  const report = join(place.dir, "report.xml");
  const pattern = spec.report === "{report}" ? undefined : globToRegExp(spec.report);
  // A report left in the tree by an earlier run (or committed) must not stand for this run's.
  if (pattern) {
    for (const path of await walk(place.tree)) {
      if (pattern.test(path)) await Deno.remove(join(place.tree, path));
    }
  }
  const argv = expandArgv(spec.test, {
    ids: ids.map(idName),
    names: ids.map(idName),
    files,
    report,
  }, spec.join);
  const done = (
    status: RunnerGroupRun["status"],
    more: Partial<RunnerGroupRun> = {},
  ): RunnerGroupRun => ({
    status,
    complete: status === "ok",
    outcomes: {},
    durations: {},
    tamper: [],
    suspect: [],
    ...more,
  });
  let result;
  try {
    result = await options.sandbox.run(argv, {
      workdir: place.tree,
      writable: [place.dir],
      readable: [...options.env.readable],
      deny: options.deny ? [...options.deny] : undefined,
      network: "none",
      env: {
        PATH: "/usr/local/bin:/usr/bin:/bin",
        LANG: "C.UTF-8",
        LC_ALL: "C.UTF-8",
        TZ: "UTC",
        HOME: place.dir,
        TMPDIR: place.dir,
        ...options.env.env,
        ...options.extraEnv,
      },
      timeoutMs: options.timeoutMs,
      memoryMb: options.memoryMb,
      maxOutputBytes: OUTPUT_CAP,
      signal: options.signal,
    });
    if (result.aborted || options.signal?.aborted) throw new InterruptedError();
  } catch (error) {
    if (options.signal?.aborted || error instanceof InterruptedError) throw new InterruptedError();
    return done("infra-error", {
      cause: "sandbox",
      message: `the sandbox could not run ${spec.name}: ${(error as Error).message}`,
    });
  }
  let cases: JUnitCase[] | undefined;
  let unreadable: string | undefined;
  const texts: string[] = [];
  if (pattern) {
    for (const path of await walk(place.tree)) {
      if (pattern.test(path)) texts.push(await Deno.readTextFile(join(place.tree, path)));
    }
  } else {
    const text = await Deno.readTextFile(report).catch(() => undefined);
    if (text !== undefined) texts.push(text);
  }
  if (texts.length) {
    try {
      cases = texts.flatMap((t) => parseJUnit(t));
    } catch (error) {
      unreadable = (error as Error).message;
    }
  }
  const output = `${result.stderr}\n${result.stdout}`;
  if (result.timedOut || result.limit === "memory") {
    const outcomes = cases ? pick(cases, place.tree, whole, ids).outcomes : {};
    return done(result.timedOut ? "timeout" : "out-of-memory", {
      outcomes,
      message: result.timedOut
        ? `${spec.name} did not finish in time`
        : `${spec.name} ran out of memory`,
    });
  }
  if (unreadable) {
    return done("infra-error", {
      cause: "harness",
      message: `${spec.name} wrote a report that is no JUnit XML: ${unreadable}`,
    });
  }
  if (!cases) {
    if (result.code === 0) {
      return done("infra-error", {
        cause: "harness",
        message: `${spec.name} exited 0 but wrote no JUnit XML report` +
          (pattern ? ` matching ${spec.report}` : ""),
      });
    }
    // The command stopped before any test (a build that failed): every entry asked for errs, the
    // same on every rerun of the tree.
    const why = `${spec.name} exited ${result.code} before writing its report: ${lastLine(output)}`;
    const outcomes: Record<string, Outcome> = {};
    const failures: Record<string, string> = {};
    for (const entry of group) {
      outcomes[entry] = "error";
      failures[entry] = why;
    }
    return done("ok", { outcomes, failures, message: why });
  }
  const picked = pick(cases, place.tree, whole, ids);
  const suspect: GuardEvent[] = [];
  const failed = Object.values(picked.outcomes).some((o) => o === "failed" || o === "error");
  if (result.code !== 0 && !cases.some((c) => c.outcome === "failed" || c.outcome === "error")) {
    suspect.push({
      what: `${spec.name} exited ${result.code} but its report says every test passed`,
      where: "",
      detail: lastLine(output),
    });
  } else if (result.code === 0 && failed) {
    suspect.push({
      what: `${spec.name} exited 0 but its report has failing tests`,
      where: "",
    });
  }
  return done("ok", { ...picked, suspect });
}

/**
 * The outcomes a group asked for: with test ids, those ids; with files, the tests the report
 * puts in them (every test, when the report names no file); with neither, all.
 */
function pick(
  cases: readonly JUnitCase[],
  tree: string,
  files: readonly string[],
  ids: readonly string[],
): Pick<RunnerGroupRun, "outcomes" | "durations" | "failures"> {
  const outcomes: Record<string, Outcome> = {};
  const durations: Record<string, number> = {};
  const failures: Record<string, string> = {};
  const wantFiles = new Set(files);
  const wantIds = new Set(ids);
  const wantNames = new Set(ids.map(idName));
  const anyFile = cases.some((c) => c.file);
  for (const c of cases) {
    const id = caseId(c, tree);
    const file = idFile(id);
    const byId = wantIds.has(id) || (!c.file && wantNames.has(caseName(c)));
    const byFile = c.file ? wantFiles.has(file) : !anyFile && wantFiles.size > 0;
    const all = files.length === 0 && ids.length === 0;
    if (!(all || byId || byFile)) continue;
    outcomes[id] = c.outcome;
    if (c.seconds !== undefined) durations[id] = Math.round(c.seconds * 1000);
    if (c.failure) failures[id] = c.failure;
  }
  return { outcomes, durations, failures };
}
