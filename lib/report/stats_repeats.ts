/**
 * The statistics of repeated attempts (`[run] repeats = K`): pass@k and pass^k per task, the mean
 * of per-task rates with an interval that treats the task as the unit (attempts at one task are
 * not independent), and the paired comparison of two agents' per-task rates with an exact
 * sign-flip permutation test. See `docs/report.md` and the statistics reference of issue 15.
 *
 * Every random draw comes from a seeded generator, so a report built twice from the same files
 * says the same thing.
 *
 * Pure functions; no permissions needed.
 *
 * @module
 */

import { plural } from "../words.ts";
import { formatP, Z95 } from "./stats.ts";

/** The seed of every random draw in the report: the same files give the same report. */
export const REPORT_SEED = 15;
/** Resamples of the task-level bootstrap. */
export const BOOTSTRAP_RESAMPLES = 2000;
/** Below this many tasks the interval of a mean rate is a bootstrap, not a clustered SE. */
export const BOOTSTRAP_BELOW = 30;
/** Up to this many tasks the sign-flip test enumerates every flip (2^T). */
export const EXACT_FLIPS_UP_TO = 20;
/** Random flips of the sign-flip test past {@linkcode EXACT_FLIPS_UP_TO} tasks. */
export const RANDOM_FLIPS = 10_000;

/** One task's attempts by one agent: `n` that count, `c` of them resolved. */
export interface TaskAttempts {
  /** Attempts that count (not infrastructure errors). */
  n: number;
  /** Of those, the ones that resolved the task. */
  c: number;
}

function checkCounts(n: number, c: number, k: number): void {
  if (
    !Number.isInteger(n) || !Number.isInteger(c) || !Number.isInteger(k) || c < 0 || c > n ||
    k < 1 || k > n
  ) {
    throw new RangeError(
      `Cannot estimate from ${c} of ${n} attempts with k = ${k}: need 0 <= c <= n and 1 <= k <= n`,
    );
  }
}

/**
 * pass@k of one task: the chance that at least one of k attempts drawn without replacement from
 * its n attempts resolves it, `1 − C(n−c, k) / C(n, k)` (Chen et al. 2021, unbiased). The ratio is
 * a running product, `∏_{j=n−c+1}^{n} (1 − k/j)`, so no binomial grows large. Throws a
 * `RangeError` unless 0 <= c <= n and 1 <= k <= n are integers.
 */
export function passAtK(n: number, c: number, k: number): number {
  checkCounts(n, c, k);
  if (n - c < k) return 1;
  let none = 1;
  for (let j = n - c + 1; j <= n; j++) none *= 1 - k / j;
  return 1 - none;
}

/**
 * pass^k of one task: the chance that all k attempts drawn without replacement resolve it,
 * `C(c, k) / C(n, k) = ∏_{j=0}^{k−1} (c−j)/(n−j)` (Yao et al. 2024). Throws like
 * {@linkcode passAtK}.
 */
export function passHatK(n: number, c: number, k: number): number {
  checkCounts(n, c, k);
  if (c < k) return 0;
  let all = 1;
  for (let j = 0; j < k; j++) all *= (c - j) / (n - j);
  return all;
}

/** A mean over tasks of a per-task estimate (pass@k or pass^k). */
export interface TaskMean {
  /** The k of pass@k or pass^k. */
  k: number;
  /** The mean, or null when no task has k attempts. */
  rate: number | null;
  /** Tasks with at least k attempts: the others are left out. */
  tasks: number;
}

/** The mean of `estimate` over the tasks with at least k attempts. */
export function meanOverTasks(
  tasks: readonly TaskAttempts[],
  k: number,
  estimate: (n: number, c: number, k: number) => number,
): TaskMean {
  const counted = tasks.filter((t) => t.n >= k);
  const rate = counted.length === 0
    ? null
    : counted.reduce((sum, t) => sum + estimate(t.n, t.c, k), 0) / counted.length;
  return { k, rate, tasks: counted.length };
}

/** How the interval of a mean rate was made. */
export type IntervalMethod = "wilson" | "clustered" | "bootstrap";

/** The mean of per-task rates with its 95% interval, and how the interval was made. */
export interface MeanInterval {
  /** The mean, or null with no task. */
  rate: number | null;
  /** Lower bound (0 with no task). */
  low: number;
  /** Upper bound (1 with no task). */
  high: number;
  /** `clustered` (T >= 30) or `bootstrap` (T < 30). */
  method: "clustered" | "bootstrap";
  /** The clustered standard error; null for a bootstrap or fewer than two tasks. */
  se: number | null;
  /** The bootstrap's resamples; null for a clustered SE. */
  resamples: number | null;
  /** The bootstrap's seed; null for a clustered SE. */
  seed: number | null;
}

function mean(values: readonly number[]): number {
  return values.reduce((sum, x) => sum + x, 0) / values.length;
}

const clip = (x: number) => Math.min(1, Math.max(0, x));

/**
 * The clustered standard error of the mean of per-task rates x̄_i over T tasks:
 * `sqrt(Σ (x̄_i − p̂)²) / T · sqrt(T / (T − 1))` (Miller 2024); null with fewer than two tasks.
 */
export function clusteredSe(rates: readonly number[]): number | null {
  const t = rates.length;
  if (t < 2) return null;
  const p = mean(rates);
  const squares = rates.reduce((sum, x) => sum + (x - p) ** 2, 0);
  return (Math.sqrt(squares) / t) * Math.sqrt(t / (t - 1));
}

/**
 * A small, fast generator of uniform numbers in [0, 1) (mulberry32): the same seed gives the same
 * sequence on every machine.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The task-level percentile bootstrap of a mean: `resamples` times, draw T tasks with replacement
 * and take their mean; the interval runs from the 2.5th to the 97.5th percentile of those means
 * (sorted, the ⌊0.025·B⌋-th and the ⌈0.975·B⌉-th, counting from 1). Seeded: the same rates, seed and
 * resamples give the same interval.
 */
export function bootstrapInterval(
  rates: readonly number[],
  options: { resamples?: number; seed?: number } = {},
): { low: number; high: number } {
  const resamples = options.resamples ?? BOOTSTRAP_RESAMPLES;
  const t = rates.length;
  if (t === 0) return { low: 0, high: 1 };
  const random = seededRandom(options.seed ?? REPORT_SEED);
  const means = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) {
    let sum = 0;
    for (let i = 0; i < t; i++) sum += rates[Math.floor(random() * t)];
    means[b] = sum / t;
  }
  means.sort();
  const lowAt = Math.max(0, Math.floor(0.025 * resamples) - 1);
  const highAt = Math.min(resamples - 1, Math.ceil(0.975 * resamples) - 1);
  return { low: clip(means[lowAt]), high: clip(means[highAt]) };
}

/**
 * The mean of per-task rates with a 95% interval that takes the task as the unit: a task-level
 * bootstrap (2,000 resamples, seeded) below 30 tasks, a clustered standard error (p̂ ± 1.96·SE,
 * clipped to [0, 1]) from 30 on. With no task the rate is null and the interval all of [0, 1];
 * with one task a clustered SE is unknown, and the bootstrap's interval is that task's rate.
 */
export function meanRateInterval(
  rates: readonly number[],
  options: { resamples?: number; seed?: number } = {},
): MeanInterval {
  const t = rates.length;
  const rate = t === 0 ? null : mean(rates);
  if (t < BOOTSTRAP_BELOW) {
    const resamples = options.resamples ?? BOOTSTRAP_RESAMPLES;
    const seed = options.seed ?? REPORT_SEED;
    const { low, high } = bootstrapInterval(rates, { resamples, seed });
    return { rate, low, high, method: "bootstrap", se: null, resamples, seed };
  }
  const se = clusteredSe(rates)!;
  return {
    rate,
    low: clip(rate! - Z95 * se),
    high: clip(rate! + Z95 * se),
    method: "clustered",
    se,
    resamples: null,
    seed: null,
  };
}

/** The sign-flip permutation test of paired differences. */
export interface SignFlip {
  /** Two-sided p-value: the share of flips whose |Σ d| is at least the observed one. */
  p: number;
  /** Flips drawn (2^T when exact). */
  flips: number;
  /** Every one of the 2^T flips was counted. */
  exact: boolean;
}

/**
 * The sign-flip permutation test of paired differences d_i (H0: each d_i is as likely to have the
 * other sign). The statistic is |Σ d_i|; the p-value is the share of sign flips at least as
 * extreme. Up to 20 differences every one of the 2^T flips is counted (exact); past that
 * `flips` random flips (10,000, seeded) and p = (1 + hits) / (1 + flips), which never reports
 * an impossible 0. Zero differences flip to themselves and change nothing.
 */
export function signFlipTest(
  differences: readonly number[],
  options: { flips?: number; seed?: number } = {},
): SignFlip {
  const d = differences.filter((x) => x !== 0);
  const t = d.length;
  if (t === 0) return { p: 1, flips: 1, exact: true };
  const observed = Math.abs(d.reduce((sum, x) => sum + x, 0));
  // Sums of fractions of attempts: equal sums may differ in the last bits.
  const extreme = (sum: number) => Math.abs(sum) >= observed - 1e-9;
  if (t <= EXACT_FLIPS_UP_TO) {
    let hits = 0;
    const total = 2 ** t;
    for (let mask = 0; mask < total; mask++) {
      let sum = 0;
      for (let i = 0; i < t; i++) sum += (mask >> i) & 1 ? -d[i] : d[i];
      if (extreme(sum)) hits++;
    }
    return { p: hits / total, flips: total, exact: true };
  }
  const flips = options.flips ?? RANDOM_FLIPS;
  const random = seededRandom(options.seed ?? REPORT_SEED);
  let hits = 0;
  for (let f = 0; f < flips; f++) {
    let sum = 0;
    for (let i = 0; i < t; i++) sum += random() < 0.5 ? -d[i] : d[i];
    if (extreme(sum)) hits++;
  }
  return { p: (1 + hits) / (1 + flips), flips, exact: false };
}

/** One agent's per-task resolve rates: the share of its attempts that resolved each task. */
export interface AgentRates {
  /** The agent's name, used in the sentence. */
  name: string;
  /** Per task attempted: resolved attempts ÷ attempts that count. A task absent was not attempted. */
  rates: Readonly<Record<string, number>>;
}

/** Two agents' per-task resolve rates compared over the tasks both attempted. */
export interface RatesComparison {
  /** The test: a sign-flip permutation test of per-task rates (repeated attempts). */
  test: "sign-flip";
  /** The first agent. */
  a: string;
  /** The second agent. */
  b: string;
  /** Tasks both attempted. */
  tasks: number;
  /** The first agent's mean rate over those tasks, or null with none. */
  meanA: number | null;
  /** The second agent's. */
  meanB: number | null;
  /** meanA − meanB, or null with no task. */
  difference: number | null;
  /** Its paired standard error, sd(d) / sqrt(T); null with fewer than two tasks. */
  se: number | null;
  /** Tasks where the first resolved a larger share of its attempts. */
  higher: number;
  /** Tasks where the second did. */
  lower: number;
  /** Tasks where the shares were equal. */
  same: number;
  /** Two-sided p-value of the sign-flip test. */
  p: number;
  /** Flips counted. */
  flips: number;
  /** Every flip was counted (T <= 20), rather than random ones. */
  exact: boolean;
  /** The comparison in words. */
  sentence: string;
}

/** The paired standard error of the mean difference: sd(d) / sqrt(T); null below two. */
export function pairedSe(differences: readonly number[]): number | null {
  const t = differences.length;
  if (t < 2) return null;
  const m = mean(differences);
  const variance = differences.reduce((sum, x) => sum + (x - m) ** 2, 0) / (t - 1);
  return Math.sqrt(variance / t);
}

/** A difference of rates in percentage points: "22 points", "0.5 points". */
function points(x: number): string {
  const p = Math.abs(x) * 100;
  const text = p > 0 && p < 1 ? p.toFixed(1) : String(Math.round(p));
  return `${text} ${text === "1" ? "point" : "points"}`;
}

const percent = (x: number) => `${Math.round(x * 100)}%`;

/**
 * Compare two agents' per-task resolve rates over the tasks both attempted: the mean difference
 * with its paired standard error, and the sign-flip test, in words ("could be chance" at
 * p >= 0.05).
 */
export function compareRates(
  a: AgentRates,
  b: AgentRates,
  options: { flips?: number; seed?: number } = {},
): RatesComparison {
  const tasks = Object.keys(a.rates).filter((t) => Object.hasOwn(b.rates, t));
  const d = tasks.map((t) => a.rates[t] - b.rates[t]);
  const higher = d.filter((x) => x > 1e-12).length;
  const lower = d.filter((x) => x < -1e-12).length;
  const same = d.length - higher - lower;
  const meanA = tasks.length ? mean(tasks.map((t) => a.rates[t])) : null;
  const meanB = tasks.length ? mean(tasks.map((t) => b.rates[t])) : null;
  const difference = tasks.length ? mean(d) : null;
  const se = pairedSe(d);
  const test = signFlipTest(d, options);
  const ofTasks = plural(tasks.length, "task");
  let sentence: string;
  if (tasks.length === 0) {
    sentence =
      `${a.name} and ${b.name} attempted no task in common, so there is nothing to compare.`;
  } else if (higher + lower === 0) {
    sentence = `${a.name} and ${b.name} resolved the same share of their attempts at each of ` +
      `the ${ofTasks} both attempted; nothing separates them.`;
  } else {
    const verdict = test.p < 0.05
      ? "the difference is unlikely to be chance"
      : "this could be chance";
    const how = test.exact
      ? `all ${test.flips} sign flips`
      : `${test.flips.toLocaleString("en-US")} random sign flips`;
    const apart = difference === 0 ? "no points apart on average" : `${points(difference!)} apart`;
    sentence = `${a.name} resolved ${percent(meanA!)} of its attempts per task on average, ` +
      `${b.name} ${percent(meanB!)}: ${apart}${
        se === null ? "" : ` (standard error ${points(se)})`
      }, ${a.name} ahead on ${plural(higher, "task")}, ${b.name} on ${lower}; with ${ofTasks} ` +
      `${verdict}, p ${formatP(test.p)} (${how}).`;
  }
  return {
    test: "sign-flip",
    a: a.name,
    b: b.name,
    tasks: tasks.length,
    meanA,
    meanB,
    difference,
    se,
    higher,
    lower,
    same,
    p: test.p,
    flips: test.flips,
    exact: test.exact,
    sentence,
  };
}
