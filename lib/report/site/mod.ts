/**
 * The report as a small static site (`.bugbout/report/`): `index.html` — the one-page HTML
 * report, with a list of links to every other page — then `tasks/<task>/index.html` per task and
 * `tasks/<task>/<attempt>.html` per attempt. Every page is one self-contained file (inline CSS,
 * no script, a Content-Security-Policy that fetches nothing), so the folder works offline, from
 * a CI artifact, or zipped. Every piece of text is escaped: titles, diffs, transcripts and test
 * output come from agents and issue authors.
 *
 * Pure functions; no permissions needed. `load.ts` gathers the input from `.bugbout/`.
 *
 * @module
 */

import type { Report } from "../types.ts";
import { attemptPage, type SiteAttempt, type SiteTask, taskPage } from "./_pages.ts";
import { attemptPath, esc, taskPath } from "./_page.ts";

export type { SiteAttempt, SiteTask };
export { attemptPath, taskPath };

/** What the site is made from. */
export interface SiteInput {
  report: Report;
  /** The one-page HTML report (`renderHtml(report)`), which becomes the index. */
  indexHtml: string;
  tasks: SiteTask[];
}

function nameOf(a: SiteAttempt): string {
  return a.attempt.repeat ? `${a.attempt.agent}#${a.attempt.repeat}` : a.attempt.agent;
}

/** The index's list of pages, put just before its footer. */
function pagesSection(tasks: readonly SiteTask[]): string {
  const rows = tasks.map((t) =>
    `<tr><th><a class="task-link" href="${esc(taskPath(t.id))}">${esc(t.id)}</a></th><td>${
      t.attempts.map((a) =>
        `<a class="attempt-link" href="${esc(attemptPath(t.id, nameOf(a)))}">${esc(nameOf(a))}</a>`
      ).join(" · ")
    }</td></tr>`
  ).join("");
  return `<section id="pages" data-section="pages"><h2>Pages</h2><p class="lead">Each task's ` +
    `page (the real fix's diff once scored) and each attempt's (its diffs, hidden-test failures, ` +
    `cross-examination cells, transcript and output).</p><div class="scroll"><table class="grid">` +
    `<tbody>${rows}</tbody></table></div></section>\n`;
}

/** Every page of the site, by its path from the site's root. */
export function renderSite(input: SiteInput): Map<string, string> {
  const pages = new Map<string, string>();
  const at = input.indexHtml.lastIndexOf("<footer>");
  const extra = pagesSection(input.tasks);
  pages.set(
    "index.html",
    at < 0
      ? input.indexHtml + extra
      : input.indexHtml.slice(0, at) + extra + input.indexHtml.slice(at),
  );
  for (const task of input.tasks) {
    pages.set(taskPath(task.id), taskPage(input.report, task));
    for (const attempt of task.attempts) {
      pages.set(attemptPath(task.id, nameOf(attempt)), attemptPage(input.report, task, attempt));
    }
  }
  return pages;
}
