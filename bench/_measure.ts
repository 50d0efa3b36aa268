/**
 * What the benches share: the median, timing a call, and the ratio line every bench prints
 * (tests/bench_test.ts looks for it).
 *
 * No permissions.
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
