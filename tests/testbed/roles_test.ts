import assert from "node:assert/strict";
import {
  agentEvidence,
  type EvidenceRole,
  evidenceRole,
  type EvidenceTest,
  evidenceTest,
  inadequateClosure,
  type Replay,
  replayClass,
} from "../../lib/roles.ts";
import { resolutionSchema } from "../../lib/records.ts";

const roleCases: { name: string; B: Replay; G: Replay; role: EvidenceRole }[] = [
  { name: "fails on B, passes on G: gold-aligned", B: "failed", G: "passed", role: "gold-aligned" },
  { name: "an error on B counts as failing", B: "error", G: "passed", role: "gold-aligned" },
  {
    name: "fails on B, fails on G: candidate-specific",
    B: "failed",
    G: "error",
    role: "candidate-specific",
  },
  {
    name: "passes on B and on G: regression-only",
    B: "passed",
    G: "passed",
    role: "regression-only",
  },
  { name: "passes on B, fails on G: misleading", B: "passed", G: "failed", role: "misleading" },
  {
    name: "repeats that agree are one replay",
    B: ["failed", "error", "failed"],
    G: ["passed", "passed"],
    role: "gold-aligned",
  },
  {
    name: "B repeats that disagree: unstable",
    B: ["failed", "passed"],
    G: "passed",
    role: "unstable",
  },
  {
    name: "G repeats that disagree: unstable",
    B: "failed",
    G: ["passed", "error"],
    role: "unstable",
  },
  {
    name: "unstable wins over a replay that did not run",
    B: ["failed", "passed"],
    G: "not-run",
    role: "unstable",
  },
  { name: "skipped on B: not comparable", B: "skipped", G: "passed", role: "not-comparable" },
  { name: "not run on G: not comparable", B: "failed", G: "not-run", role: "not-comparable" },
  { name: "xfailed on G: not comparable", B: "failed", G: "xfailed", role: "not-comparable" },
  {
    name: "one skipped repeat among passes: not comparable",
    B: ["passed", "skipped"],
    G: "passed",
    role: "not-comparable",
  },
  { name: "no repeat at all: not comparable", B: [], G: "passed", role: "not-comparable" },
];

for (const c of roleCases) {
  Deno.test(`evidenceRole(): ${c.name}`, () => {
    assert.equal(evidenceRole({ B: c.B, G: c.G }), c.role);
  });
}

Deno.test("replayClass() sorts repeats into pass, fail, unstable and none", () => {
  assert.equal(replayClass(["passed", "passed"]), "pass");
  assert.equal(replayClass(["failed", "error"]), "fail");
  assert.equal(replayClass(["passed", "error"]), "unstable");
  assert.equal(replayClass(["xfailed"]), "none");
  assert.equal(replayClass([]), "none");
});

Deno.test("evidenceTest() makes a record resolutions.json accepts, S aside from the role", () => {
  const record = evidenceTest("tests/t.py::a", {
    B: ["failed", "failed"],
    S: "not-run",
    G: ["passed", "passed"],
  });
  assert.deepEqual(record, {
    test: "tests/t.py::a",
    B: "failed",
    S: "not-run",
    G: "passed",
    role: "gold-aligned",
  });
  assert.equal(evidenceTest("x", { B: [], S: [], G: [] }).B, "not-run");
  resolutionSchema.shape.evidence.parse({ agent: { tests: [record], inadequateClosure: null } });
});

const closureCases: {
  name: string;
  attempt: { patch: boolean; tests: { B: Replay; S: Replay }[] };
  expected: boolean | null;
}[] = [
  {
    name: "no patch means no closure to judge",
    attempt: { patch: false, tests: [{ B: "failed", S: "passed" }] },
    expected: null,
  },
  {
    name: "one own test that passes on S and fails on B is adequate",
    attempt: { patch: true, tests: [{ B: "passed", S: "passed" }, { B: "error", S: "passed" }] },
    expected: false,
  },
  {
    name: "tests that all pass on B are inadequate",
    attempt: { patch: true, tests: [{ B: "passed", S: "passed" }, { B: "passed", S: "passed" }] },
    expected: true,
  },
  {
    name: "a test failing on B that also fails on S is not positive evidence",
    attempt: { patch: true, tests: [{ B: "failed", S: "failed" }] },
    expected: true,
  },
  {
    name: "a patch with no test at all is inadequate",
    attempt: { patch: true, tests: [] },
    expected: true,
  },
  {
    name: "a test unstable on B is not evidence",
    attempt: { patch: true, tests: [{ B: ["failed", "passed"], S: "passed" }] },
    expected: true,
  },
  {
    name: "a test unstable on S is not evidence",
    attempt: { patch: true, tests: [{ B: "failed", S: ["passed", "failed"] }] },
    expected: true,
  },
  {
    name: "repeats that agree on both sides are evidence",
    attempt: { patch: true, tests: [{ B: ["failed", "failed"], S: ["passed", "passed"] }] },
    expected: false,
  },
];

for (const c of closureCases) {
  Deno.test(`inadequateClosure(): ${c.name}`, () => {
    assert.equal(inadequateClosure(c.attempt), c.expected);
  });
}

const t = (role: EvidenceRole, S: EvidenceTest["S"] = "passed"): EvidenceTest => ({
  test: `t-${role}`,
  B: "failed",
  S,
  G: "passed",
  role,
});

Deno.test("agentEvidence() shares roles over comparable tests and closure over patches", () => {
  const summary = agentEvidence([
    {
      tests: [t("gold-aligned"), t("regression-only"), t("regression-only"), t("unstable")],
      inadequateClosure: false,
    },
    { tests: [t("misleading", "failed"), t("not-comparable")], inadequateClosure: true },
    { tests: [], inadequateClosure: null },
    { tests: [t("candidate-specific")], inadequateClosure: true },
  ]);
  assert.equal(summary.tests, 7);
  assert.deepEqual(summary.counts, {
    "gold-aligned": 1,
    "candidate-specific": 1,
    "regression-only": 2,
    misleading: 1,
    unstable: 1,
    "not-comparable": 1,
  });
  assert.equal(summary.comparable, 5);
  assert.deepEqual(summary.shares, {
    "gold-aligned": 0.2,
    "candidate-specific": 0.2,
    "regression-only": 0.4,
    misleading: 0.2,
  });
  assert.equal(summary.positive, 4);
  assert.deepEqual(summary.positiveShares, {
    "gold-aligned": 0.25,
    "candidate-specific": 0.25,
    "regression-only": 0.5,
    misleading: 0,
  });
  assert.equal(summary.attempts, 4);
  assert.equal(summary.withPatch, 3);
  assert.equal(summary.inadequateClosures, 2);
  assert.equal(summary.closureRate, 2 / 3);
});

Deno.test("agentEvidence() has no shares and no closure rate with nothing to count", () => {
  const summary = agentEvidence([{ tests: [t("unstable")], inadequateClosure: null }]);
  assert.equal(summary.comparable, 0);
  assert.equal(summary.shares, null);
  assert.equal(summary.positiveShares, null);
  assert.equal(summary.closureRate, null);
  assert.equal(agentEvidence([]).tests, 0);
});
