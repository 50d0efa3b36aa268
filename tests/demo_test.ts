import { equal, match, ok } from "node:assert/strict";
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
  // The careful agent resolves everything; the cheat's conftest is never applied.
  equal(scored.every((r) => r.patches["scripted-careful"].outcome === "resolved"), true);
  equal(scored.every((r) => r.patches["scripted-cheat"].outcome !== "resolved"), true);
  ok(scored.every((r) => r.patches["scripted-cheat"].flags.length > 0));
  match(run.stdout, /HTML report: .*report\.html/);
  ok((await Deno.stat(join(results, "report.html"))).isFile);
});
