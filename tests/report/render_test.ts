/**
 * The four renderers: every section in each, the terminal's 100 columns, colour only when asked,
 * escaping of hostile text, and numbers taken from the report rather than recomputed.
 */

import { deepEqual, equal, match, ok } from "node:assert/strict";
import { buildReport } from "../../lib/report/build.ts";
import {
  escapeMarkdown,
  renderHtml,
  renderJson,
  renderMarkdown,
  renderReport,
  renderTerminal,
  type Report,
  REPORT_FORMATS,
  reportSchema,
  SECTION_TITLES,
  TERMINAL_WIDTH,
} from "../../lib/report/mod.ts";
import { fixtureInput, HOSTILE_TEST, HOSTILE_TITLE } from "./fixture.ts";

const report = buildReport(fixtureInput());
const titles = Object.values(SECTION_TITLES);
// deno-lint-ignore no-control-regex -- ANSI escapes start with ESC.
const ANSI = /\x1b\[[0-9;]*m/g;
const width = (line: string) => [...line.replace(ANSI, "")].length;

/** The fixture's report made hard to fit: long names, many agents, long titles and reasons. */
function crowded(): Report {
  const r = structuredClone(report);
  const long = (s: string) => `${s}-${"x".repeat(40)}`;
  const extra = Array.from(
    { length: 9 },
    (_, i) => ({ ...r.agents[i % 3], name: long(`agent${i}`) }),
  );
  r.agents.push(...extra);
  for (const task of r.tasks) {
    task.title = `${task.title} ${"and a very long title ".repeat(10)}`;
    task.agents.push(...extra.map((a) => ({ ...task.agents[0], agent: a.name })));
    task.pick.reason = `${task.pick.reason} ${"because ".repeat(30)}`;
  }
  r.mergeGate.agents.push(...extra.map((a) => ({ ...r.mergeGate.agents[0], agent: a.name })));
  r.separation.push(...extra.map((a) => ({ ...r.separation[0], author: a.name })));
  r.evidence.push(...extra.map((a) => ({ ...r.evidence[0], agent: a.name })));
  r.discovery.excluded.reasons.push({ reason: "y".repeat(150), count: 12345 });
  r.discovery.infraErrors.items[0].message = "z".repeat(300);
  r.picking.bestSingle.agents = extra.map((a) => a.name);
  return r;
}

Deno.test("renderTerminal() prints every section", () => {
  const text = renderTerminal(report, { color: false });
  for (const title of titles) ok(text.includes(`\n${title}\n`), `missing section ${title}`);
  ok(text.includes("WARNING: Every attempt of this bout ran without a sandbox"));
});

Deno.test("renderTerminal() fits every line in 100 columns, even when crowded", () => {
  for (const r of [report, crowded()]) {
    for (const color of [false, true]) {
      const lines = renderTerminal(r, { color }).split("\n");
      const wide = lines.filter((l) => width(l) > TERMINAL_WIDTH);
      deepEqual(wide, [], `lines wider than ${TERMINAL_WIDTH} columns (color ${color})`);
    }
  }
  equal(TERMINAL_WIDTH, 100);
});

Deno.test("renderTerminal() colours only when asked", () => {
  equal(renderTerminal(report, { color: false }).match(ANSI), null);
  const coloured = renderTerminal(report, { color: true });
  ok((coloured.match(ANSI) ?? []).length > 20);
  equal(coloured.replace(ANSI, ""), renderTerminal(report, { color: false }).replace(ANSI, ""));
});

Deno.test("attack: escape sequences in an agent's test id or message never reach the terminal", () => {
  const r = structuredClone(report);
  const attack = "\x1b[2J\x1b[1A\rresolved 10/10\x07\u009b31m";
  r.tasks[0].title += attack;
  r.tasks[0].why.push({ kind: "scoring", subject: `codex${attack}`, text: `scoring: ${attack}` });
  const text = renderTerminal(r, { color: false });
  match(text, /scoring: \uFFFD\[2J/);
  // deno-lint-ignore no-control-regex
  equal(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/.test(text), false);
});

Deno.test("renderTerminal() shows the report's numbers", () => {
  const text = renderTerminal(report, { color: false });
  match(text, /codex\s+3\s+2\s+0\s+1\s+0\s+67%\s+21–94%/);
  match(text, /cheater\s+3\s+0\s+0\s+2\s+1\s+0%\s+0–56%/);
  match(text, /claude\s+2m 30s\s+185k \(3 of 5\)\s+60k\s+\$2\.15 \(3 of 5\)\s+\$1\.08\s+3m 45s/);
  match(text, /an agent at random \(expected\)\s+1\.33\s+3\s+44%/);
  match(text, /all patches\s+8\s+2\s+1\/2 50% \(9–91%\)\s+3\/4\s+3\/4/);
});

Deno.test("every renderer prints the report's numbers instead of recomputing them", () => {
  const r = structuredClone(report);
  r.agents[0].outcomes.resolved = 77;
  r.agents[0].resolveRate = {
    ...r.agents[0].resolveRate,
    k: 77,
    rate: 0.123,
    low: 0.045,
    high: 0.678,
  };
  r.picking.random.expected = 9.87;
  r.mergeGate.overall.wrongStopped = 42;
  for (const text of [renderTerminal(r, { color: false }), renderMarkdown(r), renderHtml(r)]) {
    ok(text.includes("77"), "the changed count");
    ok(text.includes("12%") && text.includes("5–68%"), "the changed rate and interval");
    ok(text.includes("9.87"), "the changed expectation");
    ok(text.includes("42/4"), "the changed gate count");
  }
});

Deno.test("renderMarkdown() writes every section as a heading with GitHub tables", () => {
  const text = renderMarkdown(report);
  for (const title of titles) ok(text.includes(`\n## ${title}\n`), `missing section ${title}`);
  ok(text.startsWith("# bugbout report: headers\n"));
  ok(text.includes("> [!WARNING]"));
  match(text, /\| codex \| 3 \| 2 \| 0 \| 1 \| 0 \| 67% \(21–94%\) \|/);
  // Every table row has as many cells as its header.
  const rows = text.split("\n").filter((l) => l.startsWith("|"));
  const cells = (l: string) => l.replace(/\\\|/g, "").split("|").length;
  for (const row of rows) ok(cells(row) >= 3);
});

Deno.test("renderMarkdown() escapes a hostile title so it stays text", () => {
  const text = renderMarkdown(report);
  ok(!text.includes("<script"), "no raw script tag");
  ok(text.includes("&lt;script&gt;window.\\_\\_pwned = 1&lt;/script&gt; &amp; more"));
  equal(escapeMarkdown("a | b *c* [d](e) `f`"), "a \\| b \\*c\\* \\[d\\](e) \\`f\\`");
  // A pipe in a title does not add a table column.
  const r = structuredClone(report);
  r.tasks[0].title = "split | here";
  const row = renderMarkdown(r).split("\n").find((l) => l.startsWith("| issue-11 |"))!;
  equal(row.replace(/\\\|/g, "").split("|").length, 8);
});

Deno.test("renderJson() writes the report object itself", () => {
  const text = renderJson(report);
  deepEqual(JSON.parse(text), report);
  reportSchema.parse(JSON.parse(text));
  ok(text.endsWith("}\n"));
});

Deno.test("renderHtml() is one self-contained page with every section and chart", () => {
  const html = renderHtml(report);
  ok(html.startsWith("<!doctype html>"));
  for (const id of Object.keys(SECTION_TITLES)) ok(html.includes(`<section id="${id}"`), id);
  for (const title of titles) ok(html.includes(`<h2>${title.replace("'", "&#39;")}</h2>`), title);
  for (const chart of ["chart-outcomes", "chart-picking"]) {
    ok(html.includes(`<svg id="${chart}"`), chart);
  }
  ok(html.includes(`<table id="chart-tasks"`));
  // A matrix table for each task with a row that differs between trees (issue-15 has none).
  equal((html.match(/<table class="heatmap"/g) ?? []).length, 4);
  ok(html.includes(`id="sandbox-warning"`));
  // Nothing to fetch: no external resource of any kind, and a policy that forbids it anyway.
  // Attribute values are escaped text (a hostile test id is a tooltip): only markup counts.
  const markup = html.replace(/"[^"]*"/g, '""');
  for (
    const bad of [/<script/i, /<link/i, /<img/i, /<iframe/i, /<[^>]*\ssrc=/i, /@import/i, /url\(/i]
  ) {
    equal(markup.match(bad), null, `found ${bad}`);
  }
  ok(html.includes(`content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`));
});

Deno.test("renderHtml() escapes hostile titles and test ids", () => {
  const html = renderHtml(report);
  ok(!html.includes(HOSTILE_TITLE));
  ok(html.includes("&lt;script&gt;window.__pwned = 1&lt;/script&gt; &amp; more"));
  ok(!html.includes(HOSTILE_TEST));
  ok(html.includes("&lt;img src=x onerror=&quot;window.__pwned = 2&quot;&gt;"));
  const r = structuredClone(report);
  r.tasks[0].ref.url = "javascript:alert(1)";
  r.project.name = `"><svg onload=alert(1)>`;
  const hostile = renderHtml(r);
  ok(!hostile.includes("javascript:"));
  ok(!hostile.includes("<svg onload"));
});

Deno.test("renderHtml() folds every matrix and counts the tests it does not show", () => {
  const html = renderHtml(report);
  equal((html.match(/<details class="matrix">/g) ?? []).length, 5, "every matrix folded");
  equal(html.match(/<details[^>]* open/), null, "none open");
  ok(html.includes("8 tests × 5 trees, 7 with outcomes that differ between trees"));
  ok(html.includes("+ 1 test with the same outcome on every tree, all by repository"));
  // issue-15's cheater tree did not run.
  ok(html.includes("+ 3 tests with the same outcome on every tree that ran (codex 1, cheater 1"));
  const r = structuredClone(report);
  r.tasks[0].matrix!.omitted = 51_214;
  ok(renderHtml(r).includes("51214 more tests whose outcome differs are not shown"));
});

Deno.test("every renderer takes the sandbox line and its warning from the report", () => {
  const r = structuredClone(report);
  // The terminal wraps the line; HTML escapes the apostrophe.
  const texts = () =>
    [renderTerminal(r, { color: false }), renderMarkdown(r), renderHtml(r)].map((t) =>
      t.replace(/\s+/g, " ").replaceAll("&#39;", "'")
    );
  r.sandbox = {
    mode: "bubblewrap",
    attempts: { bubblewrap: 19, seatbelt: 0, none: 0 },
    warning: null,
  };
  for (const text of texts()) {
    ok(text.includes("sandbox bubblewrap"));
    ok(!/WARNING|sandbox-warning/.test(text));
  }
  r.sandbox = {
    mode: "mixed",
    attempts: { bubblewrap: 14, seatbelt: 0, none: 5 },
    warning: "cheater ran outside bugbout's sandbox on 5 of 19 attempts",
  };
  for (const text of texts()) {
    ok(text.includes("sandbox mixed: bubblewrap on 14 attempts, none on 5 attempts"), text);
    ok(text.includes("cheater ran outside bugbout's sandbox on 5 of 19 attempts"));
  }
  r.sandbox = { mode: "unused", attempts: { bubblewrap: 0, seatbelt: 0, none: 0 }, warning: null };
  for (const text of texts()) ok(text.includes("sandbox not used (no attempt ran)"));
});

Deno.test("every format says at its top when no task was scored", () => {
  const r = structuredClone(report);
  r.noScoredTask =
    "No task was scored, so every number in this report is empty. Run `bugbout run`.";
  const first = (text: string, marker: string) => {
    const at = text.indexOf(marker);
    ok(at >= 0, `no ${marker}`);
    ok(at < text.indexOf(SECTION_TITLES.agents), `${marker} comes after the first section`);
  };
  first(renderTerminal(r, { color: false }), "No task was scored, so every number");
  const md = renderMarkdown(r);
  first(md, "> [!IMPORTANT]\n> No task was scored, so every number");
  ok(md.includes("Run \\`bugbout run\\`."), "escaped for Markdown");
  first(renderHtml(r), `<div class="notice" role="status" id="no-scored-task">No task was scored`);
  equal(JSON.parse(renderJson(r)).noScoredTask, r.noScoredTask);
  // Nothing of the kind when tasks were scored.
  for (const text of [renderTerminal(report, { color: false }), renderMarkdown(report)]) {
    ok(!text.includes("No task was scored"));
  }
  ok(!renderHtml(report).includes("no-scored-task"));
});

Deno.test("renderReport() renders every format", () => {
  for (const format of REPORT_FORMATS) ok(renderReport(report, format).length > 1000, format);
  equal(renderReport(report, "json"), renderJson(report));
  equal(renderReport(report, "terminal"), renderTerminal(report, { color: false }));
});

Deno.test("HTML: the cost chart has a point per contestant that reported a cost, at its cost and rate", () => {
  const r = structuredClone(report);
  const priced = r.agents.filter((a) => a.cost.totalUsd !== null && a.tasks > 0);
  ok(priced.length >= 2, "the fixture prices two agents");
  const html = renderHtml(r);
  const chart = html.match(/<svg id="cost-chart"[\s\S]*?<\/svg>/)?.[0] ?? "";
  ok(chart, "a cost chart");
  const points = [...chart.matchAll(/<g class="point" data-agent="([^"]*)">/g)].map((m) => m[1]);
  deepEqual(points, priced.map((a) => a.name));
  // The dearer agent sits further right; the better one higher up.
  const at = (name: string) => {
    const m = chart.match(
      new RegExp(`data-agent="${name}">[\\s\\S]*?<circle cx="([\\d.]+)" cy="([\\d.]+)"`),
    )!;
    return { x: Number(m[1]), y: Number(m[2]) };
  };
  const [a, b] = priced;
  equal(Math.sign(at(a.name).x - at(b.name).x), Math.sign(a.cost.totalUsd! - b.cost.totalUsd!));
  equal(
    Math.sign(at(b.name).y - at(a.name).y),
    Math.sign(a.resolveRate.rate! - b.resolveRate.rate!),
  );

  // A hostile name is text, and without any cost there is no chart at all.
  r.agents[0].name = `<script>alert(1)</script>`;
  ok(!renderHtml(r).includes("<script>alert(1)"));
  for (const agent of r.agents) agent.cost = { attempts: 0, totalUsd: null };
  ok(!renderHtml(r).includes(`id="cost-chart"`));
});
