/**
 * How big a difference between two agents a bout of this many tasks can tell from chance: the
 * smallest difference in resolve rate that the report's paired test could ever call significant
 * (p ≤ 0.05), in percentage points.
 *
 * Derived as `design/statistics.md` compares two agents, paired by task. With one attempt per
 * task that is the exact McNemar test: only the tasks one agent resolved and the other did not
 * (discordant) count, and the most a difference can say is when all m of them go the same way,
 * p = 2 · 2^-m; the smallest difference is m/T for the smallest m with p ≤ 0.05 (m = 6). With K
 * attempts per task it is the sign-flip test on the per-task differences d_i, each a multiple of
 * 1/K: the smallest |Σ d_i| with p ≤ 0.05 is m equal differences of 1/K, so m/(K·T).
 *
 * Pure functions; no permissions needed.
 *
 * @module
 */

import { mcnemar } from "./stats.ts";
import { signFlipTest } from "./stats_repeats.ts";

/** The significance level the report's "could be chance" uses. */
export const SIGNIFICANCE = 0.05;

/** The smallest difference between two agents a bout can tell from chance. */
export interface Detectable {
  /** Tasks both agents attempted. */
  tasks: number;
  /** Attempts per task by each agent. */
  repeats: number;
  /** The test the report compares them with. */
  test: "mcnemar" | "sign-flip";
  /** Tasks that must go one agent's way (and none the other's) for p ≤ 0.05; null: never. */
  tasksOneWay: number | null;
  /** That smallest difference in resolve rate, in percentage points; null: none can be. */
  points: number | null;
}

/**
 * The smallest difference in resolve rate between two agents that `tasks` tasks with `repeats`
 * attempts each could show to be significant at {@linkcode SIGNIFICANCE} (see the module).
 */
export function smallestDetectable(tasks: number, repeats = 1): Detectable {
  if (!Number.isInteger(tasks) || tasks < 0 || !Number.isInteger(repeats) || repeats < 1) {
    throw new RangeError(`Cannot size a bout of ${tasks} tasks × ${repeats} attempts`);
  }
  const test = repeats === 1 ? "mcnemar" : "sign-flip";
  for (let m = 1; m <= tasks; m++) {
    const p = repeats === 1
      ? mcnemar(m, 0).p
      : signFlipTest(Array.from({ length: m }, () => 1 / repeats)).p;
    if (p <= SIGNIFICANCE) {
      return { tasks, repeats, test, tasksOneWay: m, points: (100 * m) / (repeats * tasks) };
    }
  }
  return { tasks, repeats, test, tasksOneWay: null, points: null };
}

/** In words: "with 20 tasks, only a difference of ≥ 30 points would be significant". */
export function detectableText(d: Detectable): string {
  const what = `with ${d.tasks} ${d.tasks === 1 ? "task" : "tasks"}${
    d.repeats > 1 ? ` × ${d.repeats} attempts` : ""
  }`;
  if (d.points === null) {
    return `${what}, no difference between two agents could be significant (it takes at least ` +
      `6 tasks that one agent resolves and the other does not)`;
  }
  return `${what}, only a difference of ≥ ${
    Math.ceil(d.points - 1e-9)
  } points between two agents would be significant (p ≤ ${SIGNIFICANCE}, paired by task)`;
}
