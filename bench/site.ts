/**
 * The report's site at scale: a generated bout of 100 tasks, 8 contestants and an examiner
 * (`tests/report/_generated.ts`), every attempt with a source and a test diff, failing hidden tests
 * with tracebacks and the recorded real Claude Code transcript, rendered by the real site code
 * and written to a temp directory. Prints the pages, their total and largest size, the time to
 * render and write them, and the time headless Chromium takes to load the index and a sample of
 * task and attempt pages from disk (every tenth).
 *
 * Usage: `deno run -A bench/site.ts [--tasks 100] [--contestants 8] [--sample 10] [--keep] [--quick]`
 *
 * @module
 */

import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { renderSite } from "../lib/report/site/mod.ts";
import { which } from "../lib/proc.ts";
import { generatedInput } from "../tests/report/_generated.ts";
import { siteInput } from "../tests/report/site_input.ts";
import { Chromium } from "../tests/report/_chromium.ts";
import { describeTimes, timed } from "./_measure.ts";

const { values } = parseArgs({
  options: {
    tasks: { type: "string", default: "100" },
    contestants: { type: "string", default: "8" },
    sample: { type: "string", default: "10" },
    keep: { type: "boolean", default: false },
    // CI's check that the bench still runs: three tasks, two contestants, no browser.
    quick: { type: "boolean", default: false },
  },
});

const input = generatedInput({
  tasks: values.quick ? 3 : Number(values.tasks),
  contestants: values.quick ? 2 : Number(values.contestants),
});
const site = await siteInput(input, { withTranscript: "*" });
const dir = await Deno.makeTempDir({ prefix: "bugbout-site-bench-" });
const root = join(dir, "report");
const rendered = await timed(() => renderSite(site));
const written = await timed(async () => {
  for (const [path, html] of rendered.value) {
    await Deno.mkdir(dirname(join(root, path)), { recursive: true });
    await Deno.writeTextFile(join(root, path), html);
  }
});
const sizes = [...rendered.value].map(([path, html]) =>
  [path, new TextEncoder().encode(html).length] as const
);
const total = sizes.reduce((n, [, b]) => n + b, 0);
const largest = sizes.reduce((a, b) => (b[1] > a[1] ? b : a));
const kib = (b: number) => `${(b / 1024).toFixed(0)} KiB`;
const attempts = sizes.filter(([p]) => /\/a-[^/]+\.html$/.test(p));
const tasks = sizes.filter(([p]) => p.endsWith("/index.html") && p !== "index.html");
console.log(
  `site: ${input.tasks.tasks.length} tasks × ${input.agents.length} agents: ${sizes.length} pages ` +
    `(1 index, ${tasks.length} task pages, ${attempts.length} attempt pages), ${kib(total)} in all`,
);
console.log(
  `  index ${kib(sizes.find(([p]) => p === "index.html")![1])}; largest ${largest[0]} ${
    kib(largest[1])
  }; ` +
    `attempt pages median ${
      kib(attempts.map(([, b]) => b).sort((a, b) => a - b)[attempts.length >> 1])
    }`,
);
console.log(`  render ${rendered.ms.toFixed(0)} ms, write ${written.ms.toFixed(0)} ms`);
const indexBytes = sizes.find(([p]) => p === "index.html")![1];
console.log(`ratio: the whole site is ${(total / indexBytes).toFixed(2)}x its index page's size`);

const chromium = values.quick ? null : await which("chromium");
if (chromium) {
  await using browser = await Chromium.launch(chromium, dir);
  const every = Math.max(1, Math.floor(sizes.length / Number(values.sample)));
  const sample = [
    "index.html",
    ...sizes.map(([p]) => p).filter((_, i) => i % every === 0 && i > 0),
  ];
  const times: number[] = [];
  let indexMs = 0;
  // The browser's own start-up is not the page's: a blank page first.
  await browser.open("about:blank");
  for (const path of [...sample, "index.html"]) {
    const { ms } = await timed(() => browser.open(pathToFileURL(join(root, path)).href));
    if (path === "index.html") indexMs = indexMs ? Math.min(indexMs, ms) : ms;
    else times.push(ms);
  }
  console.log(
    `  Chromium load: index ${indexMs.toFixed(0)} ms (best of 2); ${times.length} other pages ` +
      describeTimes(times),
  );
} else {
  console.log("  Chromium not installed: no load times");
}
if (values.keep) console.log(`  kept in ${dir}`);
else await Deno.remove(dir, { recursive: true });
