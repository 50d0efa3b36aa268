/**
 * How mining keeps to git's speed, as behaviour (never time): `since` shortens the walk, `limit`
 * stops the examination, and each blob is read once (only after the change: `-U0` hunks say what
 * changed). bench/mine.ts measures the time.
 *
 * @module
 */

import { deepEqual, equal, ok } from "node:assert/strict";
import { gapToml, manyFixes } from "../fixtures/gaps.ts";
import { mineHistory } from "./_history.ts";

Deno.test("limit stops examining candidates once enough tasks are found, newest first", async () => {
  await using m = await mineHistory((r) => manyFixes(r, 40), {
    toml: gapToml("\n[tasks]\nlimit = 3\n"),
  });
  deepEqual(m.result.file.tasks.map((t) => t.id), ["issue-40", "issue-39", "issue-38"]);
  const stats = m.result.stats!;
  equal(stats.candidates, 40);
  ok(stats.examined < 40, JSON.stringify(stats));
  equal(m.result.file.counts["over-limit"], 37);
});

Deno.test("since is passed down to the walk, and the commits before it are still counted", async () => {
  await using all = await mineHistory((r) => manyFixes(r, 40), {
    toml: gapToml("\n[tasks]\nlimit = 100\n"),
  });
  const fix30 = all.task("fix30")!;
  await using m = await mineHistory((r) => manyFixes(r, 40), {
    toml: gapToml(`\n[tasks]\nlimit = 100\nsince = "${fix30.date}"\n`),
  });
  equal(m.result.file.tasks.at(-1)!.id, "issue-30");
  equal(m.result.file.tasks.length, 11);
  const stats = m.result.stats!;
  ok(stats.walked < all.result.stats!.walked, JSON.stringify(stats));
  equal(m.result.file.examined, all.result.file.examined);
  const counted = Object.values(m.result.file.counts).reduce((a, b) => a + b, 0);
  equal(counted + m.result.file.tasks.length, m.result.file.examined);
});

Deno.test("each test module is read once, as it is after the change; what changed comes from -U0 hunks", async () => {
  await using m = await mineHistory((r) => manyFixes(r, 40), {
    toml: gapToml("\n[tasks]\nlimit = 100\n"),
  });
  equal(m.result.file.tasks.length, 40);
  const stats = m.result.stats!;
  // The 40 versions of tests/test_cart.py the fixes wrote; none before a change, no config file.
  equal(stats.blobsRead, 40);
  ok(stats.readers <= 4, JSON.stringify(stats));
});
