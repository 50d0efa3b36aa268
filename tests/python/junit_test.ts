import { deepEqual, equal, throws } from "node:assert/strict";
import {
  JunitError,
  mangleNodeId,
  NodeIdResolver,
  outcomesOf,
  parseJunit,
} from "../../lib/python/junit.ts";

// Shaped exactly as pytest 9.2 writes it (family xunit1), bodies shortened.
const XML = `<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests">` +
  `<testsuite name="pytest" errors="3" failures="2" skipped="2" tests="10" time="0.081">` +
  `<testcase classname="" name="tests.test_b" file="tests/test_b.py" time="0.000">` +
  `<error message="collection failure">ImportError while importing &lt;module&gt;</error>` +
  `</testcase>` +
  `<testcase classname="tests.test_a" name="test_ok" file="tests/test_a.py" line="2" ` +
  `time="0.250" />` +
  `<testcase classname="tests.test_a" name="test_fail" file="tests/test_a.py" line="3" ` +
  `time="0.001"><failure message="assert 1 == 2&#10; +  where 1 = f()">&gt; x</failure>` +
  `</testcase>` +
  `<testcase classname="tests.test_a" name="test_p[a.b::c]" file="tests/test_a.py" line="4" ` +
  `time="0.000" />` +
  `<testcase classname="tests.test_a.TestK.TestInner" name="test_n" file="tests/test_a.py" ` +
  `line="9" time="0.000" />` +
  `<testcase classname="tests.test_a" name="test_skip" file="tests/test_a.py" time="0.000">` +
  `<skipped type="pytest.skip" message="no">/x:11: no</skipped></testcase>` +
  `<testcase classname="tests.test_a" name="test_xf" file="tests/test_a.py" time="0.000">` +
  `<skipped type="pytest.xfail" message="known" /></testcase>` +
  `<testcase classname="tests.test_a" name="test_td" file="tests/test_a.py" time="0.002">` +
  `<error message="failed on teardown with &quot;RuntimeError: teardown&quot;">x</error>` +
  `</testcase>` +
  `<testcase classname="tests.test_a" name="test_td_fail" file="tests/test_a.py" time="0.001">` +
  `<failure message="assert 0">x</failure></testcase>` +
  `<testcase classname="tests.test_a" name="test_td_fail" file="tests/test_a.py" time="0.001">` +
  `<error message="failed on teardown">x</error></testcase>` +
  `</testsuite></testsuites>`;

Deno.test("parseJunit() reads every outcome pytest writes", () => {
  const report = parseJunit(XML);
  deepEqual(report.declared, { failures: 2, errors: 3, skipped: 2 });
  deepEqual(report.counted, { failures: 2, errors: 3, skipped: 2 });
  deepEqual(report.cases.map((c) => [c.name, c.outcome]), [
    ["tests.test_b", "error"],
    ["test_ok", "passed"],
    ["test_fail", "failed"],
    ["test_p[a.b::c]", "passed"],
    ["test_n", "passed"],
    ["test_skip", "skipped"],
    ["test_xf", "xfailed"],
    ["test_td", "error"],
    ["test_td_fail", "failed"],
    ["test_td_fail", "error"],
  ]);
  equal(report.cases[2].message, "assert 1 == 2\n +  where 1 = f()");
});

Deno.test("outcomesOf() gives exact node ids, merges a test reported twice, keeps durations", () => {
  const { outcomes, durations } = outcomesOf(parseJunit(XML), new NodeIdResolver());
  deepEqual(outcomes, {
    "tests/test_b.py": "error",
    "tests/test_a.py::test_ok": "passed",
    "tests/test_a.py::test_fail": "failed",
    "tests/test_a.py::test_p[a.b::c]": "passed",
    "tests/test_a.py::TestK::TestInner::test_n": "passed",
    "tests/test_a.py::test_skip": "skipped",
    "tests/test_a.py::test_xf": "xfailed",
    "tests/test_a.py::test_td": "error",
    "tests/test_a.py::test_td_fail": "failed",
  });
  equal(durations["tests/test_a.py::test_ok"], 250);
  equal(durations["tests/test_a.py::test_td_fail"], 2);
});

Deno.test("a truncated or foreign JUnit file is an error, never an empty report", () => {
  const cases: [string, RegExp][] = [
    [XML.slice(0, XML.length / 2), /truncated|malformed/],
    [XML.slice(0, XML.lastIndexOf("</testsuites>")), /truncated/],
    ["", /empty/],
    ["<html><body/></html>", /not <testsuites>/],
    ["<testsuites><testsuite></testcase></testsuites>", /does not close/],
  ];
  for (const [text, message] of cases) {
    throws(
      () => parseJunit(text),
      (e: Error) => e instanceof JunitError && message.test(e.message),
    );
  }
});

Deno.test("mangleNodeId() matches pytest's mangle_test_address", () => {
  const table: [string, [string, string]][] = [
    ["tests/test_a.py::test_ok", ["tests.test_a", "test_ok"]],
    ["tests/test_a.py::TestK::test_m[1-a.b]", ["tests.test_a.TestK", "test_m[1-a.b]"]],
    ["test_top.py::test_x[a::b]", ["test_top", "test_x[a::b]"]],
    ["tests/test_b.py", ["", "tests.test_b"]],
  ];
  for (const [id, expected] of table) deepEqual(mangleNodeId(id), expected);
});

Deno.test("NodeIdResolver maps cases back exactly when it knows the collected ids", () => {
  // A dotted directory name cannot be told apart from packages without the collected ids.
  const collected = ["tests/v1.0/test_x.py::TestA::test_y[p.q]", "tests/v1.0/test_x.py::test_z"];
  const exact = new NodeIdResolver(collected);
  for (const id of collected) {
    const [classname, name] = mangleNodeId(id);
    equal(exact.resolve({ classname, name }), id);
  }
  // Without them, the candidate files decide.
  const byFile = new NodeIdResolver([], ["tests/v1.0/test_x.py"]);
  equal(
    byFile.resolve({ classname: "tests.v1.0.test_x.TestA", name: "test_y[p.q]" }),
    "tests/v1.0/test_x.py::TestA::test_y[p.q]",
  );
  equal(byFile.resolve({ classname: "", name: "tests.v1.0.test_x" }), "tests/v1.0/test_x.py");
  // An inherited test: the `file` attribute names the base module, the classname the real one.
  const inherited = new NodeIdResolver([], ["tests/test_sub.py"]);
  equal(
    inherited.resolve({
      classname: "tests.test_sub.TestSub",
      name: "test_base",
      file: "tests/base.py",
    }),
    "tests/test_sub.py::TestSub::test_base",
  );
});

// How fast this size goes is a claim of bench/junit.ts, never of this test.
Deno.test("parseJunit() and outcomesOf() read 60,000 test cases, every one under its node id", () => {
  const cases = [];
  for (let i = 0; i < 60_000; i++) {
    cases.push(
      `<testcase classname="tests.test_big" name="test_p[${i}]" file="tests/test_big.py" ` +
        `time="0.001" />`,
    );
  }
  const xml = `<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" ` +
    `errors="0" failures="0" skipped="0" tests="60000">${cases.join("")}</testsuite></testsuites>`;
  const { outcomes } = outcomesOf(parseJunit(xml), new NodeIdResolver([], ["tests/test_big.py"]));
  equal(Object.keys(outcomes).length, 60_000);
  equal(outcomes["tests/test_big.py::test_p[59999]"], "passed");
});
