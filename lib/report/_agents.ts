/**
 * The "Agents" and "Are the differences real?" sections. An agent's figures gather all of its
 * attempts (`codex`, `codex#2`, ... under `[run] repeats`): with one attempt per task they are
 * counts of tasks with Wilson intervals and McNemar tests; with repeats, per-task shares of
 * resolved attempts with intervals that take the task as the unit, pass@k and pass^k, and
 * sign-flip tests.
 *
 * @module
 */

import { ATTEMPT_STATUSES, RESOLUTION_OUTCOMES, tokensOf } from "../records.ts";
import { median, pairedComparison, wilson } from "./stats.ts";
import {
  compareRates,
  meanOverTasks,
  meanRateInterval,
  passAtK,
  passHatK,
} from "./stats_repeats.ts";
import {
  type AgentFigures,
  type AgentRow,
  type ComparisonRow,
  type CutoffGroup,
  type CutoffSplit,
  type ResolveRate,
  TOO_FEW_TASKS,
} from "./types.ts";
import {
  attemptCounts,
  attemptsOf,
  type Context,
  countedNames,
  outcomeOf,
  type ReportAgent,
  resolveShares,
} from "./_context.ts";

/** Every contestant against the ground truth, in configuration order. */
export function agentRows(ctx: Context): AgentRow[] {
  return ctx.contestants.map((agent) => agentRow(ctx, agent));
}

/**
 * An agent's figures over some scored tasks: outcomes of every attempt that counts, the resolve
 * rate with its interval, and with repeats pass@K and pass^K.
 */
export function agentFigures(
  ctx: Context,
  agent: string,
  tasks: readonly string[] = ctx.scored,
): AgentFigures {
  const outcomes = Object.fromEntries(
    RESOLUTION_OUTCOMES.filter((o) => o !== "suspect").map((o) => [o, 0]),
  ) as AgentFigures["outcomes"];
  for (const task of tasks) {
    for (const name of countedNames(ctx, task, agent)) {
      const outcome = outcomeOf(ctx, task, name);
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    }
  }
  const counts = Object.values(attemptCounts(ctx, agent, tasks));
  const scoredAttempts = counts.reduce((sum, t) => sum + t.n, 0);
  const resolved = counts.reduce((sum, t) => sum + t.c, 0);
  const k = ctx.repeats;
  let resolveRate: ResolveRate;
  if (k === 1) {
    resolveRate = {
      ...wilson(resolved, counts.length),
      method: "wilson",
      tasks: counts.length,
      se: null,
      resamples: null,
      seed: null,
    };
  } else {
    const mean = meanRateInterval(counts.map((t) => t.c / t.n));
    resolveRate = { k: resolved, n: scoredAttempts, tasks: counts.length, ...mean };
  }
  return {
    tasks: counts.length,
    scoredAttempts,
    outcomes,
    resolveRate,
    passAtK: k > 1 ? meanOverTasks(counts, k, passAtK) : null,
    passHatK: k > 1 ? meanOverTasks(counts, k, passHatK) : null,
  };
}

function agentRow(ctx: Context, agent: ReportAgent): AgentRow {
  const figures = agentFigures(ctx, agent.name);
  let scoredCost = 0, scoredCostSeen = false, scoredDuration = 0;
  let scoredTokens = 0, scoredTokensSeen = false;
  for (const task of ctx.scored) {
    for (const { attempt } of attemptsOf(ctx, task, agent.name)) {
      if (attempt.status === "infra-error") continue;
      scoredDuration += attempt.durationMs;
      if (attempt.costUsd !== undefined) {
        scoredCost += attempt.costUsd;
        scoredCostSeen = true;
      }
      const used = tokensOf(attempt);
      if (used !== undefined) {
        scoredTokens += used;
        scoredTokensSeen = true;
      }
    }
  }
  const resolved = figures.outcomes.resolved;

  const all = ctx.taskIds.flatMap((task) =>
    attemptsOf(ctx, task, agent.name).map(({ attempt }) => attempt)
  );
  const statuses = Object.fromEntries(ATTEMPT_STATUSES.map((s) => [s, 0])) as AgentRow["statuses"];
  for (const attempt of all) statuses[attempt.status]++;
  const ran = all.filter((a) => a.status !== "infra-error");
  const tokens = ran.map(tokensOf).filter((t) => t !== undefined);
  const costs = ran.map((a) => a.costUsd).filter((c): c is number => c !== undefined);

  return {
    name: agent.name,
    type: agent.type,
    model: agent.model ?? null,
    vendor: agent.vendor,
    ...figures,
    cutoff: cutoffSplit(ctx, agent),
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
      tokens: resolved && scoredTokensSeen ? scoredTokens / resolved : null,
      durationMs: resolved ? scoredDuration / resolved : null,
    },
  };
}

const CUTOFF = /^(\d{4})-(\d{2})(?:-(\d{2}))?$/;

/**
 * The first instant after a training cutoff, in UTC: `2025-06` → 2025-07-01T00:00Z (the whole
 * month counts as before it), `2025-06-30` → 2025-07-01T00:00Z. Throws a `RangeError` for
 * anything but a real month or day.
 */
export function cutoffBoundary(cutoff: string): Date {
  const m = cutoff.match(CUTOFF);
  const [year, month, day] = m ? [Number(m[1]), Number(m[2]), m[3] ? Number(m[3]) : null] : [];
  const valid = m !== null && month! >= 1 && month! <= 12 &&
    (day === null ||
      (day! >= 1 && new Date(Date.UTC(year!, month! - 1, day!)).getUTCMonth() === month! - 1));
  if (!valid) {
    throw new RangeError(
      `Cannot read the cutoff "${cutoff}": write a month or a day, such as "2025-06" or "2025-06-30"`,
    );
  }
  return day === null
    ? new Date(Date.UTC(year!, month!, 1))
    : new Date(Date.UTC(year!, month! - 1, day! + 1));
}

/**
 * An agent's figures split by the date of each scored task's fix: up to its cutoff (the model may
 * have seen the fix) and after it (fresh). Null for an agent without a cutoff.
 */
export function cutoffSplit(ctx: Context, agent: ReportAgent): CutoffSplit | null {
  if (!agent.cutoff) return null;
  const boundary = cutoffBoundary(agent.cutoff).getTime();
  const dates = new Map(ctx.input.tasks.tasks.map((t) => [t.id, Date.parse(t.date)]));
  const before: string[] = [], after: string[] = [];
  let undated = 0;
  for (const task of ctx.scored) {
    const date = dates.get(task)!;
    if (Number.isNaN(date)) undated++;
    else (date < boundary ? before : after).push(task);
  }
  const group = (tasks: string[]): CutoffGroup => {
    const figures = agentFigures(ctx, agent.name, tasks);
    return { ...figures, tooSmall: figures.tasks < TOO_FEW_TASKS };
  };
  return {
    cutoff: agent.cutoff,
    boundary: new Date(boundary).toISOString(),
    before: group(before),
    after: group(after),
    undated,
  };
}

/**
 * Every two contestants compared on the scored tasks both attempted, in configuration order: the
 * exact McNemar test with one attempt per task, the sign-flip test of per-task shares of resolved
 * attempts with repeats.
 */
export function comparisons(ctx: Context): ComparisonRow[] {
  const results = ctx.contestants.map((a) => ({
    name: a.name,
    rates: resolveShares(ctx, a.name),
  }));
  const rows: ComparisonRow[] = [];
  for (let i = 0; i < results.length; i++) {
    for (let j = i + 1; j < results.length; j++) {
      const [a, b] = [results[i], results[j]];
      rows.push(
        ctx.repeats === 1
          ? pairedComparison(
            { name: a.name, resolved: booleans(a.rates) },
            { name: b.name, resolved: booleans(b.rates) },
          )
          : compareRates(a, b),
      );
    }
  }
  return rows;
}

function booleans(rates: Readonly<Record<string, number>>): Record<string, boolean> {
  return Object.fromEntries(Object.entries(rates).map(([task, rate]) => [task, rate === 1]));
}

function sum(values: readonly number[]): number {
  return values.reduce((total, x) => total + x, 0);
}
