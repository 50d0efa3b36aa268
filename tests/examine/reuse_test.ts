/**
 * Adding an agent to a finished bout: cross-examination runs only the new agent's tree against
 * every author and the new author's tests on every tree, scoring runs only the new patch and the
 * new tests on G, and what comes out is what a bout with every agent from the start gives.
 * Counted in pytest sessions.
 */

import { deepEqual, equal } from "node:assert/strict";
import { examineAll } from "../../lib/examine/mod.ts";
import { judgeAll } from "../../lib/judge/mod.ts";
import { oracleAll } from "../../lib/oracle/mod.ts";
import type { Matrix, Resolution } from "../../lib/records.ts";
import { scoreAll } from "../../lib/score/mod.ts";
import type { TaskProgress } from "../../lib/testbed/mod.ts";
import { tempDir } from "../python/_shared.ts";
import { ALL_ROWS, buildBout, rows, saveAll, saveScripted, SCRIPTS } from "./_bout.ts";

/** Sessions per tree in a stage's progress events. */
function sessionsByTree<R>(events: readonly TaskProgress<R>[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const e of events) if (e.event === "run") counts[e.run.tree] = (counts[e.run.tree] ?? 0) + 1;
  return counts;
}

Deno.test("adding an agent to a finished bout runs only its tree, its tests and its patch", async () => {
  await using dir = await tempDir();
  const bout = await buildBout(dir.path);
  const late = SCRIPTS.find((s) => s.agent === "wrong")!;
  await saveAll(bout, SCRIPTS.filter((s) => s !== late));
  const stages = { tools: bout.tools, sandbox: bout.sandbox };
  await oracleAll(bout.project, [bout.task], stages);
  const first = await examineAll(bout.project, [bout.task], stages);
  await judgeAll(bout.project, [bout.task]);
  const scored = await scoreAll(bout.project, [bout.task], stages);
  const before = scored.file.resolutions[bout.task.id];

  // wrong arrives: a contestant with a source change and a test of its own.
  await saveScripted(bout, late, dir.path);
  const examined: TaskProgress<Matrix>[] = [];
  const second = await examineAll(bout.project, [bout.task], {
    ...stages,
    onProgress: (e) => examined.push(e),
  });
  const matrix = second.matrices[0];
  // Its tests on both repeats of B and on the four candidates that were there (one session each),
  // and every author on its own tree (the shared session, and cheater's own).
  deepEqual(sessionsByTree(examined), {
    B: 1,
    "B#2": 1,
    fixer: 1,
    cheater: 1,
    marker: 1,
    printer: 1,
    wrong: 2,
  });
  // 7 authors with tests (the repository's suite among them) on 7 trees: wrong's 6 new cells on
  // the old trees and 7 on its own ran, the other 35 are the first matrix's (the suite never runs
  // on cheater's tree: suite selection finds nothing its comment-only patch can change).
  deepEqual([matrix.reuse?.ran, matrix.reuse?.reused], [13, 35]);
  equal(first.matrices[0].reuse?.ran, 35);
  deepEqual(rows(matrix), ALL_ROWS);
  deepEqual(matrix.trees.map((t) => t.id), [
    "B",
    "B#2",
    "fixer",
    "wrong",
    "cheater",
    "marker",
    "printer",
  ]);
  equal(
    second.summary,
    "1 matrix (1 new, 0 unchanged): 13 cells ran, 35 reused, 8 pytest sessions",
  );

  await judgeAll(bout.project, [bout.task]);
  const rescored: TaskProgress<Resolution>[] = [];
  const after = (await scoreAll(bout.project, [bout.task], {
    ...stages,
    onProgress: (e) => rescored.push(e),
  })).file.resolutions[bout.task.id];
  // Only wrong's patch against the hidden tests, and its tests on G twice: the sanity gates and
  // every other patch stand.
  deepEqual(sessionsByTree(rescored), { wrong: 1, G: 1, "G#2": 1 });
  for (const agent of Object.keys(before.patches)) {
    deepEqual(after.patches[agent], before.patches[agent], agent);
  }
  deepEqual(after.sanity, before.sanity);
  equal(after.patches.wrong.outcome, "wrong-fix");
  deepEqual(after.evidence.wrong.tests.map((t) => [t.B, t.S, t.G, t.role]), [
    ["failed", "passed", "passed", "gold-aligned"],
  ]);
  // The rest of the evidence is what it was.
  for (const agent of Object.keys(before.evidence)) {
    deepEqual(after.evidence[agent], before.evidence[agent], agent);
  }
});
