/**
 * The "Agents" and "Are the differences real?" sections.
 *
 * @module
 */

import { type Attempt, ATTEMPT_STATUSES, RESOLUTION_OUTCOMES } from "../records.ts";
import { median, pairedComparison, wilson } from "./stats.ts";
import type { AgentRow, ComparisonRow } from "./types.ts";
import {
  attempted,
  attemptOf,
  type Context,
  outcomeOf,
  type ReportAgent,
  resolvedMap,
} from "./_context.ts";

/** Every contestant against the ground truth, in configuration order. */
export function agentRows(ctx: Context): AgentRow[] {
  return ctx.contestants.map((agent) => agentRow(ctx, agent));
}

function agentRow(ctx: Context, agent: ReportAgent): AgentRow {
  const outcomes = Object.fromEntries(RESOLUTION_OUTCOMES.map((o) => [o, 0])) as AgentRow[
    "outcomes"
  ];
  let scoredCost = 0, scoredCostSeen = false, scoredDuration = 0;
  for (const task of ctx.scored) {
    if (!attempted(ctx, task, agent.name)) continue;
    outcomes[outcomeOf(ctx, task, agent.name)]++;
    const attempt = attemptOf(ctx, task, agent.name)!;
    scoredDuration += attempt.durationMs;
    if (attempt.costUsd !== undefined) {
      scoredCost += attempt.costUsd;
      scoredCostSeen = true;
    }
  }
  const tasks = RESOLUTION_OUTCOMES.reduce((sum, o) => sum + outcomes[o], 0);
  const resolved = outcomes.resolved;

  const all = ctx.taskIds.map((task) => attemptOf(ctx, task, agent.name))
    .filter((a): a is Attempt => a !== undefined);
  const statuses = Object.fromEntries(ATTEMPT_STATUSES.map((s) => [s, 0])) as AgentRow["statuses"];
  for (const attempt of all) statuses[attempt.status]++;
  const ran = all.filter((a) => a.status !== "infra-error");
  const tokens = ran.map(tokensOf).filter((t): t is number => t !== null);
  const costs = ran.map((a) => a.costUsd).filter((c): c is number => c !== undefined);

  return {
    name: agent.name,
    type: agent.type,
    model: agent.model ?? null,
    vendor: agent.vendor,
    tasks,
    outcomes,
    resolveRate: wilson(resolved, tasks),
    attempts: all.length,
    statuses,
    medianDurationMs: median(ran.map((a) => a.durationMs)),
    tokens: {
      attempts: tokens.length,
      total: tokens.length ? sum(tokens) : null,
      medianPerAttempt: median(tokens),
    },
    cost: { attempts: costs.length, totalUsd: costs.length ? sum(costs) : null },
    perResolved: {
      costUsd: resolved && scoredCostSeen ? scoredCost / resolved : null,
      durationMs: resolved ? scoredDuration / resolved : null,
    },
  };
}

/** An attempt's tokens: the reported total, else input + output; null when neither is known. */
export function tokensOf(attempt: Attempt): number | null {
  const t = attempt.tokens;
  if (!t) return null;
  if (t.total !== undefined) return t.total;
  if (t.input === undefined && t.output === undefined) return null;
  return (t.input ?? 0) + (t.output ?? 0);
}

/** Every two contestants compared on the scored tasks both attempted, in configuration order. */
export function comparisons(ctx: Context): ComparisonRow[] {
  const results = ctx.contestants.map((a) => ({
    name: a.name,
    resolved: resolvedMap(ctx, a.name),
  }));
  const rows: ComparisonRow[] = [];
  for (let i = 0; i < results.length; i++) {
    for (let j = i + 1; j < results.length; j++) {
      rows.push(pairedComparison(results[i], results[j]));
    }
  }
  return rows;
}

function sum(values: readonly number[]): number {
  return values.reduce((total, x) => total + x, 0);
}
