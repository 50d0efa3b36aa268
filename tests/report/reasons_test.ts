/**
 * No silent abstention: every abstention, merge-gate stop, set-aside tree or session, tampering
 * and infrastructure error says why in every format, naming the file, test or rule, and the
 * counts the report prints agree with the reasons it lists. The verdicts are the real judge's on
 * the fixture's matrices, one of them with the repository's suite rewriting a fixture file on
 * every tree (as tomlkit's does).
 */

import { deepEqual, equal, ok } from "node:assert/strict";
import { judge } from "../../judge/mod.ts";
import { buildReport } from "../../lib/report/build.ts";
import { renderReport } from "../../lib/report/mod.ts";
import type { ReportInput } from "../../lib/report/build.ts";
import { fixtureInput } from "./fixture.ts";

const FIXTURE_FILE = "tests/examples/example.toml";

/** The fixture, with issue-13's suite rewriting a file on every tree, judged by the real judge. */
function judgedInput(): ReportInput {
  const input = fixtureInput();
  const matrices = input.matrices.map((m) =>
    m.task !== "issue-13" ? m : {
      ...m,
      tampering: m.trees.map((t) => ({
        tree: t.id,
        author: "repository",
        events: [{ what: "changed files of the tree under test", where: FIXTURE_FILE }],
        suspect: [],
        blame: ["tree" as const],
      })),
    }
  );
  const verdicts = Object.fromEntries(
    matrices.map((m) => [m.task, judge(m, { policy: "majority", agents: input.agents })]),
  );
  const resolutions = Object.fromEntries(
    Object.entries(input.resolutions).map(([id, r]) => {
      const pick = verdicts[id].pick;
      return [id, {
        ...r,
        pick: { agent: pick, outcome: r.scored && pick ? r.patches[pick]?.outcome ?? null : null },
      }];
    }),
  );
  return { ...input, matrices, verdicts, resolutions };
}

/** Markdown as plain text: its escapes undone. */
function unescape(markdown: string): string {
  return markdown.replace(/\\(.)/g, "$1").replace(/&lt;/g, "<").replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

/** The lines under each task of the Markdown's Tasks section, by task id. */
function taskLines(markdown: string): Map<string, string[]> {
  const tasks = new Map<string, string[]>();
  let current: string[] | null = null;
  for (const line of markdown.slice(markdown.indexOf("## Tasks")).split("\n")) {
    const head = line.match(/^- \*\*(.+?)\*\*/);
    if (head) tasks.set(head[1], current = []);
    else if (current && line.startsWith("  - ")) current.push(line.slice(4));
  }
  return tasks;
}

Deno.test("the Markdown's counts of abstentions and stopped patches agree with the reasons it lists", () => {
  const report = buildReport(judgedInput());
  const md = unescape(renderReport(report, "markdown"));
  const tasks = taskLines(md);
  const scored = report.tasks.filter((t) => t.scored).map((t) => t.id);
  const under = (prefix: string) =>
    scored.flatMap((id) => tasks.get(id)!.filter((l) => l.startsWith(prefix)));

  // "it abstained on N": one reason per abstention, under its task.
  const abstained = Number(md.match(/it abstained on (\d+)\./)![1]);
  equal(under("the judge abstained: ").length, abstained);
  ok(abstained > 0, "the fixture has abstentions");

  // The merge gate's table: stopped = wrong stopped + right stopped of all patches.
  const all = md.split("\n").find((l) => l.startsWith("| All patches |"))!;
  const [wrong, right] = [...all.matchAll(/(\d+)\/\d+/g)].slice(1).map((m) => Number(m[1]));
  const stopLines = under("the merge gate stopped ");
  equal(stopLines.length, wrong + right);
  // The tally by rule adds up to the same number.
  const tally = md.match(/Patches stopped, by rule: (.+?)\. Each/)![1];
  const summed = [...tally.matchAll(/ (\d+)(?:,|$)/g)].reduce((n, m) => n + Number(m[1]), 0);
  equal(summed, wrong + right);
  // Every stop names its rule: none is left as "other" when the real judge gave the reasons.
  ok(!/other \d/.test(tally), tally);
  for (const line of stopLines) ok(/not approved under majority: .+/.test(line), line);
});

Deno.test("the fixture file a repository's suite rewrites is named in every format", () => {
  const report = buildReport(judgedInput());
  const task = report.tasks.find((t) => t.id === "issue-13")!;
  equal(task.pick.agent, null);
  // Each tree's session is set aside, blamed on the patch whose tree it is.
  const tampered = task.why.filter((w) => w.kind === "tampered");
  deepEqual(tampered.map((w) => w.subject), ["B", "B#2", "codex", "claude", "cheater"]);
  ok(tampered.every((w) => w.text.includes(FIXTURE_FILE)));
  ok(tampered.find((w) => w.subject === "codex")!.text.includes("blamed on codex's code"));
  ok(tampered.find((w) => w.subject === "B")!.text.includes("blamed on no contestant"));
  // The gate stopped every patch for it, and says so by rule.
  deepEqual(report.mergeGate.stopped.find((s) => s.rule === "its code tampered with the grading"), {
    rule: "its code tampered with the grading",
    patches: 3,
  });
  for (const format of ["terminal", "markdown", "json", "html"] as const) {
    const text = renderReport(report, format);
    ok(text.includes(FIXTURE_FILE), `${format} names ${FIXTURE_FILE}`);
    ok(
      /its code tampered with the grading/.test(text),
      `${format} says the merge gate stopped a patch for tampering`,
    );
  }
});

Deno.test("every kind of reason reaches every format", () => {
  const report = buildReport(judgedInput());
  const kinds = new Set(report.tasks.flatMap((t) => t.why.map((w) => w.kind)));
  deepEqual([...kinds].sort(), ["abstained", "infra-error", "set-aside", "stopped", "tampered"]);
  const texts = {
    terminal: renderReport(report, "terminal").replace(/\s+/g, " "),
    markdown: unescape(renderReport(report, "markdown")),
    json: renderReport(report, "json"),
    html: renderReport(report, "html").replace(/&#39;/g, "'").replace(/&quot;/g, '"')
      .replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&"),
  };
  const needles = [
    // An attempt that hit an infrastructure error, a ground-truth run and a tree that did not run.
    "bwrap: setting up uid map: Permission denied",
    "uv sync failed: could not build a wheel for lxml",
    "the patched tree could not be installed: uv pip exited with 2",
    // A test set aside as unstable, by name.
    "tests/test_network.py::test_timeout_retry",
  ];
  for (const [format, text] of Object.entries(texts)) {
    for (const needle of needles) ok(text.includes(needle), `${format} lacks ${needle}`);
    for (const task of report.tasks) {
      for (const why of task.why) {
        // The first words of every reason, whitespace aside (the terminal wraps).
        const start = why.text.slice(0, 60).replace(/\s+/g, " ");
        ok(text.includes(start), `${format} lacks ${task.id}'s ${why.kind}: ${start}`);
      }
    }
  }
});
