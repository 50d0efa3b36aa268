/**
 * The HTML report in a real browser: headless Chromium loads the fixture's page from disk, the
 * test checks that every section and chart rendered, that hostile text stayed text, and that the
 * page asked for nothing but itself. The page and a screenshot of it are left in the test's temp
 * directory, whose path the test prints; the browser profile is removed.
 *
 * Skipped, with a message, only when `chromium` is not installed.
 */

import { deepEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { which } from "../../lib/proc.ts";
import { buildReport } from "../../lib/report/build.ts";
import { renderHtml } from "../../lib/report/html.ts";
import { SECTION_TITLES } from "../../lib/report/types.ts";
import { Chromium } from "./_chromium.ts";
import { fixtureInput, HOSTILE_TEST, HOSTILE_TITLE } from "./fixture.ts";

const chromium = await which("chromium");
if (!chromium) {
  console.log("browser_test: chromium is not installed (apt-get install -y chromium); skipped");
}

Deno.test({
  name: "the HTML report renders every section and chart in Chromium and requests nothing",
  ignore: !chromium,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "bugbout-report-browser-" });
    const page = join(dir, "report.html");
    await Deno.writeTextFile(page, renderHtml(buildReport(fixtureInput())));
    const url = pathToFileURL(page).href;
    try {
      await using browser = await Chromium.launch(chromium!, dir);
      await browser.open(url);

      // Only the document itself was requested: no font, script, image or anything else.
      deepEqual(browser.requests, [url]);

      const sections = await browser.evaluate<Record<string, string | null>>(
        `Object.fromEntries(${JSON.stringify(Object.keys(SECTION_TITLES))}.map((id) =>
          [id, document.getElementById(id)?.querySelector("h2")?.textContent ?? null]))`,
      );
      deepEqual(sections, SECTION_TITLES);

      const charts = await browser.evaluate<Record<string, unknown>>(`(() => {
        const box = (el) => el ? el.getBoundingClientRect() : null;
        const size = (sel) => { const b = box(document.querySelector(sel)); return b && b.width > 100 && b.height > 40; };
        return {
          outcomes: size("#chart-outcomes"),
          picking: size("#chart-picking"),
          tasks: size("#chart-tasks"),
          segments: document.querySelectorAll("#chart-outcomes rect.segment").length,
          intervals: document.querySelectorAll("#chart-outcomes .interval").length,
          gridCells: document.querySelectorAll("#chart-tasks .grid-cell").length,
          picked: [...document.querySelectorAll("#chart-tasks .grid-cell.picked")]
            .map((g) => g.dataset.task + ":" + g.dataset.agent),
          folded: document.querySelectorAll("details.matrix").length,
          open: document.querySelectorAll("details[open]").length,
          foldedHeight: box(document.querySelector("#task-issue-11 details")).height,
          heatmaps: [...document.querySelectorAll("table.heatmap")].map((s) => s.id),
          heatmapCells: document.querySelectorAll("#heatmap-issue-11 tbody td:not(.test)").length,
          pickColumns: document.querySelectorAll("table.heatmap thead th.pk").length,
          warning: document.getElementById("sandbox-warning")?.textContent ?? "",
        };
      })()`);
      equal(charts.outcomes, true, "the outcomes chart has a size");
      equal(charts.picking, true, "the picking chart has a size");
      equal(charts.tasks, true, "the task grid has a size");
      // codex: resolved + wrong fix; claude: resolved + broke tests; cheater: wrong fix + no fix.
      equal(charts.segments, 6);
      equal(charts.intervals, 3);
      equal(charts.gridCells, 5 * 3);
      deepEqual(charts.picked, ["issue-11:codex", "issue-12:codex", "issue-14:codex"]);
      // Every matrix is folded: its summary line is all the room it takes until opened.
      deepEqual([charts.folded, charts.open], [5, 0]);
      ok(Number(charts.foldedHeight) < 50, `a folded matrix is ${charts.foldedHeight} px tall`);
      // issue-15's tests have one outcome on every tree that ran: no table, only a count.
      deepEqual(charts.heatmaps, [11, 12, 13, 14].map((n) => `heatmap-issue-${n}`));
      equal(charts.heatmapCells, 7 * 5);
      equal(charts.pickColumns, 3);
      ok(String(charts.warning).includes('sandbox = "none"'));

      // Hostile text is shown as text: nothing ran, no element was injected.
      const hostile = await browser.evaluate<Record<string, unknown>>(`({
        pwned: typeof window.__pwned,
        scripts: document.scripts.length,
        images: document.images.length,
        title: document.querySelector("#task-issue-13 .title")?.textContent,
        test: [...document.querySelectorAll("#heatmap-issue-11 td.test")]
          .some((t) => t.title === ${JSON.stringify(HOSTILE_TEST)}),
      })`);
      deepEqual(hostile, {
        pwned: "undefined",
        scripts: 0,
        images: 0,
        title: HOSTILE_TITLE,
        test: true,
      });

      const png = await browser.screenshot(1280);
      const shot = join(dir, "report.png");
      await Deno.writeFile(shot, png);
      ok(png.length > 10_000, "the screenshot is not empty");
      console.log(`screenshot: ${shot}`);
    } finally {
      // The page and its screenshot stay for a person to look at; the browser profile goes.
      await Deno.remove(join(dir, "profile"), { recursive: true });
    }
  },
});
