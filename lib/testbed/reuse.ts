/**
 * Reusing work between runs of a stage. A **cell** is one author's tests on one tree; its key is
 * made of everything that decides its outcomes (what is in the tree, the author's tests, how
 * sessions run), so a saved cell whose key stands is taken as it is, and adding an agent runs only
 * the new agent's tree against every author and the new author's tests on every tree. A **unit**
 * is a larger result a stage keeps whole (a tree a patch could not be applied to, a scored patch),
 * known by its name and the key it was made from.
 *
 * A cell that ended in an infrastructure error is never kept: it runs again next time.
 *
 * Pure; no permissions.
 *
 * @module
 */

import { inputsKey } from "../hash.ts";
import type { Reuse, SavedCell } from "../records.ts";
import type { GroupResult } from "./owners.ts";

/** The cells and units a stage saved last time, and what it keeps this time. */
export class Reuser {
  #previous: Map<string, SavedCell>;
  #previousUnits: Readonly<Record<string, string>>;
  #kept = new Map<string, SavedCell>();
  #units: Record<string, string> = {};
  #ran = 0;
  #reused = 0;

  /** Start from what a stage's last result kept (nothing, the first time). */
  constructor(previous?: Reuse) {
    this.#previous = new Map((previous?.cells ?? []).map((c) => [c.key, c]));
    this.#previousUnits = previous?.units ?? {};
  }

  /** Whether the cell with this key was saved (without taking it). */
  has(key: string): boolean {
    return this.#previous.has(key) || this.#kept.has(key);
  }

  /** The saved cell with this key, counted as reused and kept; undefined when there is none. */
  take(key: string): GroupResult | undefined {
    const saved = this.#kept.get(key) ?? this.#previous.get(key);
    if (!saved) return undefined;
    if (!this.#kept.has(key)) {
      this.#kept.set(key, saved);
      this.#reused++;
    }
    return {
      owner: saved.owner,
      status: saved.status,
      ...(saved.message ? { message: saved.message } : {}),
      outcomes: new Map(Object.entries(saved.outcomes)),
      tamper: saved.tamper,
      suspect: saved.suspect,
      ...(saved.coverage ? { coverage: saved.coverage } : {}),
    };
  }

  /** Keep a cell that just ran (one that hit an infrastructure error runs again next time). */
  put(key: string, result: GroupResult): void {
    this.#ran++;
    if (result.status === "infra-error") return;
    this.#kept.set(key, {
      key,
      owner: result.owner,
      status: result.status,
      ...(result.message ? { message: result.message } : {}),
      outcomes: Object.fromEntries(result.outcomes),
      tamper: result.tamper,
      suspect: result.suspect,
      ...(result.coverage ? { coverage: result.coverage } : {}),
    });
  }

  /** Whether the unit `name` was last made from `key` (then the caller reuses it as it is). */
  unitStands(name: string, key: string): boolean {
    return this.#previousUnits[name] === key;
  }

  /** Record the key unit `name` was made from this time. */
  unit(name: string, key: string): void {
    this.#units[name] = key;
  }

  /** What to save with the stage's result. */
  saved(): Reuse {
    return {
      ran: this.#ran,
      reused: this.#reused,
      cells: [...this.#kept.values()],
      units: { ...this.#units },
    };
  }
}

/** The key of one cell: a tree's key, an author's key, and the key of how sessions run. */
export function cellKey(tree: string, author: string, sessions: string): string {
  return inputsKey({ tree, author, sessions });
}

/** "3 cells ran, 12 reused", for a stage line. */
export function reuseSummary(reuses: readonly (Reuse | undefined)[]): string {
  let ran = 0;
  let reused = 0;
  for (const r of reuses) {
    ran += r?.ran ?? 0;
    reused += r?.reused ?? 0;
  }
  return `${ran} ${ran === 1 ? "cell" : "cells"} ran, ${reused} reused`;
}
