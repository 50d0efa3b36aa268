/**
 * `bugbout report`: render the last bout's report again from `.bugbout/`, running nothing.
 *
 * @module
 */

import { resolve } from "node:path";
import { Bout } from "../bout.ts";
import { renderReport, type ReportFormat } from "../report/mod.ts";
import { palette } from "../style.ts";
import type { CommandContext } from "./context.ts";

/** Render the report in the format asked for. */
export async function reportCommand({ flags, io }: CommandContext<"report">): Promise<number> {
  // Parsing checked --format against the table's choices; this line fails to type-check if those
  // choices name a format the renderers lack.
  const format: ReportFormat = flags.format ?? "terminal";
  const bout = await Bout.load(flags.config ?? ".");
  if (flags.open) {
    // Before any bout, this says so and hints `bugbout run`.
    const site = await bout.site();
    io.out(site.index);
    return 0;
  }
  // Before any bout, this says so and hints `bugbout run`.
  const built = await bout.report();
  const output = flags.output;
  const text = renderReport(built, format, { color: !output && io.color });
  if (output) {
    await Deno.writeTextFile(resolve(output), text.endsWith("\n") ? text : `${text}\n`);
    io.err(palette(io.color).dim(`Wrote ${output}`));
  } else {
    io.out(text.replace(/\n$/, ""));
  }
  return 0;
}
