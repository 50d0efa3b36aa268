import assert from "node:assert/strict";
import type { Policy } from "../../lib/config.ts";
import { BugboutError } from "../../lib/errors.ts";
import { matrixOf, type MatrixSpec } from "./_helpers.ts";
import { type AgentInfo, assessPatch, policyRule } from "../../judge/policies.ts";
import { matrixFacts } from "../../judge/rules.ts";

interface Case {
  name: string;
  spec: MatrixSpec;
  policy: Policy;
  patch: string;
  agents?: AgentInfo[];
  approved: boolean;
  support: number;
  /** Phrases the reason must contain. */
  says?: string[];
  /** The tests of the evidence cells, in order. */
  evidence?: string[];
}

const trio = ["B", "B#2", "alice", "bob", "carol"];

const cases: Case[] = [
  {
    name: "majority approves a patch passing half of the reproductions, averaged per author",
    spec: {
      trees: trio,
      tests: [
        ["b1", "bob", "F F P F F"],
        ["b2", "bob", "F F P F F"],
        ["c1", "carol", "F F F F F"],
      ],
    },
    policy: "majority",
    patch: "alice",
    approved: true,
    support: 0.5,
    says: ["bob 2/2, carol 0/1", "support 0.50"],
    evidence: ["b1", "b2", "c1"],
  },
  {
    name: "majority weighs authors, not tests: 1/1 and 1/4 make 0.625, not 2/5",
    spec: {
      trees: trio,
      tests: [
        ["b1", "bob", "F F P F F"],
        ["c1", "carol", "F F P F P"],
        ["c2", "carol", "F F F F P"],
        ["c3", "carol", "F F F F P"],
        ["c4", "carol", "F F F F P"],
      ],
    },
    policy: "majority",
    patch: "alice",
    approved: true,
    support: 0.625,
  },
  {
    name: "majority rejects support below one half",
    spec: {
      trees: trio,
      tests: [
        ["b1", "bob", "F F F F F"],
        ["c1", "carol", "F F P F P"],
        ["c2", "carol", "F F F F P"],
        ["c3", "carol", "F F E F P"],
      ],
    },
    policy: "majority",
    patch: "alice",
    approved: false,
    support: 1 / 6,
    says: ["below the 0.50 needed"],
  },
  {
    name: "unanimous rejects a patch that fails one independent reproduction",
    spec: {
      trees: trio,
      tests: [["b1", "bob", "F F P F F"], ["c1", "carol", "F F P F P"], [
        "c2",
        "carol",
        "F F F F P",
      ]],
    },
    policy: "unanimous",
    patch: "alice",
    approved: false,
    support: 0.75,
    says: ["short of all of them"],
  },
  {
    name: "unanimous approves a patch that passes every independent reproduction",
    spec: { trees: trio, tests: [["b1", "bob", "F F P F F"], ["c1", "carol", "F F P F P"]] },
    policy: "unanimous",
    patch: "alice",
    approved: true,
    support: 1,
  },
  {
    name: "a patch's own tests never support it",
    spec: { trees: trio, tests: [["a1", "alice", "F F P F F"], ["a2", "alice", "F F P F F"]] },
    policy: "majority",
    patch: "alice",
    approved: false,
    support: 0,
    says: ["no independent reproduction", "2 own tests not counted"],
    evidence: [],
  },
  {
    name: "a patch's own passing tests do not lift the support others' tests give it",
    spec: { trees: trio, tests: [["a1", "alice", "F F P F F"], ["b1", "bob", "F F F P F"]] },
    policy: "majority",
    patch: "alice",
    approved: false,
    support: 0,
    evidence: ["b1"],
  },
  {
    name: "an author whose tests pass on B gives no evidence",
    spec: { trees: trio, tests: [["b1", "bob", "P P P P P"], ["c1", "carol", "P F P P P"]] },
    policy: "majority",
    patch: "alice",
    approved: false,
    support: 0,
    says: ["no agent-written test fails on the unfixed tree"],
  },
  {
    name: "every author abstaining from tests leaves nothing to approve",
    spec: { trees: trio, tests: [["r1", "repository", "P P P P P"]] },
    policy: "majority",
    patch: "alice",
    approved: false,
    support: 0,
  },
  {
    name: "a test unstable on B is ignored",
    spec: { trees: trio, tests: [["b1", "bob", "F F P F F"]], unstableOnB: ["b1"] },
    policy: "majority",
    patch: "alice",
    approved: false,
    support: 0,
  },
  {
    name: "a patch whose tree hit an infrastructure error is not approved",
    spec: {
      trees: ["B", { id: "alice", status: "infra-error" }, "bob"],
      tests: [["b1", "bob", "F - P"], ["c1", "carol", "F - P"]],
    },
    policy: "majority",
    patch: "alice",
    approved: false,
    support: 0,
    says: ["did not run (infra-error"],
    evidence: [],
  },
  {
    name: "a single independent author is enough for majority",
    spec: { trees: ["B", "alice"], tests: [["e1", "eve", "F P"]], examiners: ["eve"] },
    policy: "majority",
    patch: "alice",
    approved: true,
    support: 1,
    says: ["1 independent reproduction by 1 author (eve 1/1)"],
  },
  {
    name: "a repository test broken under quorum rejects the patch",
    spec: {
      trees: trio,
      tests: [["e1", "eve", "F F P P P"], ["r1", "repository", "P P F P P"]],
      examiners: ["eve"],
    },
    policy: "majority",
    patch: "alice",
    approved: false,
    support: 1,
    says: ["breaks r1 (failed; 2 of 2 other patches keep it passing)"],
    evidence: ["e1", "r1"],
  },
  {
    name: "a repository test most patches change does not count against the patch",
    spec: {
      trees: trio,
      tests: [["e1", "eve", "F F P P P"], ["r1", "repository", "P P F F P"]],
      examiners: ["eve"],
    },
    policy: "majority",
    patch: "alice",
    approved: true,
    support: 1,
    says: ["also changes r1 (failed; 1 of 2 other patches keep it passing): no quorum"],
    evidence: ["e1"],
  },
  {
    name: "cross-vendor sets aside an author of the patch's own vendor",
    spec: { trees: trio, tests: [["b1", "bob", "F F P F F"], ["c1", "carol", "F F F F F"]] },
    agents: [
      { name: "alice", vendor: "OpenAI", role: "contestant" },
      { name: "bob", vendor: "openai", role: "contestant" },
      { name: "carol", vendor: "anthropic", role: "contestant" },
    ],
    policy: "cross-vendor",
    patch: "alice",
    approved: false,
    support: 0,
    says: ["1 test by bob (same vendor) not counted"],
    evidence: ["c1"],
  },
  {
    name: "majority counts the same-vendor author that cross-vendor sets aside",
    spec: { trees: trio, tests: [["b1", "bob", "F F P F F"], ["c1", "carol", "F F F F F"]] },
    agents: [
      { name: "alice", vendor: "openai", role: "contestant" },
      { name: "bob", vendor: "openai", role: "contestant" },
      { name: "carol", vendor: "anthropic", role: "contestant" },
    ],
    policy: "majority",
    patch: "alice",
    approved: true,
    support: 0.5,
  },
  {
    name: "cross-vendor has no independent reproduction when only same-vendor authors wrote one",
    spec: { trees: trio, tests: [["b1", "bob", "F F P F F"]] },
    agents: [
      { name: "alice", vendor: "openai", role: "contestant" },
      { name: "bob", vendor: "openai", role: "contestant" },
    ],
    policy: "cross-vendor",
    patch: "alice",
    approved: false,
    support: 0,
    says: ["no independent reproduction", "same vendor"],
  },
  {
    name: "cross-vendor counts an author of unknown vendor as a vendor of its own",
    spec: { trees: trio, tests: [["b1", "bob", "F F P F F"]] },
    agents: [
      { name: "alice", vendor: "unknown", role: "contestant" },
      { name: "bob", vendor: "Unknown", role: "contestant" },
    ],
    policy: "cross-vendor",
    patch: "alice",
    approved: true,
    support: 1,
    says: ["bob 1/1"],
    evidence: ["b1"],
  },
  {
    name: "cross-vendor still sets aside an author whose named vendor is the patch's",
    spec: { trees: trio, tests: [["b1", "bob", "F F P F F"], ["c1", "carol", "F F P F F"]] },
    agents: [
      { name: "alice", vendor: "openai", role: "contestant" },
      { name: "bob", vendor: "openai", role: "contestant" },
      { name: "carol", vendor: "unknown", role: "contestant" },
    ],
    policy: "cross-vendor",
    patch: "alice",
    approved: true,
    support: 1,
    says: ["carol 1/1", "1 test by bob (same vendor) not counted"],
    evidence: ["c1"],
  },
  {
    name: "strict rejects a patch that breaks an examiner's test passing on B",
    spec: {
      trees: ["B", "alice", "bob"],
      tests: [["e1", "eve", "F P P"], ["e2", "eve", "P F P"]],
      examiners: ["eve"],
    },
    policy: "strict",
    patch: "alice",
    approved: false,
    support: 1,
    says: ["breaks examiners' tests that pass on the unfixed tree: e2 (failed)"],
    evidence: ["e1", "e2"],
  },
  {
    name: "unanimous ignores an examiner's test passing on B that strict protects",
    spec: {
      trees: ["B", "alice", "bob"],
      tests: [["e1", "eve", "F P P"], ["e2", "eve", "P F P"]],
      examiners: ["eve"],
    },
    policy: "unanimous",
    patch: "alice",
    approved: true,
    support: 1,
  },
  {
    name: "strict approves a patch that keeps every examiner guard passing",
    spec: {
      trees: ["B", "alice", "bob"],
      tests: [["e1", "eve", "F P P"], ["e2", "eve", "P P F"], ["c1", "bob", "P F P"]],
      examiners: ["eve"],
    },
    policy: "strict",
    patch: "alice",
    approved: true,
    support: 1,
  },
];

for (const c of cases) {
  Deno.test(`assessPatch(): ${c.name}`, () => {
    const facts = matrixFacts(matrixOf(c.spec));
    const patch = facts.patches.find((t) => t.id === c.patch)!;
    const agents = c.agents ?? [];
    const result = assessPatch(facts, patch, { policy: c.policy, agents });
    assert.equal(result.approved, c.approved, result.reason);
    assert.ok(Math.abs(result.support - c.support) < 1e-12, `support ${result.support}`);
    assert.ok(result.reason.startsWith(c.approved ? "approved" : "not approved"), result.reason);
    for (const phrase of c.says ?? []) assert.ok(result.reason.includes(phrase), result.reason);
    if (c.evidence) {
      assert.deepEqual(result.evidence.map((e) => e.test), c.evidence);
      assert.ok(result.evidence.every((e) => e.tree === c.patch));
    }
  });
}

Deno.test("assessPatch() records each evidence cell's author and outcome on the patch", () => {
  const facts = matrixFacts(matrixOf({
    trees: ["B", "alice", "bob"],
    tests: [["b1", "bob", "F P F"], ["e1", "eve", "F E P"]],
    examiners: ["eve"],
  }));
  const result = assessPatch(facts, facts.patches[0], { policy: "majority", agents: [] });
  assert.deepEqual(result.evidence, [
    { test: "b1", author: "bob", tree: "alice", outcome: "passed" },
    { test: "e1", author: "eve", tree: "alice", outcome: "error" },
  ]);
  assert.deepEqual(result.authors, [
    { author: "bob", passed: 1, total: 1 },
    { author: "eve", passed: 0, total: 1 },
  ]);
});

Deno.test("policyRule() names the policies when given an unknown one", () => {
  assert.throws(
    () => policyRule("lenient"),
    (e) => e instanceof BugboutError && /no such policy/.test(e.message) && /strict/.test(e.hint!),
  );
});
