/**
 * `bugbout doctor` for the terminal: one line per check, a mark, and what to do on failure.
 *
 * @module
 */

import { type Check, doctor as runDoctor } from "../doctor.ts";
import { probeSandbox } from "../sandbox/mod.ts";
import { githubCheck } from "../mine/mod.ts";
import { palette } from "./io.ts";
import type { CommandContext } from "./context.ts";

async function sandboxCheck(setting: "auto" | "bubblewrap" | "seatbelt" | "none"): Promise<Check> {
  const probe = await probeSandbox(setting);
  if (probe.kind === "none") {
    return {
      name: "sandbox",
      status: "warn",
      detail: `sandbox = "none": agents and tests run unconfined and could read the fix`,
      fix: 'Remove `sandbox = "none"` from [run] to confine them (bubblewrap on Linux).',
    };
  }
  return {
    name: "sandbox",
    status: probe.ok ? "ok" : "fail",
    detail: probe.detail,
    fix: probe.fix,
  };
}

/** Run the checks and print them. */
export async function doctor({ flags, io }: CommandContext<"doctor">): Promise<number> {
  const p = palette(io.color);
  const report = await runDoctor(flags.config ?? ".", {
    sandbox: sandboxCheck,
    github: githubCheck,
  });
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
