/**
 * Evidence roles of agent-written tests (BSG-VA): each test an agent wrote is replayed on the
 * unfixed code B, on the agent's own candidate S, and on the gold fix G. Its B and G outcomes say
 * what a pass of it proves; B and S alone say whether an attempt closed with no evidence about the
 * bug at all ("evidence-inadequate closure").
 *
 * Pure functions; no permissions needed.
 *
 * @module
 */

import { EVIDENCE_ROLES, type Outcome, type Resolution } from "./records.ts";

/** An evidence role: the four of BSG-VA, then `unstable` and `not-comparable`. */
export type EvidenceRole = typeof EVIDENCE_ROLES[number];

/** The four roles a comparable test can take. */
export const COMPARABLE_ROLES = [
  "gold-aligned",
  "candidate-specific",
  "regression-only",
  "misleading",
] as const satisfies readonly EvidenceRole[];
/** A role of a comparable test. */
export type ComparableRole = typeof COMPARABLE_ROLES[number];

/** One agent test replayed on B, S and G, as `resolutions.json` stores it. */
export type EvidenceTest = Resolution["evidence"][string]["tests"][number];

/** The outcome of one replay, or of its repeats. */
export type Replay = Outcome | readonly Outcome[];

/**
 * What the repeats of one replay agree on: `pass` (every repeat passed), `fail` (every repeat
 * `failed` or `error`), `unstable` (some passed and some failed), or `none` (no repeat, or some
 * repeat skipped, xfailed or not run, with no pass/fail disagreement).
 */
export function replayClass(replay: Replay): "pass" | "fail" | "unstable" | "none" {
  const outcomes: readonly Outcome[] = typeof replay === "string" ? [replay] : replay;
  const passes = outcomes.some((o) => o === "passed");
  const fails = outcomes.some((o) => o === "failed" || o === "error");
  if (passes && fails) return "unstable";
  const others = outcomes.length === 0 ||
    outcomes.some((o) => o !== "passed" && o !== "failed" && o !== "error");
  if (others) return "none";
  return passes ? "pass" : "fail";
}

/**
 * The role of one test from its B and G replays (S does not enter the role):
 *
 * | B | G | role |
 * |---|---|---|
 * | fails | passes | gold-aligned |
 * | fails | fails | candidate-specific |
 * | passes | passes | regression-only |
 * | passes | fails | misleading |
 *
 * A replay whose repeats disagree (on B or on G) makes the test `unstable`; a replay that could
 * not run or was skipped makes it `not-comparable`. Either drops it from the comparable set.
 */
export function evidenceRole(replays: { B: Replay; G: Replay }): EvidenceRole {
  const b = replayClass(replays.B);
  const g = replayClass(replays.G);
  if (b === "unstable" || g === "unstable") return "unstable";
  if (b === "none" || g === "none") return "not-comparable";
  if (b === "fail") return g === "pass" ? "gold-aligned" : "candidate-specific";
  return g === "pass" ? "regression-only" : "misleading";
}

/**
 * The record of one test for `resolutions.json`: its role, and each replay as one outcome (the
 * first repeat's; `not-run` with no repeat; the role says when repeats disagree).
 */
export function evidenceTest(
  test: string,
  replays: { B: Replay; S: Replay; G: Replay },
): EvidenceTest {
  return {
    test,
    B: summary(replays.B),
    S: summary(replays.S),
    G: summary(replays.G),
    role: evidenceRole(replays),
  };
}

function summary(replay: Replay): Outcome {
  if (typeof replay === "string") return replay;
  return replay[0] ?? "not-run";
}

/**
 * Evidence-inadequate closure of one attempt: the attempt produced a patch, yet none of its own
 * tests both passes on S (every repeat) and fails on B (every repeat). An attempt that wrote no
 * test and still produced a patch closed with no evidence, so it counts. Unstable replays are not
 * evidence. Null when the attempt produced no patch (there was nothing to close). G plays no part,
 * so the same check works outside a benchmark, where there is no gold fix.
 */
export function inadequateClosure(
  attempt: { patch: boolean; tests: readonly { B: Replay; S: Replay }[] },
): boolean | null {
  if (!attempt.patch) return null;
  return !attempt.tests.some((t) => replayClass(t.S) === "pass" && replayClass(t.B) === "fail");
}

/** One agent's evidence over all its attempts. */
export interface AgentEvidence {
  /** Tests the agent wrote, in all. */
  tests: number;
  /** Tests per role (every role present, zero included). */
  counts: Record<EvidenceRole, number>;
  /** Tests with one of the four comparable roles. */
  comparable: number;
  /** Share of each comparable role among comparable tests; null with none. */
  shares: Record<ComparableRole, number> | null;
  /** Comparable tests that pass on S (the "positive events" of BSG-VA). */
  positive: number;
  /** Share of each comparable role among positive tests; null with none. */
  positiveShares: Record<ComparableRole, number> | null;
  /** Attempts counted. */
  attempts: number;
  /** Attempts that produced a patch (closure not null). */
  withPatch: number;
  /** Attempts with evidence-inadequate closure. */
  inadequateClosures: number;
  /** `inadequateClosures / withPatch`, or null with no patch. */
  closureRate: number | null;
}

/**
 * Aggregate an agent's attempts (the `evidence` entries of `resolutions.json` for that agent): the
 * share of each role over its comparable tests, the same over the tests that pass on its candidate
 * (a test whose S outcome is `passed`), and the evidence-inadequate closure rate over the attempts
 * that produced a patch.
 */
export function agentEvidence(
  attempts: readonly { tests: readonly EvidenceTest[]; inadequateClosure: boolean | null }[],
): AgentEvidence {
  const counts = Object.fromEntries(EVIDENCE_ROLES.map((r) => [r, 0])) as Record<
    EvidenceRole,
    number
  >;
  const positiveCounts = Object.fromEntries(COMPARABLE_ROLES.map((r) => [r, 0])) as Record<
    ComparableRole,
    number
  >;
  let tests = 0, positive = 0, withPatch = 0, inadequate = 0;
  for (const attempt of attempts) {
    if (attempt.inadequateClosure !== null) withPatch++;
    if (attempt.inadequateClosure === true) inadequate++;
    for (const test of attempt.tests) {
      tests++;
      counts[test.role]++;
      if (isComparable(test.role) && test.S === "passed") {
        positive++;
        positiveCounts[test.role]++;
      }
    }
  }
  const comparable = COMPARABLE_ROLES.reduce((sum, r) => sum + counts[r], 0);
  return {
    tests,
    counts,
    comparable,
    shares: sharesOf(counts, comparable),
    positive,
    positiveShares: sharesOf(positiveCounts, positive),
    attempts: attempts.length,
    withPatch,
    inadequateClosures: inadequate,
    closureRate: withPatch ? inadequate / withPatch : null,
  };
}

function isComparable(role: EvidenceRole): role is ComparableRole {
  return (COMPARABLE_ROLES as readonly string[]).includes(role);
}

function sharesOf(
  counts: Record<ComparableRole, number>,
  total: number,
): Record<ComparableRole, number> | null {
  if (total === 0) return null;
  return Object.fromEntries(COMPARABLE_ROLES.map((r) => [r, counts[r] / total])) as Record<
    ComparableRole,
    number
  >;
}
