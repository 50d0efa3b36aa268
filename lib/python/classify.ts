/**
 * Decide what one pytest session said: outcomes from its JUnit XML, cross-checked with the exit
 * code, never from its console output. A missing, truncated or contradicted XML is an
 * infrastructure error; a wall-clock timeout or a memory cap is an outcome of the tree, with the
 * tests that finished kept and the rest `not-run`.
 *
 * Pure; no permissions.
 *
 * @module
 */

import type { Outcome, RunStatus } from "../records.ts";
import { JunitError, NodeIdResolver, outcomesOf, parseJunit } from "./junit.ts";

/** Why a run is an infrastructure error. */
export type InfraCause =
  /** pytest refused to start on this tree (usage error, a conftest that cannot be imported, the
   * tree breaking pytest itself): a property of the tree, the same on every rerun. */
  | "unrunnable"
  /** The run cannot be trusted: XML missing or malformed, exit code contradicting it, a crash. */
  | "harness"
  /** The sandbox itself could not start: pytest never ran, whatever the tree holds. */
  | "sandbox";

/** One pytest session, read. */
export interface PytestRun {
  /** `ok`, `timeout`, `out-of-memory` or `infra-error`. */
  status: RunStatus;
  /** For `infra-error`: whether the tree cannot run at all, or the run is not to be trusted. */
  cause?: InfraCause;
  /** pytest's exit code; null when it was killed by the timeout. */
  exitCode: number | null;
  /** Outcome of every test by node id; a module that failed to collect appears as its path. */
  outcomes: Record<string, Outcome>;
  /** Duration of every test that ran, in milliseconds. */
  durations: Record<string, number>;
  /** Why the run is not plainly `ok`, in words. */
  message?: string;
  /** Wall-clock duration of the session in milliseconds. */
  durationMs: number;
}

/** What the plugin's progress log says (see `_progress_plugin.ts`). */
export interface Progress {
  /** Node ids collected, when collection finished. */
  collected?: string[];
  /** Modules (node ids) that failed to collect. */
  collectErrors: string[];
  /** Outcome and seconds of each test that finished. */
  done: Map<string, { outcome: Outcome; seconds: number }>;
  /** The last test that started and did not finish. */
  running?: string;
}

/** Parse the progress log; a line cut short by a kill is ignored. */
export function parseProgress(text: string): Progress {
  const progress: Progress = { collectErrors: [], done: new Map() };
  for (const line of text.split("\n")) {
    if (!line) continue;
    let record: { k?: string; id?: string; ids?: string[]; o?: Outcome; s?: number };
    try {
      record = JSON.parse(line);
    } catch (error) {
      if (error instanceof SyntaxError) continue; // a line cut short by a kill
      throw error;
    }
    if (record.k === "collected" && Array.isArray(record.ids)) progress.collected = record.ids;
    else if (record.k === "collect-error" && record.id) progress.collectErrors.push(record.id);
    else if (record.k === "start" && record.id) progress.running = record.id;
    else if (record.k === "done" && record.id && record.o) {
      progress.done.set(record.id, { outcome: record.o, seconds: record.s ?? 0 });
      if (progress.running === record.id) progress.running = undefined;
    }
  }
  return progress;
}

/** Everything {@linkcode classifyRun} looks at. */
export interface RunEvidence {
  /** Exit code of the process (128+n when killed by signal n). */
  exitCode: number;
  /** True when the wall-clock limit killed it. */
  timedOut: boolean;
  /** The limit, for messages. */
  timeoutMs: number;
  /** The memory cap, when one applied. */
  memoryMb?: number;
  /** Text of the JUnit XML file, or undefined when pytest wrote none. */
  junit?: string;
  /** The parsed progress log. */
  progress: Progress;
  /** The test files the run targeted (relative to the rootdir). */
  files: string[];
  /** The tail of pytest's stdout and stderr: only ever used to explain a failure. */
  output: string;
  /** Top-level modules that both pytest imports for itself and the tree provides. */
  sharedModules: string[];
  /** Wall-clock duration in milliseconds. */
  durationMs: number;
}

const FAILING = new Set<Outcome>(["failed", "error"]);
const MEMORY_TEXT = /MemoryError|Cannot allocate memory|out of memory|std::bad_alloc/;

function tail(text: string, lines = 15): string {
  return text.trim().split("\n").slice(-lines).join("\n");
}

/** Outcomes as far as the progress log goes: finished tests kept, the rest `not-run`. */
function partialOutcomes(p: Progress): Pick<PytestRun, "outcomes" | "durations"> {
  const outcomes: Record<string, Outcome> = {};
  const durations: Record<string, number> = {};
  for (const id of p.collectErrors) outcomes[id] = "error";
  for (const id of p.collected ?? []) outcomes[id] = "not-run";
  for (const [id, d] of p.done) {
    outcomes[id] = d.outcome;
    durations[id] = Math.round(d.seconds * 1e6) / 1e3;
  }
  if (p.running) outcomes[p.running] = "not-run";
  return { outcomes, durations };
}

function notRunCount(outcomes: Record<string, Outcome>): number {
  return Object.values(outcomes).filter((o) => o === "not-run").length;
}

/** Read one finished pytest session. */
export function classifyRun(e: RunEvidence): PytestRun {
  const base = { exitCode: e.exitCode as number | null, durationMs: e.durationMs };
  const killed = (status: "timeout" | "out-of-memory", why: string): PytestRun => {
    const partial = partialOutcomes(e.progress);
    const running = e.progress.running ? ` while running ${e.progress.running}` : "";
    const left = notRunCount(partial.outcomes);
    return {
      ...base,
      ...partial,
      status,
      message: `${why}${running}; ${left} test${left === 1 ? "" : "s"} not run.`,
    };
  };
  const harness = (message: string): PytestRun => ({
    ...base,
    status: "infra-error",
    cause: "harness",
    outcomes: {},
    durations: {},
    message,
  });
  const unrunnable = (message: string): PytestRun => ({
    ...base,
    status: "infra-error",
    cause: "unrunnable",
    outcomes: {},
    durations: {},
    message,
  });
  const capped = e.memoryMb !== undefined;

  if (e.timedOut) {
    return {
      ...killed("timeout", `pytest did not finish within ${e.timeoutMs / 1000}s`),
      exitCode: null,
    };
  }
  let report;
  let problem: string | undefined;
  if (e.junit === undefined) problem = "pytest wrote no JUnit XML";
  else {
    try {
      report = parseJunit(e.junit);
    } catch (error) {
      if (!(error instanceof JunitError)) throw error;
      problem = `the JUnit XML is not valid: ${error.message}`;
    }
  }
  const signal = e.exitCode > 128 && e.exitCode < 160 ? e.exitCode - 128 : undefined;
  if (signal !== undefined && capped && (signal === 9 || MEMORY_TEXT.test(e.output))) {
    return killed(
      "out-of-memory",
      `pytest was killed by signal ${signal} under the ${e.memoryMb} MiB memory cap`,
    );
  }
  const dependency = e.sharedModules.length > 0 && e.progress.collected === undefined
    ? `pytest itself crashed: the tree under test provides ${
      e.sharedModules.map((m) => `\`${m}\``).join(", ")
    }, which pytest imports for its own use, and with the tree first on PYTHONPATH this ` +
      `version breaks pytest (the project is one of pytest's own dependencies).`
    : undefined;

  if (!report) {
    if (e.exitCode === 4) {
      return unrunnable(`pytest refused to run this tree (exit code 4):\n${tail(e.output)}`);
    }
    if (dependency) return unrunnable(`${dependency}\n${tail(e.output)}`);
    if (capped && MEMORY_TEXT.test(e.output)) {
      return killed("out-of-memory", `pytest ran out of memory under the ${e.memoryMb} MiB cap`);
    }
    const how = signal !== undefined
      ? `was killed by signal ${signal}`
      : `exited with code ${e.exitCode}`;
    return harness(`Infrastructure error: pytest ${how} and ${problem}.\n${tail(e.output)}`);
  }

  const resolver = new NodeIdResolver(e.progress.collected ?? [], [
    ...e.files,
    ...e.progress.collectErrors,
  ]);
  const { outcomes, durations } = outcomesOf(report, resolver);
  for (const id of e.progress.collected ?? []) outcomes[id] ??= "not-run";
  const failing = Object.values(outcomes).filter((o) => FAILING.has(o)).length;
  const { declared, counted } = report;
  if (
    declared.failures !== counted.failures || declared.errors !== counted.errors ||
    declared.skipped !== counted.skipped
  ) {
    return harness(
      `Infrastructure error: the JUnit XML declares ${declared.failures} failures, ` +
        `${declared.errors} errors and ${declared.skipped} skipped but holds ${counted.failures}, ` +
        `${counted.errors} and ${counted.skipped}.`,
    );
  }
  const contradiction = (expected: string) =>
    harness(
      `Infrastructure error: pytest exited with code ${e.exitCode} (${expected}) but its JUnit ` +
        `XML reports ${report.cases.length} test cases, ${failing} failing.`,
    );
  let message: string | undefined;
  switch (e.exitCode) {
    case 0:
      if (failing > 0) return contradiction("all passed");
      break;
    case 1:
      if (failing === 0) return contradiction("some tests failed");
      break;
    case 2:
      message = `pytest was interrupted; ${notRunCount(outcomes)} tests not run.`;
      break;
    case 5:
      if (report.cases.length > 0) return contradiction("no tests collected");
      message = "pytest collected no tests.";
      break;
    case 4:
      return unrunnable(`pytest refused to run this tree (exit code 4):\n${tail(e.output)}`);
    default:
      if (dependency) return unrunnable(`${dependency}\n${tail(e.output)}`);
      return harness(
        `Infrastructure error: pytest ${
          signal !== undefined ? `was killed by signal ${signal}` : `exited with code ${e.exitCode}`
        } after writing its JUnit XML.\n${tail(e.output)}`,
      );
  }
  const starved = report.cases.filter((c) =>
    (c.outcome === "failed" || c.outcome === "error") && /^MemoryError\b/.test(c.message ?? "")
  );
  if (capped && starved.length > 0) {
    return {
      ...base,
      status: "out-of-memory",
      outcomes,
      durations,
      message: `${starved.length} test${starved.length === 1 ? "" : "s"} ran out of memory ` +
        `(MemoryError under the ${e.memoryMb} MiB cap): ${
          starved.slice(0, 3).map((c) => resolver.resolve(c)).join(", ")
        }.`,
    };
  }
  return { ...base, status: "ok", outcomes, durations, ...(message ? { message } : {}) };
}
