/**
 * Resuming a race, for real: a race in a child process is killed with SIGKILL while a slow
 * agent is mid-attempt; the next run skips what finished and runs the rest; `retryFailed` runs
 * quota and infrastructure failures again and nothing else; an agent added to `bugbout.toml`
 * later runs alone.
 *
 * @module
 */

import { deepEqual, equal, match, ok, rejects } from "node:assert/strict";
import { join } from "node:path";
import { InterruptedError } from "../../lib/errors.ts";
import { loadAttempt } from "../../lib/race/attempts.ts";
import type { RaceProgress } from "../../lib/race/mod.ts";
import { ENVS_DIR } from "../python/_shared.ts";
import { CRASH_SH, fixFiles, LIMITED_SH, playbook, script, SLOW_SH } from "./_agents.ts";
import { processesWith, waitFor } from "./_host.ts";
import { type AgentDef, attemptOf, makeRaceWorld, projectWith, raceAt } from "./_world.ts";

const CONFIG = new URL("../../deno.json", import.meta.url).pathname;
const CHILD = new URL("./_race_child.ts", import.meta.url).pathname;
/** What a finished attempt leaves in its directory. */
const FINISHED = {
  crasher: ["input", "log"],
  limited: ["input", "log"],
  missing: ["input", "log"],
  quick: ["input", "log"],
};

/** `kind:agent` of the events, sorted (lanes run in parallel, so their order is not fixed). */
function eventKeys(events: RaceProgress[]): string[] {
  return events.map((e) => `${e.kind}:${e.agent}${e.kind === "start" ? "" : `:${e.status}`}`)
    .sort();
}

Deno.test("a killed race keeps finished attempts, leaves no agent behind, and resumes; --retry-failed reruns quota and infra errors only; a new contestant runs alone", async (t) => {
  await using world = await makeRaceWorld();
  const files = fixFiles(world.fix);
  const dir = world.agents;
  const marker = `SLOW-MARKER-${crypto.randomUUID()}`;
  // Flag files outside the sandbox: while one exists, its agent can read it (it is named on the
  // agent's command line) and behaves differently.
  const slowFlag = join(world.tmp, "slow.flag");
  const limitFlag = join(world.tmp, "limit.flag");
  await Deno.writeTextFile(slowFlag, "");
  await Deno.writeTextFile(limitFlag, "");
  const fixer = await playbook(dir, "fixer", files.fix);
  const agents: AgentDef[] = [
    { name: "quick", command: ["python3", fixer] },
    {
      name: "slow",
      command: ["sh", await script(dir, "slow.sh", SLOW_SH), slowFlag, marker, fixer],
    },
    {
      name: "limited",
      command: ["sh", await script(dir, "limited.sh", LIMITED_SH), limitFlag, "tests/test_late.py"],
    },
    { name: "crasher", command: ["sh", await script(dir, "crash.sh", CRASH_SH)] },
    { name: "missing", command: ["bugbout-test-no-such-agent", "{prompt_file}"] },
  ];
  const run = { timeout: 120 };
  const project = await projectWith(world, agents, run);
  const saved = (agent: string) => loadAttempt(project.results, world.task.id, agent);
  /** The entries of every attempt directory, by agent. */
  const partsLeft = async () => {
    const top = project.cacheDir("attempts", world.task.id);
    const left: Record<string, string[]> = {};
    for await (const attempt of Deno.readDir(top)) {
      const agent = attempt.name.split("-")[0];
      for await (const part of Deno.readDir(join(top, attempt.name))) {
        (left[agent] ??= []).push(part.name);
      }
    }
    for (const parts of Object.values(left)) parts.sort();
    return left;
  };
  const settings = join(world.tmp, "child.json");
  await Deno.writeTextFile(
    settings,
    JSON.stringify({
      root: world.root,
      home: world.home,
      envsDir: ENVS_DIR,
      task: world.task,
    }),
  );

  await t.step(
    "a race killed with SIGKILL mid-attempt keeps what finished and leaves no agent",
    async () => {
      const child = new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "--quiet", `--config=${CONFIG}`, CHILD, settings],
        env: { DENO_NO_UPDATE_CHECK: "1" },
        stdout: "null",
        stderr: "piped",
      }).spawn();
      const stderr = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
      let errors = "";
      const reading = (async () => {
        for (let r = await stderr.read(); !r.done; r = await stderr.read()) errors += r.value;
      })();
      try {
        const ready = await waitFor(async () => {
          const finished = await Promise.all(["quick", "limited", "crasher", "missing"].map(saved));
          return finished.every(Boolean) && (await processesWith(marker)).length > 0;
        }, 90_000);
        ok(ready, "the first attempts finished while the slow one runs");
      } finally {
        // Only bugbout itself is killed: bwrap's --die-with-parent must take the agent down.
        try {
          Deno.kill(child.pid, "SIGKILL");
        } catch {
          // already gone
        }
        await child.status;
        await reading;
      }
      equal(errors, "");
      equal((await saved("quick"))?.status, "patch");
      equal((await saved("limited"))?.status, "quota");
      equal((await saved("crasher"))?.status, "crashed");
      equal((await saved("missing"))?.status, "infra-error");
      equal(await saved("slow"), undefined);
      const gone = await waitFor(async () => (await processesWith(marker)).length === 0, 5000);
      ok(gone, `agent processes left: ${await processesWith(marker)}`);
      // The killed attempt left its working copy, home and state directory behind.
      deepEqual(await partsLeft(), {
        ...FINISHED,
        slow: ["home", "input", "log", "snapshot.git", "state", "work"],
      });
    },
  );

  await t.step("the next run skips the finished attempts and completes the slow one", async () => {
    await Deno.remove(slowFlag);
    const { summary, events } = await raceAt(world, project);
    deepEqual(eventKeys(events), [
      "end:slow:patch",
      "skip:crasher:crashed",
      "skip:limited:quota",
      "skip:missing:infra-error",
      "skip:quick:patch",
      "start:slow",
    ]);
    equal(summary.ran, 1);
    equal(summary.skipped, 4);
    const slow = await attemptOf(world, project, "slow");
    deepEqual(slow.attempt.files.map((f) => f.kind).sort(), ["source", "test"]);
    // The next run swept them; logs stay, as for every attempt.
    deepEqual(await partsLeft(), { ...FINISHED, slow: ["input", "input", "log", "log"] });
  });

  await t.step("retryFailed reruns the quota and the infra error only", async () => {
    const limited = await attemptOf(world, project, "limited");
    match(limited.attempt.logTail, /You've hit your usage limit/);
    equal(limited.attempt.exitCode, 1);
    await Deno.remove(limitFlag);
    const { events } = await raceAt(world, project, { retryFailed: true });
    deepEqual(eventKeys(events), [
      "end:limited:patch",
      "end:missing:infra-error",
      "skip:crasher:crashed",
      "skip:quick:patch",
      "skip:slow:patch",
      "start:limited",
      "start:missing",
    ]);
    const again = await attemptOf(world, project, "limited");
    deepEqual(again.attempt.files.map((f) => [f.path, f.kind]), [["tests/test_late.py", "test"]]);
    match((await saved("missing"))?.error ?? "", /bugbout-test-no-such-agent/);
  });

  const latecomer: AgentDef = {
    name: "latecomer",
    command: ["python3", await playbook(dir, "latecomer", files.testOnly)],
  };
  await t.step("a contestant added to bugbout.toml later runs alone", async () => {
    const later = await projectWith(world, [...agents, latecomer], run);
    const { summary, events } = await raceAt(world, later);
    deepEqual(
      events.filter((e) => e.kind !== "skip").map((e) => `${e.kind}:${e.agent}`),
      ["start:latecomer", "end:latecomer"],
    );
    equal(summary.skipped, agents.length);
    equal((await attemptOf(world, later, "latecomer")).attempt.status, "patch");
  });

  await t.step("an aborted race (Ctrl-C) saves nothing of the attempt it stopped", async () => {
    const dawdlerFlag = join(world.tmp, "dawdler.flag");
    await Deno.writeTextFile(dawdlerFlag, "");
    const dawdlerMarker = `DAWDLER-MARKER-${crypto.randomUUID()}`;
    const dawdler: AgentDef = {
      name: "dawdler",
      command: ["sh", join(dir, "slow.sh"), dawdlerFlag, dawdlerMarker, fixer],
    };
    const stopped = await projectWith(world, [...agents, latecomer, dawdler], run);
    const controller = new AbortController();
    const watching = waitFor(async () => (await processesWith(dawdlerMarker)).length > 0, 60_000)
      .then(() => controller.abort());
    await rejects(raceAt(world, stopped, { signal: controller.signal }), InterruptedError);
    await watching;
    equal(await saved("dawdler"), undefined);
    const gone = await waitFor(async () => (await processesWith(dawdlerMarker)).length === 0, 5000);
    ok(gone, `agent processes left: ${await processesWith(dawdlerMarker)}`);
    deepEqual((await partsLeft()).dawdler, ["input", "log"]);
  });
});
