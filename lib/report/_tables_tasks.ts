/**
 * What the text renderers show of the "How the tasks were found" and "Tasks" sections, as plain
 * strings: tables, sentences and the facts under each task (see `_tables.ts`).
 *
 * Pure functions; no permissions needed.
 *
 * @module
 */

import {
  attemptCell,
  attemptLabel,
  attemptText,
  discoveryText,
  featuresText,
  infraText,
  matrixSummary,
  NONE,
  pickText,
  statementsText,
  taskCell,
} from "./_format.ts";
import { type Column, type TableData, tableOf, type Voice } from "./_table_data.ts";
import type { Report, TaskReason, TaskRow } from "./types.ts";

/** The "How the tasks were found" section, in the order the renderers print it. */
export interface DiscoveryData {
  /** The funnel from commits to scored tasks in a sentence. */
  summary: string;
  /** A note on the statements of the tasks, when there is one. */
  note: string | null;
  /** Where the statements came from, when there are tasks. */
  statements: string | null;
  /** How many changes each rule told apart from bug fixes. */
  features: string;
  /** Why commits were left out. */
  excluded: TableData;
  /** Tasks that were not scored; null when every task was. */
  unscored: TableData | null;
  /** Tasks that failed a sanity gate; null when none did. */
  sanity: TableData | null;
  /** Unstable tests and infrastructure errors in a sentence. */
  unstable: string;
  /** Each infrastructure error; null when there were none. */
  infra: TableData | null;
}

/** One fact printed under a task. */
export interface TaskFact {
  /** What the fact is about; the terminal warns about a task that was not scored. */
  kind: "not-scored" | "judge" | "attempts" | "matrix" | "flags" | "why";
  /** The fact in words. */
  text: string;
}

/** What the ✓ and ✗ of the full voice's task table mean. */
export const GATE_MARKS_NOTE = "✓ / ✗: the merge gate approved / stopped the patch.";

/** What the task table shows with repeats, and where each attempt is. */
export const REPEATS_NOTE = "Each cell: the attempts that resolved the task, of those that " +
  "count. Each attempt's outcome follows under its task; ✓ / ✗: the merge gate approved / " +
  "stopped its patch.";

/** The note under the full voice's task table. */
export function tasksNote(report: Report): string {
  return report.repeats > 1 ? REPEATS_NOTE : GATE_MARKS_NOTE;
}

/** How each kind of reason begins, in every format. */
export const REASON_LABELS: Readonly<Record<TaskReason["kind"], string>> = {
  abstained: "the judge abstained",
  stopped: "the merge gate stopped",
  "set-aside": "set aside",
  tampered: "tampered",
  suspect: "suspect",
  scoring: "not resolved",
  "infra-error": "infrastructure error",
};

/** A reason in a line: "the merge gate stopped codex: not approved under majority: ...". */
export function whyText(why: TaskReason, repeats = 1): string {
  const subject = why.subject === null
    ? ""
    : ` ${why.kind === "stopped" ? attemptText(why.subject, repeats) : why.subject}`;
  return `${REASON_LABELS[why.kind]}${subject}: ${why.text}`;
}

/** The "How the tasks were found" section. */
export function discoveryData(report: Report, voice: Voice): DiscoveryData {
  const d = report.discovery;
  const yesNo = (b: boolean) => b ? "yes" : "no";
  const captioned = (table: TableData, full: string, short: string): TableData => ({
    ...table,
    caption: voice === "full" ? full : short,
  });
  return {
    summary: discoveryText(d),
    note: d.statementNote,
    statements: statementsText(d),
    features: featuresText(d),
    excluded: tableOf(voice, d.excluded.reasons, [
      { head: "Left out because", cell: (r) => r.reason },
      { head: "Commits", num: true, cell: (r) => String(r.count) },
    ]),
    unscored: d.unscored.length === 0 ? null : captioned(
      tableOf(voice, d.unscored, [
        { head: "Task", cell: (u) => u.task },
        { head: "Title", only: "full", cell: (u) => u.title },
        { head: "Why", cell: (u) => u.kind },
        { head: "Reason", cell: (u) => u.reason },
      ]),
      "Not scored",
      "not scored",
    ),
    sanity: d.sanity.length === 0 ? null : captioned(
      tableOf(voice, d.sanity, [
        { head: "Task", cell: (s) => s.task },
        { head: "Empty patch resolves", cell: (s) => yesNo(s.emptyResolves) },
        { head: "Gold fix resolves", cell: (s) => yesNo(s.goldResolves) },
      ]),
      "Failed a sanity gate",
      "sanity gate",
    ),
    unstable: `Unstable tests set aside: ${d.unstable.oracle} hidden, ${d.unstable.matrix} in ` +
      `cross-examination. Infrastructure errors: ${infraText(d.infraErrors)}.`,
    infra: d.infraErrors.items.length === 0 ? null : tableOf(voice, d.infraErrors.items, [
      { head: "Stage", cell: (i) => i.stage },
      { head: "Task", cell: (i) => i.task },
      {
        head: "What",
        cell: (i) => i.stage === "attempt" ? attemptText(i.what, report.repeats) : i.what,
      },
      { head: "Message", cell: (i) => i.message ?? NONE },
    ]),
  };
}

/**
 * The tasks against some contestants (the terminal shows a few per table): each one's result,
 * in the full voice with the merge gate's ✓ or ✗ (with repeats: attempts resolved of those that
 * count), and the judge's pick.
 */
export function tasksTable(report: Report, names: readonly string[], voice: Voice): TableData {
  const k = report.repeats;
  const gateMark = (approved: boolean | null) =>
    voice === "short" || k > 1 || approved === null ? "" : approved ? " ✓" : " ✗";
  return tableOf(voice, report.tasks, [
    { head: "Task", cell: (t) => t.id },
    { head: "Title", cell: (t) => t.title },
    ...names.map((n): Column<TaskRow> => ({
      head: n,
      short: n,
      cell: (t) => {
        const entry = t.agents.find((a) => a.agent === n);
        return entry ? taskCell(entry, k) + gateMark(entry.attempts[0]?.approved ?? null) : NONE;
      },
    })),
    {
      head: "Judge's pick",
      cell: (t) => t.scored ? pickText(t.pick, k) : `not scored; ${pickText(t.pick, k)}`,
    },
  ]);
}

/**
 * What is printed under a task: why it was not scored, the judge's reason, with repeats each
 * agent's attempts, its matrix, and the tricks noticed in patches.
 */
export function taskFacts(task: TaskRow, repeats = 1): TaskFact[] {
  const facts: TaskFact[] = [];
  if (!task.scored) facts.push({ kind: "not-scored", text: `not scored: ${task.reason ?? NONE}` });
  // An abstention's reason is the first of the task's reasons, below.
  if (task.pick.reason && task.pick.agent !== null) {
    facts.push({ kind: "judge", text: `judge: ${task.pick.reason}` });
  }
  if (repeats > 1) {
    for (const a of task.agents) {
      if (a.attempts.length === 0) continue;
      const each = a.attempts.map((t) =>
        `${attemptCell(t)}${t.approved === null ? "" : t.approved ? " ✓" : " ✗"}`
      );
      facts.push({ kind: "attempts", text: `${a.agent}'s attempts: ${each.join(", ")}` });
    }
  }
  if (task.matrix) facts.push({ kind: "matrix", text: `matrix: ${matrixSummary(task.matrix)}` });
  for (const a of task.agents) {
    for (const t of a.attempts) {
      if (t.flags.length === 0) continue;
      const whose = repeats > 1 ? `${attemptLabel(a.agent, t.repeat, repeats)}'s` : `${a.agent}'s`;
      facts.push({ kind: "flags", text: `${whose} patch: ${t.flags.join(", ")}` });
    }
  }
  for (const why of task.why) facts.push({ kind: "why", text: whyText(why, repeats) });
  return facts;
}
