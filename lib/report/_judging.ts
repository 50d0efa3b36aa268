/**
 * The "Picking one patch per bug" and "Every patch through a merge gate" sections.
 *
 * @module
 */

import { randomAgent, wilson } from "./stats.ts";
import type { GateStop } from "../records.ts";
import type { GateRow, Picking, Report } from "./types.ts";
import { attempted, attemptNamesOf, type Context, outcomeOf, resolveShares } from "./_context.ts";

/**
 * The judge's picks on scored tasks against the best single contestant, a contestant chosen at
 * random for every task (expected value), and the oracle best (a task counts when any contestant
 * resolved it). The judge picks one attempt, which counts for the task. With repeats an agent is
 * worth its per-task shares of resolved attempts: the best single agent resolves the most in
 * expectation, a random agent is a random attempt of a random agent, and the oracle counts a
 * task any attempt resolved.
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
    shares: resolveShares(ctx, a.name),
  }));
  const totals = perAgent.map((a) => ({
    name: a.name,
    resolved: Object.values(a.shares).reduce((sum, x) => sum + x, 0),
  }));
  const best = Math.max(0, ...totals.map((t) => t.resolved));

  const byTask: Record<string, Record<string, number>> = {};
  for (const task of ctx.scored) {
    byTask[task] = {};
    for (const agent of perAgent) {
      if (Object.hasOwn(agent.shares, task)) byTask[task][agent.name] = agent.shares[task];
    }
  }
  const random = randomAgent(byTask);
  const oracle = ctx.scored.filter((task) => Object.values(byTask[task]).some((x) => x > 0))
    .length;

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
      // Sums of fractions: equal totals may differ in their last bits.
      agents: totals.length
        ? totals.filter((t) => best - t.resolved < 1e-9).map((t) => t.name)
        : [],
      resolved: best,
      rate: tasks ? best / tasks : null,
    },
    random: { expected: random.expected, rate: tasks ? random.expected / tasks : null },
    oracle: { resolved: oracle, rate: tasks ? oracle / tasks : null },
  };
}

/**
 * Every patch of a scored task judged alone (`verdict.patches[attempt].approved`), against whether
 * it resolved the task: per contestant (all of its attempts), and all together.
 */
export function mergeGate(ctx: Context): Report["mergeGate"] {
  const overall = emptyGate(null);
  const stops = new Map<string, number>();
  const agents = ctx.contestants.map((agent) => {
    const row = emptyGate(agent.name);
    for (const task of ctx.scored) {
      for (const name of attemptNamesOf(ctx, agent.name)) {
        const judged = ctx.input.verdicts[task]?.patches[name];
        if (!judged || !attempted(ctx, task, name)) continue;
        const right = outcomeOf(ctx, task, name) === "resolved";
        count(row, judged.approved, right);
        count(overall, judged.approved, right);
        if (!judged.approved) {
          // Verdicts written before the judge named its rule say it only in words.
          const rule = judged.stoppedBy ? GATE_RULES[judged.stoppedBy] : "other";
          stops.set(rule, (stops.get(rule) ?? 0) + 1);
        }
      }
    }
    return withPrecision(row);
  });
  return {
    policy: ctx.input.project.policy,
    overall: withPrecision(overall),
    agents,
    stopped: [...stops].map(([rule, patches]) => ({ rule, patches }))
      .sort((x, y) => y.patches - x.patches || x.rule.localeCompare(y.rule)),
  };
}

/** Each rule a merge gate stops a patch by, in words (`verdict.patches[p].stoppedBy`). */
export const GATE_RULES: Readonly<Record<GateStop, string>> = {
  "code-tampered": "its code tampered with the grading",
  "tests-tampered": "its tests tampered with the grading",
  suspect: "its code uses what B's package never did (capability review)",
  "tree-not-run": "its tree did not run",
  "no-reproduction": "no independent reproduction",
  "too-little-support": "too little independent support",
  "breaks-repository-test": "breaks a repository test",
  "breaks-examiner-test": "breaks examiners' tests",
};

function count(r: GateRow, approved: boolean, right: boolean): void {
  r.patches++;
  if (approved) r.approved++;
  if (approved && right) r.approvedRight++;
  if (right) {
    r.right++;
    if (!approved) r.rightStopped++;
  } else {
    r.wrong++;
    if (!approved) r.wrongStopped++;
  }
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
