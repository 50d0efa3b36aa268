/**
 * `bugbout merge DIR...`: shards' results into this project's `.bugbout/`.
 *
 * @module
 */

import { UsageError } from "../errors.ts";
import { Project } from "../project.ts";
import { mergeShards } from "../shard/mod.ts";
import { palette } from "../style.ts";
import type { CommandContext } from "./context.ts";

/** Merge the shards named on the command line and say what to run next. */
export async function mergeCommand(
  { flags, positionals, io }: CommandContext<"merge">,
): Promise<number> {
  if (!positionals.length) {
    throw new UsageError("merge needs the shards' results directories", {
      hint: "Run `bugbout merge DIR...` with the .bugbout/ directories `bugbout run --shard K/N` " +
        "wrote.",
    });
  }
  const project = await Project.load(flags.config ?? ".");
  const result = await mergeShards(project, positionals, { partial: flags.partial });
  const p = palette(io.color);
  io.out(p.ok(result.summary[0].toUpperCase() + result.summary.slice(1)));
  const next = result.missing.length || result.unfinished
    ? "Then `bugbout run` races what the shards left and finishes the bout."
    : "Finish the bout with `bugbout run --no-race`: cross-examination, judging, scoring, report.";
  io.out(p.dim(next));
  return 0;
}
