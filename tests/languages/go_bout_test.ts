/**
 * A whole bout on a Go module, through the CLI as a user runs it: mining, ground truth, a race of
 * scripted agents in the sandbox (a real fix, a wrong fix, a cheat that edits `go.mod` and the
 * tests, a cheat whose source forges `go test`'s report), cross-examination, the judge, scoring and
 * an examiner whose tests follow the issue, and the report — the same report, in the same shape, as a Python bout's.
 *
 * @module
 */

import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { startFakeGithub } from "../../lib/demo/github.ts";
import { agentTables, type Playbook } from "./_agents.ts";
import { reportSchema } from "../../lib/report/mod.ts";
import { resolutionsFileSchema, verdictsFileSchema } from "../../lib/records.ts";
import { buildGoProject, SOURCES } from "../fixtures/go_project.ts";
import { runBugbout, tempDir } from "../_helpers.ts";

const ISSUES = [
  {
    number: 3,
    title: "Quantity panics on an empty string",
    body: 'parse.Quantity("") panics with an index out of range; it should return an error.',
  },
  {
    number: 5,
    title: "Kilometres are converted with the wrong factor",
    body: 'units.Convert(2, "km", "m") gives 200, not 2000.',
  },
  {
    number: 7,
    title: "Total counts negative quantities",
    body: "shelf.Total([]int{4, -2}) is 2; a negative quantity should count as none, so 4.",
  },
];

const NEGATIVE_TEST = `package shelf

import "testing"

func TestTotalSkipsNegative(t *testing.T) {
	if got := Total([]int{4, -2}); got != 4 {
		t.Fatalf("Total = %d, want 4", got)
	}
}
`;

const EMPTY_TEST = `package parse

import "testing"

func TestEmptyQuantityIsAnError(t *testing.T) {
	if _, err := Quantity(""); err == nil {
		t.Fatal("no error")
	}
}
`;

/** Counts a negative quantity by its size: wrong, and its own test says it is right. */
const SHELF_WRONG = SOURCES.shelf.replace(
  "\t\tsum += q\n",
  "\t\tif q < 0 {\n\t\t\tq = -q\n\t\t}\n\t\tsum += q\n",
);
const WRONG_TEST = NEGATIVE_TEST.replace("TestTotalSkipsNegative", "TestTotalCountsSize")
  .replace("got != 4", "got != 6").replace("want 4", "want 6");

/** Prints what `go test -json`'s binary would print had every test passed, then leaves. */
const SHELF_FORGER = SOURCES.shelf.replace(
  "package shelf\n",
  `package shelf

import (
	"fmt"
	"os"
)

func init() {
	for _, name := range []string{"TestTotal", "TestTotalNegative"} {
		fmt.Printf("=== RUN   %s\\n--- PASS: %s (0.00s)\\n", name, name)
	}
	fmt.Println("PASS")
	os.Exit(0)
}
`,
);

function playbooks(): Record<string, Playbook> {
  const negative = "Total counts negative quantities";
  const empty = "Quantity panics on an empty string";
  return {
    fixer: {
      name: "fixer",
      entries: [
        {
          match: negative,
          steps: [
            { write: "shelf.go", content: SOURCES.shelfFixed },
            { write: "negative_test.go", content: NEGATIVE_TEST },
          ],
          summary: "Negative quantities count as none; a test shows it.",
        },
        {
          match: empty,
          steps: [
            { write: "parse/parse.go", content: SOURCES.parseFixed },
            { write: "parse/empty_test.go", content: EMPTY_TEST },
          ],
          summary: "An empty quantity is an error; a test shows it.",
        },
      ],
    },
    wrong: {
      name: "wrong",
      entries: [{
        match: negative,
        steps: [
          { write: "shelf.go", content: SHELF_WRONG },
          { write: "size_test.go", content: WRONG_TEST },
        ],
        summary: "Negative quantities count by their size.",
      }],
    },
    "config-cheat": {
      name: "config-cheat",
      entries: [{
        match: negative,
        steps: [
          {
            write: "go.mod",
            content:
              "module example.com/shelf\n\ngo 1.22\n\nreplace example.com/shelf => ../elsewhere\n",
          },
          { write: "shelf_test.go", content: "package shelf\n" },
        ],
        summary: "Tests pass now.",
      }],
    },
    examiner: {
      name: "examiner",
      entries: [
        {
          match: negative,
          steps: [{
            write: "spec_test.go",
            content: NEGATIVE_TEST.replace("TestTotalSkipsNegative", "TestNegativeCountsAsNone"),
          }],
          summary: "A test of the issue's example.",
        },
        {
          match: empty,
          steps: [{
            write: "parse/spec_test.go",
            content: EMPTY_TEST.replace("TestEmptyQuantityIsAnError", "TestEmptyIsRefused"),
          }],
          summary: "A test of the issue's example.",
        },
      ],
    },
    forger: {
      name: "forger",
      entries: [{
        match: negative,
        steps: [{ write: "shelf.go", content: SHELF_FORGER }],
        summary: "Every test passes.",
      }],
    },
  };
}

Deno.test("a bout on a Go module resolves the real fix, not the wrong fix or the cheats, and reports as for Python", async () => {
  await using dir = await tempDir("bugbout-go-bout-");
  const project = await buildGoProject(join(dir.path, "shelf"));
  await using github = startFakeGithub({ repository: "example/shelf", items: ISSUES });
  const agents = await agentTables(join(dir.path, "agents"), playbooks());
  await Deno.writeTextFile(
    join(project.dir, "bugbout.toml"),
    `[project]\nlanguage = "go"\ngithub = "example/shelf"\ngithub-api = "${github.url}"\n\n` +
      // TestFlaky fails at random: with 2 runs a side it looks fail-to-pass 1 time in 16, with 4
      // runs 1 time in 256.
      `[tasks]\nlimit = 1\nreruns = 4\n\n[run]\ntimeout = 300\n\n${agents}`,
  );
  const run = await runBugbout(["run"], {
    cwd: project.dir,
    env: { BUGBOUT_HOME: join(dir.path, "home") },
  });
  equal(run.code, 0, run.stdout + run.stderr);
  const results = join(project.dir, ".bugbout");
  const read = async (name: string) => JSON.parse(await Deno.readTextFile(join(results, name)));

  // The newest fix is the bout's one task (the ground truth of every fix is tests/oracle's):
  // its ground truth ran twice on each side, and it is scorable.
  const oracles = (await read("oracles.json")).oracles;
  deepEqual(Object.keys(oracles), ["issue-7"]);
  for (const fix of project.fixes.filter((f) => f.issue === 7)) {
    const oracle = oracles[`issue-${fix.issue}`];
    equal(oracle.status, "scorable", JSON.stringify(oracle));
    deepEqual([...oracle.failToPass].sort(), [...fix.failToPass].sort());
    for (const side of ["B", "G"]) {
      ok(oracle.runs.filter((r: { tree: string }) => r.tree === side).length >= 2, side);
    }
  }

  const resolutions = resolutionsFileSchema.parse(await read("resolutions.json")).resolutions;
  const outcome = (task: string, agent: string) => resolutions[task].patches[agent]?.outcome;
  equal(outcome("issue-7", "fixer"), "resolved");
  equal(outcome("issue-7", "wrong"), "wrong-fix");
  ok(outcome("issue-7", "config-cheat") !== "resolved");
  ok(resolutions["issue-7"].patches["config-cheat"].flags.length > 0);
  ok(!["resolved", "broke-tests"].includes(outcome("issue-7", "forger")!));

  // The judge approves the real fix from the cross-examination alone, and only it. But the
  // examiner is its one supporting voice (wrong's test pins the wrong total and fails on it), and
  // a pick needs two independent voices: the judge abstains and says so.
  const verdicts = verdictsFileSchema.parse(await read("verdicts.json")).verdicts;
  const approved = Object.entries(verdicts["issue-7"].patches).filter(([, p]) => p.approved);
  deepEqual(approved.map(([name]) => name), ["fixer"]);
  deepEqual(
    verdicts["issue-7"].patches.fixer.voices!.filter((v) => v.supports).map((v) => v.authors),
    [["examiner"]],
  );
  equal(verdicts["issue-7"].pick, null);
  match(verdicts["issue-7"].reason, /fixer, is not supported by at least 2 independent voices/);
  equal(resolutions["issue-7"].pick.outcome, null);

  // The report has the shape a Python bout's has.
  const report = reportSchema.parse(await read("report.json"));
  deepEqual(report.agents.map((a) => a.name).sort(), ["config-cheat", "fixer", "forger", "wrong"]);
  match(run.stdout, /fixer\s+1\s+1\s/);
  match(run.stdout, /the judge's picks\s+0\s+1/);
});
