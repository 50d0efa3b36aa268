/**
 * Small wording helpers shared by every summary line and report: counts with their nouns.
 *
 * Pure; no permissions.
 *
 * @module
 */

/** `n noun`, with the plural form when n is not 1: `plural(2, "matrix", "matrices")`. */
export function plural(n: number, noun: string, nouns = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : nouns}`;
}

/** How many times each value occurs, in order of first appearance: `2 patch, 1 timeout`. */
export function tally(values: readonly string[]): string {
  const map = new Map<string, number>();
  for (const v of values) map.set(v, (map.get(v) ?? 0) + 1);
  return [...map].map(([k, n]) => `${n} ${k}`).join(", ");
}
