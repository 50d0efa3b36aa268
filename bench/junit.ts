/**
 * Benchmark: reading a JUnit XML file of 60,000 test cases, the size of a large project's suite.
 * This is the speed half of the test "parseJunit() and outcomesOf() read 60,000 test cases"
 * (tests/python/junit_test.ts), which checks only that the outcomes are right.
 *
 * bugbout: `outcomesOf(parseJunit(xml), resolver)`, the strict parser and the node id resolver.
 * Two baselines, measured in the same run on the same machine:
 *
 * - scaling: the same call on ten files of a tenth of the cases each, the same text in all.
 *   `time(one file of N) / time(ten files of N/10)` is about 1 when reading is linear and
 *   about 10 when it is quadratic. A bigger heap costs the collector something: 0.9 to 1.3
 *   here; the goal is at most 3.
 * - floor: one global regex over the same text that takes each `<testcase>`'s `file` and `name`
 *   into a record. It checks nothing (no nesting, no entities, no outcomes other than passed),
 *   so it is a lower bound on any reader of the text, not an alternative to the parser; the
 *   ratio says what strictness and exact node ids cost. About 5 here; the goal is at most 15
 *   (the test's old limit, 3 s, was about 30 times this machine's scan).
 *
 * Prints the medians and the ratios; exits non-zero when the outcomes are wrong, or, in a full
 * run, when a goal is missed.
 *
 * Run: `deno run -A bench/junit.ts [--cases 60000] [--rounds 9] [--quick]` (`--quick`: 2,000
 * cases, one round, goals reported but not judged).
 *
 * @module
 */

import { parseArgs } from "node:util";
import { NodeIdResolver, outcomesOf, parseJunit } from "../lib/python/junit.ts";
import { describeTimes, median, printRatio, timed } from "./_measure.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    cases: { type: "string" },
    rounds: { type: "string" },
    quick: { type: "boolean", default: false },
  },
});
const quick = values.quick;
const CASES = Number(values.cases ?? (quick ? 2_000 : 60_000));
const ROUNDS = Number(values.rounds ?? (quick ? 1 : 9));
const FILE = "tests/test_big.py";

/** A JUnit file of `n` passing cases, shaped as pytest writes them (xunit1). */
function junitXml(n: number): string {
  const cases = [];
  for (let i = 0; i < n; i++) {
    cases.push(
      `<testcase classname="tests.test_big" name="test_p[${i}]" file="${FILE}" time="0.001" />`,
    );
  }
  return `<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" ` +
    `errors="0" failures="0" skipped="0" tests="${n}">${cases.join("")}</testsuite></testsuites>`;
}

function parse(xml: string): number {
  const { outcomes } = outcomesOf(parseJunit(xml), new NodeIdResolver([], [FILE]));
  return Object.keys(outcomes).length;
}

/** The floor: a regex that reads only what this file's cases hold (see the module doc). */
function scan(xml: string): number {
  const outcomes: Record<string, string> = {};
  for (const m of xml.matchAll(/<testcase\b[^>]*?\bname="([^"]*)"[^>]*?\bfile="([^"]*)"/g)) {
    outcomes[`${m[2]}::${m[1]}`] = "passed";
  }
  return Object.keys(outcomes).length;
}

const tenth = Math.max(1, Math.round(CASES / 10));
const big = junitXml(CASES);
const small = junitXml(tenth);
const check = (what: string, got: number, want: number) => {
  if (got !== want) {
    console.log(`FAIL: ${what} read ${got} cases, expected ${want}`);
    Deno.exitCode = 1;
  }
};
// Once each before timing, so that every timed call runs optimised code.
check("parseJunit()", parse(big), CASES);
check("parseJunit() on a tenth", parse(small), tenth);
check("the regex scan", scan(big), CASES);

const parsed: number[] = [];
const parsedTenth: number[] = [];
const scanned: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  scanned.push((await timed(() => scan(big))).ms);
  parsed.push((await timed(() => parse(big))).ms);
  parsedTenth.push(
    (await timed(() => {
      for (let i = 0; i < 10; i++) parse(small);
    })).ms,
  );
}
const scaling = median(parsed) / median(parsedTenth);
console.log(
  `JUnit XML of ${CASES} cases (${(big.length / 1e6).toFixed(1)} MB), ${ROUNDS} round(s)`,
);
const row = (label: string, ms: number[]) =>
  console.log(`${label.padEnd(32)} ${describeTimes(ms)}`);
row(`regex scan, one file of ${CASES}:`, scanned);
row(`bugbout, ten files of ${tenth}:`, parsedTenth);
row(`bugbout, one file of ${CASES}:`, parsed);
const overFloor = median(parsed) / median(scanned);
const missed = [
  printRatio("bugbout one file / ten files of a tenth", scaling, { atMost: 3, quick }),
  printRatio("bugbout / regex scan", overFloor, { atMost: 15, quick }),
];
if (missed.includes(true)) Deno.exitCode = 1;
