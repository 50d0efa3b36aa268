import assert from "node:assert/strict";
import { matrixOf, type MatrixSpec } from "./_helpers.ts";
import { breakages, differingTests, matrixFacts } from "../../judge/rules.ts";

const reproductionCases: { name: string; spec: MatrixSpec; expected: string[] }[] = [
  {
    name: "a test that fails on every B repeat reproduces; failed and error both count",
    spec: {
      trees: ["B", "B#2", "alice"],
      tests: [["t1", "bob", "F F P"], ["t2", "bob", "E F P"], ["t3", "bob", "E E P"]],
    },
    expected: ["t1", "t2", "t3"],
  },
  {
    name: "a test that passes on B is not a reproduction",
    spec: { trees: ["B", "alice"], tests: [["t1", "bob", "P P"]] },
    expected: [],
  },
  {
    name: "a test that fails on only one B repeat is not a reproduction",
    spec: { trees: ["B", "B#2", "alice"], tests: [["t1", "bob", "F P P"]] },
    expected: [],
  },
  {
    name: "skipped, xfailed and not-run on B are not failures",
    spec: {
      trees: ["B", "alice"],
      tests: [["t1", "bob", "S P"], ["t2", "bob", "X P"], ["t3", "bob", "- P"]],
    },
    expected: [],
  },
  {
    name: "a test listed as unstable on B is never evidence",
    spec: { trees: ["B", "B#2", "alice"], tests: [["t1", "bob", "F F P"]], unstableOnB: ["t1"] },
    expected: [],
  },
  {
    name: "repository tests are not reproductions even when they fail on B",
    spec: { trees: ["B", "alice"], tests: [["r1", "repository", "F P"]] },
    expected: [],
  },
  {
    name: "examiners' tests reproduce like contestants' tests",
    spec: { trees: ["B", "alice"], tests: [["e1", "eve", "F P"]], examiners: ["eve"] },
    expected: ["e1"],
  },
  {
    name: "a B repeat that did not run is left out rather than counted",
    spec: {
      trees: ["B", { id: "B#2", status: "infra-error" }, "alice"],
      tests: [["t1", "bob", "F - P"]],
    },
    expected: ["t1"],
  },
  {
    name: "nothing reproduces when no B repeat ran",
    spec: { trees: [{ id: "B", status: "timeout" }, "alice"], tests: [["t1", "bob", "- P"]] },
    expected: [],
  },
];

for (const c of reproductionCases) {
  Deno.test(`matrixFacts(): ${c.name}`, () => {
    const facts = matrixFacts(matrixOf(c.spec));
    assert.deepEqual(facts.reproductions.map((t) => t.id), c.expected);
  });
}

Deno.test("matrixFacts() guards only tests that pass on every B repeat, by role", () => {
  const facts = matrixFacts(matrixOf({
    trees: ["B", "B#2", "alice"],
    tests: [
      ["r1", "repository", "P P P"],
      ["r2", "repository", "P F P"],
      ["r3", "repository", "P P F"],
      ["e1", "eve", "P P F"],
      ["e2", "eve", "F F P"],
      ["c1", "bob", "P P P"],
    ],
    examiners: ["eve"],
  }));
  assert.deepEqual(facts.repositoryGuards.map((t) => t.id), ["r1", "r3"]);
  assert.deepEqual(facts.examinerGuards.map((t) => t.id), ["e1"]);
  assert.deepEqual(facts.ranPatches.map((t) => t.id), ["alice"]);
});

const quorumCases: {
  name: string;
  spec: MatrixSpec;
  patch: string;
  expected: { test: string; counted: boolean; kept: number; others: number }[];
}[] = [
  {
    name: "a breakage counts when most other patches keep the test passing",
    spec: { trees: ["B", "a", "b", "c"], tests: [["r1", "repository", "P F P P"]] },
    patch: "a",
    expected: [{ test: "r1", counted: true, kept: 2, others: 2 }],
  },
  {
    name: "a breakage does not count when only half of the other patches keep the test passing",
    spec: { trees: ["B", "a", "b", "c"], tests: [["r1", "repository", "P F F P"]] },
    patch: "a",
    expected: [{ test: "r1", counted: false, kept: 1, others: 2 }],
  },
  {
    name: "a breakage does not count when every patch changes the test",
    spec: { trees: ["B", "a", "b", "c"], tests: [["r1", "repository", "P F E S"]] },
    patch: "a",
    expected: [{ test: "r1", counted: false, kept: 0, others: 2 }],
  },
  {
    name: "patches whose trees did not run take no part in the quorum",
    spec: {
      trees: ["B", "a", "b", { id: "c", status: "infra-error" }, { id: "d", status: "timeout" }],
      tests: [["r1", "repository", "P F P - -"]],
    },
    patch: "a",
    expected: [{ test: "r1", counted: true, kept: 1, others: 1 }],
  },
  {
    name: "a lone patch has no quorum, so its breakage does not count",
    spec: { trees: ["B", "a"], tests: [["r1", "repository", "P F"]] },
    patch: "a",
    expected: [{ test: "r1", counted: false, kept: 0, others: 0 }],
  },
  {
    name: "skipped or not-run on the patch is not passing",
    spec: {
      trees: ["B", "a", "b"],
      tests: [["r1", "repository", "P S P"], ["r2", "repository", "P - P"]],
    },
    patch: "a",
    expected: [
      { test: "r1", counted: true, kept: 1, others: 1 },
      { test: "r2", counted: true, kept: 1, others: 1 },
    ],
  },
  {
    name: "a repository test that fails on B or is unstable there is never a breakage",
    spec: {
      trees: ["B", "a", "b"],
      tests: [["r1", "repository", "F F P"], ["r2", "repository", "P F P"]],
      unstableOnB: ["r2"],
    },
    patch: "a",
    expected: [],
  },
];

for (const c of quorumCases) {
  Deno.test(`breakages(): ${c.name}`, () => {
    const facts = matrixFacts(matrixOf(c.spec));
    const patch = facts.patches.find((t) => t.id === c.patch)!;
    assert.deepEqual(
      breakages(facts, patch).map((b) => ({
        test: b.test.id,
        counted: b.counted,
        kept: b.keptBy.length,
        others: b.others,
      })),
      c.expected,
    );
  });
}

Deno.test("breakages(): identical patches are one patch in the quorum, and a patch's twins are not others", () => {
  // a breaks r1; b, c and d ship one change that keeps it passing, e and f two others that break it.
  const facts = matrixFacts(matrixOf({
    trees: ["B", "a", "b", "c", "d", "e", "f"],
    tests: [["r1", "repository", "P F P P P F F"]],
  }));
  const patch = (id: string) => facts.patches.find((t) => t.id === id)!;
  const of = (id: string, prints?: Record<string, string>) =>
    breakages(facts, patch(id), prints).map((b) => ({
      counted: b.counted,
      kept: b.kept,
      keptBy: b.keptBy.length,
      others: b.others,
    }));
  // Counted one by one, three look-alikes outvote two: the breakage counts.
  assert.deepEqual(of("a"), [{ counted: true, kept: 3, keptBy: 3, others: 5 }]);
  const prints = { b: "same", c: "same", d: "same", e: "e", f: "f" };
  // As one opinion against two, it has no quorum.
  assert.deepEqual(of("a", prints), [{ counted: false, kept: 1, keptBy: 3, others: 3 }]);
  // e's twin f is not another patch: against b's group alone (a breaks it too) nothing is kept.
  assert.deepEqual(of("e", { ...prints, f: "e" }), [{
    counted: false,
    kept: 1,
    keptBy: 3,
    others: 2,
  }]);
});

Deno.test("differingTests() treats failed and error as one and skips tests unstable on B", () => {
  const matrix = matrixOf({
    trees: ["B", "a", "b"],
    tests: [
      ["t1", "x", "F F E"],
      ["t2", "x", "F P F"],
      ["t3", "x", "P S P"],
      ["t4", "x", "F P F"],
    ],
    unstableOnB: ["t4"],
  });
  assert.deepEqual(differingTests(matrix, "a", "b"), ["t2", "t3"]);
  assert.deepEqual(differingTests(matrix, "a", "a"), []);
});
