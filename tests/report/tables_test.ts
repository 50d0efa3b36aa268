/**
 * The tables and sentences every text renderer lays out: well-formed in both voices, the same
 * numbers in both, and printed in full by the terminal, Markdown and HTML renderers.
 */

import { deepEqual, equal, ok } from "node:assert/strict";
import { buildReport } from "../../lib/report/build.ts";
import { escapeHtml, escapeMarkdown, renderHtml, renderMarkdown } from "../../lib/report/mod.ts";
import { renderTerminal } from "../../lib/report/terminal.ts";
import { type TableData, textHeaders, type Voice } from "../../lib/report/_table_data.ts";
import { NOTHING_TO_COMPARE, reportTables } from "../../lib/report/_tables.ts";
import { taskFacts, tasksTable } from "../../lib/report/_tables_tasks.ts";
import type { Report } from "../../lib/report/types.ts";
import { fixtureInput } from "./fixture.ts";

const report = buildReport(fixtureInput());
const names = report.agents.map((a) => a.name);

/** Every table of a voice, named for the messages. */
function tables(r: Report, voice: Voice): [string, TableData][] {
  const t = reportTables(r, voice);
  const d = t.discovery;
  const found: [string, TableData | null][] = [
    ["outcomes", t.agents.outcomes],
    ["statuses", t.agents.statuses],
    ["costs", t.agents.costs],
    ["comparisons", t.comparisons.table],
    ["picking", t.picking.table],
    ["merge gate", t.mergeGate.table],
    ["separation", t.separation],
    ["evidence", t.evidence.table],
    ["excluded", d.excluded],
    ["unscored", d.unscored],
    ["sanity", d.sanity],
    ["infrastructure errors", d.infra],
    ["tasks", tasksTable(r, names, voice)],
  ];
  return found.filter((f): f is [string, TableData] => f[1] !== null);
}

Deno.test("every table has one heading, one alignment and one cell per column in both voices", () => {
  for (const voice of ["full", "short"] as const) {
    const all = tables(report, voice);
    equal(all.length, 13, "the fixture fills every table");
    for (const [name, t] of all) {
      equal(t.align.length, t.headers.length, `${voice} ${name}: alignments`);
      ok(t.rows.length > 0, `${voice} ${name}: rows`);
      for (const row of t.rows) equal(row.length, t.headers.length, `${voice} ${name}: cells`);
      ok(t.rows.flat().every((c) => typeof c === "string" && c.length > 0), `${voice} ${name}`);
    }
  }
});

Deno.test("the short voice shortens headings, never the numbers of tables with the same columns", () => {
  const full = Object.fromEntries(tables(report, "full"));
  const short = Object.fromEntries(tables(report, "short"));
  for (const name of ["statuses", "comparisons", "separation", "excluded"]) {
    deepEqual(short[name].rows, full[name].rows, name);
    deepEqual(short[name].align, full[name].align, name);
  }
  deepEqual(full.comparisons.headers[1], "Both resolved");
  deepEqual(short.comparisons.headers[1], "both");
  // A rate and its interval share a cell in the full voice and have one each in the short one.
  equal(full.outcomes.rows[0].at(-1), "67% (21–94%)");
  deepEqual(short.outcomes.rows[0].slice(-2), ["67%", "21–94%"]);
  // The model is a full-voice column of the costs table only.
  deepEqual(full.costs.headers.slice(0, 2), ["Agent", "Model"]);
  ok(!short.costs.headers.includes("model"));
});

Deno.test("Markdown prints every row of every full-voice table, escaped", () => {
  const md = renderMarkdown(report);
  for (const [name, t] of tables(report, "full")) {
    const line = (cells: string[]) => `| ${cells.map(escapeMarkdown).join(" | ")} |`;
    ok(md.includes(`\n${line(textHeaders(t))}\n`), `${name}: headings`);
    for (const row of t.rows) ok(md.includes(`\n${line(row)}\n`), `${name}: ${row.join(", ")}`);
  }
});

Deno.test("HTML prints every heading and cell of the full-voice tables, escaped", () => {
  const html = renderHtml(report);
  for (const [name, t] of tables(report, "full").filter(([n]) => n !== "tasks")) {
    if (t.caption) ok(html.includes(`<h3>${escapeHtml(t.caption)}</h3>`), `${name}: caption`);
    // The evidence table is ten columns wide: HTML tags the examiners' names instead of giving
    // the role a column.
    const heads = t.headers.flatMap((h, i) =>
      name === "evidence" && h === "Role"
        ? []
        : [`<th${t.align[i] === "right" ? ` class="num"` : ""}>${escapeHtml(h)}</th>`]
    );
    ok(html.includes(`<thead><tr>${heads.join("")}</tr></thead>`), `${name}: headings`);
    for (const row of t.rows) {
      for (const cell of row) ok(html.includes(`${escapeHtml(cell)}<`), `${name}: ${cell}`);
    }
  }
  ok(html.includes(`>gemini</span> <span class="tag">examiner</span>`));
});

Deno.test("the terminal prints every row of the short-voice tables in order", () => {
  const text = renderTerminal(report, { color: false });
  const pattern = (cells: string[]) =>
    new RegExp(cells.map((c) => c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(" +"));
  for (const [name, t] of tables(report, "short").filter(([n]) => n !== "tasks")) {
    ok(pattern(textHeaders(t)).test(text), `${name}: headings`);
    for (const row of t.rows) ok(pattern(row).test(text), `${name}: ${row.join(", ")}`);
  }
});

Deno.test("with fewer than two contestants every renderer says so instead of an empty table", () => {
  const r = structuredClone(report);
  r.comparisons = [];
  equal(reportTables(r, "full").comparisons.table, null);
  for (const text of [renderTerminal(r, { color: false }), renderMarkdown(r), renderHtml(r)]) {
    ok(text.includes(NOTHING_TO_COMPARE));
    ok(!text.includes("Only the second") && !text.includes("only second"));
  }
});

Deno.test("the full voice marks the merge gate's decision in the tasks table; the short does not", () => {
  const full = tasksTable(report, names, "full");
  const short = tasksTable(report, names, "short");
  deepEqual(full.headers, ["Task", "Title", "codex", "claude", "cheater", "Judge's pick"]);
  deepEqual(short.headers, ["task", "title", "codex", "claude", "cheater", "judge's pick"]);
  const issue11 = report.tasks.findIndex((t) => t.id === "issue-11");
  const approved = report.tasks[issue11].agents.find((a) => a.agent === "codex")!.attempts[0]
    .approved;
  equal(approved, true);
  ok(full.rows[issue11][2].endsWith(" ✓"));
  ok(!short.rows[issue11][2].includes("✓"));
  equal(full.rows[issue11][2].replace(" ✓", ""), short.rows[issue11][2]);
});

Deno.test("taskFacts() says why a task was not scored first, and names every flagged patch", () => {
  for (const task of report.tasks) {
    const facts = taskFacts(task);
    equal(facts[0]?.kind === "not-scored", !task.scored, task.id);
    const flagged = task.agents.filter((a) => a.attempts[0]?.flags.length);
    deepEqual(
      facts.filter((f) => f.kind === "flags").map((f) => f.text),
      flagged.map((a) => `${a.agent}'s patch: ${a.attempts[0].flags.join(", ")}`),
    );
  }
  const terminal = renderTerminal(report, { color: false });
  const markdown = renderMarkdown(report);
  ok(terminal.includes("    cheater's patch: edits conftest.py\n"));
  ok(markdown.includes("  - cheater's patch: edits conftest.py\n"));
});
