/**
 * The task page (every attempt with a link, the judge's pick and the reasons, the real fix's diff
 * once the task is scored) and the attempt page (its diffs, hidden-test failures with their
 * tracebacks, cross-examination cells, transcript and output).
 *
 * Pure functions; no permissions needed.
 *
 * @module
 */

import type { Report, TaskAttempt, TaskRow } from "../types.ts";
import type { Attempt, AttemptPatches, Matrix, Resolution } from "../../records.ts";
import { tokensOf } from "../../records.ts";
import type { Atif } from "../../transcript/atif.ts";
import {
  attemptFile,
  attemptPath,
  diffHtml,
  esc,
  page,
  preHtml,
  section,
  taskPath,
} from "./_page.ts";
import { transcriptHtml } from "./_transcript.ts";

/** One attempt, as its page needs it. */
export interface SiteAttempt {
  attempt: Attempt;
  patches: AttemptPatches;
  trajectory?: Atif;
}

/** One task, as its pages need it. */
export interface SiteTask {
  id: string;
  /** The real fix's diff (B to G); shown only once the task has been scored. */
  goldDiff?: string;
  matrix?: Matrix;
  resolution?: Resolution;
  attempts: SiteAttempt[];
}

/** Rows of cross-examination cells shown per table. */
const CELL_ROWS = 300;

function kv(rows: [string, string][]): string {
  return `<table class="kv">${
    rows.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`).join("")
  }</table>`;
}

function outcome(o: string | undefined): string {
  return o === undefined
    ? `<span class="muted">—</span>`
    : `<span class="o-${esc(o)}">${esc(o)}</span>`;
}

function whyList(row: TaskRow | undefined, subject?: string): string {
  const why = (row?.why ?? []).filter((w) => subject === undefined || w.subject === subject);
  if (!why.length) return "";
  return `<ul class="reasons">${
    why.map((w) =>
      `<li class="why" data-kind="${esc(w.kind)}">${
        esc(`${w.kind}${w.subject ? ` (${w.subject})` : ""}: ${w.text}`)
      }</li>`
    ).join("")
  }</ul>`;
}

function findRow(report: Report, task: string): TaskRow | undefined {
  return report.tasks.find((t) => t.id === task);
}

function findAttempt(row: TaskRow | undefined, name: string): TaskAttempt | undefined {
  return row?.agents.flatMap((a) => a.attempts).find((a) => a.name === name);
}

/** A task's page. */
export function taskPage(report: Report, task: SiteTask): string {
  const row = findRow(report, task.id);
  const up = "../../";
  const attempts = task.attempts.map(({ attempt }) => {
    const name = attempt.repeat ? `${attempt.agent}#${attempt.repeat}` : attempt.agent;
    const at = findAttempt(row, name);
    const score = task.resolution?.patches[name];
    return `<tr><td><a class="attempt-link" href="${esc(attemptFile(name))}">${esc(name)}</a>${
      row?.pick.attempt === name ? " ★" : ""
    }</td><td>${esc(attempt.role)}</td><td>${esc(attempt.status)}</td><td>${
      outcome(score?.outcome ?? at?.outcome ?? undefined)
    }</td><td>${
      at?.approved === null || at?.approved === undefined
        ? "—"
        : at.approved
        ? "approved"
        : "stopped"
    }</td></tr>`;
  }).join("");
  const scored = task.resolution !== undefined;
  const body = [
    row
      ? kv([
        ["title", row.title],
        ["reference", `${row.ref.kind} #${row.ref.number}`],
        ["scored", row.scored ? "yes" : `no: ${row.reason ?? "—"}`],
        ["hidden tests", `${row.failToPass} fail-to-pass, ${row.passToPass} pass-to-pass`],
        ["judge", row.pick.attempt ? `picked ${row.pick.attempt}` : "abstained"],
        ["judge's reason", row.pick.reason ?? "—"],
      ])
      : "",
    whyList(row),
    section(
      "attempts",
      "Attempts",
      `<table class="plain"><thead><tr><th>attempt</th><th>role</th><th>status</th><th>outcome</th><th>merge gate</th></tr></thead><tbody>${attempts}</tbody></table>`,
    ),
    section(
      "gold",
      "The real fix",
      scored
        ? diffHtml(
          task.goldDiff ?? "",
          "The real fix's diff could not be read from the repository.",
        )
        : `<p class="muted">Shown once the task has been scored: until then the agents' work is judged without it.</p>`,
    ),
  ].join("\n");
  return page({
    title: `Task ${task.id}`,
    crumbs: [[`${up}index.html`, "Report"], ["index.html", task.id]],
    body,
    generator: report.bugbout,
  });
}

/** The failing hidden tests with what their run said. */
function hiddenHtml(score: Resolution["patches"][string] | undefined, scored: boolean): string {
  if (!score) {
    return `<p class="muted">${
      esc(scored ? "This attempt was not scored." : "The task is not scored (yet).")
    }</p>`;
  }
  const failing = [
    ...score.failToPass.failing.map((id) => [id, "fail-to-pass"]),
    ...score.passToPass.failing.map((id) => [id, "pass-to-pass"]),
  ];
  const head = kv([
    ["outcome", score.outcome],
    ["fail-to-pass", `${score.failToPass.passed} of ${score.failToPass.total} pass`],
    [
      "pass-to-pass",
      `${
        score.passToPass.total - score.passToPass.failing.length
      } of ${score.passToPass.total} pass`,
    ],
    ...(score.message ? [["scoring said", score.message] as [string, string]] : []),
    ...(score.flags.length ? [["flags", score.flags.join("; ")] as [string, string]] : []),
    ...(score.tampering?.length
      ? [
        ["tampering", score.tampering.map((e) => `${e.what} (${e.where})`).join("; ")] as [
          string,
          string,
        ],
      ]
      : []),
  ]);
  const tests = failing.map(([id, kind]) => {
    const f = score.failures?.[id];
    return `<div class="failing-test" data-test="${esc(id)}"><h3>${esc(id)} <span class="muted">${
      esc(kind)
    }</span></h3>${f?.message ? `<p>${esc(f.message)}</p>` : ""}${
      f?.traceback
        ? preHtml(f.traceback)
        : f
        ? ""
        : `<p class="muted">No failure text kept (the patch was not run, or its run said none).</p>`
    }</div>`;
  });
  return head + tests.join("");
}

/** The cross-examination cells that concern this attempt. */
function cellsHtml(matrix: Matrix | undefined, name: string): string {
  if (!matrix) return `<p class="muted">No cross-examination matrix for this task.</p>`;
  const tree = matrix.trees.find((t) => t.kind === "patch" && t.id === name);
  const bases = matrix.trees.filter((t) => t.kind === "base").map((t) => t.id);
  const parts: string[] = [];
  if (tree) {
    parts.push(
      `<p>${
        esc(
          `Its patch as a tree of the matrix: ${tree.status}${
            tree.message ? ` — ${tree.message}` : ""
          }`,
        )
      }</p>`,
    );
    const rows = matrix.tests.filter((t) => {
      const cell = matrix.cells[t.id]?.[tree.id];
      return bases.some((b) => matrix.cells[t.id]?.[b] !== cell);
    }).slice(0, CELL_ROWS);
    parts.push(
      rows.length
        ? `<h3>Tests whose outcome on this patch differs from the unfixed code</h3><table class="plain"><thead><tr><th>test</th><th>author</th>${
          bases.map((b) => `<th>${esc(b)}</th>`).join("")
        }<th>this patch</th></tr></thead><tbody>${
          rows.map((t) =>
            `<tr><td>${esc(t.id)}</td><td>${esc(t.author)}</td>${
              bases.map((b) => `<td>${outcome(matrix.cells[t.id]?.[b])}</td>`).join("")
            }<td>${outcome(matrix.cells[t.id]?.[tree.id])}</td></tr>`
          ).join("")
        }</tbody></table>`
        : `<p class="muted">No test's outcome on this patch differs from the unfixed code.</p>`,
    );
  }
  const own = matrix.tests.filter((t) => t.author === name).slice(0, CELL_ROWS);
  parts.push(
    own.length
      ? `<h3>Its own tests on every tree</h3><div class="scroll"><table class="plain"><thead><tr><th>test</th>${
        matrix.trees.map((t) => `<th>${esc(t.id)}</th>`).join("")
      }</tr></thead><tbody>${
        own.map((t) =>
          `<tr><td>${esc(t.id)}</td>${
            matrix.trees.map((tr) => `<td>${outcome(matrix.cells[t.id]?.[tr.id])}</td>`).join("")
          }</tr>`
        ).join("")
      }</tbody></table></div>`
      : `<p class="muted">It wrote no test the matrix ran.</p>`,
  );
  return parts.join("");
}

/** An attempt's page. */
export function attemptPage(report: Report, task: SiteTask, item: SiteAttempt): string {
  const { attempt, patches, trajectory } = item;
  const name = attempt.repeat ? `${attempt.agent}#${attempt.repeat}` : attempt.agent;
  const row = findRow(report, task.id);
  const at = findAttempt(row, name);
  const score = task.resolution?.patches[name];
  const tokens = tokensOf(attempt);
  const facts = kv([
    ["agent", `${attempt.agent} (${attempt.type}${attempt.model ? `, ${attempt.model}` : ""})`],
    ["role", attempt.role],
    ["status", attempt.status],
    ["outcome", score?.outcome ?? at?.outcome ?? "not scored"],
    [
      "merge gate",
      at?.approved === null || at?.approved === undefined
        ? "—"
        : at.approved
        ? "approved"
        : "stopped",
    ],
    ["time", `${(attempt.durationMs / 1000).toFixed(1)} s`],
    ["exit code", attempt.exitCode === null ? "none (killed)" : String(attempt.exitCode)],
    ["tokens", tokens === undefined ? "not reported" : String(tokens)],
    ["cost", attempt.costUsd === undefined ? "not reported" : `$${attempt.costUsd.toFixed(4)}`],
    ["sandbox", attempt.sandbox],
    ...(attempt.error ? [["error", attempt.error] as [string, string]] : []),
  ]);
  const body = [
    facts,
    whyList(row, name),
    attempt.summary ? section("summary", "The agent's summary", preHtml(attempt.summary)) : "",
    section("hidden", "Hidden tests", hiddenHtml(score, task.resolution !== undefined)),
    section("source-diff", "Source diff", diffHtml(patches.source, "No source change.")),
    section("test-diff", "Test diff", diffHtml(patches.tests, "No test change.")),
    section("cells", "Cross-examination", cellsHtml(task.matrix, name)),
    section("transcript", "Transcript", transcriptHtml(trajectory, attempt.type)),
    section(
      "output",
      "The agent's output",
      attempt.logTail
        ? `<p class="muted">The end of what it printed (standard error, then standard output).</p>${
          preHtml(attempt.logTail)
        }`
        : `<p class="muted">It printed nothing.</p>`,
    ),
  ].join("\n");
  return page({
    title: `${task.id} · ${name}`,
    crumbs: [["../../index.html", "Report"], ["index.html", task.id], [attemptFile(name), name]],
    body,
    generator: report.bugbout,
  });
}

export { attemptPath, taskPath };
