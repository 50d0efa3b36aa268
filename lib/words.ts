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

/** A duration in a few characters: "0.4s", "45s", "4m 05s", "1h 02m". */
export function elapsed(ms: number): string {
  if (ms < 9_950) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}
