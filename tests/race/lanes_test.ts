import { deepEqual, equal } from "node:assert/strict";
import { runLanes } from "../../lib/race/lanes.ts";

function job(quota: string, log: string[], ms = 20) {
  return {
    quota,
    async run() {
      log.push(`start ${quota}`);
      await new Promise((r) => setTimeout(r, ms));
      log.push(`end ${quota}`);
      return quota;
    },
  };
}

Deno.test("runLanes runs jobs of one quota one at a time and different quotas in parallel", async () => {
  const log: string[] = [];
  const results = await runLanes([job("a", log), job("a", log), job("b", log)]);
  deepEqual(log.slice(0, 2).sort(), ["start a", "start b"]);
  equal(log.filter((l) => l === "start a").length, 2);
  // The second "a" starts only after the first ended.
  const firstEnd = log.indexOf("end a");
  equal(log.indexOf("start a", 1) > firstEnd, true);
  deepEqual(results.map((r) => r?.status), ["done", "done", "done"]);
});

Deno.test("runLanes honours a quota limit above one and an overall cap", async () => {
  let peak = 0;
  let now = 0;
  const jobs = Array.from({ length: 6 }, () => ({
    quota: "a",
    async run() {
      now++;
      peak = Math.max(peak, now);
      await new Promise((r) => setTimeout(r, 10));
      now--;
    },
  }));
  await runLanes(jobs, { limits: { a: 3 } });
  equal(peak, 3);
  peak = 0;
  await runLanes(jobs, { limits: { a: 3 }, total: 2 });
  equal(peak, 2);
});

Deno.test("runLanes starts nothing new after an abort and reports unstarted jobs", async () => {
  const controller = new AbortController();
  const log: string[] = [];
  const jobs = [job("a", log, 30), job("a", log), job("a", log)];
  setTimeout(() => controller.abort(), 5);
  const results = await runLanes(jobs, { signal: controller.signal });
  deepEqual(results.map((r) => r?.status), ["done", undefined, undefined]);
});

Deno.test("runLanes records a failing job and carries on", async () => {
  const results = await runLanes([
    { quota: "a", run: () => Promise.reject(new Error("boom")) },
    { quota: "a", run: () => Promise.resolve(2) },
  ]);
  equal(results[0]?.status, "failed");
  deepEqual(results[1], { status: "done", value: 2 });
});
