/**
 * The report as terminal text: every section, tables no wider than 100 columns, colour only when
 * asked.
 *
 * Pure function; no permissions needed.
 *
 * @module
 */

import { type Palette, palette } from "../style.ts";
import { OUTCOME_SHORT } from "./_format.ts";
import { RESOLUTION_OUTCOMES, type ResolutionOutcome } from "../records.ts";
import { reportSubtitle, reportTitle, sectionLead, taskOutcome } from "./_format.ts";
import { table, type TableOptions, wrap } from "./_table.ts";
import { type TableData, textHeaders } from "./_table_data.ts";
import { CUTOFF_TITLE, type ReportTables, reportTables } from "./_tables.ts";
import { taskFacts, tasksTable } from "./_tables_tasks.ts";
import { type Report, SECTION_TITLES, type SectionId } from "./types.ts";

/** The widest line the terminal report prints. */
export const TERMINAL_WIDTH = 100;

/** How to render for a terminal. */
export interface TerminalOptions {
  /** Colour the output (ANSI escapes). */
  color: boolean;
}

/** Most contestant columns in one tasks table; more agents make more tables. */
const AGENTS_PER_TABLE = 5;

/** Render the report for a terminal: every section, lines of at most 100 columns. */
export function renderTerminal(report: Report, options: TerminalOptions): string {
  const p = palette(options.color);
  const out: string[] = [
    p.bold(reportTitle(report)),
    ...wrap(reportSubtitle(report), TERMINAL_WIDTH),
  ];
  if (report.sandbox.warning) {
    out.push("", ...wrap(`WARNING: ${report.sandbox.warning}`, TERMINAL_WIDTH, 0).map(p.bad));
  }
  if (report.noScoredTask) {
    out.push("", ...wrap(report.noScoredTask, TERMINAL_WIDTH, 0).map(p.warn));
  }
  const t: T = (data, style) =>
    table(textHeaders(data), data.rows, {
      width: TERMINAL_WIDTH,
      headerStyle: p.dim,
      align: data.align,
      style,
    });
  const section = (id: SectionId, body: string[]) =>
    out.push(
      "",
      p.bold(p.accent(SECTION_TITLES[id])),
      ...wrap(sectionLead(report, id), TERMINAL_WIDTH).map(p.dim),
      "",
      ...body,
    );

  const data = reportTables(report, "short");
  const { comparisons, picking, mergeGate, evidence } = data;
  section("agents", agentsSection(data.agents, t, p));
  section("comparisons", withSentences(comparisons.table && t(comparisons.table), comparisons));
  section("picking", withSentences(t(picking.table), picking));
  section("mergeGate", withSentences(t(mergeGate.table), mergeGate));
  section("separation", t(data.separation));
  section("evidence", withSentences(t(evidence.table), evidence));
  section("discovery", discoverySection(data.discovery, t));
  section("tasks", tasksSection(report, t, p));
  return out.join("\n") + "\n";
}

type T = (data: TableData, style?: TableOptions["style"]) => string[];

/** A table (if any), then its sentences as paragraphs after a blank line. */
function withSentences(lines: string[] | null, data: { sentences: string[] }): string[] {
  const text = data.sentences.flatMap((s) => wrap(s, TERMINAL_WIDTH));
  if (lines === null) return text;
  return text.length ? [...lines, "", ...text] : lines;
}

function outcomeStyle(p: Palette): Record<ResolutionOutcome, (s: string) => string> {
  return {
    resolved: p.ok,
    "broke-tests": p.warn,
    "wrong-fix": p.bad,
    "no-fix": p.dim,
    tampered: p.bad,
    divergent: p.bad,
    suspect: p.bad,
  };
}

function agentsSection(agents: ReportTables["agents"], t: T, p: Palette): string[] {
  const style = outcomeStyle(p);
  const { outcomes, notes, cutoff, statuses, costs } = agents;
  // The outcome counts are the columns headed by an outcome's short label.
  const columns = outcomes.headers.map((h) =>
    RESOLUTION_OUTCOMES.find((o) => OUTCOME_SHORT[o] === h)
  );
  const outcomeColumns = (text: string, row: number, col: number) =>
    row >= 0 && columns[col] ? style[columns[col]!](text) : text;
  const lines = t(outcomes, outcomeColumns);
  if (notes.length) lines.push("", ...notes.flatMap((n) => wrap(n, TERMINAL_WIDTH)));
  if (cutoff) lines.push("", p.bold(CUTOFF_TITLE), "", ...withSentences(t(cutoff.table), cutoff));
  return [...lines, "", ...t(statuses), "", ...t(costs)];
}

function discoverySection(d: ReportTables["discovery"], t: T): string[] {
  const lines = wrap(d.summary, TERMINAL_WIDTH);
  if (d.statements) lines.push(...wrap(d.statements, TERMINAL_WIDTH));
  if (d.note) lines.push(...wrap(d.note, TERMINAL_WIDTH));
  lines.push(...wrap(d.features, TERMINAL_WIDTH));
  lines.push("", ...t(d.excluded));
  if (d.unscored) lines.push("", ...t(d.unscored));
  if (d.sanity) lines.push("", ...t(d.sanity));
  lines.push("", ...wrap(d.unstable, TERMINAL_WIDTH));
  if (d.infra) lines.push("", ...t(d.infra));
  return lines;
}

function tasksSection(report: Report, t: T, p: Palette): string[] {
  const style = outcomeStyle(p);
  const contestants = report.agents.map((a) => a.name);
  const lines: string[] = [];
  for (let from = 0; from < Math.max(1, contestants.length); from += AGENTS_PER_TABLE) {
    const names = contestants.slice(from, from + AGENTS_PER_TABLE);
    if (from > 0) lines.push("");
    // Each contestant's cell in the colour of its outcome; grey where it has none.
    lines.push(...t(tasksTable(report, names, "short"), (text, row, col) => {
      if (row < 0 || col < 2 || col >= 2 + names.length) return text;
      const entry = report.tasks[row].agents.find((a) => a.agent === names[col - 2]);
      const outcome = entry ? taskOutcome(entry) : null;
      return outcome === "some" ? p.warn(text) : outcome ? style[outcome](text) : p.dim(text);
    }));
  }
  for (const task of report.tasks) {
    lines.push("", ...wrap(`${task.id}: ${task.title}`, TERMINAL_WIDTH));
    for (const fact of taskFacts(task, report.repeats)) {
      const text = wrap(fact.text, TERMINAL_WIDTH, 4);
      lines.push(...(fact.kind === "not-scored" || fact.kind === "why" ? text.map(p.warn) : text));
    }
  }
  return lines;
}
