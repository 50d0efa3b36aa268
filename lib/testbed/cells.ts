/**
 * From what each session reported to the matrix's rows and cells. Pure; no permissions.
 *
 * A module that cannot be imported is reported by pytest as the module's path, not as its tests.
 * A reproduction test often imports something the bug fix adds, so its module fails on B and
 * collects on the patches: its tests are then rows, and on B each of them is `error`. A module
 * that never collected anywhere stays one row, under its path.
 *
 * @module
 */

import type { Matrix, Outcome } from "../records.ts";
import type { GroupResult } from "./sessions.ts";

/** A tree and what each author's tests did on it. */
export interface TreeResult {
  /** The tree as the matrix lists it. */
  tree: Matrix["trees"][number];
  /** One result per author that ran there (none for a tree that could not be built). */
  groups: GroupResult[];
  /**
   * When only some tests ran here on purpose (a repeat of B), the matrix ids that did, by author:
   * the others get no cell on this tree, and say nothing about stability.
   */
  only?: ReadonlyMap<string, ReadonlySet<string>>;
}

/** Whether test `id` of `owner` was meant to run on the tree of `result`. */
function meant(result: TreeResult, owner: string, id: string): boolean {
  return result.only?.get(owner)?.has(id) ?? true;
}

/** An author in the order the matrix lists authors. */
export interface Owner {
  /** An agent's name or `repository`. */
  name: string;
  /** Its role. */
  role: "contestant" | "examiner" | "repository";
}

function failing(outcome: Outcome | undefined): boolean {
  return outcome === "failed" || outcome === "error";
}

/**
 * The outcome of test `id` in one session's observations: its own outcome; `error` when its module
 * failed to collect; for a module's own id, what its tests did together (failed when any failed,
 * passed when all passed); `not-run` when the session says nothing about it.
 */
export function lookupOutcome(observed: ReadonlyMap<string, Outcome>, id: string): Outcome {
  const direct = observed.get(id);
  if (direct !== undefined) return direct;
  const at = id.indexOf("::");
  if (at >= 0) return failing(observed.get(id.slice(0, at))) ? "error" : "not-run";
  const inside: Outcome[] = [];
  for (const [key, outcome] of observed) if (key.startsWith(`${id}::`)) inside.push(outcome);
  if (inside.length === 0) return "not-run";
  if (inside.some(failing)) return "failed";
  if (inside.every((o) => o === "passed")) return "passed";
  return inside[0];
}

/**
 * The ids of an author's tests over several sessions, in order of first appearance; a module's
 * own id is dropped when some session collected tests from it.
 */
export function rowIds(observations: readonly ReadonlyMap<string, Outcome>[]): string[] {
  const ids: string[] = [];
  const seen = new Set<string>();
  for (const observed of observations) {
    for (const id of observed.keys()) {
      if (!seen.has(id)) {
        seen.add(id);
        ids.push(id);
      }
    }
  }
  const collected = new Set(
    ids.filter((id) => id.includes("::")).map((id) => id.slice(0, id.indexOf("::"))),
  );
  return ids.filter((id) => id.includes("::") || !collected.has(id));
}

/** The outcome of one author's test on one tree (`not-run` when its session did not run). */
export function cellOn(result: TreeResult, owner: string, id: string): Outcome {
  const group = result.groups.find((g) => g.owner === owner);
  if (!group || group.status === "infra-error") return "not-run";
  return lookupOutcome(group.outcomes, id);
}

/**
 * Rows, cells and the tests unstable on B, from every tree's results. Authors come in `owners`
 * order; a test whose outcome differs between the B repeats that ran it is unstable.
 */
export function assembleCells(
  owners: readonly Owner[],
  results: readonly TreeResult[],
): Pick<Matrix, "tests" | "cells" | "unstableOnB"> {
  const tests: Matrix["tests"] = [];
  const cells: Matrix["cells"] = {};
  const unstableOnB: string[] = [];
  for (const owner of owners) {
    const observations = results.flatMap((r) =>
      r.groups.filter((g) => g.owner === owner.name).map((g) => g.outcomes)
    );
    for (const id of rowIds(observations)) {
      tests.push({ id, author: owner.name, authorRole: owner.role });
      cells[id] = Object.fromEntries(
        results.filter((r) => meant(r, owner.name, id)).map((r) => [
          r.tree.id,
          cellOn(r, owner.name, id),
        ]),
      );
      const onBase = new Set<Outcome>();
      for (const r of results) {
        if (r.tree.kind !== "base" || !meant(r, owner.name, id)) continue;
        const group = r.groups.find((g) => g.owner === owner.name);
        if (group && group.status !== "infra-error") onBase.add(lookupOutcome(group.outcomes, id));
      }
      if (onBase.size > 1) unstableOnB.push(id);
    }
  }
  return { tests, cells, unstableOnB: unstableOnB.sort() };
}
