import assert from "node:assert/strict";
import type { Policy } from "../../lib/config.ts";
import { verdictSchema } from "../../lib/records.ts";
import { matrixOf, type MatrixSpec } from "./_helpers.ts";
import { judge } from "../../judge/mod.ts";

interface Case {
  name: string;
  spec: MatrixSpec;
  policy?: Policy;
  pick: string | null;
  /** Per patch: the merge gate. */
  approved: Record<string, boolean>;
  /** Phrases the verdict's reason must contain. */
  says?: string[];
  /** Vendors by agent, for cross-vendor cases. */
  vendors?: Record<string, string>;
}

const cases: Case[] = [
  {
    name: "picks the approved patch with the highest support",
    spec: {
      trees: ["B", "alice", "bob"],
      tests: [["e1", "eve", "F P P"], ["e2", "eve", "F P F"], ["f1", "fay", "F P P"]],
      examiners: ["eve", "fay"],
    },
    pick: "alice",
    approved: { alice: true, bob: true },
    says: ["picked alice: support 1.00 from 2 independent authors, ahead of bob"],
  },
  {
    name: "breaks a tie in support by the number of independent authors",
    spec: {
      trees: ["B", "alice", "bob"],
      tests: [["e1", "eve", "F P P"], ["f1", "finn", "F P P"]],
      examiners: ["eve", "finn"],
    },
    policy: "cross-vendor",
    vendors: { alice: "acme", bob: "other", eve: "acme", finn: "zeta" },
    pick: "bob",
    approved: { alice: true, bob: true },
    says: ["support 1.00 from 2 independent authors"],
  },
  {
    name: "does not favour a patch whose author wrote no reproduction of its own",
    spec: {
      trees: ["B", "alice", "bob"],
      tests: [["e1", "eve", "F P P"], ["a1", "alice", "F P P"]],
      examiners: ["eve"],
    },
    // alice's own test cannot count for alice; it does count for bob. With eve alone behind
    // alice, alice has one voice and cannot be picked, while bob has two (eve, alice).
    pick: "bob",
    approved: { alice: true, bob: true },
    says: ["picked bob", "the only approved patch supported by at least 2 independent voices"],
  },
  {
    name: "does not favour a patch whose author wrote no reproduction of its own, among two voices",
    spec: {
      trees: ["B", "alice", "bob"],
      tests: [["e1", "eve", "F P P"], ["f1", "fay", "F P P"], ["a1", "alice", "F P P"]],
      examiners: ["eve", "fay"],
    },
    // Both have two voices; alice's own test must not tip the tie toward bob: they tie, behave
    // alike everywhere, and the hash of task and agent decides.
    pick: "bob",
    approved: { alice: true, bob: true },
    says: ["alice, bob tie on support 1.00 from 2 independent authors", "hash of task and agent"],
  },
  {
    name: "abstains when tied patches behave differently on some test",
    spec: {
      trees: ["B", "alice", "bob"],
      tests: [["e1", "eve", "F P P"], ["f1", "fay", "F P P"], ["r1", "repository", "F P F"]],
      examiners: ["eve", "fay"],
    },
    pick: null,
    approved: { alice: true, bob: true },
    says: ["alice, bob tie", "differ on 1 test (r1)"],
  },
  {
    name: "never picks a patch the policy rejects, whatever its support",
    spec: {
      trees: ["B", "alice", "bob", "carol"],
      tests: [
        ["e1", "eve", "F P P P"],
        ["e2", "eve", "F P F P"],
        ["f1", "fay", "F P P P"],
        ["r1", "repository", "P F P P"],
      ],
      examiners: ["eve", "fay"],
    },
    pick: "carol",
    approved: { alice: false, bob: true, carol: true },
  },
  {
    name: "judges around a patch whose tree hit an infrastructure error",
    spec: {
      trees: ["B", { id: "alice", status: "infra-error" }, "bob"],
      tests: [["e1", "eve", "F - P"], ["f1", "fay", "F - P"]],
      examiners: ["eve", "fay"],
    },
    pick: "bob",
    approved: { alice: false, bob: true },
  },
  {
    name: "abstains when every author abstained from writing a reproduction",
    spec: { trees: ["B", "alice", "bob"], tests: [["r1", "repository", "P P P"]] },
    pick: null,
    approved: { alice: false, bob: false },
    says: ["none of the 2 patches is approved"],
  },
  {
    name: "abstains when the only reproductions are each patch's own",
    spec: {
      trees: ["B", "alice", "bob"],
      tests: [["a1", "alice", "F P F"], ["b1", "bob", "F F P"]],
    },
    pick: null,
    approved: { alice: false, bob: false },
  },
  {
    name: "abstains with a single patch the policy rejects",
    spec: { trees: ["B", "alice"], tests: [["e1", "eve", "F F"]], examiners: ["eve"] },
    pick: null,
    approved: { alice: false },
    says: ["the only patch is not approved"],
  },
  {
    name: "abstains when no contestant produced a patch",
    spec: { trees: ["B", "B#2"], tests: [["e1", "eve", "F F"]], examiners: ["eve"] },
    pick: null,
    approved: {},
    says: ["no contestant produced a patch"],
  },
  {
    name: "strict picks the patch that keeps the examiner's behaviour",
    spec: {
      trees: ["B", "alice", "bob"],
      tests: [["e1", "eve", "F P P"], ["e2", "eve", "P F P"], ["f1", "fay", "F P P"]],
      examiners: ["eve", "fay"],
    },
    policy: "strict",
    pick: "bob",
    approved: { alice: false, bob: true },
  },
];

for (const c of cases) {
  Deno.test(`judge(): ${c.name}`, () => {
    const policy = c.policy ?? "majority";
    const agents = Object.entries(c.vendors ?? {}).map(([name, vendor]) => ({
      name,
      vendor,
      role: (c.spec.examiners ?? []).includes(name) ? "examiner" as const : "contestant" as const,
    }));
    const verdict = judge(matrixOf(c.spec), { policy, agents });
    verdictSchema.parse(verdict);
    assert.equal(verdict.pick, c.pick, verdict.reason);
    assert.equal(verdict.policy, policy);
    assert.equal(verdict.task, "issue-1");
    assert.ok(verdict.reason.startsWith(c.pick ? `picked ${c.pick}` : "abstained"));
    assert.deepEqual(
      Object.fromEntries(Object.entries(verdict.patches).map(([k, v]) => [k, v.approved])),
      c.approved,
    );
    for (const phrase of c.says ?? []) assert.ok(verdict.reason.includes(phrase), verdict.reason);
  });
}

const twins = (task: string, order: string[]) =>
  matrixOf({
    task,
    trees: ["B", ...order],
    tests: [
      ["e1", "eve", `F ${order.map(() => "P").join(" ")}`],
      ["f1", "fay", `F ${order.map(() => "P").join(" ")}`],
      ["r1", "repository", `P ${order.map(() => "P").join(" ")}`],
    ],
    examiners: ["eve", "fay"],
  });

Deno.test("judge() picks the same twin whatever order the patches come in", () => {
  for (const task of ["issue-1", "issue-2", "pr-3"]) {
    const picks = [
      ["alice", "bob", "carol"],
      ["carol", "bob", "alice"],
      ["bob", "carol", "alice"],
    ].map((order) => judge(twins(task, order), { policy: "majority", agents: [] }));
    assert.ok(picks[0].pick !== null, picks[0].reason);
    assert.ok(picks.every((v) => v.pick === picks[0].pick));
    assert.match(picks[0].reason, /behave alike on every test.*not by name order/);
  }
});

Deno.test("judge() spreads picks between behaviourally identical patches across tasks", () => {
  const picks = new Map<string, number>();
  for (let i = 0; i < 30; i++) {
    const { pick } = judge(twins(`issue-${i}`, ["alice", "bob"]), {
      policy: "majority",
      agents: [],
    });
    picks.set(pick!, (picks.get(pick!) ?? 0) + 1);
  }
  assert.deepEqual([...picks.keys()].sort(), ["alice", "bob"]);
});

Deno.test("judge() gives cross-vendor the vendors of the agents", () => {
  const matrix = matrixOf({
    trees: ["B", "alice", "bob"],
    tests: [["a1", "alice", "F P P"], ["b1", "bob", "F P P"]],
  });
  const agents = [
    { name: "alice", vendor: "openai", role: "contestant" as const },
    { name: "bob", vendor: "openai", role: "contestant" as const },
  ];
  // Under majority each approves the other's patch, but alice and bob are one voice (openai), and
  // one voice is not enough to pick on; cross-vendor does not even approve.
  const majority = judge(matrix, { policy: "majority", agents });
  assert.deepEqual(Object.values(majority.patches).map((p) => p.approved), [true, true]);
  assert.equal(majority.pick, null);
  assert.match(majority.reason, /a pick needs 2/);
  const crossVendor = judge(matrix, { policy: "cross-vendor", agents });
  assert.equal(crossVendor.pick, null);
  assert.deepEqual(Object.values(crossVendor.patches).map((p) => p.approved), [false, false]);
});

Deno.test("judge() under cross-vendor treats agents of unknown vendor as different makers", () => {
  const matrix = matrixOf({
    trees: ["B", "alice", "bob"],
    tests: [["a1", "alice", "F F P"], ["b1", "bob", "F P F"]],
  });
  const agents = [
    { name: "alice", vendor: "unknown", role: "contestant" as const },
    { name: "bob", vendor: "unknown", role: "contestant" as const },
  ];
  // Each approves the other's patch, as under majority; each has one voice behind it, so: abstain,
  // but not because of vendors. The reason says their vendors were taken as different.
  const verdict = judge(matrix, { policy: "cross-vendor", agents });
  assert.deepEqual(Object.values(verdict.patches).map((p) => p.approved), [true, true]);
  assert.match(verdict.reason, /cross-vendor: the vendor of alice, bob is unknown/);
  assert.match(verdict.reason, /each counts as a vendor of its own/);
  // With one of them picked (bob and an examiner of a named vendor behind it: two voices), the
  // note still says how vendors were read.
  const one = judge(
    matrixOf({
      trees: ["B", "alice", "bob"],
      tests: [["b1", "bob", "F P F"], ["e1", "eve", "F P F"]],
      examiners: ["eve"],
    }),
    {
      policy: "cross-vendor",
      agents: [...agents, { name: "eve", vendor: "acme", role: "examiner" }],
    },
  );
  assert.equal(one.pick, "alice", one.reason);
  assert.match(one.reason, /^picked alice: .*; cross-vendor: the vendor of alice, bob is unknown/);
  // majority has nothing to say about vendors.
  assert.doesNotMatch(judge(matrix, { policy: "majority", agents }).reason, /vendor/);
});

Deno.test("judge() under cross-vendor says why it abstains when it finds a single vendor", () => {
  const matrix = matrixOf({
    trees: ["B", "alice", "bob"],
    tests: [["a1", "alice", "F P P"], ["b1", "bob", "F P P"]],
  });
  const agents = [
    { name: "alice", vendor: "OpenAI", role: "contestant" as const },
    { name: "bob", vendor: "openai", role: "contestant" as const },
  ];
  const verdict = judge(matrix, { policy: "cross-vendor", agents });
  assert.equal(verdict.pick, null);
  assert.match(verdict.reason, /^abstained: none of the 2 patches is approved/);
  assert.match(
    verdict.reason,
    /cross-vendor: every agent here is of vendor openai, so no agent's test counts for another's patch/,
  );
});

Deno.test("judge() under cross-vendor names the same-vendor tests it set aside when it abstains", () => {
  // carol (anthropic) wrote no reproduction; alice and bob (openai) only reproduce each other.
  // carol passes both their tests, but alice and bob are one voice: no pick on one voice.
  const matrix = matrixOf({
    trees: ["B", "alice", "bob", "carol"],
    tests: [["a1", "alice", "F F P P"], ["b1", "bob", "F P F F"]],
  });
  const agents = [
    { name: "alice", vendor: "openai", role: "contestant" as const },
    { name: "bob", vendor: "openai", role: "contestant" as const },
    { name: "carol", vendor: "anthropic", role: "contestant" as const },
  ];
  const verdict = judge(matrix, { policy: "cross-vendor", agents });
  assert.equal(verdict.pick, null, verdict.reason);
  assert.equal(verdict.patches.carol.approved, true);
  assert.match(
    verdict.reason,
    /carol, is not supported by at least 2 independent voices \(carol: 1 voice \(openai\)\)/,
  );
  const none = judge(
    matrixOf({
      trees: ["B", "alice", "bob", "carol"],
      tests: [["a1", "alice", "F F P F"], ["b1", "bob", "F P F F"]],
    }),
    { policy: "cross-vendor", agents },
  );
  assert.equal(none.pick, null);
  assert.match(
    none.reason,
    /cross-vendor: tests set aside as the patch agent's own vendor: bob's for alice \(openai\), alice's for bob \(openai\)/,
  );
});

Deno.test("judge() refuses a policy it does not know", () => {
  const matrix = matrixOf({ trees: ["B"], tests: [] });
  assert.throws(() => judge(matrix, { policy: "lenient" as Policy, agents: [] }), /no such policy/);
});
