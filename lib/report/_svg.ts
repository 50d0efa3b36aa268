/**
 * The HTML report's charts as inline SVG: outcomes per agent with Wilson intervals, and the judge
 * against baselines. Each chart scales down to fit a narrow page (CSS `max-width: 100%`); names
 * too long for the label column are cut with "…", in full in their tooltip. Every string is
 * escaped; geometry is the only arithmetic.
 *
 * @module
 */

import { type Outcome, RESOLUTION_OUTCOMES, type ResolutionOutcome } from "../records.ts";
import { expected, interval, NONE, OUTCOME_LABELS, pct } from "./_format.ts";
import type { Report } from "./types.ts";
import { plural } from "../words.ts";

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
  divergent: "#97266d",
  suspect: "#b83280",
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

const FONT = `font-family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"`;

/** About how wide a character of the charts' 12px labels is, bold included, with room to spare. */
const CHAR_WIDTH = 7.8;

/**
 * The width of a label column that fits the longest label, between `min` and `max`, and a way to
 * cut a label to it.
 */
function labelColumn(labels: readonly string[], min: number, max: number) {
  const longest = Math.max(0, ...labels.map((l) => [...l].length));
  const width = Math.min(max, Math.max(min, Math.ceil(longest * CHAR_WIDTH) + 20));
  const fits = Math.floor((width - 20) / CHAR_WIDTH);
  const cut = (label: string) => {
    const chars = [...label];
    return chars.length <= fits ? label : `${chars.slice(0, fits - 1).join("")}…`;
  };
  return { width, cut };
}

/** A label at the end of the label column, cut to fit, in full in its tooltip. */
function label(x: number, y: number, full: string, shown: string, attrs = ""): string {
  return `<text x="${x}" y="${y}" text-anchor="end" ${attrs}>${esc(shown)}` +
    `${shown === full ? "" : `<title>${esc(full)}</title>`}</text>`;
}

function svg(id: string, width: number, height: number, title: string, body: string[]): string {
  return `<svg id="${esc(id)}" class="chart" role="img" aria-label="${esc(title)}" ` +
    `xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" ` +
    `viewBox="0 0 ${width} ${height}" ${FONT} font-size="12">` +
    `<title>${esc(title)}</title>${body.join("")}</svg>`;
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

function whisker(
  x0: number,
  width: number,
  y: number,
  iv: { low: number; high: number },
  tick = 4,
): string {
  const lo = x0 + iv.low * width, hi = x0 + iv.high * width;
  return `<g class="interval" stroke="#1a202c" stroke-width="1.5">` +
    `<line x1="${lo}" y1="${y}" x2="${hi}" y2="${y}"/>` +
    `<line x1="${lo}" y1="${y - tick}" x2="${lo}" y2="${y + tick}"/>` +
    `<line x1="${hi}" y1="${y - tick}" x2="${hi}" y2="${y + tick}"/></g>`;
}

/**
 * Stacked bars of every contestant's outcomes, with the resolve rate's Wilson interval; with
 * repeats, the outcomes of every attempt, pass@1 with its interval, and pass@k and pass^k.
 */
export function outcomesChart(report: Report): string {
  const k = report.repeats;
  const names = labelColumn(report.agents.map((a) => a.name), 80, 220);
  const left = names.width, barWidth = 480, row = 50, top = 12;
  const width = left + barWidth + 190;
  const height = top + row * Math.max(1, report.agents.length) + 30;
  const body: string[] = [];
  body.push(...axis(left, barWidth, height - 24, top - 6));
  report.agents.forEach((agent, i) => {
    const y = top + i * row + 6;
    body.push(label(left - 10, y + 16, agent.name, names.cut(agent.name), `font-weight="600"`));
    if (agent.tasks === 0) {
      body.push(
        `<rect x="${left}" y="${y}" width="${barWidth}" height="24" fill="none" stroke="#cbd5e0" stroke-dasharray="4 3"/>`,
      );
      body.push(text(left + 8, y + 16, "no scored task attempted", `fill="#718096"`));
      return;
    }
    let x = left;
    for (const o of RESOLUTION_OUTCOMES) {
      const w = ((agent.outcomes[o] ?? 0) / agent.scoredAttempts) * barWidth;
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
    const rate = `${pct(agent.resolveRate.rate)}${k > 1 ? "" : " resolved"} (${
      interval(agent.resolveRate)
    })`;
    body.push(
      text(left + barWidth + 10, y + 16, k > 1 ? `pass@1 ${rate}` : rate, `fill="#2d3748"`),
    );
    if (k > 1) {
      body.push(
        text(
          left + barWidth + 10,
          y + 33,
          `pass@${k} ${pct(agent.passAtK?.rate ?? null)} · pass^${k} ${
            pct(agent.passHatK?.rate ?? null)
          }`,
          `fill="#4a5568"`,
        ),
      );
    }
  });
  const title = k > 1
    ? `Outcomes of every attempt per agent, with pass@1 and its 95% interval, pass@${k} and pass^${k}`
    : "Outcomes per agent with 95% Wilson intervals";
  return svg("chart-outcomes", width, height, title, body);
}

/**
 * Each contestant with a training cutoff: its resolve rate (pass@1 with repeats) on tasks fixed up
 * to the cutoff and after it, each with its interval. A side with too few tasks gets no bar, only
 * words saying so.
 */
export function cutoffChart(report: Report): string {
  const rows = report.agents.flatMap((a) =>
    a.cutoff
      ? [
        { label: `${a.name} · up to ${a.cutoff.cutoff}`, group: a.cutoff.before },
        { label: `${a.name} · after ${a.cutoff.cutoff}`, group: a.cutoff.after },
      ]
      : []
  );
  const labels = labelColumn(rows.map((r) => r.label), 150, 260);
  const left = labels.width, barWidth = 420, row = 36, top = 10;
  const width = left + barWidth + 190, height = top + row * rows.length + 30;
  const body = axis(left, barWidth, height - 24, top);
  rows.forEach(({ label: full, group }, i) => {
    const y = top + i * row + 4;
    body.push(label(left - 10, y + 15, full, labels.cut(full)));
    if (group.tooSmall || group.resolveRate.rate === null) {
      body.push(
        `<rect class="too-few" x="${left}" y="${y}" width="${barWidth}" height="20" fill="none" stroke="#cbd5e0" stroke-dasharray="4 3"/>`,
        text(
          left + 8,
          y + 15,
          `${plural(group.tasks, "task")}: too few to conclude anything`,
          `fill="#718096"`,
        ),
      );
      return;
    }
    const w = Math.max(3, group.resolveRate.rate * barWidth);
    body.push(
      `<rect x="${left}" y="${y}" width="${w}" height="20" rx="2" fill="${OUTCOME_COLORS.resolved}"/>`,
      whisker(left, barWidth, y + 26, group.resolveRate, 3),
      text(
        left + barWidth + 10,
        y + 15,
        `${pct(group.resolveRate.rate)} (${interval(group.resolveRate)}) · ${
          plural(group.tasks, "task")
        }`,
        `fill="#2d3748"`,
      ),
    );
  });
  return svg(
    "chart-cutoff",
    width,
    height,
    "Resolve rates on tasks fixed up to and after each agent's training cutoff",
    body,
  );
}

/** The colour of the judge's bar in the picking chart. */
export const JUDGE_COLOR = "#2b6cb0";
/** The colour of the baselines' bars in the picking chart. */
export const BASELINE_COLOR = "#90cdf4";

/**
 * The judge's picks against the best single agent, an agent at random, and the oracle best: plain
 * bars, the judge's darker, with its interval. A bar at 0% is a visible mark with "0%" beside it,
 * and no scored task is said in words.
 */
export function pickingChart(report: Report): string {
  const k = report.picking;
  const bars: [string, number | null, string, boolean][] = [
    ["the judge's picks", k.judge.rate.rate, `${k.judge.resolved} of ${k.tasks}`, true],
    [
      `best single (${k.bestSingle.agents.join(", ") || NONE})`,
      k.bestSingle.rate,
      report.repeats > 1
        ? `${expected(k.bestSingle.resolved)} of ${k.tasks} expected`
        : `${k.bestSingle.resolved} of ${k.tasks}`,
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
  const labels = labelColumn(bars.map(([l]) => l), 150, 240);
  const left = labels.width, barWidth = 420, row = 36, top = 10;
  const width = left + barWidth + 170, height = top + row * bars.length + 30;
  const body = axis(left, barWidth, height - 24, top);
  bars.forEach(([name, rate, detail, judge], i) => {
    const y = top + i * row + 4;
    const fill = judge ? JUDGE_COLOR : BASELINE_COLOR;
    body.push(label(left - 10, y + 15, name, labels.cut(name)));
    if (rate === null) {
      body.push(
        `<rect x="${left}" y="${y}" width="${barWidth}" height="20" fill="none" stroke="#cbd5e0" stroke-dasharray="4 3"/>`,
        text(left + 8, y + 15, "no scored task", `fill="#718096"`),
      );
      return;
    }
    const w = rate * barWidth;
    if (w < 3) {
      // Nothing to draw at 0%: a mark at the axis and the number beside it, not an empty row.
      body.push(
        `<rect class="zero" x="${left}" y="${y}" width="3" height="20" fill="${fill}" stroke="#2d3748" stroke-width="0.5"/>`,
        text(left + 8, y + 15, pct(rate), `fill="#2d3748"`),
      );
    } else {
      body.push(`<rect x="${left}" y="${y}" width="${w}" height="20" rx="2" fill="${fill}"/>`);
    }
    // Under the bar, so that it never hides a short bar or the 0% label.
    if (judge && k.judge.rate.n > 0) body.push(whisker(left, barWidth, y + 26, k.judge.rate, 3));
    body.push(text(left + barWidth + 10, y + 15, `${pct(rate)} · ${detail}`, `fill="#2d3748"`));
  });
  return svg("chart-picking", width, height, "The judge's picks against baselines", body);
}

/**
 * Cost against resolve rate: one point per contestant that reported a cost, at its total cost
 * in US dollars (x, from 0 to the largest) and its resolve rate (y, pass@1 with repeats) with the
 * rate's 95% interval as a vertical whisker; contestants with no cost are named under the chart.
 * Empty when no contestant reported one (tokens alone are in the table beside it).
 */
export function costChart(report: Report): string {
  const priced = report.agents.filter((a) =>
    a.cost.totalUsd !== null && a.cost.attempts > 0 && a.tasks > 0 && a.resolveRate.rate !== null
  );
  if (priced.length === 0) return "";
  const unpriced = report.agents.filter((a) => !priced.includes(a)).map((a) => a.name);
  const left = 56, plotW = 480, plotH = 240, top = 14, right = 180;
  const height = top + plotH + 44 + (unpriced.length > 0 ? 18 : 0);
  const width = left + plotW + right;
  const most = Math.max(...priced.map((a) => a.cost.totalUsd!));
  const xMax = most > 0 ? most * 1.1 : 1;
  const xOf = (usd: number) => left + (usd / xMax) * plotW;
  const yOf = (rate: number) => top + (1 - rate) * plotH;
  const body: string[] = [];
  for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
    const y = yOf(tick);
    body.push(`<line x1="${left}" y1="${y}" x2="${left + plotW}" y2="${y}" stroke="#e2e8f0"/>`);
    body.push(text(left - 6, y + 4, `${tick * 100}%`, `text-anchor="end" fill="#718096"`));
  }
  for (const tick of [0, 0.5, 1]) {
    const x = left + tick * plotW;
    body.push(
      text(
        x,
        top + plotH + 16,
        `$${(tick * xMax).toFixed(2)}`,
        `text-anchor="middle" fill="#718096"`,
      ),
    );
  }
  body.push(
    text(
      left + plotW / 2,
      top + plotH + 32,
      "total cost (US dollars)",
      `text-anchor="middle" fill="#4a5568"`,
    ),
  );
  const names = labelColumn(priced.map((a) => a.name), 40, right - 14);
  for (const agent of priced) {
    const x = xOf(agent.cost.totalUsd!), rate = agent.resolveRate.rate!;
    const lo = yOf(agent.resolveRate.low), hi = yOf(agent.resolveRate.high);
    const tip = `${agent.name}: ${pct(rate)} resolved for $${agent.cost.totalUsd!.toFixed(2)}` +
      (agent.perResolved.costUsd !== null
        ? ` ($${agent.perResolved.costUsd.toFixed(2)} per resolved task)`
        : "");
    body.push(
      `<g class="point" data-agent="${esc(agent.name)}"><title>${esc(tip)}</title>` +
        `<line x1="${x}" y1="${lo}" x2="${x}" y2="${hi}" stroke="#1a202c" stroke-width="1.5"/>` +
        `<circle cx="${x}" cy="${yOf(rate)}" r="5" fill="${JUDGE_COLOR}"/></g>`,
    );
    const shown = names.cut(agent.name);
    body.push(
      `<text x="${x + 8}" y="${yOf(rate) + 4}">${esc(shown)}${
        shown === agent.name ? "" : `<title>${esc(agent.name)}</title>`
      }</text>`,
    );
  }
  if (unpriced.length > 0) {
    body.push(
      text(left, height - 6, `no cost reported: ${unpriced.join(", ")}`, `fill="#718096"`),
    );
  }
  return svg("cost-chart", width, height, "Resolve rate against total cost", body);
}
