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
import { parseShard, type Shard, shardLabel } from "../shard/mod.ts";
import { UsageError } from "../errors.ts";

/** `--shard K/N`, refusing the flags a shard cannot honour. */
function shardOf(flags: CommandContext<"run">["flags"]): Shard {
  const clash = (["tasks-only", "no-race"] as const).find((f) => flags[f]) ??
    (flags.task.length ? "task" : undefined);
  if (clash) {
    throw new UsageError(`--shard cannot be combined with --${clash}`, {
      hint: "A shard races its share of every task and stops; run --tasks-only before the " +
        "shards and --no-race after `bugbout merge`.",
    });
  }
  return parseShard(flags.shard!);
}

/** Run a bout and print its report. */
export async function runCommand({ flags, io, signal }: CommandContext<"run">): Promise<number> {
  const shard = flags.shard === undefined ? undefined : shardOf(flags);
  const bout = await Bout.load(flags.config ?? ".");
  const progress = progressPrinter(io, { quiet: flags.quiet });
  const p = palette(io.color);
  try {
    if (shard) {
      const run = await bout.runShard(shard, {
        retryFailed: flags["retry-failed"],
        signal,
        onEvent: progress.onEvent,
      });
      progress.stop();
      io.out(
        `Shard ${shardLabel(shard)}: ${run.attempts.share} of the race's ${run.attempts.race} ` +
          `attempts (${run.race.ran} ran, ${run.race.skipped} already done), in ` +
          `${bout.project.results.display()}.`,
      );
      io.out(p.dim(
        "When every shard is done: `bugbout merge DIR...` with their .bugbout/ directories, " +
          "then `bugbout run --no-race`.",
      ));
      return 0;
    }
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
