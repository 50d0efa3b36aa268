import { deepEqual, equal, match, ok } from "node:assert/strict";
import { createHmac } from "node:crypto";
import { readChannel } from "../../lib/lang/python/channel.ts";
import { classifyRun, type RunEvidence } from "../../lib/lang/python/classify.ts";

const KEY = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
const SECRET = new Uint8Array(KEY.match(/../g)!.map((h) => parseInt(h, 16)));

type Record = { k: string; [key: string]: unknown };

/** Records as the guard writes them: numbered per group, tagged with the session's secret. */
function channelText(records: [number, Record][], key = SECRET): string {
  const next = new Map<number, number>();
  return records.map(([g, record]) => {
    const n = next.get(g) ?? 0;
    next.set(g, n + 1);
    const body = JSON.stringify({ ...record, g, n });
    return `${body}\t${createHmac("sha256", key).update(body).digest("hex")}\n`;
  }).join("");
}

const A = "tests/test_a.py";
const HELLO: [number, Record] = [-1, { k: "hello", python: "3.11.7", pytest: "9.2.0", groups: 1 }];

/** One group's session: begun, collected three tests, then `body`, then (maybe) its end. */
function group(body: Record[], end?: { code?: number; exit?: { code?: number; signal?: number } }) {
  const records: [number, Record][] = [
    HELLO,
    [0, { k: "begin" }],
    [0, { k: "collected", ids: [`${A}::test_ok`, `${A}::test_bad`, `${A}::test_c`] }],
    ...body.map((r): [number, Record] => [0, r]),
  ];
  if (end?.code !== undefined) records.push([0, { k: "end", code: end.code }]);
  if (end?.exit) records.push([-1, { k: "group-end", group: 0, ...end.exit }]);
  return records;
}

const OK_THEN_BAD: Record[] = [
  { k: "start", id: `${A}::test_ok` },
  { k: "done", id: `${A}::test_ok`, o: "passed", s: 0.5 },
  { k: "start", id: `${A}::test_bad` },
  { k: "done", id: `${A}::test_bad`, o: "failed", s: 0.1, m: "assert 0" },
  { k: "start", id: `${A}::test_c` },
  { k: "done", id: `${A}::test_c`, o: "passed", s: 0.1 },
];

function evidence(records: [number, Record][], over: Partial<RunEvidence> = {}): RunEvidence {
  return {
    exitCode: 0,
    timedOut: false,
    timeoutMs: 5000,
    memoryMb: 512,
    channel: readChannel(channelText(records), KEY, 1),
    trustPartial: false,
    output: "",
    sharedModules: [],
    durationMs: 10,
    ...over,
  };
}

Deno.test("classifyRun() trusts a group only when it reported its end and exited as it said", () => {
  const table: [string, [number, Record][], string, string | undefined][] = [
    ["ended 1, exited 1", group(OK_THEN_BAD, { code: 1, exit: { code: 1 } }), "ok", undefined],
    ["ended 5", group([], { code: 5, exit: { code: 5 } }), "ok", undefined],
    [
      "ended 0 with a failure",
      group(OK_THEN_BAD, { code: 0, exit: { code: 0 } }),
      "infra-error",
      "harness",
    ],
    ["never ended, exited 0", group(OK_THEN_BAD, { exit: { code: 0 } }), "infra-error", "harness"],
    [
      "ended 1, exited 0",
      group(OK_THEN_BAD, { code: 1, exit: { code: 0 } }),
      "infra-error",
      "harness",
    ],
    ["usage error", group([], { code: 4, exit: { code: 4 } }), "infra-error", "unrunnable"],
    ["internal error", group([], { code: 3, exit: { code: 3 } }), "infra-error", "harness"],
    ["interrupted", group(OK_THEN_BAD, { code: 2, exit: { code: 2 } }), "infra-error", "harness"],
    ["killed by a signal", group(OK_THEN_BAD, { exit: { signal: 11 } }), "infra-error", "harness"],
    ["the guard never started", [], "infra-error", "harness"],
  ];
  for (const [what, records, status, cause] of table) {
    const run = classifyRun(evidence(records, { memoryMb: undefined }));
    equal(run.status, status, what);
    equal(run.cause, cause, what);
    // A group that did not end as it should keeps no pass.
    if (status !== "ok") ok(!Object.values(run.outcomes).includes("passed"), what);
  }
});

Deno.test("classifyRun() keeps a cut-short group's passes only for code it trusts", () => {
  const cut = group(OK_THEN_BAD.slice(0, 3));
  const untrusted = classifyRun(evidence(cut, { timedOut: true, exitCode: 137 }));
  equal(untrusted.status, "timeout");
  equal(untrusted.exitCode, null);
  deepEqual(untrusted.outcomes, {
    [`${A}::test_ok`]: "not-run",
    [`${A}::test_bad`]: "not-run",
    [`${A}::test_c`]: "not-run",
  });
  match(untrusted.message!, /within 5s while running tests\/test_a.py::test_bad; 3 tests not run/);
  const trusted = classifyRun(evidence(cut, { timedOut: true, exitCode: 137, trustPartial: true }));
  equal(trusted.outcomes[`${A}::test_ok`], "passed");
  equal(trusted.durations[`${A}::test_ok`], 500);
});

Deno.test("classifyRun() reads a memory blow-up as out-of-memory, from a MemoryError or a kill", () => {
  const big: Record[] = [
    { k: "done", id: `${A}::test_ok`, o: "passed", s: 0.1 },
    { k: "done", id: `${A}::test_bad`, o: "failed", s: 0.1, m: "MemoryError" },
  ];
  const fromTest = classifyRun(evidence(group(big, { code: 1, exit: { code: 1 } })));
  equal(fromTest.status, "out-of-memory");
  equal(fromTest.outcomes[`${A}::test_bad`], "failed");
  equal(fromTest.outcomes[`${A}::test_ok`], "passed");
  match(fromTest.message!, /MemoryError under the 512 MiB cap/);
  const killed = classifyRun(evidence(group(big.slice(0, 1), { exit: { signal: 9 } })));
  equal(killed.status, "out-of-memory");
  equal(killed.outcomes[`${A}::test_c`], "not-run");
  // Without a cap, a MemoryError is only a failure.
  const uncapped = classifyRun(
    evidence(group(big, { code: 1, exit: { code: 1 } }), { memoryMb: undefined }),
  );
  equal(uncapped.status, "ok");
});

Deno.test("classifyRun() says so when the tree breaks pytest itself", () => {
  const run = classifyRun(
    evidence([], { exitCode: 1, sharedModules: ["pluggy"], output: "ImportError: pluggy" }),
  );
  equal(run.status, "infra-error");
  equal(run.cause, "unrunnable");
  match(run.message!, /pytest itself crashed.*`pluggy`.*one of pytest's own dependencies/s);
});

Deno.test("readChannel() charges a group with every line it did not write through the guard", () => {
  const honest = channelText(group(OK_THEN_BAD, { code: 1, exit: { code: 1 } }));
  const lines = honest.split("\n").filter(Boolean);
  const forged = JSON.stringify({ k: "done", id: `${A}::test_bad`, o: "passed", g: 0, n: 6 });
  const cases: [string, string][] = [
    // A line with no tag, as a process writing to the descriptor by number would.
    ["an untagged line", [...lines.slice(0, 5), forged, ...lines.slice(5)].join("\n")],
    // A line tagged with a guessed key.
    [
      "a wrong key",
      [...lines.slice(0, 5), channelText([[0, { k: "x" }]], new Uint8Array(32))].join("\n"),
    ],
    // A genuine record replayed: its number repeats.
    ["a replayed record", [...lines.slice(0, 5), lines[4], ...lines.slice(5)].join("\n")],
  ];
  for (const [what, text] of cases) {
    const channel = readChannel(text, KEY, 1);
    ok(channel.groups[0].tamper.length > 0, what);
    const run = classifyRun(evidence([], { channel }));
    equal(run.status, "tampered", what);
    deepEqual(run.outcomes, {}, what);
  }
  const clean = readChannel(honest, KEY, 1);
  deepEqual(clean.groups[0].tamper, []);
  equal(clean.groups[0].done.get(`${A}::test_bad`)?.outcome, "failed");
});

Deno.test("classifyRun() gives a tampered group no outcome and says what was done, where", () => {
  const run = classifyRun(evidence(group([
    ...OK_THEN_BAD,
    { k: "tamper", what: "changed pytest's reporting machinery", where: "calc/__init__.py:6" },
  ], { code: 1, exit: { code: 1 } })));
  equal(run.status, "tampered");
  deepEqual(run.outcomes, {});
  match(run.message!, /changed pytest's reporting machinery \(calc\/__init__.py:6\)/);
});

Deno.test("classifyRun() charges the group that changed the tree's code, and only it", () => {
  const records: [number, Record][] = [
    [-1, { k: "hello", python: "3.11.7", pytest: "9.2.0", groups: 2 }],
    [0, { k: "begin" }],
    [0, { k: "end", code: 0 }],
    [-1, { k: "group-end", group: 0, code: 0 }],
    [-1, { k: "tree-changed", group: 0, paths: ["calc/__init__.py"] }],
    [-1, { k: "bye" }],
  ];
  const run = classifyRun(evidence([], { channel: readChannel(channelText(records), KEY, 2) }));
  equal(run.groups[0].status, "tampered");
  match(run.groups[0].message!, /changed files of the tree under test \(calc\/__init__.py\)/);
  ok(run.groups[1].unreached);
  deepEqual(run.treeChanged, { group: 0, paths: ["calc/__init__.py"] });
});
