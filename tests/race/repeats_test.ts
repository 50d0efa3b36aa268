/**
 * `[run] repeats`: each agent attempts each task that many times, each attempt in a sandbox and
 * working copy of its own, saved under a name of its own (`quick`, `quick#2`, ...), and resumed
 * one by one.
 */

import { deepEqual, equal } from "node:assert/strict";
import { fixFiles, playbook } from "./_agents.ts";
import { attemptOf, makeRaceWorld, projectWith, raceAt } from "./_world.ts";

Deno.test("with repeats = 3 every agent attempts the task three times, and a lost repeat runs alone", async () => {
  await using world = await makeRaceWorld();
  const fixer = await playbook(world.agents, "fixer", fixFiles(world.fix).fix);
  const agents = [{ name: "quick", command: ["python3", fixer] }];
  const project = await projectWith(world, agents, { timeout: 60, repeats: 3 });
  const first = await raceAt(world, project);
  equal(first.summary.ran, 3, JSON.stringify(first.summary));
  deepEqual(
    first.events.filter((e) => e.kind === "end").map((e) => e.agent).sort(),
    ["quick", "quick#2", "quick#3"],
  );
  const saved = await Promise.all(
    ["quick", "quick#2", "quick#3"].map((name) => attemptOf(world, project, name)),
  );
  deepEqual(saved.map((s) => [s.attempt.agent, s.attempt.repeat, s.attempt.status]), [
    ["quick", undefined, "patch"],
    ["quick", 2, "patch"],
    ["quick", 3, "patch"],
  ]);
  // Each repeat ran on a working copy of its own: the same fix, captured three times.
  equal(new Set(saved.map((s) => s.full)).size, 1);
  // Three distinct attempts, each with its own inputs key.
  equal(new Set(saved.map((s) => s.attempt.inputsKey)).size, 3);

  // A lost repeat runs again alone.
  await Deno.remove(project.results.file("attempts", world.task.id, "quick_2.json"));
  const again = await raceAt(world, project);
  deepEqual([again.summary.ran, again.summary.skipped], [1, 2]);
  deepEqual(again.events.filter((e) => e.kind === "start").map((e) => e.agent), ["quick#2"]);
});
