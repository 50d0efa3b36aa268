import assert from "node:assert/strict";
import {
  formatP,
  mcnemar,
  median,
  pairedComparison,
  randomAgent,
  separation,
  type SeparationSample,
  wilson,
} from "../../lib/report/stats.ts";

const close = (actual: number | null, expected: number, digits = 3) =>
  assert.ok(
    actual !== null && Math.abs(actual - expected) < 0.5 * 10 ** -digits,
    `${actual} is not ${expected} to ${digits} digits`,
  );

const wilsonCases: [number, number, number, number][] = [
  [8, 10, 0.490, 0.943],
  [5, 10, 0.237, 0.763],
  [0, 10, 0, 0.278],
  [10, 10, 0.722, 1],
  [1, 1, 0.207, 1],
  [43, 100, 0.337, 0.528],
];

for (const [k, n, low, high] of wilsonCases) {
  Deno.test(`wilson() gives [${low}, ${high}] for ${k} of ${n}`, () => {
    const interval = wilson(k, n);
    close(interval.low, low);
    close(interval.high, high);
    assert.equal(interval.rate, k / n);
  });
}

Deno.test("wilson() of no trials knows nothing: the whole of [0, 1] and no rate", () => {
  assert.deepEqual(wilson(0, 0), { k: 0, n: 0, rate: null, low: 0, high: 1 });
});

Deno.test("wilson() refuses more successes than trials", () => {
  assert.throws(() => wilson(3, 2), RangeError);
  assert.throws(() => wilson(-1, 2), RangeError);
  assert.throws(() => wilson(0.5, 2), RangeError);
});

const mcnemarCases: [number, number, number][] = [
  [4, 1, 0.375],
  [1, 4, 0.375],
  [5, 0, 0.0625],
  [6, 0, 0.03125],
  [10, 2, 158 / 4096],
  [3, 3, 1],
  [1, 0, 1],
  [0, 0, 1],
  // Exact values computed with Python's integer binomials.
  [27, 13, 0.03847730828420026],
  [600, 500, 0.0028195449914364275],
  [560, 441, 0.0001887232370432557],
  [1600, 1400, 0.0002785639610392337],
];

for (const [b, c, p] of mcnemarCases) {
  Deno.test(`mcnemar() gives p = ${p.toPrecision(4)} for b = ${b}, c = ${c}`, () => {
    const result = mcnemar(b, c);
    assert.equal(result.b, b);
    assert.equal(result.c, c);
    assert.ok(Math.abs(result.p - p) <= 1e-9 * p, `${result.p}`);
  });
}

Deno.test("mcnemar() stays exact far past where 0.5^n underflows", () => {
  const { p } = mcnemar(2000, 1000);
  assert.ok(p >= 0 && p < 1e-30, `${p}`);
  assert.equal(mcnemar(1500, 1500).p, 1);
});

Deno.test("mcnemar() refuses negative or fractional counts", () => {
  assert.throws(() => mcnemar(-1, 2), RangeError);
  assert.throws(() => mcnemar(1.5, 2), RangeError);
});

/** Results for `n` tasks, `t0`..: the first `k` resolved. */
const results = (name: string, pattern: string) => ({
  name,
  resolved: Object.fromEntries([...pattern].map((ch, i) => [`t${i}`, ch === "1"])),
});

Deno.test("pairedComparison() counts the four cells and says the difference could be chance", () => {
  //                        both  onlyA onlyB neither
  const codex = results("codex", "111" + "1111" + "0" + "0000");
  const claude = results("claude", "111" + "0000" + "1" + "0000");
  const result = pairedComparison(codex, claude);
  assert.deepEqual(
    { ...result, sentence: undefined },
    {
      test: "mcnemar",
      a: "codex",
      b: "claude",
      tasks: 12,
      both: 3,
      onlyA: 4,
      onlyB: 1,
      neither: 4,
      p: 0.375,
      sentence: undefined,
    },
  );
  assert.equal(
    result.sentence,
    "codex resolved 4 tasks claude did not, claude 1 that codex did not; " +
      "with 12 tasks this could be chance, p = 0.38.",
  );
});

Deno.test("pairedComparison() says a lopsided difference is unlikely to be chance", () => {
  const result = pairedComparison(results("a", "1111110"), results("b", "0000000"));
  assert.equal(result.p, 0.03125);
  assert.equal(
    result.sentence,
    "a resolved 6 tasks b did not, b none that a did not; " +
      "with 7 tasks the difference is unlikely to be chance, p = 0.031.",
  );
});

Deno.test("pairedComparison() compares only tasks both agents attempted", () => {
  const a = { name: "a", resolved: { t1: true, t2: true, t3: false } };
  const b = { name: "b", resolved: { t2: false, t3: false, t4: true } };
  const result = pairedComparison(a, b);
  assert.equal(result.tasks, 2);
  assert.equal(result.onlyA, 1);
  assert.equal(result.neither, 1);
  assert.equal(result.onlyB, 0);
});

Deno.test("pairedComparison() handles no discordant task and no common task", () => {
  const same = pairedComparison(results("a", "1100"), results("b", "1100"));
  assert.equal(same.p, 1);
  assert.equal(same.sentence, "a and b resolved the same 2 of 4 tasks; nothing separates them.");
  const none = pairedComparison(results("a", "00"), results("b", "00"));
  assert.equal(none.sentence, "Neither a nor b resolved any of the 2 tasks both attempted.");
  const apart = pairedComparison({ name: "a", resolved: { t1: true } }, {
    name: "b",
    resolved: { t2: true },
  });
  assert.equal(apart.tasks, 0);
  assert.equal(
    apart.sentence,
    "a and b attempted no task in common, so there is nothing to compare.",
  );
});

Deno.test("formatP() keeps small p-values readable", () => {
  assert.equal(formatP(0.375), "= 0.38");
  assert.equal(formatP(0.0498), "= 0.050");
  assert.equal(formatP(0.0004), "< 0.001");
  assert.equal(formatP(1), "= 1.00");
});

Deno.test("median() handles odd, even and empty lists without reordering its input", () => {
  const values = [4, 1, 3, 2];
  assert.equal(median(values), 2.5);
  assert.deepEqual(values, [4, 1, 3, 2]);
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([7]), 7);
  assert.equal(median([]), null);
});

Deno.test("randomAgent() averages each task over its agents and sums over tasks", () => {
  const result = randomAgent({
    t1: { a: true, b: false },
    t2: { a: true, b: true, c: false },
    t3: {},
    t4: { a: false },
  });
  assert.deepEqual(result.perTask, { t1: 0.5, t2: 2 / 3, t4: 0 });
  assert.equal(result.tasks, 3);
  close(result.expected, 7 / 6, 12);
  close(result.rate, 7 / 18, 12);
  assert.equal(randomAgent({}).rate, null);
});

Deno.test("separation() scores each author's tests against known outcomes", () => {
  const samples: SeparationSample[] = [
    // eve: accepts both resolved patches, rejects 2 of 3 wrong ones.
    { author: "eve", resolved: true, outcomes: ["passed", "passed"] },
    { author: "eve", resolved: true, outcomes: ["passed"] },
    { author: "eve", resolved: false, outcomes: ["passed", "failed"] },
    { author: "eve", resolved: false, outcomes: ["error"] },
    { author: "eve", resolved: false, outcomes: ["passed"] },
    // repository: rejects a resolved patch through a skipped test; no wrong patch seen.
    { author: "repository", resolved: true, outcomes: ["passed", "skipped"] },
    { author: "repository", resolved: true, outcomes: ["passed", "not-run"] },
    // bob: said nothing about these patches.
    { author: "bob", resolved: true, outcomes: [] },
    { author: "bob", resolved: false, outcomes: ["not-run"] },
  ];
  const [eve, repository, bob] = separation(samples);
  assert.deepEqual(eve, {
    author: "eve",
    resolved: 2,
    acceptedResolved: 2,
    wrong: 3,
    rejectedWrong: 2,
    truePositiveRate: 1,
    trueNegativeRate: 2 / 3,
    balancedAccuracy: (1 + 2 / 3) / 2,
    skipped: 0,
  });
  assert.equal(repository.truePositiveRate, 0);
  assert.equal(repository.trueNegativeRate, null);
  assert.equal(repository.balancedAccuracy, null);
  assert.equal(bob.skipped, 2);
  assert.equal(bob.resolved + bob.wrong, 0);
});
