/**
 * The HTML report laid out in headless Chromium at 1400 and at 800 px wide: no section, card or
 * table reaches past its box (a matrix with more trees than the page holds may scroll, on
 * purpose), no agent's name breaks over two lines, and the judge's chart has its own legend and
 * a visible 0% bar. Pages: the hand-written fixture; a generated bout of eight contestants with
 * long names; and the fixture with a judge that resolved nothing. Screenshots of each page at
 * each width stay in the test's temp directory, whose paths the test prints.
 *
 * Skipped, with a message, only when `chromium` is not installed.
 */

import { deepEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { which } from "../../lib/proc.ts";
import { buildReport } from "../../lib/report/build.ts";
import { renderHtml } from "../../lib/report/html.ts";
import { wilson } from "../../lib/report/stats.ts";
import type { Report } from "../../lib/report/types.ts";
import { Chromium } from "./_chromium.ts";
import { generatedInput } from "./_generated.ts";
import { overflows } from "./_layout.ts";
import { fixtureInput } from "./fixture.ts";
import { repeatsInput } from "./fixture_repeats.ts";

const chromium = await which("chromium");
if (!chromium) {
  console.log("layout_test: chromium is not installed (apt-get install -y chromium); skipped");
}

/** The fixture's report with a judge whose picks resolved nothing. */
function judgeResolvedNothing(): Report {
  const report = buildReport(fixtureInput());
  report.picking.judge = {
    resolved: 0,
    wrong: 2,
    abstained: 1,
    rate: wilson(0, 3),
    precision: wilson(0, 2),
  };
  return report;
}

const PAGES: Record<string, () => Report> = {
  fixture: () => buildReport(fixtureInput()),
  "eight-agents": () => buildReport(generatedInput({ tasks: 6 })),
  "judge-at-zero": judgeResolvedNothing,
  // Repeats and a training cutoff: more columns, two-line chart labels, the cutoff chart.
  repeats: () => buildReport(repeatsInput()),
};

const WIDTHS = [1400, 800];

Deno.test({
  name: "the HTML report fits every section at 1400 and 800 px wide, names whole",
  ignore: !chromium,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "bugbout-report-layout-" });
    try {
      await using browser = await Chromium.launch(chromium!, dir);
      for (const [name, page] of Object.entries(PAGES)) {
        const file = join(dir, `${name}.html`);
        await Deno.writeTextFile(file, renderHtml(page()));
        for (const width of WIDTHS) {
          await browser.viewport(width);
          await browser.open(pathToFileURL(file).href);
          deepEqual(await overflows(browser), [], `${name} at ${width} px`);
          const shot = join(dir, `${name}-${width}.png`);
          const png = await browser.screenshot(width);
          ok(png.length > 10_000, "the screenshot is not empty");
          await Deno.writeFile(shot, png);
          console.log(`screenshot: ${shot}`);
        }
      }
    } finally {
      // The pages and their screenshots stay for a person to look at; the browser profile goes.
      await Deno.remove(join(dir, "profile"), { recursive: true });
    }
  },
});

Deno.test({
  name: "the judge's chart has its own legend and shows a 0% bar as a mark with its number",
  ignore: !chromium,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "bugbout-report-picking-" });
    try {
      await using browser = await Chromium.launch(chromium!, dir);
      const file = join(dir, "report.html");
      await Deno.writeTextFile(file, renderHtml(judgeResolvedNothing()));
      await browser.open(pathToFileURL(file).href);
      const chart = await browser.evaluate<Record<string, unknown>>(`(() => {
        const legend = document.querySelector("#picking .legend");
        const zero = document.querySelector("#chart-picking rect.zero");
        const label = zero?.nextElementSibling;
        return {
          swatches: [...legend.querySelectorAll("span")].map((s) => s.textContent),
          zeroWidth: zero ? zero.getBoundingClientRect().width : 0,
          label: label?.textContent ?? null,
          labelWidth: label ? label.getBoundingClientRect().width : 0,
        };
      })()`);
      // Plain bars: the judge's and the baselines', not the four colours of patch outcomes.
      deepEqual(chart.swatches, [
        "the judge's picks",
        "a way to choose without the judge",
        "├─┤ 95% interval of the judge's rate",
      ]);
      ok(Number(chart.zeroWidth) >= 2, `the 0% mark is ${chart.zeroWidth} px wide`);
      equal(chart.label, "0%");
      ok(Number(chart.labelWidth) > 10, "the 0% label is drawn");
    } finally {
      await Deno.remove(join(dir, "profile"), { recursive: true });
    }
  },
});
