import { deepEqual, equal, match } from "node:assert/strict";
import { classifyRun, parseProgress, type RunEvidence } from "../../lib/python/classify.ts";

function xml(cases: string, counts = { failures: 0, errors: 0, skipped: 0 }): string {
  return `<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" ` +
    `errors="${counts.errors}" failures="${counts.failures}" skipped="${counts.skipped}" ` +
    `tests="1">${cases}</testsuite></testsuites>`;
}
const PASS =
  `<testcase classname="tests.test_a" name="test_ok" file="tests/test_a.py" time="0.1"/>`;
const FAIL =
  `<testcase classname="tests.test_a" name="test_bad" file="tests/test_a.py" time="0.1">` +
  `<failure message="assert 0">x</failure></testcase>`;
const OOM =
  `<testcase classname="tests.test_a" name="test_big" file="tests/test_a.py" time="0.1">` +
  `<failure message="MemoryError">x</failure></testcase>`;

const PROGRESS = [
  `{"k": "collected", "ids": ["tests/test_a.py::test_ok", "tests/test_a.py::test_bad", ` +
  `"tests/test_a.py::test_c"]}`,
  `{"k": "start", "id": "tests/test_a.py::test_ok"}`,
  `{"k": "done", "id": "tests/test_a.py::test_ok", "o": "passed", "s": 0.5}`,
  `{"k": "start", "id": "tests/test_a.py::test_bad"}`,
  `{"k": "done", "id": "tests/test_a.py::test_b`, // cut short by the kill
].join("\n");

function evidence(over: Partial<RunEvidence>): RunEvidence {
  return {
    exitCode: 0,
    timedOut: false,
    timeoutMs: 5000,
    memoryMb: 512,
    junit: undefined,
    progress: parseProgress(""),
    files: ["tests/test_a.py"],
    output: "",
    sharedModules: [],
    durationMs: 10,
    ...over,
  };
}

Deno.test("classifyRun() trusts the XML only when the exit code agrees with it", () => {
  const oneFail = { failures: 1, errors: 0, skipped: 0 };
  const table: [string, Partial<RunEvidence>, string, string | undefined][] = [
    ["all passed, exit 0", { exitCode: 0, junit: xml(PASS) }, "ok", undefined],
    ["a failure, exit 1", { exitCode: 1, junit: xml(PASS + FAIL, oneFail) }, "ok", undefined],
    ["no tests, exit 5", { exitCode: 5, junit: xml("") }, "ok", undefined],
    ["a failure but exit 0", { exitCode: 0, junit: xml(FAIL, oneFail) }, "infra-error", "harness"],
    ["no failure but exit 1", { exitCode: 1, junit: xml(PASS) }, "infra-error", "harness"],
    ["tests but exit 5", { exitCode: 5, junit: xml(PASS) }, "infra-error", "harness"],
    ["no XML, exit 0", { exitCode: 0 }, "infra-error", "harness"],
    ["no XML, exit 1", { exitCode: 1 }, "infra-error", "harness"],
    [
      "truncated XML",
      { exitCode: 1, junit: xml(FAIL, oneFail).slice(0, 150) },
      "infra-error",
      "harness",
    ],
    ["counts disagree", { exitCode: 1, junit: xml(FAIL) }, "infra-error", "harness"],
    ["usage error", { exitCode: 4, output: "ERROR: usage" }, "infra-error", "unrunnable"],
    ["internal error", { exitCode: 3, junit: xml(PASS) }, "infra-error", "harness"],
    ["killed by a signal", { exitCode: 139, memoryMb: undefined }, "infra-error", "harness"],
  ];
  for (const [what, over, status, cause] of table) {
    const run = classifyRun(evidence(over));
    equal(run.status, status, what);
    equal(run.cause, cause, what);
    if (status === "infra-error") deepEqual(run.outcomes, {}, what);
  }
});

Deno.test("classifyRun() keeps what finished before a timeout and marks the rest not-run", () => {
  const run = classifyRun(
    evidence({ timedOut: true, exitCode: 137, progress: parseProgress(PROGRESS) }),
  );
  equal(run.status, "timeout");
  equal(run.exitCode, null);
  deepEqual(run.outcomes, {
    "tests/test_a.py::test_ok": "passed",
    "tests/test_a.py::test_bad": "not-run",
    "tests/test_a.py::test_c": "not-run",
  });
  equal(run.durations["tests/test_a.py::test_ok"], 500);
  match(run.message!, /within 5s while running tests\/test_a.py::test_bad; 2 tests not run/);
});

Deno.test("classifyRun() reads a memory blow-up as out-of-memory, from XML or a kill", () => {
  const fromXml = classifyRun(
    evidence({ exitCode: 1, junit: xml(PASS + OOM, { failures: 1, errors: 0, skipped: 0 }) }),
  );
  equal(fromXml.status, "out-of-memory");
  equal(fromXml.outcomes["tests/test_a.py::test_big"], "failed");
  equal(fromXml.outcomes["tests/test_a.py::test_ok"], "passed");
  match(fromXml.message!, /MemoryError under the 512 MiB cap/);
  const killed = classifyRun(evidence({ exitCode: 137, progress: parseProgress(PROGRESS) }));
  equal(killed.status, "out-of-memory");
  equal(killed.outcomes["tests/test_a.py::test_c"], "not-run");
  // Without a cap, a MemoryError is only a failure.
  const uncapped = classifyRun(
    evidence({
      exitCode: 1,
      memoryMb: undefined,
      junit: xml(OOM, { failures: 1, errors: 0, skipped: 0 }),
    }),
  );
  equal(uncapped.status, "ok");
});

Deno.test("classifyRun() says so when the tree breaks pytest itself", () => {
  const run = classifyRun(
    evidence({ exitCode: 1, sharedModules: ["pluggy"], output: "ImportError: pluggy" }),
  );
  equal(run.status, "infra-error");
  equal(run.cause, "unrunnable");
  match(run.message!, /pytest itself crashed.*`pluggy`.*one of pytest's own dependencies/s);
});

Deno.test("classifyRun() fills in collected tests that an interrupted session never reported", () => {
  const run = classifyRun(
    evidence({ exitCode: 2, junit: xml(PASS), progress: parseProgress(PROGRESS) }),
  );
  equal(run.status, "ok");
  equal(run.outcomes["tests/test_a.py::test_c"], "not-run");
  match(run.message!, /interrupted/);
});
