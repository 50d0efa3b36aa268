/**
 * The oracle's arithmetic: from repeated runs on B (the parent, with the fix's test files) and G
 * (the fix), which tests are fail-to-pass, pass-to-pass and unstable. Same definitions as
 * SWE-bench, with unstable tests set aside on both sides.
 *
 * Pure; no permissions.
 *
 * @module
 */

import type { RepeatedRuns } from "../python/mod.ts";
import type { Outcome } from "../records.ts";
import { countOutcomes } from "../testbed/mod.ts";
import { plural } from "../words.ts";

/** What the runs of one task say. */
export interface GroundTruth {
  /** `scorable` when at least one stable test goes from failing to passing. */
  status: "scorable" | "unscorable" | "infra-error";
  /** Why the task is not scorable, in words. */
  reason?: string;
  /** Tests that fail on B (or are missing there) and pass on G, sorted. */
  failToPass: string[];
  /** Tests that pass on both sides, sorted. */
  passToPass: string[];
  /** Tests whose outcome differed between runs of the same side, sorted: set aside. */
  unstable: string[];
}

/**
 * True when `outcome` on B counts as failing: failed, error, not reached (a timeout or memory
 * cap stopped the run), or absent (its module could not be collected, or it did not exist).
 */
export function failsOnB(outcome: Outcome | undefined): boolean {
  return outcome === undefined || outcome === "failed" || outcome === "error" ||
    outcome === "not-run";
}

function describeCounts(counts: Record<string, number>): string {
  const parts = Object.entries(counts).sort().map(([o, n]) => `${n} ${o}`);
  return parts.length ? parts.join(", ") : "no tests";
}

/** Decide a task's ground truth from its runs on B and on G. */
export function groundTruth(b: RepeatedRuns, g: RepeatedRuns): GroundTruth {
  const none = { failToPass: [], passToPass: [], unstable: [] };
  const harness = [...b.runs.map((r) => ["B", r] as const), ...g.runs.map((r) => ["G", r] as const)]
    .find(([, r]) => r.status === "infra-error" && r.cause !== "unrunnable");
  if (harness) {
    return { ...none, status: "infra-error", reason: `On ${harness[0]}: ${harness[1].message}` };
  }
  const gUnrunnable = g.runs.find((r) => r.status === "infra-error");
  if (gUnrunnable && g.runs.every((r) => r.status === "infra-error")) {
    return {
      ...none,
      status: "unscorable",
      reason: `pytest cannot run the fix's tests on G: ${gUnrunnable.message}`,
    };
  }
  const unstable = new Set([...b.unstable, ...g.unstable]);
  const failToPass: string[] = [];
  const passToPass: string[] = [];
  let flippedButUnstable = 0;
  let passingOnG = 0;
  for (const [id, outcome] of Object.entries(g.stable)) {
    if (outcome !== "passed" || unstable.has(id)) continue;
    passingOnG++;
    const before = b.stable[id];
    if (failsOnB(before)) failToPass.push(id);
    else if (before === "passed") passToPass.push(id);
  }
  const unstableOnB = new Set(b.unstable);
  const unstableOnG = new Set(g.unstable);
  for (const id of unstable) {
    // Could have flipped: stable on one side in the right direction, unstable on the other.
    const passesOnG = g.stable[id] === "passed";
    const failsBefore = !unstableOnB.has(id) && failsOnB(b.stable[id]);
    if ((passesOnG && unstableOnB.has(id)) || (failsBefore && unstableOnG.has(id))) {
      flippedButUnstable++;
    }
  }
  failToPass.sort();
  passToPass.sort();
  const sortedUnstable = [...unstable].sort();
  if (failToPass.length > 0) {
    return { status: "scorable", failToPass, passToPass, unstable: sortedUnstable };
  }
  const gCounts = countOutcomes(g.runs.find((r) => r.status !== "infra-error")?.outcomes ?? {});
  let reason: string;
  if (passingOnG === 0 && unstable.size === 0) {
    const timedOut = g.runs.find((r) => r.status === "timeout" || r.status === "out-of-memory");
    reason = timedOut
      ? `No test passes on the fix: ${timedOut.message}`
      : `No test of the fix's test files passes on the fix (G: ${describeCounts(gCounts)}).`;
  } else if (flippedButUnstable > 0) {
    reason = `The fix makes no stable test go from failing to passing: ${
      plural(flippedButUnstable, "test")
    } that may flip ${flippedButUnstable === 1 ? "is" : "are"} unstable (${
      plural(unstable.size, "unstable test")
    } set aside).`;
  } else {
    reason = `The fix makes no test go from failing to passing: ${
      plural(passToPass.length, "test")
    } ${passToPass.length === 1 ? "passes" : "pass"} on both sides (G: ${
      describeCounts(gCounts)
    }).`;
  }
  return { status: "unscorable", reason, failToPass, passToPass, unstable: sortedUnstable };
}
