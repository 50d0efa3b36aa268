/**
 * `bugbout run` for the terminal.
 *
 * @module
 */

import { Bout } from "../bout.ts";
import { InterruptedError } from "../errors.ts";
import { renderTerminal } from "../report/mod.ts";
import { palette } from "../style.ts";
import type { CommandContext } from "./context.ts";
import { progressPrinter } from "./progress.ts";

/** Run a bout and print its report. */
export async function runCommand({ flags, io, signal }: CommandContext<"run">): Promise<number> {
  const bout = await Bout.load(flags.config ?? ".");
  const progress = progressPrinter(io, { quiet: flags.quiet });
  const p = palette(io.color);
  try {
    const report = await bout.run({
      // No --task means every task; an empty list would select none.
      tasks: flags.task.length ? flags.task : undefined,
      tasksOnly: flags["tasks-only"],
      noRace: flags["no-race"],
      retryFailed: flags["retry-failed"],
      signal,
      onEvent: progress.onEvent,
    });
    progress.stop();
    if (!flags["tasks-only"]) io.out(renderTerminal(report, { color: io.color }));
    io.out(p.dim(`Full report: ${bout.project.results.display("report.html")} (also .md, .json)`));
    return 0;
  } catch (error) {
    progress.stop();
    if (error instanceof InterruptedError || signal.aborted) {
      io.err(p.warn("Stopped. Everything that had finished is saved; run again to carry on."));
      return 130;
    }
    throw error;
  }
}
