/**
 * The report as JSON: `report.json`, the report object itself (see `docs/report.schema.json`).
 *
 * Pure function; no permissions needed.
 *
 * @module
 */

import type { Report } from "./types.ts";

/** Render the report as indented JSON text, ending in a newline. */
export function renderJson(report: Report): string {
  return JSON.stringify(report, null, 2) + "\n";
}
