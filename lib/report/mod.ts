/**
 * The report of a bout: one plain-JSON object built from the stage files of `.bugbout/`, and four
 * renderers of it (terminal, Markdown, JSON, HTML). Every number is computed once, in
 * {@linkcode buildReport}; the renderers only format.
 *
 * Pure functions; no permissions needed.
 *
 * @example
 * ```ts ignore
 * import { buildReport, renderReport } from "./lib/report/mod.ts";
 * const report = buildReport(input);
 * const html = renderReport(report, "html");
 * ```
 *
 * @module
 */

import { renderHtml } from "./html.ts";
import { renderJson } from "./json.ts";
import { renderMarkdown } from "./markdown.ts";
import { renderTerminal } from "./terminal.ts";
import type { Report } from "./types.ts";

export { buildReport, type ReportAgent, type ReportInput, UNSANDBOXED_WARNING } from "./build.ts";
export { escapeHtml, renderHtml } from "./html.ts";
export { renderJson } from "./json.ts";
export { escapeMarkdown, renderMarkdown } from "./markdown.ts";
export { renderTerminal, TERMINAL_WIDTH, type TerminalOptions } from "./terminal.ts";
export * from "./types.ts";
export { reportJsonSchema, reportSchema } from "./schema.ts";
export { type Detectable, detectableText, SIGNIFICANCE, smallestDetectable } from "./power.ts";
export { type Artifacts, JUNIT_DIR, SITE_DIR, writeArtifacts } from "./site/write.ts";

/** The formats a report renders to. */
export const REPORT_FORMATS = ["terminal", "markdown", "json", "html"] as const;
/** A format a report renders to. */
export type ReportFormat = typeof REPORT_FORMATS[number];

/** The file extension of each format written to disk (`report.md`, ...). */
export const REPORT_EXTENSIONS: Readonly<Record<ReportFormat, string>> = {
  terminal: "txt",
  markdown: "md",
  json: "json",
  html: "html",
};

/** Render the report in one format; colour applies to the terminal format only. */
export function renderReport(
  report: Report,
  format: ReportFormat,
  options: { color?: boolean } = {},
): string {
  switch (format) {
    case "terminal":
      return renderTerminal(report, { color: options.color ?? false });
    case "markdown":
      return renderMarkdown(report);
    case "json":
      return renderJson(report);
    case "html":
      return renderHtml(report);
    default: {
      const never: never = format;
      throw new TypeError(`Cannot render a report as ${never}`);
    }
  }
}
