/**
 * Test runs as the results files record them: one summary per session, numbered per tree,
 * in a stable order.
 *
 * Pure; no permissions.
 *
 * @module
 */

import type { RunnerRun } from "../lang/mod.ts";
import type { Outcome, RunSummary } from "../records.ts";

/** Tests per outcome, for run summaries and reasons. */
export function countOutcomes(outcomes: Record<string, Outcome>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const outcome of Object.values(outcomes)) counts[outcome] = (counts[outcome] ?? 0) + 1;
  return counts;
}

/** A session, summarised for the results files. */
export function summariseRun(tree: string, index: number, run: RunnerRun): RunSummary {
  return {
    tree,
    index,
    status: run.status,
    exitCode: run.exitCode,
    durationMs: run.durationMs,
    counts: countOutcomes(run.outcomes),
    ...(run.message ? { message: run.message } : {}),
  };
}

/** Told of every pytest session: when it ends (with the authors it held), and as it starts. */
export interface OnSession {
  (run: RunnerRun, owners?: string[]): void;
  /** Called as the session starts, once it has its slot. */
  starting?: () => void;
}

/**
 * Collects the sessions of one task: `on(tree)` gives the callback for that tree's sessions, which
 * numbers them, keeps their summaries and passes each to `onRun` (and tells `onStart` of each
 * session as it starts).
 */
export class RunLog {
  /** Every session so far, in the order they ended. */
  readonly runs: RunSummary[] = [];
  #next = new Map<string, number>();
  #onRun?: (run: RunSummary) => void;
  #onStart?: (tree: string) => void;

  /** A log that also tells `onRun` of every session, and `onStart` of each as it starts. */
  constructor(onRun?: (run: RunSummary) => void, onStart?: (tree: string) => void) {
    this.#onRun = onRun;
    this.#onStart = onStart;
  }

  /** The callback for the sessions of `tree`. */
  on(tree: string): OnSession {
    return Object.assign((run: RunnerRun) => {
      const index = this.#next.get(tree) ?? 0;
      this.#next.set(tree, index + 1);
      const summary = summariseRun(tree, index, run);
      this.runs.push(summary);
      this.#onRun?.(summary);
    }, { starting: () => this.#onStart?.(tree) });
  }

  /** The sessions sorted by tree (by `order` when given, else by name), then by number. */
  sorted(order?: readonly string[]): RunSummary[] {
    const rank = (tree: string) => order ? order.indexOf(tree) : 0;
    const by = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
    return [...this.runs].sort((a, b) =>
      rank(a.tree) - rank(b.tree) || by(a.tree, b.tree) || a.index - b.index
    );
  }
}
