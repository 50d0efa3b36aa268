/**
 * Benchmark: reading the guard's results channel for a session of 60,000 tests, the size of a
 * large project's suite (every record checked against its HMAC and its sequence number).
 *
 * bugbout: `classifyRun()` over `readChannel()` of the channel text. Two baselines, measured in
 * the same run on the same machine:
 *
 * - scaling: the same call on ten channels of a tenth of the tests each. `time(one of N) /
 *   time(ten of N/10)` is about 1 when reading is linear and about 10 when it is quadratic; the
 *   goal is at most 3.
 * - floor: splitting the same text into lines and parsing each line's JSON, checking nothing. It
 *   is a lower bound on any reader of the channel; the ratio says what the checks cost (an HMAC
 *   per line is the bulk). The goal is at most 15.
 *
 * Prints the medians and the ratios; exits non-zero when the outcomes are wrong, or, in a full
 * run, when a goal is missed.
 *
 * Run: `deno run -A bench/channel.ts [--tests 60000] [--rounds 9] [--quick]` (`--quick`: 2,000
 * tests, one round, goals reported but not judged).
 *
 * @module
 */

import { createHmac } from "node:crypto";
import { parseArgs } from "node:util";
import { readChannel } from "../lib/lang/python/channel.ts";
import { classifyRun } from "../lib/lang/python/classify.ts";
import { describeTimes, median, printRatio, timed } from "./_measure.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    tests: { type: "string" },
    rounds: { type: "string" },
    quick: { type: "boolean", default: false },
  },
});
const quick = values.quick;
const TESTS = Number(values.tests ?? (quick ? 2_000 : 60_000));
const ROUNDS = Number(values.rounds ?? (quick ? 1 : 9));
const KEY = "ab".repeat(32);
const SECRET = new Uint8Array(32).fill(0xab);

/** The channel of one group that collected and passed `n` parametrised tests. */
function channelText(n: number): string {
  const ids = Array.from({ length: n }, (_, i) => `tests/test_big.py::test_p[${i}]`);
  const records: [number, Record<string, unknown>][] = [
    [-1, { k: "hello", python: "3.11.7", pytest: "9.2.0", groups: 1 }],
    [0, { k: "begin" }],
    [0, { k: "collected", ids }],
  ];
  for (const id of ids) {
    records.push([0, { k: "start", id }], [0, { k: "done", id, o: "passed", s: 0.001 }]);
  }
  records.push([0, { k: "end", code: 0 }], [-1, { k: "group-end", group: 0, code: 0 }]);
  const next = new Map<number, number>();
  return records.map(([g, record]) => {
    const n = next.get(g) ?? 0;
    next.set(g, n + 1);
    const body = JSON.stringify({ ...record, g, n });
    return `${body}\t${createHmac("sha256", SECRET).update(body).digest("hex")}\n`;
  }).join("");
}

function read(text: string): number {
  const run = classifyRun({
    exitCode: 0,
    timedOut: false,
    timeoutMs: 60_000,
    channel: readChannel(text, KEY, 1),
    trustPartial: false,
    output: "",
    sharedModules: [],
    durationMs: 1,
  });
  return Object.values(run.outcomes).filter((o) => o === "passed").length;
}

/** The floor: split and parse, checking nothing (see the module doc). */
function scan(text: string): number {
  let passed = 0;
  for (const line of text.split("\n")) {
    if (!line) continue;
    const record = JSON.parse(line.slice(0, line.lastIndexOf("\t")));
    if (record.o === "passed") passed++;
  }
  return passed;
}

const tenth = Math.max(1, Math.round(TESTS / 10));
const big = channelText(TESTS);
const small = channelText(tenth);
const check = (what: string, got: number, want: number) => {
  if (got !== want) {
    console.log(`FAIL: ${what} read ${got} passes, expected ${want}`);
    Deno.exitCode = 1;
  }
};
// Once each before timing, so that every timed call runs optimised code.
check("readChannel()", read(big), TESTS);
check("readChannel() on a tenth", read(small), tenth);
check("the plain scan", scan(big), TESTS);

const readMs: number[] = [];
const readTenthMs: number[] = [];
const scanMs: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  scanMs.push((await timed(() => scan(big))).ms);
  readMs.push((await timed(() => read(big))).ms);
  readTenthMs.push(
    (await timed(() => {
      for (let i = 0; i < 10; i++) read(small);
    })).ms,
  );
}
console.log(
  `results channel of ${TESTS} tests (${(big.length / 1e6).toFixed(1)} MB), ${ROUNDS} round(s)`,
);
const row = (label: string, ms: number[]) =>
  console.log(`${label.padEnd(34)} ${describeTimes(ms)}`);
row(`plain scan, one channel of ${TESTS}:`, scanMs);
row(`bugbout, ten channels of ${tenth}:`, readTenthMs);
row(`bugbout, one channel of ${TESTS}:`, readMs);
const missed = [
  printRatio("bugbout one channel / ten of a tenth", median(readMs) / median(readTenthMs), {
    atMost: 3,
    quick,
  }),
  printRatio("bugbout / plain scan", median(readMs) / median(scanMs), { atMost: 15, quick }),
];
if (missed.includes(true)) Deno.exitCode = 1;
