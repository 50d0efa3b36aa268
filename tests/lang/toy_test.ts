/**
 * The language seam, proved: a toy language that lives in this test's folder (`toy/`: shell
 * projects whose tests are `name: command` lines, run by a shell harness that prints one line per
 * test) is registered, and a whole bout — mining, ground truth, the race of scripted agents in the
 * sandbox, cross-examination, the judge, scoring — runs on a project of it with no file outside
 * that folder knowing it exists.
 *
 * @module
 */

import { deepEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { Bout } from "../../lib/bout.ts";
import { RepoBuilder } from "../../lib/demo/repo.ts";
import { startFakeGithub } from "../../lib/demo/github.ts";
import { registerLanguage } from "../../lib/lang/mod.ts";
import { Project } from "../../lib/project.ts";
import { resolutionsFileSchema, verdictsFileSchema } from "../../lib/records.ts";
import { agentTables, type Playbook } from "../languages/_agents.ts";
import { tempDir } from "../_helpers.ts";
import { toy } from "./toy/language.ts";

const CALC = `add() { echo $(( $1 + $2 )); }
sub() { echo $(( $1 + $2 )); }
`;
const CALC_FIXED = CALC.replace("sub() { echo $(( $1 + $2 )); }", "sub() { echo $(( $1 - $2 )); }");
const CALC_WRONG = CALC.replace("sub() { echo $(( $1 + $2 )); }", "sub() { echo 3; }");
const TESTS = `add_small: [ "$(add 1 2)" = 3 ]\nadd_zero: [ "$(add 0 0)" = 0 ]\n`;
const TESTS_FIXED =
  `${TESTS}sub_small: [ "$(sub 5 2)" = 3 ]\nsub_negative: [ "$(sub 2 5)" = -3 ]\n`;

/** The toy project's history: a start, a fix that names its issue, and a later change. */
async function toyProject(dir: string): Promise<{ fix: string }> {
  const repo = new RepoBuilder();
  repo.commit({
    message: "Start the calculator",
    files: {
      "calc.sh": CALC,
      "tests/calc.t": TESTS,
      "toy.conf": "runner = sh\n",
      "README": "calc\n",
    },
  });
  const fix = repo.commit({
    message: "Fix sub adding instead of subtracting (#3)",
    files: { "calc.sh": CALC_FIXED, "tests/calc.t": TESTS_FIXED },
  });
  repo.commit({ message: "Say what calc does", files: { "README": "calc: add and sub\n" } });
  await repo.build(dir);
  return { fix: fix.sha };
}

function playbooks(): Record<string, Playbook> {
  const issue = "sub adds its arguments";
  return {
    fixer: {
      name: "fixer",
      entries: [{
        match: issue,
        steps: [
          { write: "calc.sh", content: CALC_FIXED },
          { write: "tests/sub.t", content: `sub_five_two: [ "$(sub 5 2)" = 3 ]\n` },
        ],
        summary: "sub subtracts now; a test shows it.",
      }],
    },
    wrong: {
      name: "wrong",
      entries: [{
        match: issue,
        steps: [
          { write: "calc.sh", content: CALC_WRONG },
          { write: "tests/sub_wrong.t", content: `sub_is_three: [ "$(sub 5 2)" = 3 ]\n` },
        ],
        summary: "sub gives the issue's answer.",
      }],
    },
    examiner: {
      name: "examiner",
      entries: [{
        match: issue,
        steps: [{
          write: "tests/spec.t",
          content: `sub_spec: [ "$(sub 5 2)" = 3 ]\nsub_spec_other: [ "$(sub 9 4)" = 5 ]\n`,
        }],
        summary: "Tests of the issue's example and of another.",
      }],
    },
  };
}

Deno.test("a toy language registered in a test runs a whole bout: mine, ground truth, race, cross-examination, judge, score", async () => {
  using _toy = { [Symbol.dispose]: registerLanguage(toy) };
  await using dir = await tempDir("bugbout-toy-bout-");
  const repo = join(dir.path, "calc");
  const { fix } = await toyProject(repo);
  await using github = startFakeGithub({
    repository: "example/calc",
    items: [{ number: 3, title: "sub adds its arguments", body: "sub 5 2 prints 7, not 3." }],
  });
  const agents = await agentTables(join(dir.path, "agents"), playbooks());
  await Deno.writeTextFile(
    join(repo, "bugbout.toml"),
    `[project]\nlanguage = "toy"\ngithub = "example/calc"\ngithub-api = "${github.url}"\n\n` +
      `[run]\ntimeout = 120\ntest-timeout = 60\n\n${agents}`,
  );
  const bout = new Bout(await Project.load(repo, { home: join(dir.path, "home") }));
  await bout.run();
  const results = join(repo, ".bugbout");
  const read = async (name: string) => JSON.parse(await Deno.readTextFile(join(results, name)));

  // Mining found the fix, through the toy runner's reading of its test file.
  const tasks = (await read("tasks.json")).tasks;
  deepEqual(tasks.map((t: { commit: string; newTests: string[] }) => [t.commit, t.newTests]), [
    [fix, ["tests/calc.t::sub_small", "tests/calc.t::sub_negative"]],
  ]);
  // Ground truth: the new tests fail on B and pass on G, the old ones pass on both.
  const oracle = (await read("oracles.json")).oracles["issue-3"];
  equal(oracle.status, "scorable", JSON.stringify(oracle));
  deepEqual(oracle.failToPass, ["tests/calc.t::sub_negative", "tests/calc.t::sub_small"]);
  deepEqual(oracle.passToPass, ["tests/calc.t::add_small", "tests/calc.t::add_zero"]);

  // Cross-examination ran every author's tests on B and on both candidates.
  const matrix = await read("matrices/issue-3.json");
  deepEqual(matrix.trees.map((t: { id: string }) => t.id), ["B", "B#2", "fixer", "wrong"]);
  ok(matrix.tests.some((t: { author: string }) => t.author === "examiner"));
  equal(matrix.cells["tests/spec.bugbout-examiner.t::sub_spec_other"].fixer, "passed");
  equal(matrix.cells["tests/spec.bugbout-examiner.t::sub_spec_other"].wrong, "failed");

  // The judge picks the real fix; the maintainers' hidden tests resolve it and not the wrong one.
  const verdicts = verdictsFileSchema.parse(await read("verdicts.json")).verdicts;
  equal(verdicts["issue-3"].pick, "fixer");
  const resolution = resolutionsFileSchema.parse(await read("resolutions.json")).resolutions[
    "issue-3"
  ];
  equal(resolution.patches.fixer.outcome, "resolved");
  equal(resolution.patches.wrong.outcome, "wrong-fix");
  equal(resolution.pick.outcome, "resolved");
  // Each agent's tests got their evidence roles on B, S and G.
  equal(
    resolution.evidence.examiner.tests.find((t) => t.test.endsWith("sub_spec"))?.role,
    "gold-aligned",
  );
});
