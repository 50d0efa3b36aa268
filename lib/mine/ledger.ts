/**
 * Every change mining left out, and why: counted by reason, and listed — with its title and what
 * decided — in the order history was walked, newest first.
 *
 * Pure; no permissions needed.
 *
 * @module
 */

import type { Exclusion } from "../records.ts";
import { COUNTED_ONLY, EXCLUSION_REASONS, type ExclusionReason } from "./classify.ts";

/** The changes left out so far. */
export class Ledger {
  /** Left out, listed one by one (the reasons that are not counted only). */
  readonly excluded: Exclusion[] = [];
  /** Left out, counted by reason. */
  readonly counts: Record<string, number> = {};
  /** The rest, compactly by reason: `<sha12>[ <what decided>]` (see `TasksFile.leftOut`). */
  readonly compact: Record<string, string[]> = {};

  /** Count `n` changes left out for `reason`. */
  count(reason: ExclusionReason, n = 1): void {
    if (n) this.counts[reason] = (this.counts[reason] ?? 0) + n;
  }

  /** Leave a change out for `reason`, with what decided it. */
  exclude(
    change: { commit: string; title: string },
    reason: ExclusionReason,
    detail?: string,
  ): void {
    this.count(reason);
    if (COUNTED_ONLY.includes(reason)) {
      const entry = detail ? `${change.commit.slice(0, 12)} ${detail}` : change.commit.slice(0, 12);
      (this.compact[reason] ??= []).push(entry);
      return;
    }
    this.excluded.push({
      commit: change.commit,
      title: change.title,
      reason,
      ...(detail ? { detail } : {}),
    });
  }

  /** The exclusions in walk order (`order`: every commit walked, newest first). */
  listed(order: readonly string[]): Exclusion[] {
    const position = new Map(order.map((commit, i) => [commit, i]));
    return [...this.excluded].sort((a, b) =>
      (position.get(a.commit) ?? 0) - (position.get(b.commit) ?? 0)
    );
  }

  /** The compact record, each reason's entries in walk order. */
  leftOut(order: readonly string[]): Record<string, string[]> {
    const position = new Map(order.map((commit, i) => [commit.slice(0, 12), i]));
    const at = (entry: string) => position.get(entry.slice(0, 12)) ?? 0;
    return Object.fromEntries(
      Object.entries(this.compact).map(([reason, list]) => [
        reason,
        [...list].sort((a, b) => at(a) - at(b)),
      ]),
    );
  }

  /** The counts, reasons in the order the rules apply. */
  sortedCounts(): Record<string, number> {
    const order = new Map(EXCLUSION_REASONS.map((r, i) => [r as string, i]));
    return Object.fromEntries(
      Object.entries(this.counts).sort((a, b) => (order.get(a[0]) ?? 99) - (order.get(b[0]) ?? 99)),
    );
  }
}
