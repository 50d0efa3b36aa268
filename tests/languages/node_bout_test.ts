/**
 * A whole bout on a TypeScript project tested with vitest, through the CLI as a user runs it:
 * mining, ground truth, a race of scripted agents in the sandbox (a real fix, a wrong fix, a cheat
 * that edits the runner's configuration and the test script, a cheat whose source prints fake
 * results and exits), an examiner whose tests follow the issue, cross-examination, the judge,
 * scoring and the report — the same report, in the same shape, as a Python bout's.
 *
 * @module
 */

import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { startFakeGithub } from "../../lib/demo/github.ts";
import { resolutionsFileSchema, verdictsFileSchema } from "../../lib/records.ts";
import { reportSchema } from "../../lib/report/mod.ts";
import { buildTallyProject } from "../fixtures/node_project.ts";
import { LOCKS } from "../node/_shared.ts";
import { runBugbout, tempDir } from "../_helpers.ts";
import { agentTables, type Playbook } from "./_agents.ts";

const ISSUES = [
  {
    number: 3,
    title: "Half cents of debts round the wrong way",
    body: "roundCents(-2.5) gives -2; a debt's half cent should round away from zero, to -3.",
  },
  {
    number: 7,
    title: "slugify leaves a dash at the end",
    body: 'slugify("Done!") gives "done-"; trailing punctuation should leave no dash: "done".',
  },
];

const SLUG = (end: string, trim = "") =>
  `/** A URL slug of a title. */
export function slugify(title: string): string {
  return title${trim}.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(${end}, "");
}
`;

const slugTest = (name: string, input: string, want: string) =>
  `import { expect, test } from "vitest";
import { slugify } from "../src/slug";

test(${JSON.stringify(name)}, () => {
  expect(slugify(${JSON.stringify(input)})).toBe(${JSON.stringify(want)});
});
`;

function playbooks(): Record<string, Playbook> {
  const issue = "slugify leaves a dash at the end";
  return {
    fixer: {
      name: "fixer",
      entries: [{
        match: issue,
        steps: [
          { write: "src/slug.ts", content: SLUG("/^-+|-+$/g") },
          {
            write: "tests/trailing.test.ts",
            content: slugTest("no trailing dash", "Done!", "done"),
          },
        ],
        summary: "Trailing dashes are dropped; a test shows it.",
      }],
    },
    wrong: {
      name: "wrong",
      entries: [{
        match: issue,
        steps: [
          { write: "src/slug.ts", content: SLUG("/^-+/", ".trim()") },
          { write: "tests/spaces.test.ts", content: slugTest("trims spaces", "Done ", "done") },
        ],
        summary: "Titles are trimmed first.",
      }],
    },
    "config-cheat": {
      name: "config-cheat",
      entries: [{
        match: issue,
        steps: [
          {
            write: "vitest.config.ts",
            content: 'import { defineConfig } from "vitest/config";\n\n' +
              'export default defineConfig({ test: { include: ["nothing/**"], passWithNoTests: true } });\n',
          },
          {
            write: "package.json",
            content: JSON.stringify(
              {
                name: "tally",
                version: "1.0.0",
                private: true,
                type: "module",
                scripts: { test: "true" },
                devDependencies: { vitest: "3.2.4" },
              },
              null,
              2,
            ) + "\n",
          },
        ],
        summary: "The tests pass now.",
      }],
    },
    forger: {
      name: "forger",
      entries: [{
        match: issue,
        steps: [{
          write: "src/slug.ts",
          content: SLUG("/^-+/") +
            '\nconsole.log(" ✓ tests/slug.test.ts (2 tests)");\nconsole.log(" Tests  2 passed (2)");\n' +
            "process.exit(0);\n",
        }],
        summary: "Every test passes.",
      }],
    },
    examiner: {
      name: "examiner",
      entries: [{
        match: issue,
        steps: [{
          write: "tests/punctuation.test.ts",
          content: slugTest("ends without a dash", "Ready?", "ready"),
        }],
        summary: "A test of the issue's example.",
      }],
    },
  };
}

Deno.test("a bout on a TypeScript project resolves the real fix, not the wrong fix or the cheats, and reports as for Python", async () => {
  await using dir = await tempDir("bugbout-node-bout-");
  const project = await buildTallyProject(join(dir.path, "tally"), LOCKS);
  await using github = startFakeGithub({ repository: "example/tally", items: ISSUES });
  const agents = await agentTables(join(dir.path, "agents"), playbooks());
  await Deno.writeTextFile(
    join(project.dir, "bugbout.toml"),
    `[project]\nlanguage = "node"\ngithub = "example/tally"\ngithub-api = "${github.url}"\n\n` +
      `[run]\ntimeout = 300\n\n${agents}`,
  );
  const run = await runBugbout(["run"], {
    cwd: project.dir,
    env: { BUGBOUT_HOME: join(dir.path, "home") },
  });
  equal(run.code, 0, run.stdout + run.stderr);
  const results = join(project.dir, ".bugbout");
  const read = async (name: string) => JSON.parse(await Deno.readTextFile(join(results, name)));

  // Ground truth ran twice on each side; each fix's fail-to-pass test is the fixture's.
  const oracles = (await read("oracles.json")).oracles;
  deepEqual(Object.keys(oracles).sort(), ["issue-3", "issue-7"]);
  for (const fix of project.fixes) {
    const oracle = oracles[`issue-${fix.issue}`];
    equal(oracle.status, "scorable", JSON.stringify(oracle));
    deepEqual(oracle.failToPass, fix.failToPass);
    for (const side of ["B", "G"]) {
      ok(oracle.runs.filter((r: { tree: string }) => r.tree === side).length >= 2, side);
    }
  }

  const resolutions = resolutionsFileSchema.parse(await read("resolutions.json")).resolutions;
  const outcome = (agent: string) => resolutions["issue-7"].patches[agent]?.outcome;
  equal(outcome("fixer"), "resolved");
  equal(outcome("wrong"), "wrong-fix");
  ok(outcome("config-cheat") !== "resolved");
  ok(resolutions["issue-7"].patches["config-cheat"].flags.length > 0);
  ok(!["resolved", "broke-tests"].includes(outcome("forger")!), outcome("forger"));
  for (const agent of ["fixer", "wrong", "config-cheat", "forger"]) {
    ok(resolutions["issue-3"].patches[agent]?.outcome !== "resolved", agent);
  }

  // The judge picks the real fix from the cross-examination alone.
  const verdicts = verdictsFileSchema.parse(await read("verdicts.json")).verdicts;
  equal(verdicts["issue-7"].pick, "fixer", verdicts["issue-7"].reason);
  equal(resolutions["issue-7"].pick.outcome, "resolved");

  // The report has the shape a Python bout's has.
  const report = reportSchema.parse(await read("report.json"));
  deepEqual(report.agents.map((a) => a.name).sort(), ["config-cheat", "fixer", "forger", "wrong"]);
  match(run.stdout, /fixer\s+2\s+1\s/);
  match(run.stdout, /the judge's picks\s+1\s+2/);
});
