import { deepEqual, equal, match } from "node:assert/strict";
import { groundTruth } from "../../lib/oracle/ground_truth.ts";
import { pythonTruthAdvice } from "../../lib/lang/python/mod.ts";
import type { PytestRun } from "../../lib/lang/python/classify.ts";
import { mergeRepeats } from "../../lib/lang/python/repeats.ts";
import type { Outcome } from "../../lib/records.ts";

function run(outcomes: Record<string, Outcome>, over: Partial<PytestRun> = {}): PytestRun {
  return {
    status: "ok",
    exitCode: 1,
    outcomes,
    durations: {},
    durationMs: 1,
    tamper: [],
    suspect: [],
    groups: [],
    ...over,
  };
}
const twice = (outcomes: Record<string, Outcome>, over: Partial<PytestRun> = {}) =>
  mergeRepeats([run(outcomes, over), run(outcomes, over)]);

/** What Python's ground truth is told. */
const PY = { runner: "pytest", advice: pythonTruthAdvice() };

Deno.test("groundTruth() follows SWE-bench: fail-to-pass, pass-to-pass, the rest neither", () => {
  const b = twice({
    "t.py::fails": "failed",
    "t.py::errors": "error",
    "t.py::passes": "passed",
    "t.py::skipped": "skipped",
    "t.py::xfailed": "xfailed",
    "t.py::breaks": "passed",
  });
  const g = twice({
    "t.py::fails": "passed",
    "t.py::errors": "passed",
    "t.py::passes": "passed",
    "t.py::skipped": "passed",
    "t.py::xfailed": "passed",
    "t.py::breaks": "failed",
    "t.py::brand_new": "passed",
    "t.py::new_skip": "skipped",
  });
  const truth = groundTruth(b, g, PY);
  equal(truth.status, "scorable");
  deepEqual(truth.failToPass, ["t.py::brand_new", "t.py::errors", "t.py::fails"]);
  deepEqual(truth.passToPass, ["t.py::passes"]);
  deepEqual(truth.unstable, []);
});

Deno.test("groundTruth() sets aside tests unstable on either side", () => {
  const b = mergeRepeats([
    run({ "t.py::a": "failed", "t.py::b": "failed", "t.py::c": "passed" }),
    run({ "t.py::a": "failed", "t.py::b": "passed", "t.py::c": "passed" }),
  ]);
  const g = mergeRepeats([
    run({ "t.py::a": "passed", "t.py::b": "passed", "t.py::c": "passed" }),
    run({ "t.py::a": "passed", "t.py::b": "passed", "t.py::c": "failed" }),
  ]);
  const truth = groundTruth(b, g, PY);
  deepEqual(truth.failToPass, ["t.py::a"]);
  deepEqual(truth.passToPass, []);
  deepEqual(truth.unstable, ["t.py::b", "t.py::c"]);
});

Deno.test("groundTruth() counts a test not reached by a timeout on B as failing", () => {
  const b = twice({ "t.py::first": "passed", "t.py::hang": "not-run", "t.py::after": "not-run" }, {
    status: "timeout",
    exitCode: null,
  });
  const g = twice({ "t.py::first": "passed", "t.py::hang": "passed", "t.py::after": "passed" });
  const truth = groundTruth(b, g, PY);
  deepEqual(truth.failToPass, ["t.py::after", "t.py::hang"]);
  deepEqual(truth.passToPass, ["t.py::first"]);
});

Deno.test("groundTruth() explains why a task is unscorable or an infrastructure error", () => {
  const pass = twice({ "t.py::a": "passed" });
  const same = groundTruth(pass, pass, PY);
  equal(same.status, "unscorable");
  match(same.reason!, /no test go from failing to passing: 1 test passes on both sides/);

  const noneOnG = groundTruth(twice({ "t.py::a": "failed" }), twice({ "t.py::a": "failed" }), PY);
  match(noneOnG.reason!, /No test of the fix's test files passes on the fix \(G: 1 failed\)/);

  const uncollectable = { "t.py": "error" } as const;
  const deprecated = {
    failures: {
      "t.py": "t.py:3: in <module>\n    @pytest.mark.parametrize('x', gen())\n" +
        "E   pytest.PytestRemovedIn10Warning: Passing a non-Collection iterable to parametrize",
    },
  };
  const newerPytest = groundTruth(
    twice(uncollectable, deprecated),
    twice(uncollectable, deprecated),
    PY,
  );
  equal(
    newerPytest.reason,
    "No test of the fix's test files passes on the fix (G: 1 error). First error, t.py: " +
      "pytest.PytestRemovedIn10Warning: Passing a non-Collection iterable to parametrize. " +
      'A pytest older than 9 runs it: add "pytest<9" to [project] test-dependencies.',
  );

  const flipUnstable = groundTruth(
    twice({ "t.py::a": "failed" }),
    mergeRepeats([run({ "t.py::a": "passed" }), run({ "t.py::a": "failed" })]),
    PY,
  );
  equal(flipUnstable.status, "unscorable");
  match(flipUnstable.reason!, /1 test that may flip is unstable/);

  const broken = run({}, { status: "infra-error", cause: "harness", message: "no XML" });
  const infra = groundTruth(mergeRepeats([run({}), broken]), pass, PY);
  equal(infra.status, "infra-error");
  equal(infra.reason, "On B: no XML");

  const cannot = run({}, { status: "infra-error", cause: "unrunnable", message: "exit 4" });
  const old = groundTruth(mergeRepeats([cannot, cannot]), mergeRepeats([cannot, cannot]), PY);
  equal(old.status, "unscorable");
  match(old.reason!, /pytest cannot run the fix's tests on G: exit 4/);

  // B cannot run but G can: every test of G fails before the fix.
  const bOnly = groundTruth(mergeRepeats([cannot, cannot]), pass, PY);
  deepEqual(bOnly.failToPass, ["t.py::a"]);
});

Deno.test('groundTruth() says the guard stopped a side, rather than "no tests", and blesses nothing from it', () => {
  const stopped = run({}, {
    status: "tampered",
    message: "The code under test tampered with the grading: collected a test that was not " +
      "compiled from a file of the tree (t.py::a: /env/freezegun/api.py); and 3 more.",
  });
  const pass = twice({ "t.py::a": "passed" });
  for (
    const [b, g, side] of [[mergeRepeats([stopped, stopped]), pass, "B"], [
      pass,
      mergeRepeats([stopped, stopped]),
      "G",
    ]] as const
  ) {
    const truth = groundTruth(b, g, PY);
    equal(truth.status, "unscorable");
    deepEqual(truth.failToPass, []);
    equal(
      truth.reason,
      `The grading guard stopped pytest on ${side}, which runs the repository's own code and ` +
        "tests: collected a test that was not compiled from a file of the tree (t.py::a: " +
        "/env/freezegun/api.py). Either that code does reach into the test run, or the guard " +
        "mistook what it does for tampering (a bugbout bug worth reporting).",
    );
  }
});

// How fast this size goes is a claim of bench/ground_truth.ts, never of this test.
Deno.test("mergeRepeats() and groundTruth() handle tens of thousands of test ids", () => {
  const outcomes: Record<string, Outcome> = {};
  for (let i = 0; i < 60_000; i++) outcomes[`tests/test_big.py::test_p[${i}]`] = "passed";
  const b = twice({});
  const g = twice(outcomes);
  const truth = groundTruth(b, g, PY);
  equal(truth.failToPass.length, 60_000);
});

Deno.test("groundTruth() blames the environment when G cannot import the project's own modules or run its script", () => {
  const advice = pythonTruthAdvice("calc");
  const options = { runner: "pytest", advice };
  const b = twice({ "tests/test_cli.py": "error" });
  const missing = twice({ "tests/test_cli.py": "error" }, {
    failures: { "tests/test_cli.py": "ModuleNotFoundError: No module named 'calc._version'" },
  });
  const own = groundTruth(b, missing, options);
  equal(own.status, "environment");
  match(own.reason ?? "", /^environment: the tests cannot import `calc\._version`.*built\?/);
  const script = twice({ "tests/test_cli.py::test_add": "failed" }, {
    failures: {
      "tests/test_cli.py::test_add":
        "FileNotFoundError: [Errno 2] No such file or directory: 'calc-add'",
    },
  });
  const noScript = groundTruth(twice({ "tests/test_cli.py::test_add": "failed" }), script, options);
  equal(noScript.status, "environment");
  match(noScript.reason ?? "", /`calc-add`.*console script/);
  // A third-party module nobody declared is the task's (or the configuration's) trouble.
  const other = twice({ "tests/test_cli.py": "error" }, {
    failures: { "tests/test_cli.py": "ModuleNotFoundError: No module named 'sh'" },
  });
  const undeclared = groundTruth(b, other, options);
  equal(undeclared.status, "unscorable");
  match(undeclared.reason ?? "", /Add "sh" to \[project\] test-dependencies/);
});
