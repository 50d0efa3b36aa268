/**
 * `bugbout init` for the terminal.
 *
 * @module
 */

import { resolve } from "node:path";
import { initProject } from "../init.ts";
import { palette } from "../style.ts";
import type { CommandContext } from "./context.ts";

/** Write bugbout.toml and say what was found. */
export async function initCommand(
  { flags, positionals, io }: CommandContext<"init">,
): Promise<number> {
  const dir = resolve(positionals[0] ?? ".");
  const result = await initProject(dir, { force: flags.force });
  const p = palette(io.color);
  io.out(`${p.ok("Wrote")} ${result.file}`);
  for (const [label, value] of result.summary) io.out(`  ${`${label}:`.padEnd(9)} ${value}`);
  io.out(`  agents:   ${result.agents.length ? result.agents.join(", ") : "none on PATH"}`);
  for (const note of result.notes) io.out(p.dim(note));
  for (const warning of result.warnings) {
    io.out(`${p.warn("!")} ${warning.message}`);
    io.out(`  ${p.dim("→")} ${warning.hint}`);
  }
  io.out(
    result.warnings.length
      ? `Next: fix the ! line above, then ${p.bold("bugbout doctor")} checks the rest.`
      : `Next: ${p.bold("bugbout doctor")} checks that everything is in place.`,
  );
  return 0;
}
