import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { resolutionsFileSchema } from "../lib/records.ts";
import { assertGolden, runBugbout, tempDir } from "./_helpers.ts";

/**
 * What a bout concluded, without what may differ between two runs of the same bout (keys, times,
 * run logs, reuse counts): each task's ground truth, cross-examination matrix, verdict and
 * resolution, as canonical JSON.
 */
async function conclusions(results: string): Promise<string> {
  const json = async (path: string) => JSON.parse(await Deno.readTextFile(join(results, path)));
  const only = (value: Record<string, unknown>, keys: string[]) =>
    Object.fromEntries(keys.map((k) => [k, value[k]]));
  const byTask = (record: Record<string, Record<string, unknown>>, keys: string[]) =>
    Object.fromEntries(Object.keys(record).sort().map((id) => [id, only(record[id], keys)]));
  const matrices: Record<string, unknown> = {};
  for (
    const entry of [...Deno.readDirSync(join(results, "matrices"))].sort((a, b) =>
      a.name < b.name ? -1 : 1
    )
  ) {
    const m = await json(join("matrices", entry.name));
    matrices[m.task] = only(m, ["trees", "tests", "cells", "unstableOnB", "tampering"]);
  }
  return JSON.stringify(
    {
      oracles: byTask(
        (await json("oracles.json")).oracles,
        ["status", "failToPass", "passToPass", "unstable"],
      ),
      matrices,
      verdicts: byTask((await json("verdicts.json")).verdicts, [
        "policy",
        "pick",
        "reason",
        "patches",
      ]),
      resolutions: byTask(
        (await json("resolutions.json")).resolutions,
        ["scored", "sanity", "patches", "evidence", "pick"],
      ),
    },
    null,
    1,
  ) + "\n";
}

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
  // And everything else it concluded is what it concluded before: a change to how tests run (a
  // new language's runner beside pytest, say) must leave Python's results as they are.
  await assertGolden("demo-conclusions.json", await conclusions(results));
  ok((await Deno.stat(join(results, "report.html"))).isFile);
});
