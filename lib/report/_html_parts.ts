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
import { HTML_STYLE } from "./_html_style.ts";

/** HTML that is already safe, as opposed to text to escape. */
export interface Raw {
  html: string;
}
/** A table cell: text to escape, or safe HTML. */
export type Cell = string | Raw;

/** Mark HTML as safe. */
export const raw = (html: string): Raw => ({ html });
const cellHtml = (c: Cell) => (typeof c === "string" ? esc(c) : c.html);

/** How a table is laid out. */
export interface TableLayout {
  /** The columns aligned right. */
  numeric?: readonly number[];
  /** The table's class: `fit` lets numbers wrap at their spaces, for a wide table of them. */
  className?: string;
}

/** A table, in a container that scrolls should it ever be wider than the page. */
export function htmlTable(header: string[], rows: Cell[][], layout: TableLayout = {}): string {
  const numeric = layout.numeric ?? [];
  const cls = (i: number) => (numeric.includes(i) ? ` class="num"` : "");
  const table = layout.className ? `<table class="${esc(layout.className)}">` : "<table>";
  return `<div class="scroll">${table}<thead><tr>${
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
export function tableHtml(
  table: TableData,
  rows: Cell[][] = table.rows,
  className?: string,
): string {
  const numeric = table.align.flatMap((a, i) => a === "right" ? [i] : []);
  const caption = table.caption === undefined ? "" : `<h3>${esc(table.caption)}</h3>`;
  return caption + htmlTable(table.headers, rows, { numeric, className });
}

/** Text in bold, as a table cell; like {@linkcode name}, it never wraps inside itself. */
export const strong = (text: string): Raw =>
  raw(`<strong class="name" title="${esc(text)}">${esc(text)}</strong>`);

/**
 * An agent's name, as a table cell: it never wraps; a name too long for a narrow page is cut with
 * "…", in full in its tooltip.
 */
export const name = (text: string): Raw =>
  raw(`<span class="name" title="${esc(text)}">${esc(text)}</span>`);

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

/** A legend line: colour swatches with their labels, then further notes. */
export function legend(
  swatches: readonly [colour: string, label: string][],
  ...notes: string[]
): string {
  return `<p class="legend">${
    swatches.map(([colour, label]) =>
      `<span><i style="background:${colour}"></i>${esc(label)}</span>`
    ).join("")
  }${notes.map((n) => `<span>${esc(n)}</span>`).join("")}</p>`;
}

/** The colours of patch outcomes, and further notes, as a legend line. */
export function outcomeLegend(...notes: string[]): string {
  return legend(RESOLUTION_OUTCOMES.map((o) => [OUTCOME_COLORS[o], OUTCOME_LABELS[o]]), ...notes);
}

/**
 * The start of every report page up to `<body>`: no script, nothing fetched (its Content Security
 * Policy allows inline styles and data: images only), the report's styles and then `style`.
 */
export function pageHead(title: string, generator: string, style: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="generator" content="bugbout ${esc(generator)}">
<title>${esc(title)}</title>
<style>${HTML_STYLE}${style}</style>
</head>
<body>
`;
}
