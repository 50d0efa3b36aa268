/**
 * `bugbout doctor` for the terminal: one line per check, a mark, and what to do on failure.
 *
 * @module
 */

import { runDoctor } from "../doctor.ts";
import { palette } from "../style.ts";
import type { CommandContext } from "./context.ts";

/** Run the checks and print them. */
export async function doctorCommand({ flags, io }: CommandContext<"doctor">): Promise<number> {
  const p = palette(io.color);
  const report = await runDoctor(flags.config ?? ".");
  const width = Math.max(...report.checks.map((c) => c.name.length));
  for (const check of report.checks) {
    const mark = check.status === "ok"
      ? p.ok("✓")
      : check.status === "warn"
      ? p.warn("!")
      : p.bad("✗");
    io.out(`${mark} ${check.name.padEnd(width)}  ${check.detail}`);
    if (check.fix && check.status !== "ok") {
      io.out(`  ${" ".repeat(width)}  ${p.dim("→")} ${check.fix}`);
    }
  }
  io.out(
    report.ok
      ? p.ok("Ready: `bugbout run` can start.")
      : p.bad("Not ready: fix the ✗ lines above, then run `bugbout doctor` again."),
  );
  return report.ok ? 0 : 1;
}
