/**
 * What the benches share: the median, timing a call, paired A/B runs in alternating order with
 * their ratios and the load, and the ratio line every bench prints
 * (tests/bench_test.ts looks for it).
 *
 * No permissions, but `--allow-read` for {@linkcode loadAverage} (and the benches that print it).
 *
 * @module
 */

/** The median of `xs` (the mean of the middle two for an even count). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Milliseconds `fn` takes, with what it returned. */
export async function timed<T>(fn: () => T | Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await fn();
  return { ms: performance.now() - started, value };
}

/** `median 12 ms (11, 12, 14)`: the median of some times and every one of them. */
export function describeTimes(ms: readonly number[]): string {
  return `median ${median(ms).toFixed(1)} ms (${ms.map((x) => x.toFixed(1)).join(", ")})`;
}

/**
 * Print the `ratio:` line: the ratio, its goal, and whether this run met it; true when a full run
 * missed the goal. A quick run (tiny sizes, one round) measures fixed costs rather than the
 * claim, so it says so instead of judging.
 */
export function printRatio(
  what: string,
  ratio: number,
  goal: { atMost: number; quick: boolean },
): boolean {
  const missed = ratio > goal.atMost;
  const verdict = goal.quick ? "not judged in a quick run" : missed ? "FAIL" : "PASS";
  console.log(`ratio: ${what} ${ratio.toFixed(2)}x (goal: at most ${goal.atMost}x) ${verdict}`);
  return missed && !goal.quick;
}

/** The machine's load averages (1, 5, 15 minutes), as /proc/loadavg says them. */
export function loadAverage(): string {
  try {
    return Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
  } catch {
    return "unknown (no /proc/loadavg)";
  }
}

/** What {@linkcode pairedRuns} measured: each side's times and each pair's ratio `a / b`. */
export interface Pairs {
  /** Milliseconds of side A, one per pair. */
  a: number[];
  /** Milliseconds of side B, one per pair. */
  b: number[];
  /** `a[i] / b[i]`. */
  ratios: number[];
  /** The load averages before the first warm-up and after the last pair. */
  load: { before: string; after: string };
}

/**
 * Measure several sides fairly: each side once untimed (page cache, imports, environments), then
 * `n` rounds whose order alternates (A, B, C, then C, B, A, ...), so no side always runs on a
 * machine another has just warmed or tired. Each side returns its own milliseconds (so what it
 * prepares need not be timed); the result holds them per side, one per round.
 */
export async function alternatingRuns<K extends string>(
  n: number,
  sides: Record<K, (round: number) => Promise<number>>,
  options: { warm?: boolean } = {},
): Promise<{ times: Record<K, number[]>; load: { before: string; after: string } }> {
  const names = Object.keys(sides) as K[];
  const before = loadAverage();
  if (options.warm ?? true) { for (const name of names) await sides[name](-1); }
  const times = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<
    K,
    number[]
  >;
  for (let i = 0; i < n; i++) {
    for (const name of i % 2 === 0 ? names : [...names].reverse()) {
      times[name].push(await sides[name](i));
    }
  }
  return { times, load: { before, after: loadAverage() } };
}

/** The ratio of each round: `a[i] / b[i]`. */
export function pairRatios(a: readonly number[], b: readonly number[]): number[] {
  return a.map((x, i) => x / b[i]);
}

/** Two sides measured by {@linkcode alternatingRuns}, with each pair's ratio `a / b`. */
export async function pairedRuns(
  n: number,
  a: (round: number) => Promise<number>,
  b: (round: number) => Promise<number>,
  options: { warm?: boolean } = {},
): Promise<Pairs> {
  const { times, load } = await alternatingRuns(n, { a, b }, options);
  return { a: times.a, b: times.b, ratios: pairRatios(times.a, times.b), load };
}

/** `1.21x (1.12-1.30, n=5)`: the median of pair ratios, their range and their count. */
export function describeRatios(ratios: readonly number[]): string {
  const lo = Math.min(...ratios);
  const hi = Math.max(...ratios);
  return `${median(ratios).toFixed(2)}x (${lo.toFixed(2)}-${hi.toFixed(2)}, n=${ratios.length})`;
}

/** The lines every paired bench prints: both sides' times, the load, the pair ratios. */
export function printPairs(labels: { a: string; b: string }, pairs: Pairs): void {
  const width = Math.max(labels.a.length, labels.b.length) + 1;
  console.log(`${`${labels.a}:`.padEnd(width)} ${describeTimes(pairs.a)}`);
  console.log(`${`${labels.b}:`.padEnd(width)} ${describeTimes(pairs.b)}`);
  console.log(
    `load average (1, 5, 15 min): ${pairs.load.before} before, ${pairs.load.after} after`,
  );
  console.log(`pair ratios ${labels.a} / ${labels.b}: ${describeRatios(pairs.ratios)}`);
}
