/**
 * The report as GitHub-flavoured Markdown, for a pull-request comment or a wiki page. Every
 * section is a heading with tables; every piece of text from a task or a test is escaped, so an
 * issue title cannot inject Markdown or HTML.
 *
 * Pure function; no permissions needed.
 *
 * @module
 */

import { reportSubtitle, reportTitle, sectionLead } from "./_format.ts";
import { type TableData, textHeaders } from "./_table_data.ts";
import { CUTOFF_TITLE, type ReportTables, reportTables } from "./_tables.ts";
import { taskFacts, tasksNote, tasksTable } from "./_tables_tasks.ts";
import { type Report, SECTION_TITLES, type SectionId } from "./types.ts";

/** Escape text for Markdown (tables included): no emphasis, links, code or HTML survive. */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/[\\`*_[\]|~#!]/g, (c) => `\\${c}`)
    .replace(/\r?\n/g, " ");
}

/** A GFM table; cells are escaped here. */
function mdTable(table: TableData): string[] {
  const line = (cells: string[]) => `| ${cells.map(escapeMarkdown).join(" | ")} |`;
  const rule = table.align.map((a) => (a === "right" ? "--:" : "---"));
  return [line(textHeaders(table)), `|${rule.join("|")}|`, ...table.rows.map(line)];
}

/** Render the report as GitHub-flavoured Markdown. */
export function renderMarkdown(report: Report): string {
  const out: string[] = [
    `# ${escapeMarkdown(reportTitle(report))}`,
    "",
    escapeMarkdown(reportSubtitle(report)),
  ];
  if (report.sandbox.warning) {
    out.push("", "> [!WARNING]", `> ${escapeMarkdown(report.sandbox.warning)}`);
  }
  if (report.noScoredTask) {
    out.push("", "> [!IMPORTANT]", `> ${escapeMarkdown(report.noScoredTask)}`);
  }
  const section = (id: SectionId, body: string[]) =>
    out.push(
      "",
      `## ${SECTION_TITLES[id]}`,
      "",
      `_${escapeMarkdown(sectionLead(report, id))}_`,
      "",
      ...body,
    );

  const data = reportTables(report, "full");
  const { outcomes, notes, cutoff, statuses, costs } = data.agents;
  section("agents", [
    ...mdTable(outcomes),
    ...notes.flatMap((n) => ["", escapeMarkdown(n)]),
    ...(cutoff ? ["", `### ${CUTOFF_TITLE}`, "", ...withSentences(cutoff)] : []),
    "",
    ...mdTable(statuses),
    "",
    ...mdTable(costs),
  ]);
  section("comparisons", withSentences(data.comparisons, "- "));
  section("picking", withSentences(data.picking));
  section("mergeGate", withSentences(data.mergeGate));
  section("separation", mdTable(data.separation));
  section("evidence", withSentences(data.evidence));
  section("discovery", discoverySection(data.discovery));
  section("tasks", tasksSection(report));
  return out.join("\n") + "\n";
}

/** A table and the sentences after it, as paragraphs or with a list marker; no table, no list. */
function withSentences(
  { table, sentences }: { table: TableData | null; sentences: string[] },
  marker = "",
): string[] {
  if (table === null) return sentences.map(escapeMarkdown);
  const text = sentences.map((s) => marker + escapeMarkdown(s));
  return text.length ? [...mdTable(table), "", ...text] : mdTable(table);
}

function discoverySection(d: ReportTables["discovery"]): string[] {
  const lines = [escapeMarkdown(d.summary)];
  if (d.statements) lines.push("", escapeMarkdown(d.statements));
  if (d.note) lines.push("", escapeMarkdown(d.note));
  lines.push("", escapeMarkdown(d.features));
  lines.push("", ...mdTable(d.excluded));
  if (d.unscored) lines.push("", ...mdTable(d.unscored));
  if (d.sanity) lines.push("", ...mdTable(d.sanity));
  lines.push("", escapeMarkdown(d.unstable));
  if (d.infra) lines.push("", ...mdTable(d.infra));
  return lines;
}

function tasksSection(report: Report): string[] {
  const names = report.agents.map((a) => a.name);
  const lines = mdTable(tasksTable(report, names, "full"));
  lines.push("", tasksNote(report), "");
  for (const task of report.tasks) {
    lines.push(
      `- **${escapeMarkdown(task.id)}** ${escapeMarkdown(task.title)}${taskLink(task.ref.url)}`,
    );
    for (const fact of taskFacts(task, report.repeats)) {
      lines.push(`  - ${escapeMarkdown(fact.text)}`);
    }
  }
  return lines;
}

function taskLink(url: string | null): string {
  return url && /^https?:\/\/[^\s<>()\[\]]+$/.test(url) ? ` ([link](${url}))` : "";
}
