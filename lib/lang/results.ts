/**
 * What every language's runner says the same way about a run it could not finish.
 *
 * Pure; no permissions.
 *
 * @module
 */

import type { Outcome } from "../records.ts";
import type { InfraCause, RepeatedRuns, RunnerRun } from "./types.ts";

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
