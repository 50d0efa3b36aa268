/**
 * The "How the tasks were found" section: where the statements came from, how many changes each
 * rule told apart from bug fixes (the ground truth's new-api included), and unscorable reasons
 * in one line each.
 *
 * @module
 */

import { deepEqual, equal, match, ok } from "node:assert/strict";
import { buildReport } from "../../lib/report/build.ts";
import { renderMarkdown } from "../../lib/report/markdown.ts";
import { renderTerminal } from "../../lib/report/terminal.ts";
import { fixtureInput } from "./fixture.ts";

function input() {
  const i = fixtureInput();
  i.tasks.tasks[0].statementSource = "commit";
  i.tasks.tasks[1].statementSource = "commit";
  i.tasks.counts = { "not-a-fix": 180, "feature-in-changelog": 4, "feature-label": 1 };
  i.oracles.oracles["issue-12"] = {
    ...i.oracles.oracles["issue-12"],
    status: "unscorable",
    reason: "new-api: every fail-to-pass test fails on B only because `whisper` does not exist yet",
    leftOut: { reason: "new-api", names: ["whisper"] },
  };
  i.oracles.oracles["issue-14"].reason = "pytest cannot run the fix's tests on G: Traceback " +
    '(most recent call last):\n  File "x.py", line 1\nFailed: no';
  return i;
}

Deno.test("the discovery section says where statements came from and what each rule left out", () => {
  const report = buildReport(input());
  const i2 = input();
  const d = report.discovery;
  deepEqual(d.statements, { issue: 3, pullRequest: 0, commitTitle: 2 });
  deepEqual(d.features, { title: 180, changelog: 4, label: 1, newApi: 1 });
  const { ["issue-12"]: _scored, ...others } = i2.resolutions;
  const unscored = buildReport({ ...i2, resolutions: others }).discovery.unscored;
  equal(unscored.find((u) => u.task === "issue-12")?.kind, "new-api");
  // A reason is one line in a table, never a traceback.
  for (const u of d.unscored) ok(!u.reason.includes("\n"), u.reason);
  const md = renderMarkdown(report);
  match(md, /Problem statements: 3 from issues, 2 from commit titles \(the title only/);
  match(
    md,
    /Told apart from bug fixes: 180 changes by their titles, 4 fixes by their changelog entries, 1 by GitHub labels, 1 task by the ground truth \(new-api/,
  );
  match(renderTerminal(report, { color: false }), /Problem statements: 3 from issues/);
});
