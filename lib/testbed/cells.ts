/**
 * From what each run reported to the matrix's rows and cells. Pure; no permissions.
 *
 * A file that cannot be loaded is reported by its runner as the file's id (its path; Go's: its
 * package), not as its tests. A reproduction test often imports something the bug fix adds, so its
 * file fails on B and loads on the patches: its tests are then rows, and on B each of them is
 * `error`. A file that never loaded anywhere stays one row, under its own id. What a test id's file
 * is, the runner says (`fileOf`).
 *
 * @module
 */

import type { Matrix, Outcome } from "../records.ts";
import type { GroupResult } from "./owners.ts";

/** The file (or package) a test id belongs to; a file's own id is itself. */
export type FileOf = (id: string) => string;

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
 * The outcome of row `id` in one run's observations: its own; for a test, `error` when its file
 * failed to load, else `not-run`; for a file's own row (one the matrix never saw tests of), what
 * its tests did together (failed when any failed, passed when all passed), `not-run` when none ran.
 */
export function lookupOutcome(
  observed: ReadonlyMap<string, Outcome>,
  id: string,
  fileOf: FileOf,
): Outcome {
  const direct = observed.get(id);
  if (direct !== undefined) return direct;
  const file = fileOf(id);
  if (file !== id) return failing(observed.get(file)) ? "error" : "not-run";
  const inside: Outcome[] = [];
  for (const [key, outcome] of observed) {
    if (key !== id && fileOf(key) === id) inside.push(outcome);
  }
  if (inside.length === 0) return "not-run";
  if (inside.some(failing)) return "failed";
  if (inside.every((o) => o === "passed")) return "passed";
  return inside[0];
}

/**
 * The rows of one owner over several runs: `statically` (rows known before anything ran) first,
 * then each id in order of first appearance; a file's own id is a row only while no test of it was
 * seen anywhere.
 */
export function rowIds(
  observations: readonly ReadonlyMap<string, Outcome>[],
  fileOf: FileOf,
  statically: readonly string[] = [],
): string[] {
  const seen: string[] = [...statically];
  const known = new Set(seen);
  for (const o of observations) {
    for (const id of o.keys()) {
      if (!known.has(id)) {
        known.add(id);
        seen.push(id);
      }
    }
  }
  const files = new Set(seen.filter((id) => fileOf(id) === id));
  const testsIn = new Set(seen.filter((id) => !files.has(id)).map(fileOf));
  return seen.filter((id) => !files.has(id) || !testsIn.has(id));
}

/** The outcome of one owner's row on one tree (`not-run` when its group did not run there). */
export function cellOn(result: TreeResult, owner: string, id: string, fileOf: FileOf): Outcome {
  const group = result.groups.find((g) => g.owner === owner);
  if (!group || group.status === "infra-error") return "not-run";
  return lookupOutcome(group.outcomes, id, fileOf);
}

/**
 * Rows, cells and the tests unstable on B, from every tree's results. Authors come in `owners`
 * order, each with the rows known before anything ran (`statically`); a test whose outcome differs
 * between the B repeats that ran it is unstable.
 */
export function assembleCells(
  owners: readonly Owner[],
  results: readonly TreeResult[],
  fileOf: FileOf,
  statically: (owner: string) => readonly string[] = () => [],
): Pick<Matrix, "tests" | "cells" | "unstableOnB"> {
  const tests: Matrix["tests"] = [];
  const cells: Matrix["cells"] = {};
  const unstableOnB: string[] = [];
  for (const owner of owners) {
    const observations = results.flatMap((r) =>
      r.groups.filter((g) => g.owner === owner.name).map((g) => g.outcomes)
    );
    for (const id of rowIds(observations, fileOf, statically(owner.name))) {
      tests.push({ id, author: owner.name, authorRole: owner.role });
      cells[id] = Object.fromEntries(
        results.filter((r) => meant(r, owner.name, id)).map((r) => [
          r.tree.id,
          cellOn(r, owner.name, id, fileOf),
        ]),
      );
      const onBase = new Set<Outcome>();
      for (const r of results) {
        if (r.tree.kind !== "base" || !meant(r, owner.name, id)) continue;
        const group = r.groups.find((g) => g.owner === owner.name);
        if (group && group.status !== "infra-error") {
          onBase.add(lookupOutcome(group.outcomes, id, fileOf));
        }
      }
      if (onBase.size > 1) unstableOnB.push(id);
    }
  }
  return { tests, cells, unstableOnB: unstableOnB.sort() };
}
