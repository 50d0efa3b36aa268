/**
 * Benchmark: the oracle's arithmetic on 60,000 test ids, the size of a large project's suite.
 * This is the speed half of the test "mergeRepeats() and groundTruth() handle tens of thousands
 * of test ids" (tests/oracle/ground_truth_test.ts), which checks only the verdict.
 *
 * bugbout: two runs of B (no test there) and two of G (every test passes) merged with
 * `mergeRepeats()`, then `groundTruth()`: all N tests are fail-to-pass. Two baselines, measured in
 * the same run on the same machine:
 *
 * - scaling: the same on ten tasks of a tenth of the ids each, the same ids in all.
 *   `time(one task of N) / time(ten tasks of N/10)` is about 1 when the arithmetic is linear
 *   and about 10 when it is quadratic. Sorting the fail-to-pass list and bigger maps (more cache
 *   misses, more for the collector) make it 1.5 to 2 here; the goal is at most 3.
 * - floor: one loop over G's first run that keeps the ids passing in both runs of G and failing
 *   in both runs of B (the same `failsOnB()` rule), then sorts them. It keeps no unstable tests,
 *   no durations and no reasons, so it is a lower bound on the arithmetic, not an alternative to
 *   it; the ratio says what that bookkeeping costs: 3.5 to 6 here, the goal is at most 15.
 *
 * Prints the medians and the ratios; exits non-zero when a verdict is wrong, or, in a full run,
 * when a goal is missed.
 *
 * Run: `deno run -A bench/ground_truth.ts [--ids 60000] [--rounds 9] [--quick]` (`--quick`: 2,000
 * ids, one round, goals reported but not judged).
 *
 * @module
 */

import { parseArgs } from "node:util";
import { failsOnB, groundTruth } from "../lib/oracle/ground_truth.ts";
import type { PytestRun } from "../lib/lang/python/classify.ts";
import { mergeRepeats } from "../lib/lang/python/repeats.ts";
import type { Outcome } from "../lib/records.ts";
import { describeTimes, median, printRatio, timed } from "./_measure.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    ids: { type: "string" },
    rounds: { type: "string" },
    quick: { type: "boolean", default: false },
  },
});
const quick = values.quick;
const IDS = Number(values.ids ?? (quick ? 2_000 : 60_000));
const ROUNDS = Number(values.rounds ?? (quick ? 1 : 9));

/** One task's runs: two of B, two of G, as the oracle makes them. */
interface Sides {
  b: PytestRun[];
  g: PytestRun[];
}

function run(outcomes: Record<string, Outcome>): PytestRun {
  return {
    status: "ok",
    exitCode: 0,
    outcomes,
    durations: {},
    durationMs: 1,
    tamper: [],
    suspect: [],
    groups: [],
  };
}

function sides(n: number): Sides {
  const outcomes: Record<string, Outcome> = {};
  for (let i = 0; i < n; i++) outcomes[`tests/test_big.py::test_p[${i}]`] = "passed";
  return { b: [run({}), run({})], g: [run({ ...outcomes }), run({ ...outcomes })] };
}

function bugbout({ b, g }: Sides): number {
  return groundTruth(mergeRepeats(b), mergeRepeats(g), { runner: "pytest" }).failToPass.length;
}

/** The floor (see the module doc). */
function floor({ b, g }: Sides): number {
  const [b1, b2] = b.map((r) => r.outcomes);
  const [g1, g2] = g.map((r) => r.outcomes);
  const failToPass: string[] = [];
  for (const id in g1) {
    if (g1[id] !== "passed" || g2[id] !== "passed") continue;
    if (b1[id] === b2[id] && failsOnB(b1[id])) failToPass.push(id);
  }
  return failToPass.sort().length;
}

const tenth = Math.max(1, Math.round(IDS / 10));
const big = sides(IDS);
const small = sides(tenth);
const check = (what: string, got: number, want: number) => {
  if (got !== want) {
    console.log(`FAIL: ${what} found ${got} fail-to-pass tests, expected ${want}`);
    Deno.exitCode = 1;
  }
};
// Once each before timing, so that every timed call runs optimised code.
check("groundTruth()", bugbout(big), IDS);
check("groundTruth() on a tenth", bugbout(small), tenth);
check("the floor", floor(big), IDS);

const ours: number[] = [];
const oursTenths: number[] = [];
const floors: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  floors.push((await timed(() => floor(big))).ms);
  ours.push((await timed(() => bugbout(big))).ms);
  oursTenths.push(
    (await timed(() => {
      for (let i = 0; i < 10; i++) bugbout(small);
    })).ms,
  );
}
const scaling = median(ours) / median(oursTenths);
const overFloor = median(ours) / median(floors);
console.log(`ground truth of ${IDS} test ids, 2 runs of B and 2 of G, ${ROUNDS} round(s)`);
const row = (label: string, ms: number[]) =>
  console.log(`${label.padEnd(32)} ${describeTimes(ms)}`);
row(`floor, one task of ${IDS}:`, floors);
row(`bugbout, ten tasks of ${tenth}:`, oursTenths);
row(`bugbout, one task of ${IDS}:`, ours);
const missed = [
  printRatio("bugbout one task / ten tasks of a tenth", scaling, { atMost: 3, quick }),
  printRatio("bugbout / floor", overFloor, { atMost: 15, quick }),
];
if (missed.includes(true)) Deno.exitCode = 1;
