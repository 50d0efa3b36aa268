/**
 * Picking one patch among the approved ones, or abstaining.
 *
 * Pure functions; no permissions needed.
 *
 * @module
 */

import { inputsKey } from "../lib/hash.ts";
import type { Matrix } from "../lib/records.ts";
import { type Assessment, listOf } from "./policies.ts";
import { differingTests } from "./rules.ts";
import { MIN_VOICES } from "./voices.ts";

/** The judge's choice for one task. */
export interface Pick {
  /** The picked agent, or null when the judge abstains. */
  pick: string | null;
  /** Why, in words. */
  reason: string;
}

const SAME = 1e-9;

/** The voices that support a patch (its policy's threshold met by their own reproductions). */
export function supportingVoices(a: Assessment): number {
  return a.voices.filter((v) => v.supports).length;
}

/**
 * Pick among approved patches that at least {@linkcode MIN_VOICES} independent voices support
 * (see `judge/voices.ts`; with fewer, the judge abstains and says so): the highest support, then
 * the most independent voices (counting only voices none of whose authors is among the patches
 * tied on support). Patches still tied have the same evidence, and then:
 *
 * - if they behave alike on every test stable on B (`failed` and `error` taken as one), the
 *   evidence cannot tell them apart and either choice is the same choice; the pick is the one
 *   whose hash of (task, agent) is smallest. Hashing with the task spreads such picks evenly
 *   across agents instead of favouring whichever name sorts first or was configured first;
 * - if their outcomes differ on some test, the evidence says they are different fixes but not
 *   which is right, so the judge abstains (rule 4: abstain rather than guess).
 *
 * No approved patch means abstaining too.
 */
export function pickPatch(task: string, matrix: Matrix, assessments: readonly Assessment[]): Pick {
  if (assessments.length === 0) {
    return { pick: null, reason: "abstained: no contestant produced a patch to judge" };
  }
  const approved = assessments.filter((a) => a.approved);
  if (approved.length === 0) {
    const which = assessments.length === 1
      ? "the only patch is not approved"
      : `none of the ${assessments.length} patches is approved`;
    return {
      pick: null,
      reason: `abstained: ${which} (no pick without enough independent support)`,
    };
  }
  // Rule 4: one voice, however many authors it holds, is not enough to pick on.
  const eligible = approved.filter((a) => supportingVoices(a) >= MIN_VOICES);
  if (eligible.length === 0) {
    const which = approved.length === 1
      ? `the only approved patch, ${approved[0].agent}, is not`
      : `none of the ${approved.length} approved patches is`;
    const voices = approved.map((a) => {
      const names = a.voices.filter((v) => v.supports).map((v) => v.name);
      return `${a.agent}: ${count(names.length, "voice")}${
        names.length > 0 ? ` (${names.join(", ")})` : ""
      }`;
    });
    return {
      pick: null,
      reason: `abstained: ${which} supported by at least ${MIN_VOICES} independent voices ` +
        `(${listOf(voices)}), and a pick needs ${MIN_VOICES}`,
    };
  }
  const bySupport = [...eligible].sort((a, b) => b.support - a.support);
  const top = bySupport.filter((a) => Math.abs(a.support - bySupport[0].support) <= SAME);
  // Breadth of support counts only voices with none of the tied candidates among their authors:
  // otherwise an agent that wrote no reproduction of its own would always have one more
  // "independent" voice than one that did.
  const contenders = new Set(top.map((a) => a.agent));
  const breadth = (a: Assessment) =>
    a.voices.filter((v) => !v.authors.some((s) => contenders.has(s))).length;
  const ranked = [...bySupport].sort((a, b) =>
    Math.abs(a.support - b.support) > SAME ? b.support - a.support : breadth(b) - breadth(a)
  );
  const best = ranked[0];
  const tied = ranked.filter((a) =>
    Math.abs(a.support - best.support) <= SAME && breadth(a) === breadth(best)
  );
  const evidence = supportText(best);

  if (tied.length === 1) {
    const runnerUp = ranked[1];
    const ahead = runnerUp
      ? `, ahead of ${runnerUp.agent} (${supportText(runnerUp)})`
      : approved.length > 1
      ? `, the only approved patch supported by at least ${MIN_VOICES} independent voices`
      : ", the only approved patch";
    return { pick: best.agent, reason: `picked ${best.agent}: ${evidence}${ahead}` };
  }

  const names = listOf(tied.map((a) => a.agent));
  const differing = new Set<string>();
  for (const other of tied.slice(1)) {
    for (const test of differingTests(matrix, tied[0].tree, other.tree)) differing.add(test);
  }
  if (differing.size > 0) {
    const tests = [...differing];
    return {
      pick: null,
      reason:
        `abstained: ${names} tie on ${evidence} but their outcomes differ on ${tests.length} ${
          tests.length === 1 ? "test" : "tests"
        } (${listOf(tests)}), and the evidence does not say which is right`,
    };
  }
  const chosen = [...tied].sort((a, b) => {
    const ka = inputsKey({ task, agent: a.agent });
    const kb = inputsKey({ task, agent: b.agent });
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  })[0];
  return {
    pick: chosen.agent,
    reason: `picked ${chosen.agent}: ${names} tie on ${evidence} and behave alike on every ` +
      `test, so either is the same choice; the tie is broken by a hash of task and agent, ` +
      `not by name order`,
  };
}

function supportText(a: Assessment): string {
  const n = a.authors.length;
  const voices = a.voices.length === n ? "" : ` in ${count(a.voices.length, "voice")}`;
  return `support ${a.support.toFixed(2)} from ${n} independent ${
    n === 1 ? "author" : "authors"
  }${voices}`;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
