/**
 * Decide what one pytest session said, from the guard's results channel only (see `channel.ts`):
 * never from the console, an exit code or a file the tested code could write.
 *
 * Each group of the session is judged on its own. A group with tampering evidence is `tampered`
 * and gives no outcome at all. A group is complete when its child reported the end of its pytest
 * session and then exited with the code it reported; only a complete group's passes count. A
 * group cut short (timeout, memory, a crash, an exit in the middle) keeps its failures, and its
 * passes only when the caller trusts the code it runs (the ground truth, which runs the
 * maintainers' code); the rest of its tests are `not-run`.
 *
 * Pure; no permissions.
 *
 * @module
 */

import { describeEvent, type Outcome, type RunStatus } from "../../records.ts";
import type { RunnerGroupRun, RunnerRun } from "../types.ts";

export type { InfraCause } from "../types.ts";
import type { Channel, GroupReport, GuardEvent } from "./channel.ts";

/** What one group of a session did: the runner interface's group. */
export type GroupRun = RunnerGroupRun;

/** One pytest session, read: the runner interface's run. */
export type PytestRun = RunnerRun;

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
  /** The channel, read. */
  channel: Channel;
  /** Keep the passes of a group cut short (only for code that is trusted: the maintainers'). */
  trustPartial: boolean;
  /** The tail of the session's console output: only ever used to explain a failure. */
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

/**
 * The exception that ended a Python traceback at the end of `output`, its message's lines joined
 * (pluggy's validation errors take three), or undefined when the output ends otherwise.
 */
export function escapedError(output: string): string | undefined {
  const lines = output.trim().split("\n");
  const start = lines.findLastIndex((l) => l.startsWith("Traceback (most recent call last):"));
  if (start < 0) return undefined;
  const rest = lines.slice(start + 1);
  const at = rest.findLastIndex((l) => /^[\w.]+(?:Error|Exception|Warning|Exit)\b:?/.test(l));
  if (at < 0 || rest.length - at > 4) return undefined;
  const said = rest.slice(at).map((l) => l.trim()).filter(Boolean).join(" ");
  return said.length > 400 ? `${said.slice(0, 399)}…` : said;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** What the group's records say, tests by node id. */
function outcomesOf(group: GroupReport, keepPasses: boolean) {
  const outcomes: Record<string, Outcome> = {};
  const durations: Record<string, number> = {};
  for (const id of group.collected ?? []) outcomes[id] = "not-run";
  for (const { id } of group.collectErrors) outcomes[id] = "error";
  for (const [id, d] of group.done) {
    outcomes[id] = d.outcome === "passed" && !keepPasses ? "not-run" : d.outcome;
    durations[id] = Math.round(d.seconds * 1e6) / 1e3;
  }
  if (group.running) outcomes[group.running] = "not-run";
  const failures: Record<string, string> = {};
  for (const { id, message } of group.collectErrors) if (message) failures[id] = message;
  const tracebacks: Record<string, string> = {};
  for (const { id, traceback } of group.collectErrors) if (traceback) tracebacks[id] = traceback;
  for (const [id, d] of group.done) {
    if (d.message && (d.outcome === "failed" || d.outcome === "error")) failures[id] = d.message;
    if (d.traceback && (d.outcome === "failed" || d.outcome === "error")) {
      tracebacks[id] = d.traceback;
    }
  }
  return { outcomes, durations, failures, tracebacks };
}

function notRun(outcomes: Record<string, Outcome>): number {
  return Object.values(outcomes).filter((o) => o === "not-run").length;
}

function tamperMessage(events: readonly GuardEvent[]): string {
  const more = events.length > 3 ? ` and ${events.length - 3} more` : "";
  return `The code under test tampered with the grading: ${
    events.slice(0, 3).map(describeEvent).join("; ")
  }${more}.`;
}

function judgeGroup(
  group: GroupReport,
  e: RunEvidence,
  cutShort: (why: string, running?: string) => Omit<GroupRun, "tamper" | "suspect">,
): GroupRun {
  const events = {
    tamper: group.tamper,
    suspect: group.suspect,
    ...(group.observed ? { observed: group.observed } : {}),
  };
  const covered = group.coverage ? { coverage: group.coverage } : {};
  if (group.tamper.length > 0) {
    return {
      ...events,
      status: "tampered",
      complete: false,
      outcomes: {},
      durations: {},
      message: tamperMessage(group.tamper),
    };
  }
  if (!group.begun) {
    return {
      ...events,
      status: "infra-error",
      cause: "harness",
      complete: false,
      unreached: true,
      outcomes: {},
      durations: {},
      message: "The session ended before these tests started.",
    };
  }
  const ended = group.endCode !== undefined;
  // The child writes its end record and exits with that code at once; a guard that was itself
  // killed afterwards (a later group's timeout) never saw the exit, which changes nothing.
  const exitedAsSaid = ended && (group.exit === undefined || group.exit.code === group.endCode);
  if (!exitedAsSaid) {
    if (group.exit?.timedOut || (e.timedOut && !group.exit)) {
      return { ...events, ...cutShort(`pytest did not finish within ${e.timeoutMs / 1000}s`) };
    }
    const signal = group.exit?.signal;
    const memoryText = MEMORY_TEXT.test(e.output) ||
      [...group.done.values()].some((d) => /^MemoryError\b/.test(d.message ?? ""));
    if (e.memoryMb !== undefined && (signal === 9 || memoryText)) {
      return {
        ...events,
        ...cutShort(
          signal === undefined
            ? `pytest ran out of memory under the ${e.memoryMb} MiB cap`
            : `pytest was killed by signal ${signal} under the ${e.memoryMb} MiB memory cap`,
        ),
        status: "out-of-memory",
      };
    }
    const escaped = !ended && group.exit?.code === 3 ? escapedError(e.output) : undefined;
    if (escaped) {
      // An exception out of pytest.main itself, before any record of the end: the tree's
      // conftest or configuration and this pytest do not go together, the same on every rerun.
      return {
        ...events,
        status: "infra-error",
        cause: "unrunnable",
        complete: false,
        outcomes: {},
        durations: {},
        message: `pytest could not start on this tree: ${escaped}\n${tail(e.output)}`,
      };
    }
    const how = signal !== undefined
      ? `was killed by signal ${signal}`
      : group.exit
      ? `exited with code ${group.exit.code}${ended ? ` after reporting ${group.endCode}` : ""}`
      : "did not report how it ended";
    return {
      ...events,
      status: "infra-error",
      cause: "harness",
      complete: false,
      outcomes: {},
      durations: {},
      message: `Infrastructure error: pytest ${how} before its session was over.\n${
        tail(e.output)
      }`,
    };
  }
  const { outcomes, durations, failures, tracebacks } = outcomesOf(group, true);
  const failing = Object.values(outcomes).filter((o) => FAILING.has(o)).length;
  const base = {
    ...events,
    ...covered,
    complete: true,
    outcomes,
    durations,
    ...(Object.keys(failures).length ? { failures } : {}),
    ...(Object.keys(tracebacks).length ? { tracebacks } : {}),
  };
  switch (group.endCode) {
    case 0:
      if (failing > 0) {
        return {
          ...base,
          outcomes: {},
          durations: {},
          status: "infra-error",
          cause: "harness",
          complete: false,
          message: `Infrastructure error: pytest ended with code 0 (all passed) but ${
            plural(failing, "test")
          } failed.`,
        };
      }
      break;
    case 1:
      break;
    case 2:
      return {
        ...events,
        ...cutShort("pytest was interrupted"),
        outcomes: {},
        durations: {},
        status: "infra-error",
        cause: "harness",
      };
    case 4:
      return {
        ...events,
        status: "infra-error",
        cause: "unrunnable",
        complete: true,
        outcomes: {},
        durations: {},
        message: `pytest refused to run this tree (exit code 4):\n${tail(e.output)}`,
      };
    case 5:
      return { ...base, status: "ok", message: "pytest collected no tests." };
    default:
      return {
        ...events,
        status: "infra-error",
        cause: "harness",
        complete: false,
        outcomes: {},
        durations: {},
        message:
          `Infrastructure error: pytest stopped with an internal error (exit code ${group.endCode}).\n${
            tail(e.output)
          }`,
      };
  }
  const starved = [...group.done].filter(([, d]) =>
    FAILING.has(d.outcome) && /^MemoryError\b/.test(d.message ?? "")
  );
  if (e.memoryMb !== undefined && starved.length > 0) {
    return {
      ...base,
      status: "out-of-memory",
      message: `${
        plural(starved.length, "test")
      } ran out of memory (MemoryError under the ${e.memoryMb} MiB cap): ${
        starved.slice(0, 3).map(([id]) => id).join(", ")
      }.`,
    };
  }
  return { ...base, status: "ok" };
}

/** Read one finished pytest session. */
export function classifyRun(e: RunEvidence): PytestRun {
  const { channel } = e;
  const session = { exitCode: e.timedOut ? null : e.exitCode, durationMs: e.durationMs };
  const whole = (run: Omit<GroupRun, "complete">, groups: GroupRun[]): PytestRun => ({
    ...session,
    ...run,
    groups,
    ...(channel.treeChanged ? { treeChanged: channel.treeChanged } : {}),
  });
  if (!channel.hello) {
    // The guard never started: nothing ran that can be read.
    const nothing = { outcomes: {}, durations: {}, tamper: channel.tamper, suspect: [] };
    let run: Omit<GroupRun, "complete">;
    if (e.timedOut) {
      run = {
        ...nothing,
        status: "timeout",
        message: `pytest did not start within ${e.timeoutMs / 1000}s.`,
      };
    } else if (e.sharedModules.length > 0) {
      run = {
        ...nothing,
        status: "infra-error",
        cause: "unrunnable",
        message: `pytest itself crashed: the tree under test provides ${
          e.sharedModules.map((m) => `\`${m}\``).join(", ")
        }, which pytest imports for its own use, and with the tree first on PYTHONPATH this ` +
          `version breaks pytest (the project is one of pytest's own dependencies).\n${
            tail(e.output)
          }`,
      };
    } else {
      run = {
        ...nothing,
        status: "infra-error",
        cause: "harness",
        message:
          `Infrastructure error: the test session never started (exit code ${e.exitCode}).\n${
            tail(e.output)
          }`,
      };
    }
    const groups = channel.groups.map(() => ({ ...run, complete: false, unreached: true }));
    return whole(run, groups);
  }
  const groups = channel.groups.map((group, index) => {
    const cutShort = (why: string) => {
      const { outcomes, durations } = outcomesOf(group, e.trustPartial);
      // Tests run in the order they were collected: the first without an outcome was running.
      const current = group.running ??
        group.collected?.find((id) => !group.done.has(id) && outcomes[id] === "not-run");
      const running = current ? ` while running ${current}` : "";
      const left = notRun(outcomes);
      return {
        status: "timeout" as RunStatus,
        complete: false,
        outcomes,
        durations,
        message: `${why}${running}; ${plural(left, "test")} not run.`,
      };
    };
    const judged = judgeGroup(group, e, cutShort);
    if (channel.treeChanged?.group === index) {
      const changed = channel.treeChanged.paths.join(", ");
      const event = { what: "changed files of the tree under test", where: changed };
      return {
        ...judged,
        status: "tampered" as RunStatus,
        complete: false,
        outcomes: {},
        durations: {},
        tamper: [...judged.tamper, event],
        message: tamperMessage([...judged.tamper, event]),
      };
    }
    return judged;
  });
  // Forged lines before any group began belong to the whole session.
  if (channel.tamper.length > 0) {
    for (const g of groups) {
      g.status = "tampered";
      g.complete = false;
      g.outcomes = {};
      g.durations = {};
      g.tamper = [...channel.tamper, ...g.tamper];
      g.message = tamperMessage(g.tamper);
    }
  }
  const first = groups[0] ?? {
    status: "ok" as RunStatus,
    complete: true,
    outcomes: {},
    durations: {},
    tamper: [],
    suspect: [],
  };
  const { complete: _c, unreached: _u, ...rest } = first;
  // With several groups the session as a whole is as bad as its worst group.
  const worst = groups.map((g) => g.status).sort((a, b) => SEVERITY[b] - SEVERITY[a])[0];
  return whole({ ...rest, status: worst ?? rest.status }, groups);
}

const SEVERITY: Record<RunStatus, number> = {
  ok: 0,
  timeout: 1,
  "out-of-memory": 2,
  "infra-error": 3,
  tampered: 4,
};
