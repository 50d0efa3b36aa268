/**
 * What every language's runner says the same way about a run it could not finish.
 *
 * Pure; no permissions.
 *
 * @module
 */

import type { Outcome, RunStatus } from "../records.ts";
import type { InfraCause, RepeatedRuns, RunnerGroupRun, RunnerRun } from "./types.ts";

/**
 * The cause of an infrastructure error a runner reported, read from its message: the sandbox
 * could not start, the runner refused the tree (a property of the tree, the same every time), or
 * else the run is not to be trusted.
 */
export function infraCause(message: string): InfraCause {
  if (/the sandbox could not run/i.test(message)) return "sandbox";
  if (/ could not run this tree: /.test(message)) return "unrunnable";
  return "harness";
}

/** How bad a group's status is: the run takes its worst group's. */
const SEVERITY: Record<RunStatus, number> = {
  ok: 0,
  timeout: 1,
  "out-of-memory": 2,
  "infra-error": 3,
  tampered: 4,
};

/** The worse of two statuses (tampered above everything, then infra-error, out-of-memory, timeout). */
export function worseStatus(a: RunStatus, b: RunStatus): RunStatus {
  return SEVERITY[b] > SEVERITY[a] ? b : a;
}

/**
 * One run from its groups, in order: every group's outcomes, durations, failures and events, the
 * status of the worst group (tampered above everything, so a later timeout never hides it), its
 * message (each distinct one, when several groups share that status) and its cause.
 */
export function mergeGroups(groups: RunnerGroupRun[], durationMs: number): RunnerRun {
  const status = groups.reduce<RunStatus>((worst, g) => worseStatus(worst, g.status), "ok");
  const worst = groups.filter((g) => g.status === status);
  const messages = [...new Set(worst.map((g) => g.message).filter((m): m is string => !!m))];
  const message = messages.length ? messages.join("\n") : undefined;
  const failures = Object.assign({}, ...groups.map((g) => g.failures ?? {}));
  const cause = worst.find((g) => g.cause)?.cause ??
    (status === "infra-error" ? infraCause(message ?? "") : undefined);
  return {
    status,
    ...(cause ? { cause } : {}),
    ...(message ? { message } : {}),
    outcomes: Object.assign({}, ...groups.map((g) => g.outcomes)),
    durations: Object.assign({}, ...groups.map((g) => g.durations)),
    ...(Object.keys(failures).length ? { failures } : {}),
    tamper: groups.flatMap((g) => g.tamper),
    suspect: groups.flatMap((g) => g.suspect),
    exitCode: null,
    durationMs,
    groups,
  };
}

/** Merge repeated runs of the same session. Linear in the number of test ids. */
export function mergeRepeats(runs: readonly RunnerRun[]): RepeatedRuns {
  const usable = runs.filter((r) => r.status !== "infra-error");
  const infraError = runs.find((r) => r.status === "infra-error");
  const first = new Map<string, Outcome>();
  const unstable = new Set<string>();
  const seen = new Map<string, number>();
  for (const run of usable) {
    for (const [id, outcome] of Object.entries(run.outcomes)) {
      seen.set(id, (seen.get(id) ?? 0) + 1);
      const before = first.get(id);
      if (before === undefined) first.set(id, outcome);
      else if (before !== outcome) unstable.add(id);
    }
  }
  const stable: Record<string, Outcome> = {};
  for (const [id, outcome] of first) {
    // Present in some runs only: `not-run` elsewhere, so unstable unless it was `not-run` here.
    if (seen.get(id)! < usable.length && outcome !== "not-run") unstable.add(id);
    if (!unstable.has(id)) stable[id] = outcome;
  }
  const durations: Record<string, number> = {};
  for (const run of usable) {
    for (const [id, ms] of Object.entries(run.durations)) {
      if (!(ms <= durations[id])) durations[id] = ms;
    }
  }
  return {
    runs: [...runs],
    stable,
    unstable: [...unstable].sort(),
    durations,
    ...(infraError ? { infraError } : {}),
  };
}
