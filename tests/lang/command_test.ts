/**
 * The command runner's pure parts: `[command]` validation with messages a person can act on, the
 * JUnit XML reader over real tools' reports, placeholders, and where an author's copy goes.
 *
 * @module
 */

import { deepEqual, equal, match, rejects } from "node:assert/strict";
import { parseConfig } from "../../lib/config.ts";
import {
  CommandRunner,
  commandSettingsOf,
  commandTableSchema,
  expandArgv,
  parseJUnit,
} from "../../lib/lang/command/mod.ts";

const GTEST = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="2" failures="1" name="AllTests">
  <testsuite name="Calc" tests="2" failures="1">
    <testcase name="Add" file="tests/a_test.cpp" line="2" status="run" result="completed" time="0.001" classname="Calc" />
    <testcase name="Bad" file="tests/a_test.cpp" line="3" status="run" result="completed" time="0" classname="Calc">
      <failure message="tests/a_test.cpp:3&#x0A;Expected equality" type=""><![CDATA[tests/a_test.cpp:3
Expected equality <testcase name="Forged"/>]]></failure>
    </testcase>
    <testcase name="DISABLED_Off" file="tests/a_test.cpp" line="4" status="notrun" result="suppressed" time="0" classname="Calc" />
  </testsuite>
</testsuites>`;

const SUREFIRE = `<testsuite name="com.x.CalcTest" tests="2">
  <testcase name="sub" classname="com.x.CalcTest" time="0.01"><error message="boom" type="java.lang.IllegalStateException">trace</error></testcase>
  <testcase name="skip" classname="com.x.CalcTest"><skipped/></testcase>
</testsuite>`;

Deno.test("parseJUnit reads GoogleTest's report: files, failures' first lines, not-run tests, and no case inside a CDATA section", () => {
  const cases = parseJUnit(GTEST);
  deepEqual(cases.map((c) => [c.classname, c.name, c.file, c.outcome]), [
    ["Calc", "Add", "tests/a_test.cpp", "passed"],
    ["Calc", "Bad", "tests/a_test.cpp", "failed"],
    ["Calc", "DISABLED_Off", "tests/a_test.cpp", "skipped"],
  ]);
  equal(cases[1].failure, "tests/a_test.cpp:3");
});

Deno.test("parseJUnit reads Surefire's errors and skips, and refuses text that is no JUnit report", () => {
  deepEqual(parseJUnit(SUREFIRE).map((c) => [c.name, c.outcome, c.failure]), [
    ["sub", "error", "boom"],
    ["skip", "skipped", undefined],
  ]);
  let error: Error | undefined;
  try {
    parseJUnit("<html>all passed</html>");
  } catch (e) {
    error = e as Error;
  }
  match(error!.message, /no <testsuite>/);
});

Deno.test("expandArgv: a whole placeholder becomes one argument per item, an embedded one joins them", () => {
  deepEqual(
    expandArgv(["run", "{files}", "--gtest_filter={ids}", "--out={report}"], {
      ids: ["A.b", "C.d"],
      names: [],
      files: ["t/a.cpp", "t/b.cpp"],
      report: "/r.xml",
    }, ":"),
    ["run", "t/a.cpp", "t/b.cpp", "--gtest_filter=A.b:C.d", "--out=/r.xml"],
  );
});

Deno.test("[command] is validated with messages that say what to set", async () => {
  const load = (text: string) => parseConfig(text, "/tmp/nowhere/bugbout.toml");
  await rejects(load('[project]\nlanguage = "command"\n'), /needs a \[command\] table/);
  await rejects(
    load('[project]\nlanguage = "command"\n[command]\ntest = ["make"]\ntest-files = ["t/*"]\n'),
    /never names \{report\}/,
  );
  await rejects(
    load('[project]\nlanguage = "command"\n[command]\ntest = ["make", "{report}"]\n'),
    /test-files/,
  );
  await rejects(
    load(
      '[project]\nlanguage = "command"\n[command]\ntest = ["make", "{report}"]\ntest-files = ["t/*"]\ntests = 1\n',
    ),
    /tests/,
  );
});

Deno.test("an author's copy of a test file goes where the test-file globs still find it", () => {
  const runner = new CommandRunner(commandSettingsOf(commandTableSchema.parse({
    test: ["sh", "build.sh", "{report}"],
    "test-files": ["tests/*_test.cpp", "spec/test_*.rb"],
    "config-files": ["build.sh"],
  })));
  equal(runner.besidePath("tests/calc_test.cpp", "fixer"), "tests/calc_bugbout_fixer_test.cpp");
  equal(runner.besidePath("spec/test_calc.rb", "fixer"), "spec/test_calc_bugbout_fixer.rb");
  equal(
    runner.besideId("tests/calc_test.cpp::Sub.Small", "x"),
    "tests/calc_bugbout_x_test.cpp::Sub.Small",
  );
  equal(runner.classify("build.sh", "."), "config");
  equal(runner.classify("tests/calc_test.cpp", "."), "test");
  equal(runner.classify("src/calc.cpp", "."), "source");
  const read = runner.changedTests("tests/calc_test.cpp", null, "TEST(A, b) {}");
  equal("unsure" in read && read.unsure !== undefined, true);
});
