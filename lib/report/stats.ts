/**
 * The report's statistics: confidence intervals, exact paired tests, and the measures of
 * "an agent chosen at random" and of how well an author's tests separate right fixes from wrong
 * ones. Small samples are the rule here (a bout has tens of tasks), so every test is exact.
 *
 * Pure functions; no permissions needed.
 *
 * @module
 */

import type { Outcome } from "../records.ts";
import { plural } from "../words.ts";

/** The normal quantile for a two-sided 95% interval. */
export const Z95 = 1.959964;

/** A proportion with its Wilson score interval. */
export interface Interval {
  /** Successes. */
  k: number;
  /** Trials. */
  n: number;
  /** k / n, or null when n is 0. */
  rate: number | null;
  /** Lower bound (0 when n is 0). */
  low: number;
  /** Upper bound (1 when n is 0). */
  high: number;
}

/**
 * The Wilson score interval for k successes in n trials (95% by default). With n = 0 nothing is
 * known: the rate is null and the interval is all of [0, 1]. Throws a `RangeError` unless
 * 0 <= k <= n are integers.
 */
export function wilson(k: number, n: number, z: number = Z95): Interval {
  if (!Number.isInteger(k) || !Number.isInteger(n) || k < 0 || n < 0 || k > n) {
    throw new RangeError(`Cannot compute a Wilson interval for ${k} of ${n}: need 0 <= k <= n`);
  }
  if (n === 0) return { k, n, rate: null, low: 0, high: 1 };
  const p = k / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (z / denominator) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return {
    k,
    n,
    rate: p,
    low: k === 0 ? 0 : Math.max(0, centre - half),
    high: k === n ? 1 : Math.min(1, centre + half),
  };
}

/** The exact McNemar test of a paired comparison. */
export interface McNemar {
  /** Pairs where only the first side succeeded. */
  b: number;
  /** Pairs where only the second side succeeded. */
  c: number;
  /** Two-sided p-value; 1 when there is no discordant pair. */
  p: number;
}

/**
 * The exact two-sided McNemar test (a sign test): under the null hypothesis each of the b + c
 * discordant pairs goes either way with probability 1/2, so p = min(1, 2 P[X <= min(b, c)]) with
 * X ~ Binomial(b + c, 1/2). Exact (integer binomials) up to 1,000 discordant pairs, and summed in
 * log space beyond; never a normal approximation.
 */
export function mcnemar(b: number, c: number): McNemar {
  if (!Number.isInteger(b) || !Number.isInteger(c) || b < 0 || c < 0) {
    throw new RangeError(`Cannot run McNemar's test on b = ${b}, c = ${c}: need counts`);
  }
  const n = b + c;
  if (n === 0) return { b, c, p: 1 };
  const tail = Math.min(b, c);
  if (n <= 1000) {
    // Exact: integer binomials, one rounding when dividing by 2^n (a power of two).
    let choose = 1n;
    let sum = 1n;
    for (let i = 1; i <= tail; i++) {
      choose = (choose * BigInt(n - i + 1)) / BigInt(i);
      sum += choose;
    }
    return { b, c, p: Math.min(1, Number(2n * sum) / 2 ** n) };
  }
  // Past 2^1000 the terms are summed in log space, still without a normal approximation.
  let logChoose = 0; // log C(n, i), starting at i = 0
  let sum = 0;
  const logHalfN = n * Math.log(0.5);
  for (let i = 0; i <= tail; i++) {
    if (i > 0) logChoose += Math.log(n - i + 1) - Math.log(i);
    sum += Math.exp(logChoose + logHalfN);
  }
  return { b, c, p: Math.min(1, 2 * sum) };
}

/** One agent's results per task: true when its patch resolved the task. */
export interface AgentResults {
  /** The agent's name, used in the sentence. */
  name: string;
  /** Per task id attempted: whether it resolved the task. A task absent was not attempted. */
  resolved: Readonly<Record<string, boolean>>;
}

/** Two agents compared over the tasks both attempted. */
export interface PairedComparison {
  /** The test: the exact McNemar test (one attempt per task). */
  test: "mcnemar";
  /** The first agent. */
  a: string;
  /** The second agent. */
  b: string;
  /** Tasks both attempted. */
  tasks: number;
  /** Tasks both resolved. */
  both: number;
  /** Tasks only the first resolved. */
  onlyA: number;
  /** Tasks only the second resolved. */
  onlyB: number;
  /** Tasks neither resolved. */
  neither: number;
  /** Exact McNemar p-value over the discordant tasks. */
  p: number;
  /** The comparison in words. */
  sentence: string;
}

/**
 * Compare two agents over the tasks both attempted, with the exact McNemar test, and say in words
 * what the counts show and whether the difference could be chance (p >= 0.05) or is unlikely to
 * be. The agents are named in the order given.
 */
export function pairedComparison(a: AgentResults, b: AgentResults): PairedComparison {
  let both = 0, onlyA = 0, onlyB = 0, neither = 0;
  for (const [task, aResolved] of Object.entries(a.resolved)) {
    if (!Object.hasOwn(b.resolved, task)) continue;
    const bResolved = b.resolved[task];
    if (aResolved && bResolved) both++;
    else if (aResolved) onlyA++;
    else if (bResolved) onlyB++;
    else neither++;
  }
  const tasks = both + onlyA + onlyB + neither;
  const { p } = mcnemar(onlyA, onlyB);
  const base = {
    test: "mcnemar" as const,
    a: a.name,
    b: b.name,
    tasks,
    both,
    onlyA,
    onlyB,
    neither,
    p,
  };
  const ofTasks = plural(tasks, "task");
  let sentence: string;
  if (tasks === 0) {
    sentence =
      `${a.name} and ${b.name} attempted no task in common, so there is nothing to compare.`;
  } else if (onlyA + onlyB === 0) {
    sentence = both === 0
      ? `Neither ${a.name} nor ${b.name} resolved any of the ${ofTasks} both attempted.`
      : `${a.name} and ${b.name} resolved the same ${both} of ${ofTasks}; nothing separates them.`;
  } else {
    const verdict = p < 0.05 ? "the difference is unlikely to be chance" : "this could be chance";
    sentence = `${a.name} resolved ${countOrNone(onlyA, "task")} ${b.name} did not, ${b.name} ${
      onlyB === 0 ? "none" : onlyB
    } that ${a.name} did not; with ${ofTasks} ${verdict}, p ${formatP(p)}.`;
  }
  return { ...base, sentence };
}

/** A p-value for a sentence: "= 0.38", "= 0.004", "< 0.001". */
export function formatP(p: number): string {
  if (p < 0.001) return "< 0.001";
  return `= ${p < 0.1 ? p.toFixed(3) : p.toFixed(2)}`;
}

/** The median, or null for no values. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** What picking an agent at random for every task would resolve, in expectation. */
export interface RandomAgent {
  /** Per task: the share of its agents that resolved it (the mean of their resolve rates). */
  perTask: Record<string, number>;
  /** Tasks with at least one agent. */
  tasks: number;
  /** Expected tasks resolved: the sum of `perTask`. */
  expected: number;
  /** `expected / tasks`, or null with no task. */
  rate: number | null;
}

/**
 * The expected result of choosing, for each task, one of the agents that attempted it uniformly
 * at random: per task the share of those agents whose patch resolved it (an attempt without a
 * patch counts as not resolved, so pass it as false), summed over tasks. With repeated attempts
 * pass each agent's share of resolved attempts instead of a boolean: choosing an agent, then one
 * of its attempts, at random resolves the task with the mean of those shares. Tasks with no agent
 * are left out.
 */
export function randomAgent(
  tasks: Readonly<Record<string, Readonly<Record<string, boolean | number>>>>,
): RandomAgent {
  const perTask: Record<string, number> = {};
  for (const [task, agents] of Object.entries(tasks)) {
    const results = Object.values(agents).map(Number);
    if (results.length === 0) continue;
    perTask[task] = results.reduce((sum, x) => sum + x, 0) / results.length;
  }
  const shares = Object.values(perTask);
  const expected = shares.reduce((sum, x) => sum + x, 0);
  return {
    perTask,
    tasks: shares.length,
    expected,
    rate: shares.length ? expected / shares.length : null,
  };
}

/** One patch seen through one author's tests. */
export interface SeparationSample {
  /** Who wrote the tests (an agent, or "repository"). */
  author: string;
  /** Whether the patch resolved its task (false: it was scored and did not). */
  resolved: boolean;
  /** The outcomes on the patch of the author's tests that apply to it (see {@linkcode separation}). */
  outcomes: readonly Outcome[];
}

/** How well one author's tests separate resolved patches from wrong ones. */
export interface Separation {
  /** The author. */
  author: string;
  /** Resolved patches the author's tests judged. */
  resolved: number;
  /** Of those, the ones every test of the author's passed on (true positives). */
  acceptedResolved: number;
  /** Wrong patches the author's tests judged. */
  wrong: number;
  /** Of those, the ones some test of the author's did not pass on (true negatives). */
  rejectedWrong: number;
  /** `acceptedResolved / resolved`, or null with no resolved patch. */
  truePositiveRate: number | null;
  /** `rejectedWrong / wrong`, or null with no wrong patch. */
  trueNegativeRate: number | null;
  /** The mean of the two rates, or null unless both are known. */
  balancedAccuracy: number | null;
  /** Samples left out because none of their outcomes ran. */
  skipped: number;
}

/**
 * "Which tests tell a right fix from a wrong one", per author, over patches with a known outcome
 * (resolved, or scored and not resolved; attempts without a patch are not samples).
 *
 * For an agent, a sample's outcomes are that agent's reproducing tests of the task (failing on B)
 * on a patch by another agent; for the repository, its tests that pass on B. The author *accepts*
 * a patch when every outcome is `passed`, and *rejects* it otherwise (a `not-run` among ran
 * outcomes counts as not passing). A sample with no outcome, or only `not-run` ones, is skipped:
 * the author said nothing about that patch. Then:
 *
 * - true-positive rate = resolved patches accepted / resolved patches judged;
 * - true-negative rate = wrong patches rejected / wrong patches judged;
 * - balanced accuracy = the mean of the two (0.5 is no better than a coin).
 *
 * Authors come out in the order they first appear.
 */
export function separation(samples: readonly SeparationSample[]): Separation[] {
  const byAuthor = new Map<string, Separation>();
  for (const sample of samples) {
    const entry = byAuthor.get(sample.author) ?? {
      author: sample.author,
      resolved: 0,
      acceptedResolved: 0,
      wrong: 0,
      rejectedWrong: 0,
      truePositiveRate: null,
      trueNegativeRate: null,
      balancedAccuracy: null,
      skipped: 0,
    };
    byAuthor.set(sample.author, entry);
    if (!sample.outcomes.some((o) => o !== "not-run")) {
      entry.skipped++;
      continue;
    }
    const accepted = sample.outcomes.every((o) => o === "passed");
    if (sample.resolved) {
      entry.resolved++;
      if (accepted) entry.acceptedResolved++;
    } else {
      entry.wrong++;
      if (!accepted) entry.rejectedWrong++;
    }
  }
  return [...byAuthor.values()].map((s) => {
    const tpr = s.resolved ? s.acceptedResolved / s.resolved : null;
    const tnr = s.wrong ? s.rejectedWrong / s.wrong : null;
    return {
      ...s,
      truePositiveRate: tpr,
      trueNegativeRate: tnr,
      balancedAccuracy: tpr !== null && tnr !== null ? (tpr + tnr) / 2 : null,
    };
  });
}

function countOrNone(n: number, noun: string): string {
  return n === 0 ? `no ${noun}` : plural(n, noun);
}
