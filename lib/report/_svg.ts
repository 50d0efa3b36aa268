/**
 * The HTML report's charts as inline SVG: outcomes per agent with Wilson intervals, the judge
 * against baselines, the per-task grid, and each task's cross-examination heatmap. Every string
 * is escaped; geometry is the only arithmetic.
 *
 * @module
 */

import { type Outcome, OUTCOMES, RESOLUTION_OUTCOMES, type ResolutionOutcome } from "../records.ts";
import { expected, interval, NONE, OUTCOME_LABELS, pct, taskCell } from "./_format.ts";
import { type MatrixView, OUTCOME_LETTERS, type Report } from "./types.ts";

/** Escape text for HTML and SVG, in content and in quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );
}

const esc = escapeHtml;

/** Colours of patch outcomes. */
export const OUTCOME_COLORS: Record<ResolutionOutcome, string> = {
  resolved: "#2f855a",
  "broke-tests": "#d69e2e",
  "wrong-fix": "#c53030",
  "no-fix": "#a0aec0",
  tampered: "#553c9a",
};

/** Colours of test outcomes in the heatmaps. */
export const CELL_COLORS: Record<Outcome, string> = {
  passed: "#48bb78",
  failed: "#e53e3e",
  error: "#9b2c2c",
  skipped: "#ecc94b",
  xfailed: "#805ad5",
  "not-run": "#e2e8f0",
};

const LETTER_OUTCOME = Object.fromEntries(
  OUTCOMES.map((o) => [OUTCOME_LETTERS[o], o]),
) as Record<string, Outcome>;

const FONT = `font-family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"`;
const MONO = `font-family="ui-monospace, SFMono-Regular, Menlo, Consolas, monospace"`;

function svg(
  id: string,
  width: number,
  height: number,
  label: string,
  body: string[],
  cls = "chart",
): string {
  return `<svg id="${esc(id)}" class="${cls}" role="img" aria-label="${esc(label)}" ` +
    `xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" ` +
    `viewBox="0 0 ${width} ${height}" ${FONT} font-size="12">` +
    `<title>${esc(label)}</title>${body.join("")}</svg>`;
}

function text(x: number, y: number, content: string, attrs = ""): string {
  return `<text x="${x}" y="${y}" ${attrs}>${esc(content)}</text>`;
}

function axis(x0: number, width: number, y: number, top: number): string[] {
  const out: string[] = [];
  for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
    const x = x0 + tick * width;
    out.push(`<line x1="${x}" y1="${top}" x2="${x}" y2="${y}" stroke="#e2e8f0"/>`);
    out.push(text(x, y + 14, `${tick * 100}%`, `text-anchor="middle" fill="#718096"`));
  }
  return out;
}

function whisker(x0: number, width: number, y: number, iv: { low: number; high: number }): string {
  const lo = x0 + iv.low * width, hi = x0 + iv.high * width;
  return `<g class="interval" stroke="#1a202c" stroke-width="1.5">` +
    `<line x1="${lo}" y1="${y}" x2="${hi}" y2="${y}"/>` +
    `<line x1="${lo}" y1="${y - 4}" x2="${lo}" y2="${y + 4}"/>` +
    `<line x1="${hi}" y1="${y - 4}" x2="${hi}" y2="${y + 4}"/></g>`;
}

/** Stacked bars of every contestant's outcomes, with the resolve rate's Wilson interval. */
export function outcomesChart(report: Report): string {
  const left = 120, barWidth = 520, row = 50, top = 12;
  const width = left + barWidth + 190;
  const height = top + row * Math.max(1, report.agents.length) + 30;
  const body: string[] = [];
  body.push(...axis(left, barWidth, height - 24, top - 6));
  report.agents.forEach((agent, i) => {
    const y = top + i * row + 6;
    body.push(text(left - 10, y + 16, agent.name, `text-anchor="end" font-weight="600"`));
    if (agent.tasks === 0) {
      body.push(
        `<rect x="${left}" y="${y}" width="${barWidth}" height="24" fill="none" stroke="#cbd5e0" stroke-dasharray="4 3"/>`,
      );
      body.push(text(left + 8, y + 16, "no scored task attempted", `fill="#718096"`));
      return;
    }
    let x = left;
    for (const o of RESOLUTION_OUTCOMES) {
      const w = (agent.outcomes[o] / agent.tasks) * barWidth;
      if (w <= 0) continue;
      body.push(
        `<rect class="segment" data-outcome="${o}" x="${x}" y="${y}" width="${w}" height="24" fill="${
          OUTCOME_COLORS[o]
        }">` +
          `<title>${
            esc(`${agent.name}: ${agent.outcomes[o]} ${OUTCOME_LABELS[o]}`)
          }</title></rect>`,
      );
      if (w >= 18) {
        body.push(
          text(
            x + w / 2,
            y + 16,
            String(agent.outcomes[o]),
            `text-anchor="middle" fill="#fff" font-weight="600"`,
          ),
        );
      }
      x += w;
    }
    body.push(whisker(left, barWidth, y + 31, agent.resolveRate));
    body.push(
      text(
        left + barWidth + 10,
        y + 16,
        `${pct(agent.resolveRate.rate)} resolved (${interval(agent.resolveRate)})`,
        `fill="#2d3748"`,
      ),
    );
  });
  return svg("chart-outcomes", width, height, "Outcomes per agent with 95% Wilson intervals", body);
}

/** The judge's picks against the best single agent, an agent at random, and the oracle best. */
export function pickingChart(report: Report): string {
  const k = report.picking;
  const bars: [string, number | null, string, boolean][] = [
    ["the judge's picks", k.judge.rate.rate, `${k.judge.resolved} of ${k.tasks}`, true],
    [
      `best single (${k.bestSingle.agents.join(", ") || NONE})`,
      k.bestSingle.rate,
      `${k.bestSingle.resolved} of ${k.tasks}`,
      false,
    ],
    [
      "an agent at random",
      k.random.rate,
      `${expected(k.random.expected)} of ${k.tasks} expected`,
      false,
    ],
    ["oracle best", k.oracle.rate, `${k.oracle.resolved} of ${k.tasks}`, false],
  ];
  const left = 200, barWidth = 420, row = 34, top = 10;
  const width = left + barWidth + 170, height = top + row * bars.length + 30;
  const body = axis(left, barWidth, height - 24, top);
  bars.forEach(([label, rate, detail, judge], i) => {
    const y = top + i * row + 4;
    body.push(text(left - 10, y + 15, label, `text-anchor="end"`));
    const w = (rate ?? 0) * barWidth;
    body.push(
      `<rect x="${left}" y="${y}" width="${w}" height="20" rx="2" fill="${
        judge ? "#2b6cb0" : "#90cdf4"
      }"/>`,
    );
    if (judge && k.judge.rate.n > 0) body.push(whisker(left, barWidth, y + 10, k.judge.rate));
    body.push(text(left + barWidth + 10, y + 15, `${pct(rate)} · ${detail}`, `fill="#2d3748"`));
  });
  return svg("chart-picking", width, height, "The judge's picks against baselines", body);
}

/** The per-task grid: tasks × contestants, coloured by outcome, the judge's pick starred. */
export function taskGrid(report: Report): string {
  const names = report.agents.map((a) => a.name);
  const left = 110, cell = 118, rowH = 28, top = 28;
  const width = left + cell * Math.max(1, names.length) + 10;
  const height = top + rowH * report.tasks.length + 8;
  const body: string[] = [];
  names.forEach((n, j) =>
    body.push(text(left + j * cell + cell / 2, 18, n, `text-anchor="middle" font-weight="600"`))
  );
  report.tasks.forEach((task, i) => {
    const y = top + i * rowH;
    body.push(text(left - 10, y + 18, task.id, `text-anchor="end"`));
    names.forEach((n, j) => {
      const entry = task.agents.find((a) => a.agent === n);
      const x = left + j * cell;
      const fill = entry?.outcome ? OUTCOME_COLORS[entry.outcome] : "#f7fafc";
      const picked = task.pick.agent === n;
      const label = entry ? taskCell(entry) : NONE;
      body.push(
        `<g class="grid-cell${picked ? " picked" : ""}" data-task="${esc(task.id)}" data-agent="${
          esc(n)
        }">` +
          `<rect x="${x + 2}" y="${y + 2}" width="${cell - 4}" height="${
            rowH - 4
          }" rx="3" fill="${fill}" ` +
          `stroke="${picked ? "#1a202c" : entry?.outcome ? "none" : "#cbd5e0"}" stroke-width="${
            picked ? 2.5 : 1
          }"/>` +
          text(
            x + cell / 2,
            y + 18,
            `${picked ? "★ " : ""}${label}`,
            `text-anchor="middle" fill="${
              entry?.outcome && entry.outcome !== "no-fix" ? "#fff" : "#4a5568"
            }"`,
          ) +
          `<title>${
            esc(
              `${task.id} · ${n}: ${label}${picked ? " · the judge's pick" : ""}${
                task.scored ? "" : " · not scored"
              }`,
            )
          }</title></g>`,
      );
    });
  });
  return svg("chart-tasks", width, height, "Outcome of every task for every agent", body);
}

/** One task's matrix as a heatmap: tests × trees, coloured by outcome, the pick outlined. */
export function heatmap(taskId: string, view: MatrixView): string {
  const labelW = 420, authorW = 90, col = 64, rowH = 16, top = 34;
  const left = authorW + labelW;
  const width = left + col * view.trees.length + 10;
  const gap = 8;
  const groups = view.rows.filter((r, i) => i === 0 || r.author !== view.rows[i - 1].author).length;
  const height = top + rowH * view.rows.length + gap * Math.max(0, groups - 1) + 10;
  const body: string[] = [];
  body.push(
    text(0, top - 10, "author", `fill="#718096"`),
    text(authorW, top - 10, "test", `fill="#718096"`),
  );
  view.trees.forEach((tree, j) => {
    const x = left + j * col;
    const name = tree.kind === "base" ? tree.id : `${tree.picked ? "★ " : ""}${tree.id}`;
    const warn = tree.status === "ok" ? "" : " ⚠";
    body.push(
      `<text x="${x + col / 2}" y="${top - 10}" text-anchor="middle" font-weight="${
        tree.picked ? 700 : 400
      }" ` +
        `fill="${tree.kind === "base" ? "#718096" : "#1a202c"}">${esc(name + warn)}` +
        `<title>${
          esc(`${tree.kind === "base" ? "unfixed tree" : `${tree.agent}'s patch`}: ${tree.status}`)
        }</title></text>`,
    );
  });
  let y = top - gap, previous: string | null = null;
  for (const row of view.rows) {
    if (row.author !== previous) {
      y += gap;
      if (previous !== null) {
        body.push(
          `<line x1="0" y1="${y - gap / 2}" x2="${width}" y2="${y - gap / 2}" stroke="#cbd5e0"/>`,
        );
      }
      const author = row.author.length > 13 ? `${row.author.slice(0, 12)}…` : row.author;
      body.push(
        `<text x="0" y="${y + 12}" font-weight="600">${esc(author)}<title>${
          esc(row.author)
        }</title></text>`,
      );
      previous = row.author;
    }
    const shown = row.test.length > 62 ? `…${row.test.slice(-61)}` : row.test;
    body.push(
      `<text x="${authorW}" y="${y + 12}" ${MONO} font-size="11">${
        esc((row.unstable ? "~ " : "") + shown)
      }` +
        `<title>${
          esc(row.test + (row.unstable ? " (unstable on the unfixed tree)" : ""))
        }</title></text>`,
    );
    [...row.outcomes].forEach((letter, j) => {
      const outcome = LETTER_OUTCOME[letter] ?? "not-run";
      const x = left + j * col;
      const ink = outcome === "not-run" || outcome === "skipped" ? "#4a5568" : "#fff";
      body.push(
        `<rect class="cell" x="${x + 1}" y="${y + 1}" width="${col - 2}" height="${
          rowH - 2
        }" fill="${CELL_COLORS[outcome]}">` +
          `<title>${esc(`${row.test} on ${view.trees[j]?.id ?? "?"}: ${outcome}`)}</title></rect>`,
        text(
          x + col / 2,
          y + 12,
          letter === "." ? "" : letter,
          `text-anchor="middle" font-size="10" fill="${ink}"`,
        ),
      );
    });
    y += rowH;
  }
  const picked = view.trees.findIndex((t) => t.picked);
  if (picked >= 0) {
    body.push(
      `<rect class="pick" x="${left + picked * col}" y="${top - 26}" width="${col}" ` +
        `height="${y - top + 28}" fill="none" stroke="#1a202c" stroke-width="2.5" rx="3"/>`,
    );
  }
  const label = `Cross-examination matrix of ${taskId}`;
  return svg(`heatmap-${taskId}`, width, height, label, body, "chart heatmap");
}

/** The heatmaps' legend, as HTML. */
export function heatmapLegend(): string {
  return `<p class="legend">${
    OUTCOMES.map((o) =>
      `<span><i style="background:${CELL_COLORS[o]}"></i>${
        esc(`${OUTCOME_LETTERS[o]} ${o}`)
      }</span>`
    ).join("")
  }<span>★ the judge's pick</span><span>~ unstable on the unfixed tree</span></p>`;
}
