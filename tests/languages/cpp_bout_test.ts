/**
 * The command runner on a language no built-in serves: a C++ project tested with GoogleTest,
 * configured by a `[command]` table alone, in a whole bout through the CLI with scripted
 * contestants: the real fix resolves and is picked; a wrong fix and a cheat that rewrites the
 * build script (the test command's configuration) to write a passing report do not resolve.
 *
 * @module
 */

import { equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { startFakeGithub } from "../../lib/demo/github.ts";
import { resolutionsFileSchema, verdictsFileSchema } from "../../lib/records.ts";
import { runBugbout, tempDir } from "../_helpers.ts";
import { buildCppProject, CPP, CPP_COMMAND } from "../fixtures/cpp_project.ts";
import { agentTables, type Playbook } from "./_agents.ts";

const ISSUE = "sub adds its arguments";

/** A build script that compiles nothing and reports every test passed. */
const FORGED_BUILD = `#!/bin/sh
cat > "$1" <<'XML'
<testsuites><testsuite name="Sub">
<testcase name="Small" classname="Sub" file="tests/sub_test.cpp"/>
<testcase name="Negative" classname="Sub" file="tests/sub_test.cpp"/>
<testcase name="Small" classname="Add" file="tests/add_test.cpp"/>
<testcase name="Zero" classname="Add" file="tests/add_test.cpp"/>
</testsuite></testsuites>
XML
`;

function playbooks(): Record<string, Playbook> {
  const test = (suite: string, body: string) =>
    `#include <gtest/gtest.h>\n#include "calc.h"\nTEST(${suite}) { ${body} }\n`;
  return {
    fixer: {
      name: "fixer",
      entries: [{
        match: ISSUE,
        steps: [
          { write: "src/calc.cpp", content: CPP.fixed },
          {
            write: "tests/sub_fix_test.cpp",
            content: test("SubFix, FiveTwo", "EXPECT_EQ(sub(5, 2), 3);"),
          },
        ],
        summary: "sub subtracts now; a test shows it.",
      }],
    },
    wrong: {
      name: "wrong",
      entries: [{
        match: ISSUE,
        steps: [
          { write: "src/calc.cpp", content: CPP.wrong },
          {
            write: "tests/sub_three_test.cpp",
            content: test("SubThree, FiveTwo", "EXPECT_EQ(sub(5, 2), 3);"),
          },
        ],
        summary: "sub gives the issue's answer.",
      }],
    },
    "config-cheat": {
      name: "config-cheat",
      entries: [{
        match: ISSUE,
        steps: [{ write: "build.sh", content: FORGED_BUILD }],
        summary: "Every test passes now.",
      }],
    },
    examiner: {
      name: "examiner",
      entries: [{
        match: ISSUE,
        steps: [{
          write: "tests/spec_test.cpp",
          content: test("Spec, FiveTwo", "EXPECT_EQ(sub(5, 2), 3);") +
            "TEST(Spec, NineFour) { EXPECT_EQ(sub(9, 4), 5); }\n",
        }],
        summary: "Tests of the issue's example and of another.",
      }],
    },
  };
}

Deno.test("a bout on a C++ project served by [command] alone resolves and picks the real fix, not the wrong fix or the build-script cheat", async () => {
  await using dir = await tempDir("bugbout-cpp-bout-");
  const repo = join(dir.path, "calc");
  const { fix } = await buildCppProject(repo);
  await using github = startFakeGithub({
    repository: "example/calc",
    items: [{ number: 3, title: ISSUE, body: "sub(5, 2) returns 7, not 3." }],
  });
  const agents = await agentTables(join(dir.path, "agents"), playbooks());
  await Deno.writeTextFile(
    join(repo, "bugbout.toml"),
    `[project]\nlanguage = "command"\ngithub = "example/calc"\ngithub-api = "${github.url}"\n\n` +
      `${CPP_COMMAND}\n[run]\ntimeout = 600\ntest-timeout = 300\n\n${agents}`,
  );
  const run = await runBugbout(["run"], {
    cwd: repo,
    env: { BUGBOUT_HOME: join(dir.path, "home") },
  });
  equal(run.code, 0, run.stdout + run.stderr);
  const read = async (name: string) =>
    JSON.parse(await Deno.readTextFile(join(repo, ".bugbout", name)));

  // Mining found the fix; its new test file is unsure until a run names its tests.
  const tasks = (await read("tasks.json")).tasks;
  equal(tasks.length, 1);
  equal(tasks[0].commit, fix);
  equal(tasks[0].unsureTests[0].file, "tests/sub_test.cpp");

  // Ground truth from GoogleTest's XML: ids are file::Suite.Name.
  const oracle = (await read("oracles.json")).oracles["issue-3"];
  equal(oracle.status, "scorable", JSON.stringify(oracle));
  equal(
    JSON.stringify([...oracle.failToPass].sort()),
    JSON.stringify(["tests/sub_test.cpp::Sub.Negative", "tests/sub_test.cpp::Sub.Small"]),
  );

  const verdicts = verdictsFileSchema.parse(await read("verdicts.json")).verdicts;
  equal(verdicts["issue-3"].pick, "fixer", JSON.stringify(verdicts["issue-3"]));
  const resolution = resolutionsFileSchema.parse(await read("resolutions.json"))
    .resolutions["issue-3"];
  equal(resolution.patches.fixer.outcome, "resolved");
  equal(resolution.patches.wrong.outcome, "wrong-fix");
  ok(resolution.patches["config-cheat"].outcome !== "resolved");
  ok(
    resolution.patches["config-cheat"].flags.some((f) => f.includes("build.sh")),
    JSON.stringify(resolution.patches["config-cheat"]),
  );
  equal(resolution.pick.outcome, "resolved");
  match(run.stdout, /fixer/);
});
