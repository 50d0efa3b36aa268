/**
 * Build the report object from the stage files of a bout. Every number any renderer prints is
 * computed here, once.
 *
 * Pure function; no permissions needed.
 *
 * @example
 * ```ts ignore
 * import { buildReport } from "./build.ts";
 * const report = buildReport({ project, tasks, oracles, attempts, matrices, verdicts,
 *   resolutions, agents, generatedAt: new Date().toISOString() });
 * report.agents[0].resolveRate; // { k: 2, n: 3, rate: 0.67, low: 0.21, high: 0.94 }
 * ```
 *
 * @module
 */

import { VERSION } from "../version.ts";
import { type Report, REPORT_VERSION } from "./types.ts";
import { contextOf, type ReportInput } from "./_context.ts";
import { agentRows, comparisons } from "./_agents.ts";
import { mergeGate, picking } from "./_judging.ts";
import { evidenceRows, separationRows } from "./_authors.ts";
import { discovery, taskRows } from "./_tasks.ts";

export type { ReportAgent, ReportInput } from "./_context.ts";

/** The warning every renderer shows when agents ran without a sandbox. */
export const UNSANDBOXED_WARNING: string =
  'This bout ran with sandbox = "none": agents ran unconfined, with the network and this ' +
  "machine's files in reach. Their results may not be comparable, and they could have read the " +
  "fix from elsewhere.";

/** The sandbox warning: the whole bout unconfined, or agents that asked to run outside it. */
function sandboxWarning(input: ReportInput): string | null {
  if (input.project.sandbox === "none") return UNSANDBOXED_WARNING;
  const outside = [
    ...new Set(input.attempts.filter((a) => a.sandbox === "none").map((a) => a.agent)),
  ];
  if (outside.length === 0) return null;
  return `${outside.join(", ")} ran outside bugbout's sandbox (sandboxed = false): ` +
    "unconfined, with the network and this machine's files in reach, so their results may not be " +
    "comparable with the others'.";
}

/**
 * Build the report: per contestant outcomes with Wilson intervals, paired comparisons, the
 * judge's picks against baselines, the merge gate, how well each author's tests separate right
 * fixes from wrong ones, evidence roles, how the tasks were found, and every task with its
 * compact matrix. Only scored tasks count in the numbers; an attempt that ended in an
 * infrastructure error is left out of its agent's numbers. The result is plain JSON that
 * `reportSchema` (schema.ts) accepts.
 */
export function buildReport(input: ReportInput): Report {
  const ctx = contextOf(input);
  return {
    version: REPORT_VERSION,
    kind: "report",
    bugbout: VERSION,
    generatedAt: input.generatedAt,
    project: {
      name: input.project.name,
      repository: input.project.repository,
      policy: input.project.policy,
    },
    sandbox: { mode: input.project.sandbox, warning: sandboxWarning(input) },
    agents: agentRows(ctx),
    comparisons: comparisons(ctx),
    picking: picking(ctx),
    mergeGate: mergeGate(ctx),
    separation: separationRows(ctx),
    evidence: evidenceRows(ctx),
    discovery: discovery(ctx),
    tasks: taskRows(ctx),
  };
}
