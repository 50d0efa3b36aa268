/**
 * `[run] repeats` through cross-examination, the judge and scoring: every attempt is a tree and an
 * author of its own, named after its agent (`fixer#2`), and an agent's repeats never vouch for
 * each other's patches.
 */

import { deepEqual, equal, ok } from "node:assert/strict";
import { examineAll } from "../../lib/examine/mod.ts";
import { judgeAll } from "../../lib/judge/mod.ts";
import { oracleAll } from "../../lib/oracle/mod.ts";
import { scoreAll } from "../../lib/score/mod.ts";
import { tempDir } from "../python/_shared.ts";
import { buildBout, saveScripted, SCRIPTS } from "./_bout.ts";

Deno.test("with repeats, each attempt is a tree and an author, and an agent's repeats never vouch for its patch", async () => {
  await using dir = await tempDir();
  const scripts = SCRIPTS.filter((s) => ["fixer", "wrong", "examiner"].includes(s.agent));
  const bout = await buildBout(dir.path, { scripts, settings: "repeats = 2" });
  for (const script of scripts) {
    await saveScripted(bout, script, dir.path, 1);
    // The examiner's second attempt is still to come.
    if (script.role === "contestant") await saveScripted(bout, script, dir.path, 2);
  }
  const stages = { tools: bout.tools, sandbox: bout.sandbox };
  await oracleAll(bout.project, [bout.task], stages);
  const [matrix] = (await examineAll(bout.project, [bout.task], stages)).matrices;
  deepEqual(matrix.trees.map((t) => [t.id, t.agent ?? null]), [
    ["B", null],
    ["B#2", null],
    ["fixer", "fixer"],
    ["fixer#2", "fixer"],
    ["wrong", "wrong"],
    ["wrong#2", "wrong"],
  ]);
  deepEqual([...new Set(matrix.tests.map((t) => t.author))], [
    "fixer",
    "fixer#2",
    "wrong",
    "wrong#2",
    "examiner",
    "repository",
  ]);
  // Each repeat's tests sit in a directory of their own.
  ok(matrix.tests.some((t) => t.id.startsWith("tests/_bugbout_fixer_2/")));

  const verdict = (await judgeAll(bout.project, [bout.task])).file.verdicts[bout.task.id];
  const vouchers = (agent: string) =>
    [...new Set(verdict.patches[agent].evidence.map((e) => e.author))].sort();
  // fixer's patches are vouched for by wrong's attempts and the examiner, never by fixer#2.
  for (const patch of ["fixer", "fixer#2"]) {
    deepEqual(vouchers(patch).filter((a) => a !== "repository"), ["examiner", "wrong", "wrong#2"]);
    ok(verdict.patches[patch].approved, verdict.patches[patch].reason);
  }
  ok(verdict.pick === "fixer" || verdict.pick === "fixer#2", verdict.reason);

  const resolution = (await scoreAll(bout.project, [bout.task], stages)).file
    .resolutions[bout.task.id];
  deepEqual(
    Object.fromEntries(Object.entries(resolution.patches).map(([name, p]) => [name, p.outcome])),
    { fixer: "resolved", "fixer#2": "resolved", wrong: "wrong-fix", "wrong#2": "wrong-fix" },
  );
  deepEqual(Object.keys(resolution.evidence), ["fixer", "fixer#2", "wrong", "wrong#2", "examiner"]);
  equal(resolution.pick.outcome, "resolved");
});
