/**
 * Run the same pytest session several times and merge the runs: the outcome of every test that
 * behaved the same each time, and the tests whose outcome differed (unstable).
 *
 * `mergeRepeats` is pure; `runRepeated` needs what `runPytest` needs.
 *
 * @module
 */

import type { Outcome } from "../../records.ts";
import { type PytestOptions, type PytestRun, runPytest } from "./pytest.ts";

/** Several runs of one session, merged. */
export interface RepeatedRuns {
  /** Every run, in order. */
  runs: PytestRun[];
  /** The outcome of each test that had the same outcome in every run. */
  stable: Record<string, Outcome>;
  /**
   * Tests whose outcome differed between runs, sorted. A test missing from a run counts as
   * `not-run` there. Infrastructure-error runs take no part in the comparison.
   */
  unstable: string[];
  /** The slowest duration of each test over the runs, in milliseconds. */
  durations: Record<string, number>;
  /** The first run that is an infrastructure error, if any. */
  infraError?: PytestRun;
}

/** Merge repeated runs of the same session. Linear in the number of test ids. */
export function mergeRepeats(runs: readonly PytestRun[]): RepeatedRuns {
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

/**
 * Run the same session `times` times, one after another (the repeats must not compete with each
 * other for the machine), and merge them.
 */
export async function runRepeated(options: PytestOptions, times: number): Promise<RepeatedRuns> {
  const runs: PytestRun[] = [];
  for (let i = 0; i < times; i++) runs.push(await runPytest(options));
  return mergeRepeats(runs);
}
