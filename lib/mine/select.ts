/**
 * Choosing tasks among the fixes that qualify, newest first: one task per bug (a newer change for
 * the same issue wins over an older one), but two different bugs that happen to share an issue
 * number (a tracker renumbered on migration) stay two tasks with unique ids; and what GitHub's
 * labels say about bug or feature.
 *
 * Pure functions; no permissions needed.
 *
 * @module
 */

import type { Candidate, KindEvidence } from "./classify.ts";

const YEAR_SECONDS = 365 * 24 * 3600;

/** A title reduced to its words, to tell the same change committed twice. */
function wordsOf(title: string): string {
  return title.toLowerCase().replace(/\(?#\d+\)?|gh-\d+/g, " ").replace(/[^a-z0-9]+/g, " ").trim();
}

/**
 * True when two changes naming the same issue number are about the same bug: committed within a
 * year of each other, or under the same title (the same fix committed twice). Two changes years
 * apart with different titles are two bugs under one number.
 */
export function sameBug(
  a: Pick<Candidate, "time" | "title">,
  b: Pick<Candidate, "time" | "title">,
): boolean {
  return Math.abs(a.time - b.time) < YEAR_SECONDS || wordsOf(a.title) === wordsOf(b.title);
}

/** What the tasks kept so far say about one issue number. */
interface Kept {
  commit: string;
  time: number;
  title: string;
}

/** Keeps one task per bug, newest first, and gives each a unique, stable id. */
export class TaskIds {
  #byNumber = new Map<number, Kept[]>();

  /**
   * The newer kept change this one repeats (the same bug under `numbers`), if any; else
   * undefined.
   */
  repeats(candidate: Candidate, numbers: readonly number[]): Kept & { number: number } | undefined {
    for (const number of numbers) {
      const same = this.#byNumber.get(number)?.find((k) => sameBug(k, candidate));
      if (same) return { ...same, number };
    }
    return undefined;
  }

  /**
   * Record a kept change under its numbers and return its id: `base` for the newest change of an
   * issue, `base-<commit>` (seven hex digits) for an older, different bug under the same number.
   */
  keep(candidate: Candidate, numbers: readonly number[], base: string): string {
    const taken = this.#byNumber.has(numbers[0]);
    for (const number of numbers) {
      const list = this.#byNumber.get(number) ?? [];
      list.push({ commit: candidate.commit, time: candidate.time, title: candidate.title });
      this.#byNumber.set(number, list);
    }
    return taken ? `${base}-${candidate.commit.slice(0, 7)}` : base;
  }
}

const BUG_LABEL = /\b(?:bug|bugs|bugfix|bug[- ]fix|regression|defect|crash)\b/i;
const FEATURE_LABEL = /\b(?:feature|features|enhancement|enhancements|improvement|new)\b/i;

/** What GitHub's labels on an issue or pull request say, when they say one thing. */
export function labelEvidence(labels: readonly string[] | undefined): KindEvidence | undefined {
  if (!labels?.length) return undefined;
  const bug = labels.filter((l) => BUG_LABEL.test(l));
  const feature = labels.filter((l) => FEATURE_LABEL.test(l) && !BUG_LABEL.test(l));
  if (bug.length && !feature.length) {
    return { rule: "label", says: "bug", detail: `labelled ${bug.join(", ")}` };
  }
  if (feature.length && !bug.length) {
    return { rule: "label", says: "feature", detail: `labelled ${feature.join(", ")}` };
  }
  return undefined;
}
