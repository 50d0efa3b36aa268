/**
 * Agents that try to consume the machine, in a real race under bubblewrap with small limits
 * (`agent-processes = 64`, `agent-memory = 512`, `agent-disk = 64`): a fork bomb of up to 3,000
 * sleepers, a 6 GiB allocation, memory spread over eight processes and a 3 GB write. Each ends
 * with its own status while the host stays under the limits; a finished attempt of another agent
 * is untouched.
 *
 * @module
 */

import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { limitReached } from "../../lib/race/limits.ts";
import { fixFiles, playbook, script } from "./_agents.ts";
import { processesWith, treeHashes, waitFor } from "./_host.ts";
import { type AgentDef, attemptOf, makeRaceWorld, projectWith, raceAt } from "./_world.ts";

const LIMITS = { processes: 64, memory: 512, disk: 64 };

/** Forks up to 3,000 sleepers with the marker (`$1`) in their command line, then sleeps. */
const BOMB_PY = `
import os, sys, time
for i in range(3000):
    try:
        if os.fork() == 0:
            time.sleep(600)
            os._exit(0)
    except OSError:
        time.sleep(0.005)
time.sleep(600)
`;

/** Asks for 6 GiB in one piece. */
const HOG_PY = `
block = b"x" * (6 * 1024 ** 3)
print("allocated", len(block))
`;

/** Eight processes that each touch 96 MiB, 8 MiB at a time (768 MiB against 512). */
const SPREAD_SH = `
for i in 1 2 3 4 5 6 7 8; do
  python3 -c 'import time
chunks = []
for i in range(12):
    chunks.append(b"x" * (8 * 1024 * 1024))
    time.sleep(0.3)
time.sleep(600)' &
done
wait
`;

/** Writes 3 GB of zeros into its working copy. */
const FILL_SH = `
dd if=/dev/zero of=filler.bin bs=1M count=3072 && echo "wrote it all"
`;

Deno.test("agents that exhaust processes, memory or disk end with their own status; the host and finished attempts are untouched", async (t) => {
  await using world = await makeRaceWorld();
  const dir = world.agents;
  const marker = `BOMB-MARKER-${crypto.randomUUID()}`;
  const fixer: AgentDef = {
    name: "fixer",
    command: ["python3", await playbook(dir, "fixer", fixFiles(world.fix).fix)],
  };
  const first = await projectWith(world, [fixer], { timeout: 120, limits: LIMITS });
  const before = await raceAt(world, first);
  equal(before.summary.byStatus.patch, 1, JSON.stringify(before.summary));
  const saved = join(world.root, ".bugbout", "attempts");
  const finished = await treeHashes(saved);

  const agents: AgentDef[] = [
    fixer,
    { name: "bomber", command: ["python3", await script(dir, "bomb.py", BOMB_PY), marker] },
    { name: "hog", command: ["python3", await script(dir, "hog.py", HOG_PY)] },
    { name: "spreader", command: ["sh", await script(dir, "spread.sh", SPREAD_SH)] },
    { name: "filler", command: ["sh", await script(dir, "fill.sh", FILL_SH)] },
  ];
  const project = await projectWith(world, agents, { timeout: 120, limits: LIMITS });
  let most = 0;
  let racing = true;
  const watching = (async () => {
    while (racing) {
      most = Math.max(most, (await processesWith(marker)).length);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  let raced;
  try {
    raced = await raceAt(world, project);
  } finally {
    racing = false;
    await watching;
  }

  await t.step("every bomb ran, and the finished attempt was not run again", () => {
    equal(raced.summary.ran, 4, JSON.stringify(raced.summary));
    equal(raced.summary.skipped, 1);
    deepEqual(raced.summary.failures, []);
  });

  await t.step("the fork bomb is too-many-processes, stopped at the limit", async () => {
    const { attempt } = await attemptOf(world, project, "bomber");
    equal(attempt.status, "too-many-processes", attempt.logTail);
    match(attempt.error ?? "", /stopped at 64 processes \(\[run\] agent-processes\)/);
    // bwrap's own two processes carry the agent's command line too.
    ok(most <= LIMITS.processes + 2, `${most} of the bomb's processes ran on the host`);
    ok(await waitFor(async () => (await processesWith(marker)).length === 0, 20_000));
  });

  await t.step("the 6 GiB allocation and the spread-out memory are out-of-memory", async () => {
    for (const name of ["hog", "spreader"]) {
      const { attempt } = await attemptOf(world, project, name);
      equal(attempt.status, "out-of-memory", `${name}: ${attempt.logTail}`);
      match(attempt.error ?? "", /out of memory at 512 MiB \(\[run\] agent-memory\)/);
    }
    const { attempt } = await attemptOf(world, project, "hog");
    match(attempt.logTail, /MemoryError/);
  });

  await t.step("the 3 GB write is disk-full, stopped at 64 MiB", async () => {
    const { attempt } = await attemptOf(world, project, "filler");
    equal(attempt.status, "disk-full", attempt.logTail);
    match(attempt.error ?? "", /stopped after writing 64 MiB \(\[run\] agent-disk\)/);
    ok(!attempt.logTail.includes("wrote it all"));
  });

  await t.step("the finished attempt of the fixer is untouched", async () => {
    const after = await treeHashes(saved);
    for (const [path, hash] of Object.entries(finished)) equal(after[path], hash, path);
    equal((await attemptOf(world, project, "fixer")).attempt.status, "patch");
  });
});

const RUNS: [string, Parameters<typeof limitReached>[0], string | undefined][] = [
  ["the sandbox stopped it", {
    limit: "processes",
    code: 137,
    timedOut: false,
    stdout: "",
    stderr: "",
  }, "processes"],
  ["a clean exit mentioning memory", {
    code: 0,
    timedOut: false,
    stdout: "MemoryError",
    stderr: "",
  }, undefined],
  [
    "Python refused memory",
    { code: 1, timedOut: false, stdout: "", stderr: "...\nMemoryError\n" },
    "memory",
  ],
  ["Node's heap", {
    code: 134,
    timedOut: false,
    stdout: "",
    stderr: "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
  }, "memory"],
  ["Rust's allocator", {
    code: 134,
    timedOut: false,
    stdout: "",
    stderr: "memory allocation of 6442450944 bytes failed",
  }, "memory"],
  ["a file over the size limit", { code: 153, timedOut: false, stdout: "", stderr: "" }, "disk"],
  ["a plain crash", {
    code: 3,
    timedOut: false,
    stdout: "",
    stderr: "RuntimeError: the agent fell over",
  }, undefined],
  ["a timeout", { code: 137, timedOut: true, stdout: "", stderr: "MemoryError" }, undefined],
];

for (const [name, result, expected] of RUNS) {
  Deno.test(`limitReached: ${name} is ${expected ?? "no limit"}`, () => {
    equal(limitReached(result), expected);
  });
}
