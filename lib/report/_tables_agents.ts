/**
 * What the text renderers show of the "Agents" section, as plain strings: each contestant's
 * outcomes and resolve rate (with repeats pass@1, pass@k and pass^k, and how the intervals were
 * made), its figures before and after its training cutoff, how its attempts ended, and what they
 * cost (see `_tables.ts`).
 *
 * Pure functions; no permissions needed.
 *
 * @module
 */

import { ATTEMPT_STATUSES, RESOLUTION_OUTCOMES } from "../records.ts";
import {
  cap,
  duration,
  interval,
  NONE,
  OUTCOME_LABELS,
  OUTCOME_SHORT,
  pct,
  rateWithInterval,
  reported,
  STATUS_LABELS,
  STATUS_SHORT,
  tokens,
  usd,
} from "./_format.ts";
import {
  type Column,
  type TableData,
  tableOf,
  type TableSection,
  type Voice,
} from "./_table_data.ts";
import type { AgentFigures, AgentRow, CutoffGroup, Report } from "./types.ts";
import { BOOTSTRAP_BELOW } from "./stats_repeats.ts";
import { plural } from "../words.ts";

/** The tables of the "Agents" section and the sentences that go with them. */
export interface AgentsData {
  /** Outcomes of each contestant's patches and its resolve rate (pass@1, pass@k, pass^k). */
  outcomes: TableData;
  /** What the outcomes table needs said: with repeats, how the intervals were made. */
  notes: string[];
  /** Each contestant with a training cutoff: its figures before and after it; null for none. */
  cutoff: TableSection | null;
  /** How each contestant's attempts ended. */
  statuses: TableData;
  /** Time, tokens and cost. */
  costs: TableData;
}

/** The heading of the cutoff table. */
export const CUTOFF_TITLE = "Before and after each agent's training cutoff";

/** Outcomes and ways of ending that most bouts never see: a column only when some agent has one. */
const RARE = new Set<string>([
  "tampered",
  "divergent",
  "suspect",
  "out-of-memory",
  "too-many-processes",
  "disk-full",
  "too-many-files",
  "budget",
]);

function shown(value: string, counts: readonly number[]): boolean {
  return !RARE.has(value) || counts.some((n) => n > 0);
}

/**
 * The columns of an agent's figures (all its tasks, or one side of its cutoff): tasks, attempts
 * with repeats, outcomes, the resolve rate (pass@1) and its interval, pass@k and pass^k. `rate`
 * replaces the rate's cells where the figures say too little to print one.
 */
function figureColumns<T>(
  report: Report,
  figures: (item: T) => AgentFigures,
  options: { outcomes: boolean; rate?: (item: T) => string | null },
): Column<T>[] {
  const k = report.repeats;
  const all = report.agents.flatMap((a) => a.cutoff ? [a, a.cutoff.before, a.cutoff.after] : [a]);
  const override = (item: T) => options.rate?.(item) ?? null;
  const rateHead = k === 1 ? "Resolve rate" : "pass@1";
  return [
    { head: "Tasks", num: true, cell: (x) => String(figures(x).tasks) },
    ...(k > 1
      ? [{ head: "Attempts", num: true, cell: (x: T) => String(figures(x).scoredAttempts) }]
      : []),
    ...(options.outcomes
      ? RESOLUTION_OUTCOMES.filter((o) => shown(o, all.map((a) => a.outcomes[o] ?? 0)))
        .map((o): Column<T> => ({
          head: cap(OUTCOME_LABELS[o]),
          short: OUTCOME_SHORT[o],
          num: true,
          cell: (x) => String(figures(x).outcomes[o] ?? 0),
        }))
      : [{ head: "Resolved", num: true, cell: (x: T) => String(figures(x).outcomes.resolved) }]),
    {
      head: `${rateHead} (95% interval)`,
      only: "full",
      num: true,
      cell: (x) => override(x) ?? rateWithInterval(figures(x).resolveRate),
    },
    // The terminal has room for pass@1 and its interval in one column only.
    ...(k > 1
      ? [{
        head: "pass@1 (95%)",
        only: "short" as const,
        num: true,
        cell: (x: T) => override(x) ?? rateWithInterval(figures(x).resolveRate),
      }]
      : [
        {
          head: rateHead.toLowerCase(),
          only: "short" as const,
          num: true,
          cell: (x: T) => override(x) ?? pct(figures(x).resolveRate.rate),
        },
        {
          head: "95% interval",
          only: "short" as const,
          num: true,
          cell: (x: T) => override(x) === null ? interval(figures(x).resolveRate) : NONE,
        },
      ]),
    ...(k > 1
      ? [
        {
          head: `pass@${k}`,
          num: true,
          cell: (x: T) => override(x) === null ? pct(figures(x).passAtK?.rate ?? null) : NONE,
        },
        {
          head: `pass^${k}`,
          num: true,
          cell: (x: T) => override(x) === null ? pct(figures(x).passHatK?.rate ?? null) : NONE,
        },
      ]
      : []),
  ];
}

/** The "Agents" section: outcomes and resolve rates, how attempts ended, time and cost. */
export function agentsData(report: Report, voice: Voice): AgentsData {
  const name: Column<AgentRow> = { head: "Agent", cell: (a) => a.name };
  const outcomes = tableOf(voice, report.agents, [
    name,
    ...figureColumns<AgentRow>(report, (a) => a, { outcomes: true }),
  ]);
  const statuses = tableOf(voice, report.agents, [
    name,
    { head: "Attempts", num: true, cell: (a) => String(a.attempts) },
    ...ATTEMPT_STATUSES.filter((s) => shown(s, report.agents.map((a) => a.statuses[s])))
      .map((s): Column<AgentRow> => ({
        head: cap(STATUS_LABELS[s]),
        short: STATUS_SHORT[s],
        num: true,
        cell: (a) => String(a.statuses[s]),
      })),
  ]);
  const costs = tableOf(voice, report.agents, [
    name,
    { head: "Model", only: "full", cell: (a) => a.model ?? a.type },
    { head: "Median time", num: true, cell: (a) => duration(a.medianDurationMs) },
    {
      head: "Tokens",
      num: true,
      cell: (a) => reported(tokens(a.tokens.total), a.tokens.attempts, a.attempts),
    },
    {
      head: "Tokens per attempt",
      short: "tokens/attempt",
      num: true,
      cell: (a) => tokens(a.tokens.medianPerAttempt),
    },
    {
      head: "Cost",
      num: true,
      cell: (a) => reported(usd(a.cost.totalUsd), a.cost.attempts, a.attempts),
    },
    {
      head: "Cost per resolved",
      short: "cost/resolved",
      num: true,
      cell: (a) => usd(a.perResolved.costUsd),
    },
    {
      head: "Tokens per resolved",
      short: "tokens/resolved",
      // Not in the terminal's width: JSON, Markdown and HTML carry it.
      only: "full",
      num: true,
      cell: (a) => tokens(a.perResolved.tokens),
    },
    {
      head: "Time per resolved",
      short: "time/resolved",
      num: true,
      cell: (a) => duration(a.perResolved.durationMs),
    },
  ]);
  return {
    outcomes,
    notes: repeatsNotes(report),
    cutoff: cutoffData(report, voice),
    statuses,
    costs,
  };
}

/**
 * With repeats: how the intervals of pass@1 were made (a bootstrap below 30 tasks, a clustered
 * standard error from 30 on), and the tasks pass@k leaves out for want of k attempts.
 */
export function repeatsNotes(report: Report): string[] {
  const k = report.repeats;
  if (k === 1) return [];
  const notes: string[] = [];
  const rated = report.agents.filter((a) => a.resolveRate.n > 0);
  const boot = rated.filter((a) => a.resolveRate.method === "bootstrap");
  const clustered = rated.filter((a) => a.resolveRate.method === "clustered");
  const sample = boot[0]?.resolveRate;
  const bootText = sample
    ? `a task-level bootstrap (${sample.resamples?.toLocaleString("en-US")} resamples of the ` +
      `tasks, seed ${sample.seed}, 2.5th to 97.5th percentile)`
    : "";
  const clusteredText = "p̂ ± 1.96 × the clustered standard error (tasks as clusters)";
  if (boot.length && clustered.length) {
    notes.push(
      `Intervals of pass@1: ${bootText} for ${boot.map((a) => a.name).join(", ")}, with fewer ` +
        `than ${BOOTSTRAP_BELOW} tasks; ${clusteredText} for ${
          clustered.map((a) => a.name).join(", ")
        }.`,
    );
  } else if (boot.length) {
    notes.push(
      `Intervals of pass@1: ${bootText}, since every contestant has fewer than ` +
        `${BOOTSTRAP_BELOW} tasks. With few tasks that all came out alike a bootstrap interval ` +
        `is narrow: read it with the number of tasks.`,
    );
  } else if (clustered.length) {
    notes.push(`Intervals of pass@1: ${clusteredText}.`);
  }
  const short = report.agents.filter((a) => a.passAtK && a.passAtK.tasks < a.tasks);
  if (short.length) {
    notes.push(
      `pass@${k} and pass^${k} leave out tasks with fewer than ${k} attempts that count ` +
        `(an infrastructure error, or attempts still to run): ${
          short.map((a) => `${a.name} ${a.tasks - a.passAtK!.tasks}`).join(", ")
        }.`,
    );
  }
  return notes;
}

/** One row of the cutoff table (headed {@linkcode CUTOFF_TITLE}): one side of one agent's cutoff. */
interface CutoffRow {
  agent: AgentRow;
  side: "before" | "after";
  group: CutoffGroup;
}

/** The cutoff table: each contestant with a cutoff, a row for each side of it. */
function cutoffData(report: Report, voice: Voice): TableSection | null {
  const rows: CutoffRow[] = report.agents.flatMap((agent) =>
    agent.cutoff
      ? (["before", "after"] as const).map((side) => ({ agent, side, group: agent.cutoff![side] }))
      : []
  );
  if (rows.length === 0) return null;
  const table = tableOf(voice, rows, [
    { head: "Agent", cell: (r) => r.agent.name },
    { head: "Cutoff", cell: (r) => r.agent.cutoff!.cutoff },
    {
      head: "Tasks fixed",
      short: "fixed",
      cell: (r) => r.side === "before" ? "up to it" : "after it",
    },
    ...figureColumns<CutoffRow>(report, (r) => r.group, {
      outcomes: false,
      rate: (r) => r.group.tooSmall ? (voice === "full" ? TOO_FEW : "too few") : null,
    }),
  ]);
  return {
    table,
    sentences: [
      ...report.agents.flatMap((a) => a.cutoff ? [cutoffSentence(a, report.repeats)] : []),
      "A task is after an agent's cutoff when its fix was committed after the cutoff's month " +
      "(or day) ended, in UTC: the model cannot have seen that fix in training.",
    ],
  };
}

/** Shown in place of a rate for a group with fewer than ten tasks. */
export const TOO_FEW = "too few tasks to conclude";

function groupText(group: CutoffGroup, repeats: number, side: string): string {
  const resolved = repeats > 1
    ? `${group.outcomes.resolved} of ${plural(group.scoredAttempts, "attempt")} at the ` +
      `${plural(group.tasks, "task")} fixed ${side}`
    : `${group.outcomes.resolved} of the ${plural(group.tasks, "task")} fixed ${side}`;
  const rate = repeats > 1 ? "pass@1 " : "";
  return group.tooSmall ? resolved : `${resolved}, ${rate}${rateWithInterval(group.resolveRate)}`;
}

/** An agent's two sides of its cutoff in a sentence, saying when one is too small to read. */
function cutoffSentence(agent: AgentRow, k: number): string {
  const { cutoff, before, after, undated } = agent.cutoff!;
  const sides = `${agent.name} (cutoff ${cutoff}) resolved ${
    groupText(before, k, "up to it")
  }, and ${groupText(after, k, "after it")}.`;
  const small = [
    after.tooSmall
      ? `With ${plural(after.tasks, "task")} fixed after the cutoff the sample is too small to ` +
        `conclude anything about tasks the model cannot have seen.`
      : "",
    before.tooSmall
      ? `With ${plural(before.tasks, "task")} fixed up to the cutoff there is too little to ` +
        `compare with.`
      : "",
    undated
      ? `${plural(undated, "task")} without a readable fix date ${
        undated === 1 ? "is" : "are"
      } in neither group.`
      : "",
  ].filter(Boolean);
  return [sides, ...small].join(" ");
}
