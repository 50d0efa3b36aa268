import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { resolutionsFileSchema } from "../lib/records.ts";
import { runBugbout, tempDir } from "./_helpers.ts";

Deno.test("bugbout demo runs a whole bout whose printed numbers match the files it wrote", async () => {
  await using dir = await tempDir("bugbout-demo-");
  const run = await runBugbout(["demo", "--dir", dir.path], {
    env: { BUGBOUT_HOME: join(dir.path, "home") },
  });
  equal(run.code, 0, run.stderr);
  match(run.stderr, /scripted stand-ins, not models/);
  const results = join(dir.path, "textkit", ".bugbout");
  const resolutions = resolutionsFileSchema.parse(
    JSON.parse(await Deno.readTextFile(join(results, "resolutions.json"))),
  );
  const scored = Object.values(resolutions.resolutions).filter((r) => r.scored);
  equal(scored.length, 5);
  for (
    const agent of ["scripted-careful", "scripted-sloppy", "scripted-tester", "scripted-cheat"]
  ) {
    const count = (outcome: string) =>
      scored.filter((r) => r.patches[agent]?.outcome === outcome).length;
    const row = run.stdout.split("\n").find((line) => line.trim().startsWith(`${agent} `))!;
    ok(row, `a row for ${agent}`);
    const cells = row.trim().split(/\s+/);
    // agent  tasks  resolved  broke-tests  wrong-fix  no-fix ...
    equal(Number(cells[1]), 5, row);
    equal(Number(cells[2]), count("resolved"), row);
    equal(Number(cells[3]), count("broke-tests"), row);
    equal(Number(cells[4]), count("wrong-fix"), row);
    equal(Number(cells[5]), count("no-fix"), row);
  }
  // No agent is right everywhere; the cheat's conftest is never applied.
  const resolvedBy = (agent: string) =>
    scored.filter((r) => r.patches[agent]?.outcome === "resolved").map((r) => r.task).sort();
  deepEqual(resolvedBy("scripted-careful"), ["issue-3", "issue-5", "issue-8"]);
  deepEqual(resolvedBy("scripted-sloppy"), ["issue-11"]);
  equal(scored.every((r) => r.patches["scripted-cheat"].outcome !== "resolved"), true);
  ok(scored.every((r) => r.patches["scripted-cheat"].flags.length > 0));
  // The judge, from the cross-examination alone, picks the real fix wherever there is one (above
  // the best single agent) and abstains on the task nobody fixed.
  deepEqual(
    Object.fromEntries(scored.map((r) => [r.task, [r.pick.agent, r.pick.outcome]])),
    {
      "issue-3": ["scripted-careful", "resolved"],
      "issue-5": ["scripted-careful", "resolved"],
      "issue-8": ["scripted-careful", "resolved"],
      "issue-11": ["scripted-sloppy", "resolved"],
      "issue-14": [null, null],
    },
  );
  match(run.stdout, /the judge's picks\s+4\s+5/);
  match(run.stdout, /best single agent \(scripted-careful\)\s+3\s+5/);
  match(run.stdout, /HTML report: .*report\.html/);
  ok((await Deno.stat(join(results, "report.html"))).isFile);
});
