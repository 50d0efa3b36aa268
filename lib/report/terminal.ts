/**
 * The report as terminal text: every section, tables no wider than 100 columns, colour only when
 * asked.
 *
 * Pure function; no permissions needed.
 *
 * @module
 */

import { type Palette, palette } from "../cli/io.ts";
import { COMPARABLE_ROLES } from "../evidence_roles.ts";
import { ATTEMPT_STATUSES, RESOLUTION_OUTCOMES, type ResolutionOutcome } from "../records.ts";
import {
  discoveryText,
  duration,
  expected,
  infraText,
  interval,
  matrixSummary,
  NONE,
  OUTCOME_SHORT,
  pct,
  pickText,
  pValue,
  rateWithInterval,
  ratio,
  reported,
  reportSubtitle,
  reportTitle,
  SECTION_LEADS,
  STATUS_LABELS,
  taskCell,
  tokens,
  usd,
} from "./_format.ts";
import { table, type TableOptions, wrap } from "./_table.ts";
import { type Report, SECTION_TITLES, type SectionId } from "./types.ts";

/** The widest line the terminal report prints. */
export const TERMINAL_WIDTH = 100;

/** How to render for a terminal. */
export interface TerminalOptions {
  /** Colour the output (ANSI escapes). */
  color: boolean;
}

/** Most contestant columns in one tasks table; more agents make more tables. */
const AGENTS_PER_TABLE = 5;

/** Render the report for a terminal: every section, lines of at most 100 columns. */
export function renderTerminal(report: Report, options: TerminalOptions): string {
  const p = palette(options.color);
  const out: string[] = [
    p.bold(reportTitle(report)),
    ...wrap(reportSubtitle(report), TERMINAL_WIDTH),
  ];
  if (report.sandbox.warning) {
    out.push("", ...wrap(`WARNING: ${report.sandbox.warning}`, TERMINAL_WIDTH, 0).map(p.bad));
  }
  const t = (header: string[], rows: string[][], extra: Partial<TableOptions> = {}) =>
    table(header, rows, { width: TERMINAL_WIDTH, headerStyle: p.dim, ...extra });
  const section = (id: SectionId, body: string[]) =>
    out.push(
      "",
      p.bold(p.accent(SECTION_TITLES[id])),
      ...wrap(SECTION_LEADS[id], TERMINAL_WIDTH).map(p.dim),
      "",
      ...body,
    );

  section("agents", agentsSection(report, t, p));
  section("comparisons", [
    ...t(
      ["agents", "both", "only first", "only second", "neither", "p"],
      report.comparisons.map((c) => [
        `${c.a} vs ${c.b}`,
        String(c.both),
        String(c.onlyA),
        String(c.onlyB),
        String(c.neither),
        pValue(c.p),
      ]),
      { align: right(6, 1) },
    ),
    "",
    ...report.comparisons.flatMap((c) => wrap(c.sentence, TERMINAL_WIDTH)),
  ]);
  section("picking", pickingSection(report, t));
  section("mergeGate", gateSection(report, t));
  section(
    "separation",
    t(
      ["author", "role", "resolved passed", "wrong failed", "TPR", "TNR", "balanced", "no say"],
      report.separation.map((s) => [
        s.author,
        s.role,
        ratio(s.acceptedResolved, s.resolved),
        ratio(s.rejectedWrong, s.wrong),
        pct(s.truePositiveRate),
        pct(s.trueNegativeRate),
        pct(s.balancedAccuracy),
        String(s.skipped),
      ]),
      { align: right(8, 2) },
    ),
  );
  section("evidence", evidenceSection(report, t));
  section("discovery", discoverySection(report, t));
  section("tasks", tasksSection(report, t, p));
  return out.join("\n") + "\n";
}

type T = (header: string[], rows: string[][], extra?: Partial<TableOptions>) => string[];

function right(columns: number, from: number): ("left" | "right")[] {
  return Array.from({ length: columns }, (_, i) => i >= from ? "right" : "left");
}

function outcomeStyle(p: Palette): Record<ResolutionOutcome, (s: string) => string> {
  return { resolved: p.ok, "broke-tests": p.warn, "wrong-fix": p.bad, "no-fix": p.dim };
}

function agentsSection(report: Report, t: T, p: Palette): string[] {
  const style = outcomeStyle(p);
  const outcomes = t(
    [
      "agent",
      "tasks",
      ...RESOLUTION_OUTCOMES.map((o) => OUTCOME_SHORT[o]),
      "resolve rate",
      "95% interval",
    ],
    report.agents.map((a) => [
      a.name,
      String(a.tasks),
      ...RESOLUTION_OUTCOMES.map((o) => String(a.outcomes[o])),
      pct(a.resolveRate.rate),
      interval(a.resolveRate),
    ]),
    {
      align: right(8, 1),
      style: (text, row, col) =>
        row >= 0 && col >= 2 && col < 6 ? style[RESOLUTION_OUTCOMES[col - 2]](text) : text,
    },
  );
  const statuses = t(
    ["agent", "attempts", ...ATTEMPT_STATUSES.map((s) => STATUS_LABELS[s])],
    report.agents.map((
      a,
    ) => [a.name, String(a.attempts), ...ATTEMPT_STATUSES.map((s) => String(a.statuses[s]))]),
    { align: right(8, 1) },
  );
  const costs = t(
    ["agent", "median time", "tokens", "tokens/attempt", "cost", "cost/resolved", "time/resolved"],
    report.agents.map((a) => [
      a.name,
      duration(a.medianDurationMs),
      reported(tokens(a.tokens.total), a.tokens.attempts, a.attempts),
      tokens(a.tokens.medianPerAttempt),
      reported(usd(a.cost.totalUsd), a.cost.attempts, a.attempts),
      usd(a.perResolved.costUsd),
      duration(a.perResolved.durationMs),
    ]),
    { align: right(7, 1) },
  );
  return [...outcomes, "", ...statuses, "", ...costs];
}

function pickingSection(report: Report, t: T): string[] {
  const { picking: k } = report;
  return [
    ...t(["choice", "resolved", "of tasks", "rate"], [
      [
        "the judge's picks",
        String(k.judge.resolved),
        String(k.tasks),
        rateWithInterval(k.judge.rate),
      ],
      [
        `best single agent (${k.bestSingle.agents.join(", ") || NONE})`,
        String(k.bestSingle.resolved),
        String(k.tasks),
        pct(k.bestSingle.rate),
      ],
      [
        "an agent at random (expected)",
        expected(k.random.expected),
        String(k.tasks),
        pct(k.random.rate),
      ],
      [
        "oracle best (any agent resolved)",
        String(k.oracle.resolved),
        String(k.tasks),
        pct(k.oracle.rate),
      ],
    ], { align: right(4, 1) }),
    "",
    ...wrap(
      `The judge picked on ${k.judge.precision.n} tasks: ${k.judge.resolved} resolved, ` +
        `${k.judge.wrong} wrong (right when it picked: ${rateWithInterval(k.judge.precision)}); ` +
        `it abstained on ${k.judge.abstained}.`,
      TERMINAL_WIDTH,
    ),
  ];
}

function gateSection(report: Report, t: T): string[] {
  const rows = [...report.mergeGate.agents, report.mergeGate.overall].map((g) => [
    g.agent ?? "all patches",
    String(g.patches),
    String(g.approved),
    `${ratio(g.approvedRight, g.approved)} ${rateWithInterval(g.precision)}`,
    ratio(g.wrongStopped, g.wrong),
    ratio(g.rightStopped, g.right),
  ]);
  return [
    ...t(
      ["agent", "patches", "approved", "right when approved", "wrong stopped", "right stopped"],
      rows,
      { align: right(6, 1) },
    ),
    "",
    ...wrap(`Policy: ${report.mergeGate.policy}.`, TERMINAL_WIDTH),
  ];
}

function evidenceSection(report: Report, t: T): string[] {
  const short = ["gold", "cand.", "regr.", "misl."];
  return [
    ...t(
      ["agent", "role", "tests", ...short, "unst.", "n/c", "inadequate closure"],
      report.evidence.map((e) => [
        e.agent,
        e.role,
        String(e.tests),
        ...COMPARABLE_ROLES.map((r) => `${e.counts[r]} ${e.shares ? pct(e.shares[r]) : ""}`.trim()),
        String(e.counts.unstable),
        String(e.counts["not-comparable"]),
        e.closureRate === null
          ? NONE
          : `${ratio(e.inadequateClosures, e.withPatch)} ${pct(e.closureRate)}`,
      ]),
      { align: right(10, 2) },
    ),
    "",
    ...wrap(
      "gold: gold-aligned; cand.: candidate-specific; regr.: regression-only; misl.: misleading " +
        "(with shares of comparable tests); unst.: unstable; n/c: not comparable.",
      TERMINAL_WIDTH,
    ),
  ];
}

function discoverySection(report: Report, t: T): string[] {
  const d = report.discovery;
  const lines = wrap(
    discoveryText(d),
    TERMINAL_WIDTH,
  );
  if (d.statementNote) lines.push(...wrap(d.statementNote, TERMINAL_WIDTH));
  lines.push(
    "",
    ...t(
      ["left out because", "commits"],
      d.excluded.reasons.map((r) => [r.reason, String(r.count)]),
      { align: right(2, 1) },
    ),
  );
  if (d.unscored.length) {
    lines.push(
      "",
      ...t(["not scored", "why", "reason"], d.unscored.map((u) => [u.task, u.kind, u.reason])),
    );
  }
  if (d.sanity.length) {
    lines.push(
      "",
      ...t(
        ["sanity gate", "empty patch resolves", "gold fix resolves"],
        d.sanity.map((s) => [
          s.task,
          s.emptyResolves ? "yes" : "no",
          s.goldResolves ? "yes" : "no",
        ]),
      ),
    );
  }
  lines.push(
    "",
    ...wrap(
      `Unstable tests set aside: ${d.unstable.oracle} hidden, ${d.unstable.matrix} in ` +
        `cross-examination. Infrastructure errors: ${infraText(d.infraErrors)}.`,
      TERMINAL_WIDTH,
    ),
  );
  if (d.infraErrors.items.length) {
    lines.push(
      "",
      ...t(
        ["stage", "task", "what", "message"],
        d.infraErrors.items.map((i) => [
          i.stage,
          i.task,
          i.what,
          i.message ?? NONE,
        ]),
      ),
    );
  }
  return lines;
}

function tasksSection(report: Report, t: T, p: Palette): string[] {
  const style = outcomeStyle(p);
  const contestants = report.agents.map((a) => a.name);
  const lines: string[] = [];
  for (let from = 0; from < Math.max(1, contestants.length); from += AGENTS_PER_TABLE) {
    const names = contestants.slice(from, from + AGENTS_PER_TABLE);
    if (from > 0) lines.push("");
    lines.push(...t(
      ["task", "title", ...names, "judge's pick"],
      report.tasks.map((task) => [
        task.id,
        task.title,
        ...names.map((n) => {
          const entry = task.agents.find((a) => a.agent === n);
          return entry ? taskCell(entry) : NONE;
        }),
        task.scored ? pickText(task.pick) : `not scored; ${pickText(task.pick)}`,
      ]),
      {
        style: (text, row, col) => {
          if (row < 0 || col < 2 || col >= 2 + names.length) return text;
          const outcome = report.tasks[row].agents.find((a) => a.agent === names[col - 2])?.outcome;
          return outcome ? style[outcome](text) : p.dim(text);
        },
      },
    ));
  }
  for (const task of report.tasks) {
    lines.push("");
    lines.push(...wrap(`${task.id}: ${task.title}`, TERMINAL_WIDTH));
    if (!task.scored) {
      lines.push(...wrap(`not scored: ${task.reason ?? NONE}`, TERMINAL_WIDTH, 4).map(p.warn));
    }
    if (task.pick.reason) lines.push(...wrap(`judge: ${task.pick.reason}`, TERMINAL_WIDTH, 4));
    if (task.matrix) {
      lines.push(...wrap(`matrix: ${matrixSummary(task.matrix)}`, TERMINAL_WIDTH, 4));
    }
  }
  return lines;
}
