/**
 * What the text renderers show of each section, as plain strings: the tables (headings, rows,
 * alignment) and the sentences. The terminal, Markdown and HTML renderers only lay this out, so
 * the three cannot drift apart.
 *
 * Two voices: `full` for Markdown and HTML, and `short` for the terminal's 100 columns, with
 * shorter headings and labels, a rate and its interval in two columns, and no model or title
 * column. Every number comes from the report object.
 *
 * Pure functions; no permissions needed.
 *
 * @module
 */

import { COMPARABLE_ROLES, type ComparableRole } from "../testbed/mod.ts";
import { ATTEMPT_STATUSES, RESOLUTION_OUTCOMES } from "../records.ts";
import {
  cap,
  duration,
  expected,
  interval,
  NONE,
  OUTCOME_LABELS,
  OUTCOME_SHORT,
  pct,
  pValue,
  rateWithInterval,
  ratio,
  reported,
  ROLE_LABELS,
  STATUS_LABELS,
  STATUS_SHORT,
  tokens,
  usd,
} from "./_format.ts";
import { type Column, type TableData, tableOf, type Voice } from "./_table_data.ts";
import { type DiscoveryData, discoveryData } from "./_tables_tasks.ts";
import type { AgentRow, EvidenceRow, Report } from "./types.ts";

/** What the text renderers show of every section but the tasks, in one voice. */
export interface ReportTables {
  /** "Agents". */
  agents: AgentsData;
  /** "Are the differences real?". */
  comparisons: ComparisonsData;
  /** "Picking one patch per bug". */
  picking: TableSection;
  /** "Every patch through a merge gate". */
  mergeGate: TableSection;
  /** "Which tests tell a right fix from a wrong one". */
  separation: TableData;
  /** "Evidence". */
  evidence: TableSection;
  /** "How the tasks were found". */
  discovery: DiscoveryData;
}

/**
 * Every section but the tasks as tables and sentences; the tasks, which the terminal splits into
 * several tables, come from `tasksTable` and `taskFacts` in `_tables_tasks.ts`.
 */
export function reportTables(report: Report, voice: Voice): ReportTables {
  return {
    agents: agentsData(report, voice),
    comparisons: comparisonsData(report, voice),
    picking: pickingData(report, voice),
    mergeGate: mergeGateData(report, voice),
    separation: separationData(report, voice),
    evidence: evidenceData(report, voice),
    discovery: discoveryData(report, voice),
  };
}

/** The three tables of the "Agents" section. */
export interface AgentsData {
  /** Outcomes of each contestant's patches and its resolve rate. */
  outcomes: TableData;
  /** How each contestant's attempts ended. */
  statuses: TableData;
  /** Time, tokens and cost. */
  costs: TableData;
}

/** The "Are the differences real?" section. */
export interface ComparisonsData {
  /** Every pair of contestants; null when there are fewer than two. */
  table: TableData | null;
  /** A sentence per pair, or one saying that there is nothing to compare. */
  sentences: string[];
}

/** A section that is one table and the sentences under it. */
export interface TableSection {
  /** The table. */
  table: TableData;
  /** Sentences printed after it. */
  sentences: string[];
}

/** Shown when there are fewer than two contestants. */
export const NOTHING_TO_COMPARE = "Fewer than two contestants: nothing to compare.";

/** The terminal's evidence headings, spelled out. */
const EVIDENCE_KEY = "gold: gold-aligned; cand.: candidate-specific; regr.: regression-only; " +
  "misl.: misleading (with shares of comparable tests); unst.: unstable; n/c: not comparable.";

const SHORT_ROLES: Record<ComparableRole, string> = {
  "gold-aligned": "gold",
  "candidate-specific": "cand.",
  "regression-only": "regr.",
  misleading: "misl.",
};

/** A count and a share: "2 (50%)" in the full voice, "2 50%" in the short one. */
function withShare(voice: Voice, count: string, share: string): string {
  return voice === "full" ? `${count} (${share})` : `${count} ${share}`;
}

/** Outcomes and ways of ending that most bouts never see: a column only when some agent has one. */
const RARE = new Set<string>([
  "tampered",
  "out-of-memory",
  "too-many-processes",
  "disk-full",
  "budget",
]);

function shown(value: string, counts: readonly number[]): boolean {
  return !RARE.has(value) || counts.some((n) => n > 0);
}

/** The "Agents" section: outcomes and resolve rates, how attempts ended, time and cost. */
function agentsData(report: Report, voice: Voice): AgentsData {
  const name: Column<AgentRow> = { head: "Agent", cell: (a) => a.name };
  const outcomes = tableOf(voice, report.agents, [
    name,
    { head: "Tasks", num: true, cell: (a) => String(a.tasks) },
    ...RESOLUTION_OUTCOMES.filter((o) => shown(o, report.agents.map((a) => a.outcomes[o])))
      .map((o): Column<AgentRow> => ({
        head: cap(OUTCOME_LABELS[o]),
        short: OUTCOME_SHORT[o],
        num: true,
        cell: (a) => String(a.outcomes[o]),
      })),
    {
      head: "Resolve rate (95% interval)",
      only: "full",
      num: true,
      cell: (a) => rateWithInterval(a.resolveRate),
    },
    { head: "resolve rate", only: "short", num: true, cell: (a) => pct(a.resolveRate.rate) },
    { head: "95% interval", only: "short", num: true, cell: (a) => interval(a.resolveRate) },
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
      head: "Time per resolved",
      short: "time/resolved",
      num: true,
      cell: (a) => duration(a.perResolved.durationMs),
    },
  ]);
  return { outcomes, statuses, costs };
}

/** The "Are the differences real?" section: every pair of contestants, and what it means. */
function comparisonsData(report: Report, voice: Voice): ComparisonsData {
  if (report.comparisons.length === 0) return { table: null, sentences: [NOTHING_TO_COMPARE] };
  const table = tableOf(voice, report.comparisons, [
    { head: "Agents", cell: (c) => `${c.a} vs ${c.b}` },
    { head: "Both resolved", short: "both", num: true, cell: (c) => String(c.both) },
    { head: "Only the first", short: "only first", num: true, cell: (c) => String(c.onlyA) },
    { head: "Only the second", short: "only second", num: true, cell: (c) => String(c.onlyB) },
    { head: "Neither", num: true, cell: (c) => String(c.neither) },
    { head: "p", num: true, cell: (c) => pValue(c.p) },
  ]);
  return { table, sentences: report.comparisons.map((c) => c.sentence) };
}

/** The "Picking one patch per bug" section: the judge against three other ways to choose. */
function pickingData(report: Report, voice: Voice): TableSection {
  const k = report.picking;
  const full = voice === "full";
  const choices = [
    {
      label: full ? "The judge's picks" : "the judge's picks",
      resolved: String(k.judge.resolved),
      rate: rateWithInterval(k.judge.rate),
    },
    {
      label: `${full ? "Best" : "best"} single agent (${k.bestSingle.agents.join(", ") || NONE})`,
      resolved: String(k.bestSingle.resolved),
      rate: pct(k.bestSingle.rate),
    },
    {
      label: full ? "An agent chosen at random (expected)" : "an agent at random (expected)",
      resolved: expected(k.random.expected),
      rate: pct(k.random.rate),
    },
    {
      label: full ? "Oracle best (some agent resolved it)" : "oracle best (any agent resolved)",
      resolved: String(k.oracle.resolved),
      rate: pct(k.oracle.rate),
    },
  ];
  const table = tableOf(voice, choices, [
    { head: "Choice", cell: (c) => c.label },
    { head: "Resolved", num: true, cell: (c) => c.resolved },
    { head: "Of tasks", num: true, cell: () => String(k.tasks) },
    { head: "Rate", num: true, cell: (c) => c.rate },
  ]);
  const sentence =
    `The judge picked on ${k.judge.precision.n} tasks: ${k.judge.resolved} resolved, ` +
    `${k.judge.wrong} wrong (right when it picked: ${rateWithInterval(k.judge.precision)}); ` +
    `it abstained on ${k.judge.abstained}.`;
  return { table, sentences: [sentence] };
}

/**
 * The "Every patch through a merge gate" section: a row per agent, then the row of all patches
 * (always last), and the policy.
 */
function mergeGateData(report: Report, voice: Voice): TableSection {
  const gate = report.mergeGate;
  const table = tableOf(voice, [...gate.agents, gate.overall], [
    { head: "Agent", cell: (g) => g.agent ?? (voice === "full" ? "All patches" : "all patches") },
    { head: "Patches", num: true, cell: (g) => String(g.patches) },
    { head: "Approved", num: true, cell: (g) => String(g.approved) },
    {
      head: "Approvals right",
      short: "right when approved",
      num: true,
      cell: (g) =>
        `${ratio(g.approvedRight, g.approved)} ${voice === "full" ? "· " : ""}` +
        rateWithInterval(g.precision),
    },
    {
      head: "Wrong patches stopped",
      short: "wrong stopped",
      num: true,
      cell: (g) => ratio(g.wrongStopped, g.wrong),
    },
    {
      head: "Right patches stopped",
      short: "right stopped",
      num: true,
      cell: (g) => ratio(g.rightStopped, g.right),
    },
  ]);
  return { table, sentences: [`Policy: ${gate.policy}.`] };
}

/** The "Which tests tell a right fix from a wrong one" section. */
function separationData(report: Report, voice: Voice): TableData {
  return tableOf(voice, report.separation, [
    { head: "Author", cell: (s) => s.author },
    { head: "Role", cell: (s) => s.role },
    {
      head: "Resolved patches passed",
      short: "resolved passed",
      num: true,
      cell: (s) => ratio(s.acceptedResolved, s.resolved),
    },
    {
      head: "Wrong patches failed",
      short: "wrong failed",
      num: true,
      cell: (s) => ratio(s.rejectedWrong, s.wrong),
    },
    { head: "True positive rate", short: "TPR", num: true, cell: (s) => pct(s.truePositiveRate) },
    { head: "True negative rate", short: "TNR", num: true, cell: (s) => pct(s.trueNegativeRate) },
    {
      head: "Balanced accuracy",
      short: "balanced",
      num: true,
      cell: (s) => pct(s.balancedAccuracy),
    },
    { head: "No say", num: true, cell: (s) => String(s.skipped) },
  ]);
}

/** The "Evidence" section; the short voice's abbreviated headings are spelled out after it. */
function evidenceData(report: Report, voice: Voice): TableSection {
  const table = tableOf(voice, report.evidence, [
    { head: "Agent", cell: (e) => e.agent },
    { head: "Role", cell: (e) => e.role },
    { head: "Tests", num: true, cell: (e) => String(e.tests) },
    ...COMPARABLE_ROLES.map((r): Column<EvidenceRow> => ({
      head: cap(ROLE_LABELS[r]),
      short: SHORT_ROLES[r],
      num: true,
      cell: (e) =>
        e.shares ? withShare(voice, String(e.counts[r]), pct(e.shares[r])) : String(e.counts[r]),
    })),
    { head: "Unstable", short: "unst.", num: true, cell: (e) => String(e.counts.unstable) },
    {
      head: "Not comparable",
      short: "n/c",
      num: true,
      cell: (e) => String(e.counts["not-comparable"]),
    },
    {
      head: "Evidence-inadequate closures",
      short: "inadequate closure",
      num: true,
      cell: (e) =>
        e.closureRate === null
          ? NONE
          : withShare(voice, ratio(e.inadequateClosures, e.withPatch), pct(e.closureRate)),
    },
  ]);
  return { table, sentences: voice === "short" ? [EVIDENCE_KEY] : [] };
}
