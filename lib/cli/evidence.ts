/**
 * `bugbout evidence` for the terminal: runs the check (`lib/evidence/`) and prints, for each new
 * or changed test, where it stands on the base, on the change and on the reference fix. Exits 0
 * when at least one test fails on the base (it discriminates the bug), 1 when none does, so it can
 * gate a CI job or an agent's own loop.
 *
 * @module
 */

import type { EvidenceRole } from "../roles.ts";
import { checkEvidence, type EvidenceCheck, type EvidenceReport } from "../evidence/mod.ts";
import type { Outcome } from "../records.ts";
import { type Palette, palette } from "../style.ts";
import type { CommandContext } from "./context.ts";

const ROLE_WORDS: Record<EvidenceRole, string> = {
  "gold-aligned": "gold-aligned: targets the bug and accepts the reference fix",
  "candidate-specific":
    "candidate-specific: separates the bug from this change, not from the reference",
  "regression-only": "regression-only: says nothing about the bug",
  misleading: "misleading: contradicts the reference fix",
  unstable: "unstable: its runs disagree",
  "not-comparable": "not comparable: skipped or not run somewhere",
};

/** `passed`, `failed ×2`, `passed, failed`. */
export function describeRuns(outcomes: readonly Outcome[]): string {
  if (outcomes.length === 0) return "not run";
  if (outcomes.every((o) => o === outcomes[0])) {
    return outcomes.length === 1 ? outcomes[0] : `${outcomes[0]} ×${outcomes.length}`;
  }
  return outcomes.join(", ");
}

function verdict(check: EvidenceCheck, p: Palette): string {
  const words = check.onBase === "fails"
    ? p.ok("discriminates the bug (fails on the base)")
    : check.onBase === "passes"
    ? p.warn("no evidence about the bug (passes on the base)")
    : check.onBase === "unstable"
    ? p.warn("unstable on the base: not evidence")
    : p.warn("did not pass or fail on the base: not evidence");
  return check.role ? `${words}; ${ROLE_WORDS[check.role]}` : words;
}

/** The report as lines for a person. */
export function renderEvidence(report: EvidenceReport, p: Palette): string[] {
  const lines: string[] = [];
  const short = (c: string) => c.slice(0, 12);
  const against = report.against
    ? `, and on the reference fix ${report.against.rev} (${short(report.against.commit)})`
    : "";
  for (const note of report.notes) lines.push(p.dim(note));
  if (report.tests.length === 0) {
    lines.push(
      `The change adds or changes no test (test files: ${report.globs.join(", ")}; ` +
        `changed: ${report.testFiles.length} test file(s), ${report.sourceFiles.length} other).`,
    );
    return lines;
  }
  lines.push(
    `Replayed ${report.tests.length} new or changed test(s) on the base ${report.base.rev} ` +
      `(${short(report.base.commit)}), on the change as it is${against}.`,
  );
  for (const check of report.tests) {
    lines.push("");
    lines.push(`  ${p.bold(check.test)}`);
    lines.push(`    base:      ${describeRuns(check.base)}`);
    lines.push(`    change:    ${describeRuns(check.change)}`);
    if (check.reference) lines.push(`    reference: ${describeRuns(check.reference)}`);
    lines.push(`    → ${verdict(check, p)}`);
  }
  lines.push("");
  const n = report.discriminating;
  lines.push(
    n > 0 ? p.ok(`${n} of ${report.tests.length} test(s) discriminate the bug.`) : p.bad(
      `No test discriminates the bug: every one of them passes (or does not run) on the base.`,
    ),
  );
  if (report.inadequateClosure === true) {
    lines.push(p.warn(
      "Evidence-inadequate closure: no test both fails on the base and passes on the change.",
    ));
  } else if (report.inadequateClosure === false) {
    lines.push("At least one test fails on the base and passes on the change.");
  }
  return lines;
}

/** Run `bugbout evidence`. */
export async function evidenceCommand(
  { flags, positionals, io, signal }: CommandContext<"evidence">,
): Promise<number> {
  const report = await checkEvidence({
    dir: positionals[0] ?? ".",
    base: flags.base,
    against: flags.against,
    tests: flags.tests,
    config: flags.config,
    onProgress: io.interactive ? (line) => io.err(palette(io.color).dim(line)) : undefined,
    signal,
  });
  if (flags.json) io.out(JSON.stringify(report, null, 2));
  else io.out(renderEvidence(report, palette(io.color)).join("\n"));
  return report.discriminating > 0 ? 0 : 1;
}
