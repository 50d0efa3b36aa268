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
 * report.agents[0].resolveRate; // { k: 2, n: 3, rate: 0.67, low: 0.21, high: 0.94, method: "wilson", ... }
 * ```
 *
 * @module
 */

import { VERSION } from "../version.ts";
import { type Report, REPORT_VERSION } from "./types.ts";
import { contextOf, type ReportInput } from "./_context.ts";
import { agentRows, comparisons } from "./_agents.ts";
import { smallestDetectable } from "./power.ts";
import { mergeGate, picking } from "./_judging.ts";
import { evidenceRows, separationRows } from "./_authors.ts";
import { discovery, taskRows } from "./_tasks.ts";
import { noScoredTask, sandboxUse } from "./_preface.ts";

export type { ReportAgent, ReportInput } from "./_context.ts";
export { UNSANDBOXED_WARNING } from "./_preface.ts";

/**
 * Build the report: per contestant outcomes with Wilson intervals (with `[run] repeats`: pass@1
 * with an interval over tasks, pass@k and pass^k), split at each contestant's training cutoff
 * when it has one, paired comparisons (McNemar, or a sign-flip test of per-task rates with
 * repeats), the judge's picks against baselines, the merge gate, how well each author's tests separate right
 * fixes from wrong ones, evidence roles, how the tasks were found, and every task with its
 * compact matrix. Only scored tasks count in the numbers; an attempt that ended in an
 * infrastructure error is left out of its agent's numbers; every attempt of an agent
 * (`codex`, `codex#2`, ...) counts as that agent's. The sandbox line comes from what the
 * attempts recorded, not from the configuration. The result is plain JSON that `reportSchema`
 * (schema.ts) accepts.
 */
export function buildReport(input: ReportInput): Report {
  const ctx = contextOf(input);
  const found = discovery(ctx);
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
    repeats: ctx.repeats,
    sandbox: sandboxUse(ctx),
    noScoredTask: noScoredTask(ctx, found),
    agents: agentRows(ctx),
    comparisons: comparisons(ctx),
    power: smallestDetectable(ctx.scored.length, ctx.repeats),
    picking: picking(ctx),
    mergeGate: mergeGate(ctx),
    separation: separationRows(ctx),
    evidence: evidenceRows(ctx),
    discovery: found,
    tasks: taskRows(ctx),
  };
}
