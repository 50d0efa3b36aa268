/**
 * Divergence: a patch whose tests pass, but whose code handed those tests something other than
 * what the real fix hands them. Made from the observations of the patch's run and of the gold
 * run (`observe`), compared here, in bugbout's process, where the code under test cannot reach.
 *
 * For each fail-to-pass test that passed on the patch, the calls its code made into the code under test
 * are walked side by side with the gold run's, as long as both runs made the same call (once the
 * test takes another path, nothing further is compared). Two things make a patch divergent:
 *
 * - the patch raised where the real fix returned, and the test still passed;
 * - the patch returned a value of a type the tree defines, with an `__eq__` the tree defines, where
 *   the real fix returned a value of another type (an object that compares equal to anything);
 * - the patch returned an object of a class made by Python code that names itself as the built-in
 *   type the real fix returns (`__module__ = "builtins"`, `__qualname__ = "list"`).
 *
 * Different values of one type, other exception types and other types without their own `__eq__`
 * are not compared: an honest patch may differ from the fix in all of them.
 *
 * Pure; no permissions.
 *
 * @module
 */

import type { Observation } from "../records.ts";

/** A test whose observations diverge from the real fix's, and how. */
export interface Divergence {
  /** The test's id. */
  test: string;
  /** The first call that diverged, in words. */
  detail: string;
}

/** The first way `patch`'s observations of one test diverge from `gold`'s, if any. */
export function divergentCall(
  gold: readonly Observation[],
  patch: readonly Observation[],
): string | undefined {
  const n = Math.min(gold.length, patch.length);
  for (let i = 0; i < n; i++) {
    const [call, goldKind, goldType, goldFlags] = gold[i];
    const [patchCall, kind, type, flags] = patch[i];
    if (patchCall !== call) return undefined;
    if (goldKind === "r" && kind === "x") {
      return `${call} raised ${type} where the real fix returns ${goldType}`;
    }
    if (goldKind === "r" && kind === "r" && type === goldType && (flags & 4) && !(goldFlags & 4)) {
      // A class that names itself as the fix's built-in type.
      return `${call} returned a class of the patch's own that calls itself ${type}, where the ` +
        `real fix returns the built-in ${goldType}`;
    }
    if (goldKind === "r" && kind === "r" && type !== goldType && (flags & 2) !== 0) {
      return `${call} returned a ${type}, whose == the patch defines, where the real fix ` +
        `returns a ${goldType}`;
    }
  }
  return undefined;
}

/**
 * The tests that passed on the patch and saw something else of it than of the real fix. `passed`
 * says which tests passed on the patch.
 */
export function divergences(
  gold: Readonly<Record<string, readonly Observation[]>>,
  patch: Readonly<Record<string, readonly Observation[]>>,
  passed: (id: string) => boolean,
): Divergence[] {
  const out: Divergence[] = [];
  for (const [test, calls] of Object.entries(patch)) {
    const theirs = gold[test];
    if (!theirs || !passed(test)) continue;
    const detail = divergentCall(theirs, calls);
    if (detail) out.push({ test, detail });
  }
  return out.sort((a, b) => a.test < b.test ? -1 : a.test > b.test ? 1 : 0);
}
