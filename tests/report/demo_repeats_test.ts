/**
 * End to end: a bout on the demo project with `[run] repeats = 3` and a training cutoff, through
 * the real CLI, reported in all four formats. The demo's playbook agents do the same thing every
 * time, so each task is resolved by all of an agent's attempts or by none: pass@1 = pass@3 =
 * pass^3.
 */

import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { demoPlaybook } from "../../lib/demo/agents.ts";
import { startFakeGithub } from "../../lib/demo/github.ts";
import { writePlaybookAgent } from "../../lib/demo/playbook_agent.ts";
import { reportSchema } from "../../lib/report/mod.ts";
import { buildDemo } from "../fixtures/projects.ts";
import { runBugbout, tempDir } from "../_helpers.ts";
import { validate } from "./_json_schema.ts";
import { SCHEMA_PATH } from "./write_schema.ts";

function agentTable(name: string, script: string, extra = "") {
  return `[[contestants]]\nagent = "command"\nname = "${name}"\nquota = "${name}"\n` +
    `command = ["python3", ${JSON.stringify(script)}, "{prompt_file}"]\n${extra}\n`;
}

Deno.test("a bout with repeats = 3 on the demo reports pass@1, pass@3 and pass^3 in every format", async () => {
  await using dir = await tempDir("bugbout-repeats-");
  const fixture = await buildDemo(join(dir.path, "textkit"));
  await using github = startFakeGithub({
    repository: fixture.github.repository,
    items: fixture.github.items,
  });
  const script = (kind: "careful" | "sloppy") =>
    writePlaybookAgent(
      join(dir.path, "agents"),
      demoPlaybook(kind, fixture.fixes, fixture.github.items),
    );
  await Deno.writeTextFile(
    join(fixture.dir, "bugbout.toml"),
    `[project]\nsource = "${fixture.source}"\ngithub = "${fixture.github.repository}"\n` +
      `github-api = "${github.url}"\n\n[tasks]\nlimit = 2\n\n[run]\nrepeats = 3\n\n` +
      agentTable("careful", await script("careful"), `cutoff = "2001-01"`) +
      agentTable("sloppy", await script("sloppy")),
  );
  const env = { BUGBOUT_HOME: join(dir.path, "home") };
  const run = await runBugbout(["run"], { cwd: fixture.dir, env });
  equal(run.code, 0, run.stderr);
  match(run.stderr, /race +12 attempt\(s\) ran, 0 already done/);

  const json = await runBugbout(["report", "--format", "json"], { cwd: fixture.dir, env });
  const parsed = JSON.parse(json.stdout);
  const report = reportSchema.parse(parsed);
  deepEqual(validate(JSON.parse(await Deno.readTextFile(SCHEMA_PATH)), parsed), []);
  equal(report.repeats, 3);
  deepEqual(report.agents.map((a) => a.name), ["careful", "sloppy"]);
  // The two newest tasks: careful fixes neither, sloppy issue-11, every time.
  const shares = Object.fromEntries(report.agents.map((a) => [a.name, a.resolveRate.rate]));
  deepEqual(shares, { careful: 0, sloppy: 0.5 });
  for (const a of report.agents) {
    deepEqual([a.tasks, a.scoredAttempts, a.attempts], [2, 6, 6]);
    deepEqual(a.passAtK, { k: 3, rate: a.resolveRate.rate, tasks: 2 });
    deepEqual(a.passHatK, { k: 3, rate: a.resolveRate.rate, tasks: 2 });
    equal(a.resolveRate.method, "bootstrap");
  }
  const issue11 = report.tasks.find((t) => t.id === "issue-11")!;
  deepEqual(
    issue11.agents.map((a) => [a.agent, a.resolved, a.counted, a.attempts.map((t) => t.name)]),
    [
      ["careful", 0, 3, ["careful", "careful#2", "careful#3"]],
      ["sloppy", 3, 3, ["sloppy", "sloppy#2", "sloppy#3"]],
    ],
  );
  // sloppy's fix is backed only by careful's three attempts, and an agent's attempts are one
  // voice: a pick needs two, so the judge abstains and says so.
  equal(issue11.pick.agent, null);
  equal(issue11.pick.attempt, null);
  match(issue11.pick.reason!, /sloppy: 1 voice \(careful\).*a pick needs 2/);
  // No attempt is an agent of its own anywhere.
  for (
    const names of [
      report.mergeGate.agents.map((g) => g.agent),
      report.separation.map((s) => s.author),
      report.evidence.map((e) => e.agent),
      report.comparisons.flatMap((c) => [c.a, c.b]),
    ]
  ) {
    ok(names.every((n) => n !== null && !n.includes("#")), names.join(", "));
  }
  equal(report.comparisons[0].test, "sign-flip");
  // The cutoff came through from bugbout.toml: every demo fix is after 2001.
  const split = report.agents[0].cutoff!;
  deepEqual([split.cutoff, split.before.tasks, split.after.tasks, split.after.tooSmall], [
    "2001-01",
    0,
    2,
    true,
  ]);
  equal(report.agents[1].cutoff, null);

  const terminal = await runBugbout(["report"], { cwd: fixture.dir, env });
  match(terminal.stdout, /pass@1 \(95%\)\s+pass@3\s+pass\^3/);
  match(terminal.stdout, /sloppy\s+2\s+6\s+3\s+.*50% \(\d+–\d+%\)\s+50%\s+50%/);
  match(terminal.stdout, /issue-11\s+.*0\/3 resolved\s+3\/3 resolved/);
  ok(terminal.stdout.split("\n").every((line) => [...line].length <= 100));
  const md = await runBugbout(["report", "--format", "markdown"], { cwd: fixture.dir, env });
  match(md.stdout, /\| sloppy \| 2 \| 6 \| 3 \|[^\n]*\| 50% \(\d+–\d+%\) \| 50% \| 50% \|/);
  match(
    md.stdout,
    /\| careful \| 2001-01 \| after it \| 2 \| 6 \| 0 \| too few tasks to conclude \|/,
  );
  const html = await Deno.readTextFile(join(fixture.dir, ".bugbout", "report.html"));
  match(html, /pass@3 50% · pass\^3 50%/);
  match(html, /<svg id="chart-cutoff"/);
});
