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

import { COMPARABLE_ROLES, type ComparableRole } from "../roles.ts";
import {
  cap,
  expected,
  NONE,
  pct,
  pValue,
  rateWithInterval,
  ratio,
  ROLE_LABELS,
} from "./_format.ts";
import {
  type Column,
  type TableData,
  tableOf,
  type TableSection,
  type Voice,
} from "./_table_data.ts";
import { type AgentsData, agentsData } from "./_tables_agents.ts";
import { type DiscoveryData, discoveryData } from "./_tables_tasks.ts";
import type { EvidenceRow, PairedComparison, RatesComparison, Report } from "./types.ts";

export { type AgentsData, CUTOFF_TITLE, TOO_FEW } from "./_tables_agents.ts";
export type { TableSection } from "./_table_data.ts";

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

/** The "Are the differences real?" section. */
export interface ComparisonsData {
  /** Every pair of contestants; null when there are fewer than two. */
  table: TableData | null;
  /** A sentence per pair, or one saying that there is nothing to compare. */
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

/**
 * The "Are the differences real?" section: every pair of contestants, and what it means. With
 * repeats, the mean difference of per-task shares of resolved attempts and the sign-flip test.
 */
function comparisonsData(report: Report, voice: Voice): ComparisonsData {
  if (report.comparisons.length === 0) return { table: null, sentences: [NOTHING_TO_COMPARE] };
  const sentences = report.comparisons.map((c) => c.sentence);
  const rates = report.comparisons.filter((c): c is RatesComparison => c.test === "sign-flip");
  if (rates.length) {
    const full = voice === "full";
    const table = tableOf(voice, rates, [
      { head: "Agents", cell: (c) => `${c.a} vs ${c.b}` },
      { head: "Tasks", num: true, cell: (c) => String(c.tasks) },
      { head: "Mean of the first", short: "first", num: true, cell: (c) => pct(c.meanA) },
      { head: "Mean of the second", short: "second", num: true, cell: (c) => pct(c.meanB) },
      {
        head: "Difference (standard error)",
        short: "difference (se)",
        num: true,
        cell: (c) =>
          c.difference === null
            ? NONE
            : `${signedPoints(c.difference)}${
              c.se === null ? "" : ` (${full ? "" : "±"}${Math.round(c.se * 100)})`
            }`,
      },
      { head: "First ahead", short: "first ahead", num: true, cell: (c) => String(c.higher) },
      { head: "Second ahead", short: "second ahead", num: true, cell: (c) => String(c.lower) },
      { head: "p", num: true, cell: (c) => pValue(c.p) },
    ]);
    return {
      table,
      sentences: [
        ...sentences,
        "Differences are in percentage points of resolved attempts per task; p is the share " +
        "of sign flips of the per-task differences at least as far from zero (every flip up to " +
        "20 tasks, else 10,000 random ones, seeded).",
      ],
    };
  }
  const mcnemar = report.comparisons.filter((c): c is PairedComparison => c.test === "mcnemar");
  const table = tableOf(voice, mcnemar, [
    { head: "Agents", cell: (c) => `${c.a} vs ${c.b}` },
    { head: "Both resolved", short: "both", num: true, cell: (c) => String(c.both) },
    { head: "Only the first", short: "only first", num: true, cell: (c) => String(c.onlyA) },
    { head: "Only the second", short: "only second", num: true, cell: (c) => String(c.onlyB) },
    { head: "Neither", num: true, cell: (c) => String(c.neither) },
    { head: "p", num: true, cell: (c) => pValue(c.p) },
  ]);
  return { table, sentences };
}

/** A difference of rates in percentage points, signed: "+22", "−5", "0". */
function signedPoints(x: number): string {
  const p = Math.round(x * 100);
  return p > 0 ? `+${p}` : p < 0 ? `−${-p}` : "0";
}

/** Most abstentions the picking section names with their reasons; the rest are counted. */
const NAMED_ABSTENTIONS = 10;

/** The "Picking one patch per bug" section: the judge against three other ways to choose. */
function pickingData(report: Report, voice: Voice): TableSection {
  const k = report.picking;
  const full = voice === "full";
  const repeats = report.repeats > 1;
  const choices = [
    {
      label: full ? "The judge's picks" : "the judge's picks",
      resolved: String(k.judge.resolved),
      rate: rateWithInterval(k.judge.rate),
    },
    {
      label: `${full ? "Best" : "best"} single agent (${k.bestSingle.agents.join(", ") || NONE})${
        repeats ? " (expected)" : ""
      }`,
      resolved: repeats ? expected(k.bestSingle.resolved) : String(k.bestSingle.resolved),
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
  const perAttempt = `With ${report.repeats} attempts per agent and task the judge picks one ` +
    "attempt, which counts for the task; an agent is worth the share of its attempts that " +
    "resolved each task, so the best single agent and the agent at random are expectations, " +
    "and the oracle counts a task any attempt resolved.";
  // Every abstention on a scored task with its reason: the count above and these agree.
  const why = report.tasks.flatMap((t) =>
    t.scored ? t.why.filter((w) => w.kind === "abstained").map((w) => `${t.id}: ${w.text}`) : []
  );
  const more = why.length > NAMED_ABSTENTIONS
    ? `; and ${why.length - NAMED_ABSTENTIONS} more, each under its task`
    : "";
  const abstentions = why.length
    ? [
      `Why it abstained — ${why.slice(0, NAMED_ABSTENTIONS).join("; ")}${more}. Each stopped ` +
      "patch's reason is under its task.",
    ]
    : [];
  return { table, sentences: [sentence, ...(repeats ? [perAttempt] : []), ...abstentions] };
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
  const each = report.repeats > 1
    ? ` Each of an agent's ${report.repeats} attempts at a task is a patch of its own.`
    : "";
  const stopped = gate.stopped.length
    ? [
      `Patches stopped, by rule: ${
        gate.stopped.map((s) => `${s.rule} ${s.patches}`).join(", ")
      }. Each patch's reason is under its task.`,
    ]
    : [];
  return { table, sentences: [`Policy: ${gate.policy}.${each}`, ...stopped] };
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
