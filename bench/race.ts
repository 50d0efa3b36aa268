/**
 * Benchmark: a race of several agents against a race of one.
 * This is the speed half of the race test (tests/race/race_test.ts), which checks only what
 * each attempt did and that agents on different quotas overlap.
 *
 * bugbout: `raceAll()` on the demo project's `chunk-partial` task with K command agents, each
 * on a quota of its own, each a script that sleeps S seconds, in the real sandbox: every attempt
 * gets its checkout, its sandbox, its snapshot and diff, and is saved. Two baselines, measured in
 * the same run on the same machine:
 *
 * - one: the same race with a single such agent. `race of K / race of one` is about 1 when the
 *   lanes run side by side and about K when they run one after another; the goal is at most 2
 *   (the attempts' own work, checkouts and diffs, shares the machine's cores).
 * - by hand: the K scripts run at once with `Deno.Command`, without checkouts or a sandbox: the
 *   same parallelism as the race's K lanes. `race of K / by hand` and the overhead per attempt
 *   say what bugbout adds to the agents' own processes (no goal).
 *
 * Every side is warmed once, then the rounds run in alternating order. Prints each side's times,
 * the load, and the median of each round's ratios with their range and count; exits non-zero
 * when an attempt was not run or, in a full run, when the goal is missed.
 *
 * Run: `deno run -A bench/race.ts [--agents 6] [--sleep 2] [--rounds 5] [--quick]` (`--quick`:
 * 2 agents sleeping 0.2 s, one round, no warm-up, the goal reported but not judged).
 *
 * @module
 */

import { join } from "node:path";
import { parseArgs } from "node:util";
import { TIMED_PY } from "../tests/race/_agents.ts";
import { makeRaceWorld, projectWith, raceAt, type RaceWorld } from "../tests/race/_world.ts";
import {
  alternatingRuns,
  describeRatios,
  describeTimes,
  median,
  pairRatios,
  printRatio,
  timed,
} from "./_measure.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    agents: { type: "string" },
    sleep: { type: "string" },
    rounds: { type: "string" },
    quick: { type: "boolean", default: false },
  },
});
const quick = values.quick;
const AGENTS = Number(values.agents ?? (quick ? 2 : 6));
const SLEEP = values.sleep ?? (quick ? "0.2" : "2");
const ROUNDS = Number(values.rounds ?? (quick ? 1 : 5));

/** Race `count` sleepers named `${prefix}-i`, each on a quota of its own; its milliseconds. */
async function race(world: RaceWorld, timedPy: string, prefix: string, count: number) {
  // Names never repeat: a race skips the agents whose attempt is already saved.
  const agents = Array.from({ length: count }, (_, i) => ({
    name: `${prefix}-${i}`,
    command: ["python3", timedPy, SLEEP],
  }));
  const project = await projectWith(world, agents, { timeout: 120 });
  const { ms, value } = await timed(() => raceAt(world, project));
  const { summary } = value;
  if (summary.ran !== count || summary.failures.length > 0) {
    console.log(`FAIL: race ${prefix} ran ${summary.ran} of ${count}: ${summary.summary}`);
    Deno.exitCode = 1;
  }
  return ms;
}

/** Run the script `count` times at once, in a plain directory; its milliseconds. */
async function byHand(timedPy: string, dir: string, count: number) {
  await Deno.mkdir(dir, { recursive: true });
  const { ms } = await timed(() =>
    Promise.all(Array.from({ length: count }, async () => {
      const out = await new Deno.Command("python3", {
        args: [timedPy, SLEEP],
        cwd: dir,
        stdout: "null",
        stderr: "null",
      }).output();
      if (!out.success) throw new Error(`the sleeper exited ${out.code}`);
    }))
  );
  return ms;
}

await using world = await makeRaceWorld();
const timedPy = join(world.agents, "timed.py");
await Deno.writeTextFile(timedPy, TIMED_PY.trimStart());

// Fair: every side warmed once, then rounds in alternating order; "by hand" runs the K sleepers
// at once, as the race's K lanes do. Names never repeat, so no race skips a saved attempt.
const { times, load } = await alternatingRuns(ROUNDS, {
  one: (round) => race(world, timedPy, `r${round}-one`, 1),
  many: (round) => race(world, timedPy, `r${round}-lane`, AGENTS),
  hand: (round) => byHand(timedPy, join(world.tmp, `by-hand-${round}`), AGENTS),
}, { warm: !quick });
console.log(
  `race bench: ${AGENTS} agents sleeping ${SLEEP} s each, each on a quota of its own, ` +
    `sandbox ${world.sandbox.kind}, ${ROUNDS} round(s) in alternating order`,
);
const row = (label: string, ms: number[]) =>
  console.log(`${label.padEnd(36)} ${describeTimes(ms)}`);
row("race of one:", times.one);
row(`race of ${AGENTS}:`, times.many);
row(`${AGENTS} by hand, all at once:`, times.hand);
console.log(`load average (1, 5, 15 min): ${load.before} before, ${load.after} after`);
const lanes = pairRatios(times.many, times.one);
const overhead = pairRatios(times.many, times.hand);
console.log(`pair ratios race of ${AGENTS} / race of one: ${describeRatios(lanes)}`);
console.log(`pair ratios race of ${AGENTS} / by hand: ${describeRatios(overhead)}`);
const perAttempt = times.many.map((ms, i) => (ms - times.hand[i]) / AGENTS);
console.log(
  `bugbout's overhead per attempt (race of ${AGENTS} - by hand, / ${AGENTS}): ` +
    `${describeTimes(perAttempt)}`,
);
const missed = printRatio(`race of ${AGENTS} / race of one`, median(lanes), {
  atMost: 2,
  quick,
});
console.log(
  `ratio: race of ${AGENTS} / ${AGENTS} by hand at once ${median(overhead).toFixed(2)}x ` +
    `(what bugbout adds to the agents' own processes; no goal)`,
);
if (missed) Deno.exitCode = 1;
