import assert from "node:assert/strict";
import type { Policy } from "../../lib/config.ts";
import { verdictSchema } from "../../lib/records.ts";
import { matrixOf } from "./_helpers.ts";
import {
  type AgentInfo,
  judge,
  matrixFacts,
  MIN_VOICES,
  patchFingerprint,
  voicesOf,
} from "../../judge/mod.ts";

const contestant = (name: string, vendor: string, more: Partial<AgentInfo> = {}): AgentInfo => ({
  name,
  vendor,
  role: "contestant",
  ...more,
});
const examiner = (name: string, vendor: string): AgentInfo => ({ name, vendor, role: "examiner" });

/** A diff of one file, as the race captures it. */
function diff(path: string, removed: string[], added: string[], at = 1): string {
  return [
    `diff --git a/${path} b/${path}`,
    "index 1111111..2222222 100644",
    `--- a/${path}`,
    `+++ b/${path}`,
    `@@ -${at},${removed.length + 1} +${at},${added.length + 1} @@ def chunk(items, size):`,
    "     n = len(items)",
    ...removed.map((l) => `-${l}`),
    ...added.map((l) => `+${l}`),
    "",
  ].join("\n");
}

const WRONG = diff("pkg/lists.py", ["    count = n // size"], ["    count = n // size + 1"]);
const RIGHT_A = diff("pkg/lists.py", ["    count = n // size"], ["    count = -(-n // size)"]);
const RIGHT_B = diff("pkg/lists.py", ["    count = n // size"], [
  "    count = (n + size - 1) // size",
]);

/**
 * The attack: w1..w4 (one vendor) ship the same wrong fix, each with a test of it (which the
 * correct fixes fail, since it pins the wrong behaviour); r1 and r2 (two other vendors) ship
 * correct fixes, each with a test that the wrong fix fails; eve examines.
 */
function attack(policy: Policy = "majority", prints = true) {
  const trees = ["B", "w1", "w2", "w3", "w4", "r1", "r2"];
  const matrix = matrixOf({
    trees,
    tests: [
      ["tw1", "w1", "F P P P P F F"],
      ["tw2", "w2", "F P P P P F F"],
      ["tw3", "w3", "F P P P P F F"],
      ["tw4", "w4", "F P P P P F F"],
      ["tr1", "r1", "F F F F F P P"],
      ["tr2", "r2", "F F F F F P P"],
      ["te1", "eve", "F F F F F P P"],
    ],
    examiners: ["eve"],
  });
  const agents = [
    ...["w1", "w2", "w3", "w4"].map((n) => contestant(n, "acme")),
    contestant("r1", "beta"),
    contestant("r2", "gamma"),
    examiner("eve", "delta"),
  ];
  const fingerprints = prints
    ? {
      w1: patchFingerprint(WRONG),
      w2: patchFingerprint(WRONG),
      w3: patchFingerprint(WRONG),
      w4: patchFingerprint(WRONG),
      r1: patchFingerprint(RIGHT_A),
      r2: patchFingerprint(RIGHT_B),
    }
    : undefined;
  return judge(matrix, { policy, agents, fingerprints });
}

Deno.test("judge() is not outvoted by four contestants of one vendor shipping the same wrong fix", () => {
  const verdict = attack();
  verdictSchema.parse(verdict);
  assert.ok(verdict.pick === null || ["r1", "r2"].includes(verdict.pick), verdict.reason);
  for (const w of ["w1", "w2", "w3", "w4"]) {
    assert.equal(verdict.patches[w].approved, false, verdict.patches[w].reason);
  }
  // The correct fixes behave alike everywhere, so either is the same choice.
  assert.ok(verdict.pick !== null, verdict.reason);
  assert.equal(verdict.minVoices, MIN_VOICES);
  // r1 is supported by r2's vendor and the examiner; w1..w4 are one voice, against it.
  const voices = verdict.patches.r1.voices!;
  assert.deepEqual(
    voices.map((v) => [v.voice, v.by, v.examiner, v.authors, v.supports]),
    [
      ["acme", "vendor", false, ["w1", "w2", "w3", "w4"], false],
      ["gamma", "vendor", false, ["r2"], true],
      ["delta", "vendor", true, ["eve"], true],
    ],
  );
  // The wrong fix's twins never vouch for it: for w1 their tests are its own.
  assert.match(
    verdict.patches.w1.reason,
    /3 tests by w2, w3, w4 \(same patch\) passing on it not counted/,
  );
});

Deno.test("judge() counts one vendor's contestants as one voice even when their wrong fixes differ", () => {
  // Without fingerprints every wrong fix is a patch of its own, but w2..w4 are still one voice.
  const verdict = attack("majority", false);
  assert.ok(verdict.pick === null || ["r1", "r2"].includes(verdict.pick), verdict.reason);
  const w1 = verdict.patches.w1;
  assert.equal(w1.approved, false, w1.reason);
  // acme (w2, w3, w4) 1.0, beta 0, gamma 0, the examiner 0: a quarter, not the 3/6 of six authors.
  assert.ok(Math.abs(w1.support - 0.25) < 1e-12, `support ${w1.support}`);
  assert.match(w1.reason, /w2, w3, w4 as one: vendor acme/);
});

Deno.test("judge() under the old per-author count would have picked the wrong fix", () => {
  // The same attack with every agent of a vendor of its own: six authors, no voices merged.
  const matrix = matrixOf({
    trees: ["B", "w1", "w2", "w3", "w4", "r1", "r2"],
    tests: [
      ["tw2", "w2", "F P P P P F F"],
      ["tw3", "w3", "F P P P P F F"],
      ["tw4", "w4", "F P P P P F F"],
      ["tr1", "r1", "F F F F F P P"],
      ["tr2", "r2", "F F F F F P P"],
      ["te1", "eve", "F F F F F P P"],
    ],
    examiners: ["eve"],
  });
  // Here w1 wrote no test, so w2..w4 are independent authors of w1's patch: 3 of 6 approve it.
  assert.equal(judge(matrix, { policy: "majority", agents: [] }).patches.w1.approved, true);
  const agents = [...["w1", "w2", "w3", "w4"].map((n) => contestant(n, "acme"))];
  assert.equal(judge(matrix, { policy: "majority", agents }).patches.w1.approved, false);
});

Deno.test("judge() counts identical patches from different vendors once", () => {
  // a, b, c (three vendors) ship the same wrong fix, each with a test of it; d ships another fix.
  const matrix = matrixOf({
    trees: ["B", "a", "b", "c", "d"],
    tests: [
      ["ta", "a", "F P P P F"],
      ["tb", "b", "F P P P F"],
      ["tc", "c", "F P P P F"],
      ["td", "d", "F F F F P"],
    ],
  });
  const agents = [contestant("a", "x"), contestant("b", "y"), contestant("c", "z")];
  // Whitespace, context lines and hunk offsets do not make a patch different.
  const same = [
    WRONG,
    WRONG.replace("count = n // size + 1", "count  =  n//size+1"),
    diff("pkg/lists.py", ["    count = n // size"], ["    count = n // size + 1"], 40),
  ];
  const fingerprints = {
    a: patchFingerprint(same[0]),
    b: patchFingerprint(same[1]),
    c: patchFingerprint(same[2]),
    d: patchFingerprint(RIGHT_A),
  };
  assert.equal(fingerprints.a, fingerprints.b);
  assert.equal(fingerprints.a, fingerprints.c);
  assert.notEqual(fingerprints.a, fingerprints.d);

  // Counted one by one, b and c would approve a's patch (2 of 3 authors).
  const apart = judge(matrix, { policy: "majority", agents });
  assert.equal(apart.patches.a.approved, true, apart.patches.a.reason);

  const verdict = judge(matrix, { policy: "majority", agents, fingerprints });
  for (const p of ["a", "b", "c"]) {
    assert.equal(verdict.patches[p].approved, false, verdict.patches[p].reason);
  }
  assert.equal(verdict.pick, null);
  // For d, the three are one voice.
  assert.deepEqual(
    verdict.patches.d.voices!.map((v) => [v.voice, v.by, v.authors]),
    [["x+y+z", "same-patch", ["a", "b", "c"]]],
  );
});

Deno.test("judge() counts a test by the author of an identical patch that fails on it", () => {
  // a and b ship the same patch; b's test fails on it: a statement against b's own patch, which
  // counts against a's too. c's test passes on it.
  const matrix = matrixOf({
    trees: ["B", "a", "b"],
    tests: [["tb", "b", "F F F"], ["tc", "c", "F P P"]],
  });
  const agents = [contestant("a", "x"), contestant("b", "y"), contestant("c", "z")];
  const fingerprints = { a: patchFingerprint(WRONG), b: patchFingerprint(WRONG) };
  const verdict = judge(matrix, { policy: "majority", agents, fingerprints });
  const a = verdict.patches.a;
  assert.ok(Math.abs(a.support - 0.5) < 1e-12, a.reason);
  assert.deepEqual(a.voices!.map((v) => [v.voice, v.authors, v.rate]), [
    ["x+y", ["b"], 0],
    ["z", ["c"], 1],
  ]);
  assert.doesNotMatch(a.reason, /same patch/);
});

Deno.test("patchFingerprint() tells apart different changes, files and file sets", () => {
  const other = diff("pkg/other.py", ["    count = n // size"], ["    count = n // size + 1"]);
  const prints = new Set([WRONG, RIGHT_A, RIGHT_B, other, WRONG + other, ""].map(patchFingerprint));
  assert.equal(prints.size, 6);
  // The order files come in does not matter.
  assert.equal(patchFingerprint(WRONG + other), patchFingerprint(other + WRONG));
});

Deno.test("judge() needs two independent voices to pick", () => {
  // bob's patch passes the tests of alice and carol, but they are of one vendor: one voice.
  const matrix = matrixOf({
    trees: ["B", "alice", "bob", "carol"],
    tests: [["a1", "alice", "F F P F"], ["c1", "carol", "F F P F"]],
  });
  const oneVendor = [
    contestant("alice", "acme"),
    contestant("bob", "beta"),
    contestant("carol", "acme"),
  ];
  const verdict = judge(matrix, { policy: "majority", agents: oneVendor });
  assert.equal(verdict.patches.bob.approved, true, verdict.patches.bob.reason);
  assert.equal(verdict.pick, null);
  assert.match(
    verdict.reason,
    /^abstained: the only approved patch, bob, is not supported by at least 2 independent voices \(bob: 1 voice \(acme\)\), and a pick needs 2$/,
  );
  // The same tests by agents of two vendors are two voices, and bob is picked.
  const twoVendors = [...oneVendor.slice(0, 2), contestant("carol", "gamma")];
  const picked = judge(matrix, { policy: "majority", agents: twoVendors });
  assert.equal(picked.pick, "bob", picked.reason);
  // A single examiner behind a patch is one voice too.
  const lone = judge(
    matrixOf({ trees: ["B", "alice"], tests: [["e1", "eve", "F P"]], examiners: ["eve"] }),
    { policy: "majority", agents: [] },
  );
  assert.equal(lone.patches.alice.approved, true);
  assert.equal(lone.pick, null);
  assert.match(lone.reason, /a pick needs 2/);
});

Deno.test("judge() keeps examiners a voice apart from contestants of their vendor", () => {
  // bob (acme) and eve (an acme examiner) are two voices for alice's patch.
  const matrix = matrixOf({
    trees: ["B", "alice", "bob"],
    tests: [["b1", "bob", "F P F"], ["e1", "eve", "F P F"]],
    examiners: ["eve"],
  });
  const agents = [contestant("alice", "beta"), contestant("bob", "acme"), examiner("eve", "acme")];
  const verdict = judge(matrix, { policy: "majority", agents });
  assert.equal(verdict.pick, "alice", verdict.reason);
  assert.deepEqual(
    verdict.patches.alice.voices!.map((v) => [v.voice, v.examiner]),
    [["acme", false], ["acme", true]],
  );
});

Deno.test("voicesOf() tells agents of unknown vendor apart by adapter and model, else by name", () => {
  const facts = matrixFacts(matrixOf({ trees: ["B"], tests: [] }));
  const voices = voicesOf(facts, [
    contestant("m1", "unknown", { type: "mini-swe-agent", model: "ollama/q" }),
    contestant("m2", "", { type: "mini-swe-agent", model: "ollama/q" }),
    contestant("m3", "unknown", { type: "mini-swe-agent", model: "ollama/r" }),
    contestant("c1", "unknown", { type: "command" }),
    contestant("c2", "unknown", { type: "command" }),
  ]);
  const name = (author: string) => voices.of(author).name;
  assert.equal(name("m1"), "mini-swe-agent/ollama/q");
  assert.equal(name("m2"), name("m1"));
  assert.notEqual(name("m3"), name("m1"));
  assert.equal(name("c1"), "c1");
  assert.equal(name("c2"), "c2");
  // An agent's repeats are the agent's voice; an agent nobody configured is a voice of its own.
  assert.equal(name("m1#2"), name("m1"));
  assert.equal(voices.of("stranger").by, "agent");
});

Deno.test("judge() under cross-vendor stays stricter than majority with voices", () => {
  // bob (acme) and carol (acme) back alice's patch (acme) as one voice; dan (beta) backs it too.
  const matrix = matrixOf({
    trees: ["B", "alice", "dan"],
    tests: [
      ["b1", "bob", "F P F"],
      ["c1", "carol", "F P F"],
      ["d1", "dan", "F P F"],
    ],
  });
  const agents = [
    contestant("alice", "acme"),
    contestant("bob", "acme"),
    contestant("carol", "acme"),
    contestant("dan", "beta"),
  ];
  const majority = judge(matrix, { policy: "majority", agents });
  assert.equal(majority.pick, "alice", majority.reason);
  assert.deepEqual(majority.patches.alice.voices!.map((v) => v.voice), ["acme", "beta"]);
  // cross-vendor sets the acme voice aside for an acme patch: one voice left, no pick.
  const crossVendor = judge(matrix, { policy: "cross-vendor", agents });
  assert.equal(crossVendor.patches.alice.approved, true, crossVendor.patches.alice.reason);
  assert.equal(crossVendor.pick, null, crossVendor.reason);
  assert.match(
    crossVendor.patches.alice.reason,
    /2 tests by bob, carol \(same vendor\) not counted/,
  );
  // And the attack fails under cross-vendor too.
  const attacked = attack("cross-vendor");
  assert.ok(attacked.pick === null || ["r1", "r2"].includes(attacked.pick), attacked.reason);
});
