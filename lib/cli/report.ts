/**
 * `bugbout report`: render the last bout's report again from `.bugbout/`, running nothing.
 *
 * @module
 */

import { resolve } from "node:path";
import { Bout } from "../bout.ts";
import { UsageError } from "../errors.ts";
import { renderReport, REPORT_FORMATS, type ReportFormat } from "../report/mod.ts";
import { palette } from "./io.ts";
import type { CommandContext } from "./main.ts";

/** Render the report in the format asked for. */
export async function report({ flags, io }: CommandContext): Promise<number> {
  const format = (flags.format ?? "terminal") as string;
  if (!(REPORT_FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`unknown report format ${JSON.stringify(format)}`, {
      hint: `Formats: ${REPORT_FORMATS.join(", ")}.`,
    });
  }
  const bout = await Bout.load(typeof flags.config === "string" ? flags.config : ".");
  const built = await bout.report();
  const output = typeof flags.output === "string" ? flags.output : undefined;
  const text = renderReport(built, format as ReportFormat, { color: !output && io.color });
  if (output) {
    await Deno.writeTextFile(resolve(output), text.endsWith("\n") ? text : `${text}\n`);
    io.err(palette(io.color).dim(`Wrote ${output}`));
  } else {
    io.out(text.replace(/\n$/, ""));
  }
  return 0;
}
