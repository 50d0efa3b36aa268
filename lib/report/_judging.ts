/**
 * The "Picking one patch per bug" and "Every patch through a merge gate" sections.
 *
 * @module
 */

import { randomAgent, wilson } from "./stats.ts";
import type { GateRow, Picking } from "./types.ts";
import { attempted, type Context, outcomeOf, resolvedMap } from "./_context.ts";

/**
 * The judge's picks on scored tasks against the best single contestant, a contestant chosen at
 * random for every task (expected value), and the oracle best (a task counts when any contestant
 * resolved it).
 */
export function picking(ctx: Context): Picking {
  const tasks = ctx.scored.length;
  let resolved = 0, wrong = 0, abstained = 0;
  for (const task of ctx.scored) {
    const pick = ctx.input.resolutions[task].pick;
    if (pick.agent === null) abstained++;
    else if ((pick.outcome ?? outcomeOf(ctx, task, pick.agent)) === "resolved") resolved++;
    else wrong++;
  }

  const perAgent = ctx.contestants.map((a) => ({
    name: a.name,
    resolved: resolvedMap(ctx, a.name),
  }));
  const totals = perAgent.map((a) => ({
    name: a.name,
    resolved: Object.values(a.resolved).filter(Boolean).length,
  }));
  const best = Math.max(0, ...totals.map((t) => t.resolved));

  const byTask: Record<string, Record<string, boolean>> = {};
  for (const task of ctx.scored) {
    byTask[task] = {};
    for (const agent of perAgent) {
      if (Object.hasOwn(agent.resolved, task)) byTask[task][agent.name] = agent.resolved[task];
    }
  }
  const random = randomAgent(byTask);
  const oracle = ctx.scored.filter((task) => Object.values(byTask[task]).some(Boolean)).length;

  return {
    tasks,
    judge: {
      resolved,
      wrong,
      abstained,
      rate: wilson(resolved, tasks),
      precision: wilson(resolved, resolved + wrong),
    },
    bestSingle: {
      agents: totals.length ? totals.filter((t) => t.resolved === best).map((t) => t.name) : [],
      resolved: best,
      rate: tasks ? best / tasks : null,
    },
    random: { expected: random.expected, rate: tasks ? random.expected / tasks : null },
    oracle: { resolved: oracle, rate: tasks ? oracle / tasks : null },
  };
}

/**
 * Every patch of a scored task judged alone (`verdict.patches[agent].approved`), against whether
 * it resolved the task: per contestant, and all together.
 */
export function mergeGate(ctx: Context): { policy: string; overall: GateRow; agents: GateRow[] } {
  const overall = emptyGate(null);
  const agents = ctx.contestants.map((agent) => {
    const row = emptyGate(agent.name);
    for (const task of ctx.scored) {
      const judged = ctx.input.verdicts[task]?.patches[agent.name];
      if (!judged || !attempted(ctx, task, agent.name)) continue;
      const right = outcomeOf(ctx, task, agent.name) === "resolved";
      for (const r of [row, overall]) {
        r.patches++;
        if (judged.approved) r.approved++;
        if (judged.approved && right) r.approvedRight++;
        if (right) {
          r.right++;
          if (!judged.approved) r.rightStopped++;
        } else {
          r.wrong++;
          if (!judged.approved) r.wrongStopped++;
        }
      }
    }
    return withPrecision(row);
  });
  return { policy: ctx.input.project.policy, overall: withPrecision(overall), agents };
}

function emptyGate(agent: string | null): GateRow {
  return {
    agent,
    patches: 0,
    approved: 0,
    approvedRight: 0,
    precision: wilson(0, 0),
    wrong: 0,
    wrongStopped: 0,
    right: 0,
    rightStopped: 0,
  };
}

function withPrecision(row: GateRow): GateRow {
  return { ...row, precision: wilson(row.approvedRight, row.approved) };
}
