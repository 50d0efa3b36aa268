/**
 * A patch's outcome against the maintainers' tests, from one run of them. A fail-to-pass test
 * counts only when it **passed**: skipped, xfailed, not run, failed and error all count as not
 * passing, so an `xfail(run=False)` or a skip cannot pass for a fix. A pass-to-pass test must pass
 * too. Outcomes come from the guard's authenticated results channel (checked against the exit
 * code by the runner), never from anything the code printed.
 *
 * Pure; no permissions needed.
 *
 * @module
 */

import { type FileOf, lookupOutcome } from "../testbed/mod.ts";
import type { Oracle, Outcome, Resolution, ResolutionOutcome } from "../records.ts";

/** One patch scored against the hidden tests, without flags. */
export type TestScore = Pick<
  Resolution["patches"][string],
  "outcome" | "failToPass" | "passToPass"
>;

/**
 * Score one run's outcomes (test id → outcome; a hidden test file that failed to load appears as
 * its id and fails every test in it, as `fileOf` tells) against the oracle's fail-to-pass and
 * pass-to-pass tests.
 */
export function scoreRun(
  outcomes: ReadonlyMap<string, Outcome>,
  oracle: Pick<Oracle, "failToPass" | "passToPass">,
  fileOf: FileOf,
): TestScore {
  const passes = (id: string) => lookupOutcome(outcomes, id, fileOf) === "passed";
  const f2pFailing = oracle.failToPass.filter((id) => !passes(id));
  const p2pFailing = oracle.passToPass.filter((id) => !passes(id));
  let outcome: ResolutionOutcome = "wrong-fix";
  if (f2pFailing.length === 0) outcome = p2pFailing.length === 0 ? "resolved" : "broke-tests";
  return {
    outcome,
    failToPass: {
      passed: oracle.failToPass.length - f2pFailing.length,
      total: oracle.failToPass.length,
      failing: f2pFailing,
    },
    passToPass: { failing: p2pFailing, total: oracle.passToPass.length },
  };
}

/** An outcome of `no-fix`, with nothing run. */
export function noFix(oracle: Pick<Oracle, "failToPass" | "passToPass">): TestScore {
  return {
    outcome: "no-fix",
    failToPass: { passed: 0, total: oracle.failToPass.length, failing: [...oracle.failToPass] },
    passToPass: { failing: [], total: oracle.passToPass.length },
  };
}
