/**
 * `bugbout report`: render the last bout's report again from `.bugbout/`, running nothing.
 *
 * @module
 */

import { resolve } from "node:path";
import { Bout } from "../bout.ts";
import { BugboutError } from "../errors.ts";
import { lstatIfExists } from "../fs.ts";
import { TASKS_FILE } from "../mine/mod.ts";
import { renderReport, type ReportFormat } from "../report/mod.ts";
import { palette } from "../style.ts";
import type { CommandContext } from "./context.ts";

/** Render the report in the format asked for. */
export async function reportCommand({ flags, io }: CommandContext<"report">): Promise<number> {
  // Parsing checked --format against the table's choices; this line fails to type-check if those
  // choices name a format the renderers lack.
  const format: ReportFormat = flags.format ?? "terminal";
  const bout = await Bout.load(flags.config ?? ".");
  // Before any bout there is nothing to report. `bugbout tasks` alone would only mine, and lead
  // to a report of zeros: the way forward is a run.
  const results = bout.project.results;
  if (!(await lstatIfExists(results.file(TASKS_FILE)))) {
    throw new BugboutError(
      `Nothing to report yet: no bout has run here (${
        results.display(TASKS_FILE)
      } does not exist).`,
      { hint: "Run `bugbout run` to mine the tasks, race the agents and score them." },
    );
  }
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
