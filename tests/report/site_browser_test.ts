/**
 * The report's site in a real browser: headless Chromium opens the index and then every page any
 * page links to, from disk. Every link resolves (to a file of the site, and to an element when it
 * names one); every page renders its heading, runs no script, requests nothing but itself, and
 * keeps hostile text as text. The attempt page with the recorded real Claude Code run shows the
 * diff, the transcript with its commands and exit codes, and a failing hidden test's traceback.
 *
 * Skipped, with a message, only when `chromium` is not installed.
 */

import { deepEqual, equal, ok } from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { which } from "../../lib/proc.ts";
import { attemptPath, renderSite } from "../../lib/report/site/mod.ts";
import { Chromium } from "./_chromium.ts";
import { HOSTILE_TEST } from "./fixture.ts";
import { siteInput } from "./site_input.ts";

const chromium = await which("chromium");
if (!chromium) {
  console.log(
    "site_browser_test: chromium is not installed (apt-get install -y chromium); skipped",
  );
}

Deno.test({
  name: "every page of the report site renders in Chromium, every link resolves, nothing runs",
  ignore: !chromium,
  async fn() {
    await using tmp = await tempDir();
    const root = join(tmp.path, "report");
    const pages = renderSite(await siteInput(undefined, { withTranscript: "issue-11/claude" }));
    for (const [path, html] of pages) {
      await Deno.mkdir(dirname(join(root, path)), { recursive: true });
      await Deno.writeTextFile(join(root, path), html);
    }
    await using browser = await Chromium.launch(chromium!, tmp.path);
    const index = pathToFileURL(join(root, "index.html")).href;
    const seen = new Set<string>();
    const queue = [index];
    const anchors: [from: string, to: string][] = [];
    while (queue.length) {
      const url = queue.shift()!;
      if (seen.has(url)) continue;
      seen.add(url);
      const before = browser.requests.length;
      await browser.open(url);
      // Only the page itself: no font, script, image or anything else, even from agents' markup.
      deepEqual(browser.requests.slice(before), [url], url);
      const state = await browser.evaluate<
        { h1: string; scripts: number; pwned: unknown; links: string[]; width: number }
      >(`({
        h1: document.querySelector("h1")?.textContent ?? "",
        scripts: document.scripts.length,
        pwned: window.__pwned ?? null,
        links: [...document.querySelectorAll("a[href]")].map((a) => a.href),
        width: document.querySelector("main").getBoundingClientRect().width,
      })`);
      ok(state.h1.length > 0, `${url} has a heading`);
      equal(state.scripts, 0, `${url} has no script`);
      equal(state.pwned, null, `${url}: hostile text stayed text`);
      ok(state.width > 300, `${url} rendered`);
      for (const link of state.links) {
        if (!link.startsWith("file:")) continue;
        const [file, hash] = link.split("#");
        const info = await Deno.stat(fileURLToPath(file)).catch(() => null);
        ok(info?.isFile, `${url} links to ${link}, which exists`);
        if (hash) anchors.push([file, decodeURIComponent(hash)]);
        queue.push(file);
      }
    }
    // Every page of the site was reached from the index, and nothing else was.
    equal(seen.size, pages.size);
    for (const [file, id] of anchors) {
      await browser.open(file);
      ok(
        await browser.evaluate<boolean>(`document.getElementById(${JSON.stringify(id)}) !== null`),
        `${file} has #${id}`,
      );
    }

    // The attempt with the recorded real run: diff, transcript, exit codes, traceback.
    await browser.open(pathToFileURL(join(root, attemptPath("issue-11", "claude"))).href);
    const attempt = await browser.evaluate<Record<string, unknown>>(`({
      added: [...document.querySelectorAll("#source-diff .add")].map((e) => e.textContent),
      testDiff: document.querySelectorAll("#test-diff .add").length,
      tools: document.querySelectorAll("#transcript .step.tool").length,
      exits: [...document.querySelectorAll("#transcript .exit")].map((e) => e.textContent),
      commands: [...document.querySelectorAll("#transcript pre.command")].map((e) => e.textContent),
      last: [...document.querySelectorAll("#transcript .step.agent pre")].at(-1)?.textContent,
      failing: [...document.querySelectorAll("#hidden .failing-test")].map((e) => e.dataset.test),
      traceback: document.querySelector("#hidden .failing-test pre")?.textContent ?? "",
      cells: document.querySelectorAll("#cells table tr").length,
    })`);
    ok((attempt.added as string[]).some((l) => l.includes("<script>window.__pwned = 3</script>")));
    ok((attempt.testDiff as number) > 0);
    equal(attempt.tools, 5);
    ok((attempt.exits as string[]).includes("exit 0"), String(attempt.exits));
    ok((attempt.commands as string[]).some((c) => c.includes("ls -R src tests")));
    ok(String(attempt.last).includes("<img src=x onerror="), "the hostile message is text");
    deepEqual(attempt.failing, ["tests/test_core.py::test_p2p_0"]);
    ok(String(attempt.traceback).includes("E   assert 1 == 2"));
    ok((attempt.cells as number) > 1);

    // The task page shows the real fix once scored; the hostile test id is text in the cells.
    await browser.open(pathToFileURL(join(root, "tasks/issue-11/index.html")).href);
    ok(await browser.evaluate<boolean>(`document.querySelectorAll("#gold .add").length > 0`));
    await browser.open(pathToFileURL(join(root, attemptPath("issue-11", "cheater"))).href);
    ok(
      await browser.evaluate<boolean>(
        `[...document.querySelectorAll("#cells td")].some((td) => td.textContent === ${
          JSON.stringify(HOSTILE_TEST)
        })`,
      ),
    );
  },
});

async function tempDir() {
  const path = await Deno.makeTempDir({ prefix: "bugbout-site-browser-" });
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}
