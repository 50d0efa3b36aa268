/**
 * The estimators of repeated attempts against values worked out by hand (binomials written out,
 * exact fractions), and the reproducibility of every random draw.
 */

import assert from "node:assert/strict";
import { mcnemar } from "../../lib/report/stats.ts";
import {
  bootstrapInterval,
  clusteredSe,
  compareRates,
  meanOverTasks,
  meanRateInterval,
  pairedSe,
  passAtK,
  passHatK,
  REPORT_SEED,
  seededRandom,
  signFlipTest,
} from "../../lib/report/stats_repeats.ts";

const close = (actual: number | null, expected: number, digits = 12) =>
  assert.ok(
    actual !== null && Math.abs(actual - expected) < 0.5 * 10 ** -digits,
    `${actual} is not ${expected} to ${digits} digits`,
  );

// [n, c, k, pass@k, pass^k], each from the binomials written out.
const PASS_CASES: [number, number, number, number, number][] = [
  // 1 − C(2,2)/C(3,2) = 1 − 1/3; C(1,2) = 0.
  [3, 1, 2, 2 / 3, 0],
  // 1 − C(3,3)/C(5,3) = 1 − 1/10; C(2,3)/C(5,3) = 0.
  [5, 2, 3, 9 / 10, 0],
  // 1 − C(1,2)/C(3,2) = 1; C(2,2)/C(3,2) = 1/3.
  [3, 2, 2, 1, 1 / 3],
  // 1 − C(7,5)/C(10,5) = 1 − 21/252; C(3,5) = 0.
  [10, 3, 5, 11 / 12, 0],
  // 1 − C(3,5)/C(10,5) = 1; C(7,5)/C(10,5) = 21/252.
  [10, 7, 5, 1, 1 / 12],
  // k = 1: both are c / n.
  [4, 1, 1, 1 / 4, 1 / 4],
  // k = n: at least one of all / every one of all.
  [3, 1, 3, 1, 0],
  [3, 3, 3, 1, 1],
  [3, 0, 3, 0, 0],
];

for (const [n, c, k, at, hat] of PASS_CASES) {
  Deno.test(`pass@${k} and pass^${k} of ${c} resolved in ${n} attempts are ${at} and ${hat}`, () => {
    close(passAtK(n, c, k), at);
    close(passHatK(n, c, k), hat);
  });
}

Deno.test("passAtK() never forms a huge binomial: 13 of 200 at k = 100", () => {
  // 1 − C(187,100)/C(200,100) = 8670143107/8670841134 (Python's exact integers).
  close(passAtK(200, 13, 100), 8670143107 / 8670841134, 12);
  close(passHatK(200, 150, 100), passHatK(200, 150, 100));
});

Deno.test("passAtK() and passHatK() refuse impossible counts", () => {
  for (const [n, c, k] of [[3, 4, 1], [3, 1, 4], [3, 1, 0], [3, -1, 1], [2.5, 1, 1]]) {
    assert.throws(() => passAtK(n, c, k), RangeError);
    assert.throws(() => passHatK(n, c, k), RangeError);
  }
});

Deno.test("meanOverTasks() leaves out tasks with fewer than k attempts", () => {
  const tasks = [{ n: 3, c: 3 }, { n: 3, c: 1 }, { n: 2, c: 2 }, { n: 3, c: 0 }];
  // pass@3: 1, 1, (left out), 0.
  assert.deepEqual(meanOverTasks(tasks, 3, passAtK), { k: 3, rate: 2 / 3, tasks: 3 });
  assert.deepEqual(meanOverTasks(tasks, 3, passHatK), { k: 3, rate: 1 / 3, tasks: 3 });
  assert.deepEqual(meanOverTasks([{ n: 1, c: 1 }], 3, passAtK), { k: 3, rate: null, tasks: 0 });
});

Deno.test("clusteredSe() is sqrt(Σ(x − p̂)²)/T · sqrt(T/(T − 1))", () => {
  // p̂ = 0.5, Σ = 0.5: sqrt(0.5)/4 · sqrt(4/3) = sqrt(2/3)/4.
  close(clusteredSe([1, 0, 0.5, 0.5]), Math.sqrt(2 / 3) / 4);
  // p̂ = 2/3, Σ = 2·(1/3)² + (2/3)² = 2/3: sqrt(2/3)/3 · sqrt(3/2) = 1/3.
  close(clusteredSe([1, 1, 0]), 1 / 3);
  assert.equal(clusteredSe([1]), null);
  assert.equal(clusteredSe([]), null);
});

Deno.test("meanRateInterval() uses the clustered SE from 30 tasks on, clipped to [0, 1]", () => {
  const half = meanRateInterval([...Array(15).fill(1), ...Array(15).fill(0)]);
  // SE = sqrt(30 · 0.25)/30 · sqrt(30/29) = 0.0928476690885...
  assert.equal(half.method, "clustered");
  close(half.se, Math.sqrt(7.5) / 30 * Math.sqrt(30 / 29));
  close(half.rate, 0.5);
  close(half.low, 0.5 - 1.959964 * half.se!);
  close(half.high, 0.5 + 1.959964 * half.se!);
  close(half.low, 0.3180219111, 9);
  assert.deepEqual([half.resamples, half.seed], [null, null]);
  const most = meanRateInterval([...Array(29).fill(1), 0]);
  assert.equal(most.high, 1);
  assert.ok(most.low > 0.9);
});

Deno.test("meanRateInterval() bootstraps below 30 tasks, and says how", () => {
  const rates = [1, 1, 2 / 3, 1 / 3, 0, 0, 1, 1 / 3];
  const interval = meanRateInterval(rates);
  assert.equal(interval.method, "bootstrap");
  assert.deepEqual([interval.resamples, interval.seed, interval.se], [2000, REPORT_SEED, null]);
  close(interval.rate, 13 / 24);
  assert.ok(interval.low < interval.rate! && interval.rate! < interval.high);
  assert.deepEqual(meanRateInterval([]), {
    rate: null,
    low: 0,
    high: 1,
    method: "bootstrap",
    se: null,
    resamples: 2000,
    seed: REPORT_SEED,
  });
  // Every task alike: every resample has the same mean.
  const same = meanRateInterval([0.5, 0.5, 0.5]);
  assert.deepEqual([same.low, same.high], [0.5, 0.5]);
});

Deno.test("the bootstrap is reproducible: the same seed gives the same interval, another seed another", () => {
  const rates = [1, 0, 1, 1 / 3, 2 / 3, 0, 0, 1, 1, 0, 1 / 3, 1 / 3];
  const first = bootstrapInterval(rates, { seed: 15 });
  assert.deepEqual(bootstrapInterval(rates, { seed: 15 }), first);
  assert.deepEqual(bootstrapInterval(rates), first, "the report's seed is 15");
  const other = [1, 2, 3, 4, 5].map((seed) => bootstrapInterval(rates, { seed: 15 + seed }));
  assert.ok(other.some((o) => o.low !== first.low || o.high !== first.high));
  // The generator itself: the same numbers on every machine (mulberry32 from seed 15).
  const random = seededRandom(15);
  const drawn = [random(), random(), random()];
  assert.deepEqual(drawn, [0.2378400256857276, 0.40412471746094525, 0.402795132715255]);
  // Four resamples: the 2.5th and 97.5th percentiles are the smallest and the largest mean.
  const small = seededRandom(7);
  const means = Array.from({ length: 4 }, () => {
    let sum = 0;
    for (let i = 0; i < 3; i++) sum += [0, 0.5, 1][Math.floor(small() * 3)];
    return sum / 3;
  }).sort();
  assert.deepEqual(bootstrapInterval([0, 0.5, 1], { resamples: 4, seed: 7 }), {
    low: means[0],
    high: means[3],
  });
});

Deno.test("signFlipTest() counts all 2^T flips on small cases", () => {
  // |Σ| = 3 only when every sign is the same: 2 of 8.
  assert.deepEqual(signFlipTest([1, 1, 1]), { p: 0.25, flips: 8, exact: true });
  assert.deepEqual(signFlipTest([1, 2, 3]), { p: 0.25, flips: 8, exact: true });
  // Zeros change nothing; 2 of 4.
  assert.deepEqual(signFlipTest([0, 1, 0, 1]), { p: 0.5, flips: 4, exact: true });
  // Nothing observed: every flip is as extreme.
  assert.equal(signFlipTest([1, -1]).p, 1);
  assert.deepEqual(signFlipTest([0, 0]), { p: 1, flips: 1, exact: true });
  // Magnitudes 3, 3, 2, 1, 1, 1, 1 (thirds), observed Σ = 10 of 12: flipped magnitudes F with
  // |12 − 2F| >= 10 are F <= 1 (1 + 4 ways) or F >= 11 (5 ways): 10 of 128.
  assert.equal(signFlipTest([1, 2 / 3, 1 / 3, 1 / 3, -1 / 3, 1, 1 / 3]).p, 10 / 128);
});

Deno.test("signFlipTest() agrees with McNemar when every difference is ±1", () => {
  for (const [b, c] of [[4, 1], [5, 0], [6, 0], [3, 3], [7, 2]]) {
    const d = [...Array(b).fill(1), ...Array(c).fill(-1)];
    close(signFlipTest(d).p, mcnemar(b, c).p);
  }
});

Deno.test("signFlipTest() draws 10,000 seeded flips past 20 tasks", () => {
  const ones = Array(25).fill(1);
  const test = signFlipTest(ones);
  assert.equal(test.exact, false);
  assert.equal(test.flips, 10_000);
  // The exact p is 2/2^25: hardly any random flip is as extreme, and p is never 0.
  assert.ok(test.p >= 1 / 10_001 && test.p <= 3 / 10_001, String(test.p));
  assert.deepEqual(signFlipTest(ones), test, "the same flips every time");
  // 21 differences of ±1 always sum to an odd number: every flip is as extreme, p = 1.
  assert.equal(signFlipTest([...Array(11).fill(1), ...Array(10).fill(-1)]).p, 1);
  assert.equal(signFlipTest(ones, { flips: 500 }).flips, 500);
});

Deno.test("pairedSe() is sd(d)/sqrt(T)", () => {
  close(pairedSe([1, 0, -1]), 1 / Math.sqrt(3));
  close(pairedSe([0.5, 0.5]), 0);
  assert.equal(pairedSe([1]), null);
});

Deno.test("compareRates() compares per-task shares over the tasks both attempted, in words", () => {
  const a = { name: "a", rates: { t1: 1, t2: 1, t3: 2 / 3, t4: 0, t5: 1 } };
  const b = { name: "b", rates: { t1: 0, t2: 1 / 3, t3: 2 / 3, t4: 0, t6: 1 } };
  const result = compareRates(a, b);
  // d = 1, 2/3, 0, 0 over t1–t4: mean 5/12; Σ of the non-zero ones is extreme on 2 of 4 flips.
  assert.equal(result.test, "sign-flip");
  assert.equal(result.tasks, 4);
  close(result.meanA, 2.6666666666666665 / 4);
  close(result.meanB, 1 / 4);
  close(result.difference, 5 / 12);
  // Deviations 7/12, 3/12, −5/12, −5/12: Σ² = 0.75, variance 0.25, SE 0.5/2.
  close(result.se, 0.25);
  assert.deepEqual([result.higher, result.lower, result.same], [2, 0, 2]);
  assert.deepEqual([result.p, result.flips, result.exact], [0.5, 4, true]);
  assert.equal(
    result.sentence,
    "a resolved 67% of its attempts per task on average, b 25%: 42 points apart (standard " +
      "error 25 points), a ahead on 2 tasks, b on 0; with 4 tasks this could be chance, " +
      "p = 0.50 (all 4 sign flips).",
  );
  const same = compareRates({ name: "a", rates: { t1: 0.5 } }, { name: "b", rates: { t1: 0.5 } });
  assert.equal(
    same.sentence,
    "a and b resolved the same share of their attempts at each of the 1 task both attempted; " +
      "nothing separates them.",
  );
  const apart = compareRates({ name: "a", rates: { t1: 1 } }, { name: "b", rates: { t2: 1 } });
  assert.deepEqual([apart.tasks, apart.meanA, apart.difference, apart.p], [0, null, null, 1]);
});
