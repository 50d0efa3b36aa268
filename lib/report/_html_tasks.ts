/**
 * The HTML report's "Tasks" section: the grid of every task against every contestant, then each
 * task with its agents and its cross-examination matrix. A matrix is folded away (`<details>`)
 * and shows only the tests whose outcome differs between trees, with a count of the rest, so a
 * page of a hundred tasks with hundreds of tests each stays small and quick to open. Grid and
 * matrices are HTML tables: they cost a fraction of the bytes of SVG, and they wrap and scroll
 * like the rest of the page.
 *
 * Pure functions; no permissions needed.
 *
 * @module
 */

import { OUTCOMES } from "../records.ts";
import {
  attemptCell,
  attemptLabel,
  attemptText,
  byAgent,
  duration,
  NONE,
  pickText,
  sameText,
  STATUS_LABELS,
  taskCell,
  taskOutcome,
} from "./_format.ts";
import { htmlTable, legend as legend_, outcomeLegend, outcomePill, raw } from "./_html_parts.ts";
import { CELL_COLORS, escapeHtml as esc, OUTCOME_COLORS } from "./_svg.ts";
import { type MatrixView, OUTCOME_LETTERS, type Report, type TaskRow } from "./types.ts";
import { whyText } from "./_tables_tasks.ts";
import { plural } from "../words.ts";

/** The colour of a cell where some of an agent's attempts resolved the task and some did not. */
export const SOME_COLOR = "#9ae6b4";

/** The section: the grid, its legend, and every task. */
export function tasksHtml(report: Report): string {
  const k = report.repeats;
  const legend = k > 1 ? legend_([[SOME_COLOR, "some attempts resolved"]]) : "";
  return taskGrid(report) +
    outcomeLegend("★ the judge's pick", "grey: not scored (how the attempt ended)") + legend +
    report.tasks.map((t) => taskHtml(t, k)).join("\n");
}

/** Tasks × contestants, each cell in the colour of its outcome, the judge's pick starred. */
function taskGrid(report: Report): string {
  const names = report.agents.map((a) => a.name);
  const head = `<tr><th>Task</th>${
    names.map((n) => `<th class="name" title="${esc(n)}">${esc(n)}</th>`).join("")
  }</tr>`;
  const rows = report.tasks.map((task) => {
    const cells = names.map((n) => {
      const entry = task.agents.find((a) => a.agent === n);
      const picked = task.pick.agent === n;
      const text = entry ? taskCell(entry, report.repeats) : NONE;
      const outcome = entry ? taskOutcome(entry) : null;
      const colour = outcome === "some" ? SOME_COLOR : outcome ? OUTCOME_COLORS[outcome] : null;
      const ink = outcome && outcome !== "no-fix" && outcome !== "some" ? " ink" : "";
      const title = `${task.id} · ${n}: ${text}${picked ? " · the judge's pick" : ""}${
        task.scored ? "" : " · not scored"
      }`;
      return `<td class="grid-cell${picked ? " picked" : ""}${colour ? ink : " off"}" ` +
        `data-task="${esc(task.id)}" data-agent="${esc(n)}" title="${esc(title)}"${
          colour ? ` style="background:${colour}"` : ""
        }>${picked ? "★ " : ""}${esc(text)}</td>`;
    }).join("");
    return `<tr><th><a href="#task-${esc(task.id)}">${esc(task.id)}</a></th>${cells}</tr>`;
  }).join("");
  return `<div class="scroll"><table id="chart-tasks" class="grid" ` +
    `aria-label="Outcome of every task for every agent"><thead>${head}</thead>` +
    `<tbody>${rows}</tbody></table></div>`;
}

function taskHtml(t: TaskRow, k: number): string {
  const link = t.ref.url && /^https?:\/\//.test(t.ref.url)
    ? ` · <a href="${esc(t.ref.url)}">${esc(`${t.ref.kind} #${t.ref.number}`)}</a>`
    : "";
  const state = t.scored
    ? `<span class="badge ok">scored</span>`
    : `<span class="badge off">not scored</span>`;
  const facts = [
    `<p class="facts">${
      esc(`${t.failToPass} fail-to-pass, ${t.passToPass} pass-to-pass hidden tests`)
    }${link}</p>`,
    t.scored ? "" : `<p class="why">${esc(`Not scored: ${t.reason ?? NONE}`)}</p>`,
    `<p>${esc(`Judge: ${pickText(t.pick, k)}`)}${
      // An abstention's reason is the first of the task's reasons, below.
      t.pick.reason && t.pick.agent !== null
        ? ` <span class="muted">— ${esc(t.pick.reason)}</span>`
        : ""}</p>`,
    t.why.length
      ? `<ul class="reasons">${
        t.why.map((w) => `<li class="why" data-kind="${esc(w.kind)}">${esc(whyText(w, k))}</li>`)
          .join("")
      }</ul>`
      : "",
  ].join("");
  const stopReason = (name: string) =>
    t.why.find((w) => w.kind === "stopped" && w.subject === name)?.text ?? null;
  // A row per attempt: with repeats, "codex attempt 2", never the file name `codex#2`.
  const rows = t.agents.flatMap((a) => {
    if (a.attempts.length === 0) {
      return [[
        raw(`<span class="name">${esc(a.agent)}</span>`),
        a.role,
        NONE,
        NONE,
        outcomePill(
          null,
          NONE,
        ),
        NONE,
        NONE,
      ]];
    }
    return a.attempts.map((at) => [
      raw(
        `<span class="name">${esc(attemptLabel(a.agent, at.repeat, k))}</span>${
          at.name === t.pick.attempt ? " ★" : ""
        }`,
      ),
      a.role,
      STATUS_LABELS[at.status],
      duration(at.durationMs),
      outcomePill(at.outcome, attemptCell(at)),
      at.approved === null
        ? NONE
        : at.approved
        ? "approved"
        : raw(`<span title="${esc(stopReason(at.name) ?? "")}">stopped</span>`),
      at.flags.join(", ") || NONE,
    ]);
  });
  const matrix = t.matrix
    ? matrixHtml(t.id, t.matrix, k)
    : `<p class="muted">No cross-examination matrix.</p>`;
  return `<article class="task" id="task-${esc(t.id)}"><h3>${esc(t.id)} <span class="title">${
    esc(t.title)
  }</span> ${state}</h3>` +
    facts +
    htmlTable(["Agent", "Role", "Attempt", "Time", "Outcome", "Merge gate", "Flags"], rows, {
      numeric: [3],
    }) +
    matrix + `</article>`;
}

/** A task's matrix, folded: the tests that differ between trees, and a count of the rest. */
function matrixHtml(taskId: string, m: MatrixView, k: number): string {
  const differing = m.tests - m.same;
  const summary = `Cross-examination matrix: ${plural(m.tests, "test")} × ${
    plural(m.trees.length, "tree")
  }, ${differing} with outcomes that differ between trees`;
  const authors = byAgent(m.authors).map((a) =>
    `${a.author}: ${plural(a.tests, "test")}, ${a.reproducing} failing on the unfixed tree`
  ).join(" · ");
  const same = sameText(m);
  const omitted = m.omitted
    ? `<p class="note">${
      esc(
        `${m.omitted} more tests whose outcome differs are not shown: agents' tests come first.`,
      )
    }</p>`
    : "";
  return `<details class="matrix"><summary>${esc(summary)}</summary>` +
    `<p class="muted">${esc(authors)}</p>` +
    (m.rows.length ? heatmap(taskId, m, k) + heatmapLegend() : "") +
    (same ? `<p class="same">${esc(same)}</p>` : "") + omitted + `</details>`;
}

/** CSS class of each outcome letter's cell ("." is not a class name). */
const LETTER_CLASS: Record<string, string> = Object.fromEntries(
  OUTCOMES.map((o) => [OUTCOME_LETTERS[o], o === "not-run" ? "N" : OUTCOME_LETTERS[o]]),
);

/**
 * The longest test id written out; longer ones keep their end (the test's name). The column cuts
 * what it cannot show at its start too, so this only bounds the page's size.
 */
const TEST_CHARS = 160;

/** Widths of a matrix's columns, in CSS pixels: author, the test at least, and each tree. */
const AUTHOR_WIDTH = 96, TEST_MIN_WIDTH = 200, TREE_WIDTH = 30;

/**
 * The rows of a matrix as a table: author, test, one coloured letter per tree; the judge's pick
 * outlined. Each cell is a few bytes: its colour comes from its class, its meaning from the
 * column's heading and the row's test, both with the full text in a tooltip.
 */
function heatmap(taskId: string, m: MatrixView, k: number): string {
  const roles = new Map(m.authors.map((a) => [a.author, a.role]));
  // With repeats each attempt's tests are a row group of their own: "codex attempt 2".
  const author = (name: string) => attemptText(name, k, roles.get(name) !== "repository");
  const picked = m.trees.findIndex((t) => t.picked);
  const pk = (j: number) => j === picked ? " pk" : "";
  const head = m.trees.map((tree, j) => {
    const name = `${tree.picked ? "★ " : ""}${tree.id}${tree.status === "ok" ? "" : " ⚠"}`;
    const title =
      `${tree.kind === "base" ? "unfixed tree" : `${attemptText(tree.id, k)}'s patch`}: ` +
      tree.status;
    return `<th class="tree${tree.kind === "base" ? " base" : ""}${pk(j)}" title="${esc(title)}">${
      esc(name)
    }</th>`;
  }).join("");
  let previous: string | null = null;
  const rows = m.rows.map((row) => {
    const first = row.author !== previous;
    previous = row.author;
    const shown = row.test.length > TEST_CHARS ? `…${row.test.slice(1 - TEST_CHARS)}` : row.test;
    // The full id where the cell may not show it all (the column narrows on a narrow page).
    const title = row.test + (row.unstable ? " (unstable on the unfixed tree)" : "");
    const cells = [...row.outcomes].map((letter, j) =>
      `<td class="${LETTER_CLASS[letter] ?? "N"}${pk(j)}">${letter === "." ? "" : letter}</td>`
    ).join("");
    // The id is cut at its start when the column is narrow (its end names the test); the
    // unstable mark stays in sight.
    return `<tr${first ? ` class="first"` : ""}><th${
      first ? ` title="${esc(author(row.author))}"` : ""
    }>${first ? esc(author(row.author)) : ""}</th><td class="test" title="${esc(title)}">${
      row.unstable ? `<i class="unstable">~</i>` : ""
    }<bdi>${esc(shown)}</bdi></td>${cells}</tr>`;
  }).join("");
  // Trees head narrow columns with their names written upwards; the test column takes what is
  // left, and a matrix with more trees than the page holds scrolls on purpose.
  const minWidth = AUTHOR_WIDTH + TEST_MIN_WIDTH + TREE_WIDTH * m.trees.length;
  return `<div class="scroll"><table class="heatmap" id="heatmap-${esc(taskId)}" ` +
    `aria-label="${esc(`Cross-examination matrix of ${taskId}`)}" ` +
    `style="min-width:${minWidth}px"><colgroup><col class="hm-author"><col>` +
    `<col span="${m.trees.length}" class="hm-tree"></colgroup>` +
    `<thead><tr><th>author</th><th>test</th>${head}</tr></thead><tbody>${rows}</tbody></table>` +
    `</div>`;
}

/** The matrices' legend: the colour of each outcome letter. */
function heatmapLegend(): string {
  return `<p class="legend">${
    OUTCOMES.map((o) =>
      `<span><i style="background:${CELL_COLORS[o]}"></i>${
        esc(`${OUTCOME_LETTERS[o]} ${o}`)
      }</span>`
    ).join("")
  }<span>★ the judge's pick</span><span>~ unstable on the unfixed tree</span></p>`;
}

/** The CSS of the grid and the matrices (cell colours from the same palettes as the charts). */
export const TASKS_STYLE = `
.grid { width: 100%; table-layout: fixed; }
.grid th:first-child { width: 8em; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.grid th.name { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.grid td { text-align: center; font-size: 12.5px; border: 2px solid var(--card); border-radius: 4px;
  padding: 4px 3px; line-height: 1.25; }
.grid td.ink { color: #fff; }
.grid td.off { background: #f7fafc; color: var(--muted); }
.grid td.picked { outline: 2.5px solid var(--fg); outline-offset: -3px; font-weight: 600; }
.heatmap { width: 100%; table-layout: fixed; font-size: 12px; margin: 6px 0 8px; }
.heatmap col.hm-author { width: ${AUTHOR_WIDTH + 44}px; }
@media (max-width: 900px) { .heatmap col.hm-author { width: ${AUTHOR_WIDTH}px; } }
.heatmap col.hm-tree { width: ${TREE_WIDTH}px; }
.heatmap th, .heatmap td { padding: 2px 4px; border-bottom: 1px solid #fff; overflow: hidden;
  text-overflow: ellipsis; white-space: nowrap; }
.heatmap thead th { font-weight: 600; vertical-align: bottom; text-align: left; }
.heatmap thead th.tree { writing-mode: vertical-rl; transform: rotate(180deg); max-height: 150px;
  padding: 4px 0; line-height: ${TREE_WIDTH}px; }
.heatmap thead th.base { color: var(--faint); font-weight: 400; }
.heatmap tbody th { font-weight: 600; font-size: 12px; color: var(--fg); background: none;
  border-bottom: 0; }
.heatmap tr.first > * { border-top: 1px solid #cbd5e0; }
.heatmap td.test { font: 11px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  direction: rtl; text-align: left; }
.heatmap td.test bdi { direction: ltr; }
.heatmap td.test .unstable { float: left; font-style: normal; margin-right: 4px; }
.heatmap td:not(.test) { text-align: center; font-size: 10.5px; color: #fff; }
${
  OUTCOMES.map((o) =>
    `.heatmap td.${LETTER_CLASS[OUTCOME_LETTERS[o]]} { background: ${CELL_COLORS[o]}; }`
  ).join("\n")
}
.heatmap td.S, .heatmap td.N { color: var(--muted); }
.heatmap .pk { box-shadow: inset 2px 0 var(--fg), inset -2px 0 var(--fg); }
.heatmap thead th.pk { box-shadow: inset 2px -2px var(--fg), inset -2px 0 var(--fg); }
.same { color: var(--muted); font-size: 13px; }
`;
