/**
 * The report as GitHub-flavoured Markdown, for a pull-request comment or a wiki page. Every
 * section is a heading with tables; every piece of text from a task or a test is escaped, so an
 * issue title cannot inject Markdown or HTML.
 *
 * Pure function; no permissions needed.
 *
 * @module
 */

import { COMPARABLE_ROLES } from "../evidence_roles.ts";
import { ATTEMPT_STATUSES, RESOLUTION_OUTCOMES } from "../records.ts";
import {
  cap,
  discoveryText,
  duration,
  expected,
  infraText,
  matrixSummary,
  NONE,
  OUTCOME_LABELS,
  pct,
  pickText,
  pValue,
  rateWithInterval,
  ratio,
  reported,
  reportSubtitle,
  reportTitle,
  ROLE_LABELS,
  SECTION_LEADS,
  STATUS_LABELS,
  taskCell,
  tokens,
  usd,
} from "./_format.ts";
import { type Report, SECTION_TITLES, type SectionId } from "./types.ts";

/** Escape text for Markdown (tables included): no emphasis, links, code or HTML survive. */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/[\\`*_[\]|~#!]/g, (c) => `\\${c}`)
    .replace(/\r?\n/g, " ");
}

/** A GFM table; cells are escaped here, alignment per column ("l" or "r"). */
function mdTable(header: string[], rows: string[][], align = ""): string[] {
  const line = (cells: string[]) => `| ${cells.map(escapeMarkdown).join(" | ")} |`;
  const rule = header.map((_, i) => (align[i] === "r" ? "--:" : "---"));
  return [line(header), `|${rule.join("|")}|`, ...rows.map(line)];
}

/** Render the report as GitHub-flavoured Markdown. */
export function renderMarkdown(report: Report): string {
  const out: string[] = [
    `# ${escapeMarkdown(reportTitle(report))}`,
    "",
    escapeMarkdown(reportSubtitle(report)),
  ];
  if (report.sandbox.warning) {
    out.push("", "> [!WARNING]", `> ${escapeMarkdown(report.sandbox.warning)}`);
  }
  const section = (id: SectionId, body: string[]) =>
    out.push(
      "",
      `## ${SECTION_TITLES[id]}`,
      "",
      `_${escapeMarkdown(SECTION_LEADS[id])}_`,
      "",
      ...body,
    );

  section("agents", [
    ...mdTable(
      [
        "Agent",
        "Tasks",
        ...RESOLUTION_OUTCOMES.map((o) => cap(OUTCOME_LABELS[o])),
        "Resolve rate (95% interval)",
      ],
      report.agents.map((a) => [
        a.name,
        String(a.tasks),
        ...RESOLUTION_OUTCOMES.map((o) => String(a.outcomes[o])),
        rateWithInterval(a.resolveRate),
      ]),
      "lrrrrrr",
    ),
    "",
    ...mdTable(
      ["Agent", "Attempts", ...ATTEMPT_STATUSES.map((s) => cap(STATUS_LABELS[s]))],
      report.agents.map((
        a,
      ) => [a.name, String(a.attempts), ...ATTEMPT_STATUSES.map((s) => String(a.statuses[s]))]),
      "lrrrrrrr",
    ),
    "",
    ...mdTable(
      [
        "Agent",
        "Model",
        "Median time",
        "Tokens",
        "Tokens per attempt",
        "Cost",
        "Cost per resolved",
        "Time per resolved",
      ],
      report.agents.map((a) => [
        a.name,
        a.model ?? a.type,
        duration(a.medianDurationMs),
        reported(tokens(a.tokens.total), a.tokens.attempts, a.attempts),
        tokens(a.tokens.medianPerAttempt),
        reported(usd(a.cost.totalUsd), a.cost.attempts, a.attempts),
        usd(a.perResolved.costUsd),
        duration(a.perResolved.durationMs),
      ]),
      "llrrrrrr",
    ),
  ]);

  section("comparisons", [
    ...mdTable(
      ["Agents", "Both resolved", "Only the first", "Only the second", "Neither", "p"],
      report.comparisons.map((
        c,
      ) => [
        `${c.a} vs ${c.b}`,
        String(c.both),
        String(c.onlyA),
        String(c.onlyB),
        String(c.neither),
        pValue(c.p),
      ]),
      "lrrrrr",
    ),
    "",
    ...report.comparisons.map((c) => `- ${escapeMarkdown(c.sentence)}`),
  ]);

  const k = report.picking;
  section("picking", [
    ...mdTable(["Choice", "Resolved", "Of tasks", "Rate"], [
      [
        "The judge's picks",
        String(k.judge.resolved),
        String(k.tasks),
        rateWithInterval(k.judge.rate),
      ],
      [
        `Best single agent (${k.bestSingle.agents.join(", ") || NONE})`,
        String(k.bestSingle.resolved),
        String(k.tasks),
        pct(k.bestSingle.rate),
      ],
      [
        "An agent chosen at random (expected)",
        expected(k.random.expected),
        String(k.tasks),
        pct(k.random.rate),
      ],
      [
        "Oracle best (some agent resolved it)",
        String(k.oracle.resolved),
        String(k.tasks),
        pct(k.oracle.rate),
      ],
    ], "lrrr"),
    "",
    escapeMarkdown(
      `The judge picked on ${k.judge.precision.n} tasks: ${k.judge.resolved} resolved, ${k.judge.wrong} wrong ` +
        `(right when it picked: ${
          rateWithInterval(k.judge.precision)
        }); it abstained on ${k.judge.abstained}.`,
    ),
  ]);

  section("mergeGate", [
    ...mdTable(
      [
        "Agent",
        "Patches",
        "Approved",
        "Approvals right",
        "Wrong patches stopped",
        "Right patches stopped",
      ],
      [...report.mergeGate.agents, report.mergeGate.overall].map((g) => [
        g.agent ?? "All patches",
        String(g.patches),
        String(g.approved),
        `${ratio(g.approvedRight, g.approved)} · ${rateWithInterval(g.precision)}`,
        ratio(g.wrongStopped, g.wrong),
        ratio(g.rightStopped, g.right),
      ]),
      "lrrrrr",
    ),
    "",
    escapeMarkdown(`Policy: ${report.mergeGate.policy}.`),
  ]);

  section(
    "separation",
    mdTable(
      [
        "Author",
        "Role",
        "Resolved patches passed",
        "Wrong patches failed",
        "True positive rate",
        "True negative rate",
        "Balanced accuracy",
        "No say",
      ],
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
      "llrrrrrr",
    ),
  );

  section(
    "evidence",
    mdTable(
      [
        "Agent",
        "Role",
        "Tests",
        ...COMPARABLE_ROLES.map((r) => cap(ROLE_LABELS[r])),
        "Unstable",
        "Not comparable",
        "Evidence-inadequate closures",
      ],
      report.evidence.map((e) => [
        e.agent,
        e.role,
        String(e.tests),
        ...COMPARABLE_ROLES.map((r) =>
          e.shares ? `${e.counts[r]} (${pct(e.shares[r])})` : String(e.counts[r])
        ),
        String(e.counts.unstable),
        String(e.counts["not-comparable"]),
        e.closureRate === null
          ? NONE
          : `${ratio(e.inadequateClosures, e.withPatch)} (${pct(e.closureRate)})`,
      ]),
      "llrrrrrrrr",
    ),
  );

  section("discovery", discovery(report));
  section("tasks", tasks(report));
  return out.join("\n") + "\n";
}

function discovery(report: Report): string[] {
  const d = report.discovery;
  const lines = [escapeMarkdown(discoveryText(d))];
  if (d.statementNote) lines.push("", escapeMarkdown(d.statementNote));
  lines.push(
    "",
    ...mdTable(
      ["Left out because", "Commits"],
      d.excluded.reasons.map((r) => [r.reason, String(r.count)]),
      "lr",
    ),
  );
  if (d.unscored.length) {
    lines.push(
      "",
      ...mdTable(
        ["Not scored", "Title", "Why", "Reason"],
        d.unscored.map((u) => [u.task, u.title, u.kind, u.reason]),
      ),
    );
  }
  if (d.sanity.length) {
    lines.push(
      "",
      ...mdTable(
        ["Failed a sanity gate", "Empty patch resolves", "Gold fix resolves"],
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
    escapeMarkdown(
      `Unstable tests set aside: ${d.unstable.oracle} hidden, ${d.unstable.matrix} in cross-examination. ` +
        `Infrastructure errors: ${infraText(d.infraErrors)}.`,
    ),
  );
  if (d.infraErrors.items.length) {
    lines.push(
      "",
      ...mdTable(
        ["Stage", "Task", "What", "Message"],
        d.infraErrors.items.map((i) => [i.stage, i.task, i.what, i.message ?? NONE]),
      ),
    );
  }
  return lines;
}

function tasks(report: Report): string[] {
  const names = report.agents.map((a) => a.name);
  const lines = mdTable(
    ["Task", "Title", ...names, "Judge's pick"],
    report.tasks.map((task) => [
      task.id,
      task.title,
      ...names.map((n) => {
        const entry = task.agents.find((a) => a.agent === n);
        if (!entry) return NONE;
        const gate = entry.approved === null ? "" : entry.approved ? " ✓" : " ✗";
        return taskCell(entry) + gate;
      }),
      task.scored ? pickText(task.pick) : `not scored; ${pickText(task.pick)}`,
    ]),
  );
  lines.push("", "✓ / ✗: the merge gate approved / stopped the patch.", "");
  for (const task of report.tasks) {
    const facts = [
      task.scored ? null : `not scored: ${task.reason ?? NONE}`,
      task.pick.reason ? `judge: ${task.pick.reason}` : null,
      task.matrix ? `matrix: ${matrixSummary(task.matrix)}` : null,
      ...task.agents.filter((a) => a.flags.length).map((a) =>
        `${a.agent}'s patch: ${a.flags.join(", ")}`
      ),
    ].filter((f): f is string => f !== null);
    lines.push(
      `- **${escapeMarkdown(task.id)}** ${escapeMarkdown(task.title)}${taskLink(task.ref.url)}`,
    );
    for (const fact of facts) lines.push(`  - ${escapeMarkdown(fact)}`);
  }
  return lines;
}

function taskLink(url: string | null): string {
  return url && /^https?:\/\/[^\s<>()\[\]]+$/.test(url) ? ` ([link](${url}))` : "";
}
