/**
 * Pieces of the HTML report: tables whose cells are escaped unless marked as safe HTML, outcome
 * pills and legends.
 *
 * @module
 */

import { RESOLUTION_OUTCOMES, type ResolutionOutcome } from "../records.ts";
import { OUTCOME_LABELS } from "./_format.ts";
import { escapeHtml as esc, OUTCOME_COLORS } from "./_svg.ts";
import type { TableData } from "./_table_data.ts";

/** HTML that is already safe, as opposed to text to escape. */
export interface Raw {
  html: string;
}
/** A table cell: text to escape, or safe HTML. */
export type Cell = string | Raw;

/** Mark HTML as safe. */
export const raw = (html: string): Raw => ({ html });
const cellHtml = (c: Cell) => (typeof c === "string" ? esc(c) : c.html);

/** A table; `numeric` lists the columns aligned right. */
export function htmlTable(header: string[], rows: Cell[][], numeric: number[] = []): string {
  const cls = (i: number) => (numeric.includes(i) ? ` class="num"` : "");
  return `<div class="scroll"><table><thead><tr>${
    header.map((h, i) => `<th${cls(i)}>${esc(h)}</th>`).join("")
  }</tr></thead><tbody>${
    rows.map((r) => `<tr>${r.map((c, i) => `<td${cls(i)}>${cellHtml(c)}</td>`).join("")}</tr>`)
      .join("")
  }</tbody></table></div>`;
}

/**
 * A section's table, its caption as a heading above it; `rows` replaces the plain rows where some
 * cells are safe HTML.
 */
export function tableHtml(table: TableData, rows: Cell[][] = table.rows): string {
  const numeric = table.align.flatMap((a, i) => a === "right" ? [i] : []);
  const caption = table.caption === undefined ? "" : `<h3>${esc(table.caption)}</h3>`;
  return caption + htmlTable(table.headers, rows, numeric);
}

/** Text in bold, as a table cell. */
export const strong = (text: string): Raw => raw(`<strong>${esc(text)}</strong>`);

/** Sentences as paragraphs. */
export const paragraphs = (sentences: readonly string[]): string =>
  sentences.map((s) => `<p>${esc(s)}</p>`).join("");

/** An outcome as a coloured pill; grey with no outcome. */
export function outcomePill(outcome: ResolutionOutcome | null, label: string): Raw {
  if (!outcome) return raw(`<span class="pill muted">${esc(label)}</span>`);
  return raw(
    `<span class="pill" style="background:${OUTCOME_COLORS[outcome]}">${esc(label)}</span>`,
  );
}

/** The colours of patch outcomes, and further notes, as a legend line. */
export function outcomeLegend(...notes: string[]): string {
  return `<p class="legend">${
    RESOLUTION_OUTCOMES.map((o) =>
      `<span><i style="background:${OUTCOME_COLORS[o]}"></i>${esc(OUTCOME_LABELS[o])}</span>`
    ).join("")
  }${notes.map((n) => `<span>${esc(n)}</span>`).join("")}</p>`;
}
