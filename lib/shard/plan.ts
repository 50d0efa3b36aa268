/**
 * The split of a race into shards: pure arithmetic over the race's attempts and their expected
 * costs, so every machine that reads the same tasks, ground truth and contestants computes the
 * same split.
 *
 * @module
 */

import { UsageError } from "../errors.ts";
import { inputsKey } from "../hash.ts";
import type { Oracle } from "../records.ts";

/** Share `index` (1-based) of `count`. */
export interface Shard {
  /** Which share, from 1. */
  index: number;
  /** How many shares in all. */
  count: number;
}

/** One attempt to place: a task, an attempt name and what it is expected to cost. */
export interface PlanUnit {
  task: string;
  /** The attempt's name (`codex`, `codex#2`, ...). */
  attempt: string;
  /** Expected cost, milliseconds. */
  costMs: number;
}

/** The whole split: each shard's attempts and expected cost, and a hash of the lot. */
export interface ShardPlan {
  /** Shards in order (index 1 first). */
  shards: { index: number; units: PlanUnit[]; costMs: number }[];
  /** Hash of every attempt's shard: equal wherever the split is equal. */
  key: string;
}

/**
 * What an attempt is expected to cost besides running tests: the agent reading, thinking and
 * editing. The same guess for every agent and task, since nothing is known of either before the
 * race; it keeps the split from being driven by test time alone.
 */
export const AGENT_WORK_MS = 5 * 60_000;

/** How many times an agent is expected to run the task's tests during an attempt. */
export const TEST_RUNS_PER_ATTEMPT = 3;

/** `--shard K/N` → a shard. Throws {@linkcode UsageError}. */
export function parseShard(text: string): Shard {
  const m = text.trim().match(/^(\d+)\s*\/\s*(\d+)$/);
  const hint = "Write --shard K/N with 1 <= K <= N, e.g. --shard 2/4 for the second of four.";
  if (!m) throw new UsageError(`--shard ${JSON.stringify(text)} is not K/N`, { hint });
  const [index, count] = [Number(m[1]), Number(m[2])];
  if (count < 1 || index < 1 || index > count) {
    throw new UsageError(`--shard ${text}: K must be between 1 and N`, { hint });
  }
  return { index, count };
}

/** `2/4`. */
export function shardLabel(shard: Shard): string {
  return `${shard.index}/${shard.count}`;
}

/**
 * A task's test time: its slowest pytest session on G in the ground truth (collection and start-up
 * included, which is what an agent pays each time it runs them), milliseconds.
 */
export function testTimeMs(oracle: Pick<Oracle, "runs">): number {
  const onG = oracle.runs.filter((run) => run.tree === "G").map((run) => run.durationMs);
  return Math.round(Math.max(0, ...onG));
}

/** The expected cost of one attempt at a task whose tests take `testMs`, milliseconds. */
export function attemptCostMs(testMs: number): number {
  return AGENT_WORK_MS + TEST_RUNS_PER_ATTEMPT * testMs;
}

/**
 * Split `units` into `count` shards of nearly equal expected cost: dearest first, each to the
 * shard with the least cost so far (the lowest index among equals). Units of equal cost go in the
 * order of a hash of their task and name, so the split depends on nothing but the units, and no
 * agent or task is always first.
 */
export function planShards(units: readonly PlanUnit[], count: number): ShardPlan {
  const shards = Array.from({ length: count }, (_, i) => ({
    index: i + 1,
    units: [] as PlanUnit[],
    costMs: 0,
  }));
  const order = units.map((unit) => ({ unit, tie: inputsKey([unit.task, unit.attempt]) }));
  order.sort((a, b) =>
    b.unit.costMs - a.unit.costMs || compare(a.tie, b.tie) ||
    compare(a.unit.task, b.unit.task) || compare(a.unit.attempt, b.unit.attempt)
  );
  for (const { unit } of order) {
    let least = shards[0];
    for (const shard of shards) if (shard.costMs < least.costMs) least = shard;
    least.units.push(unit);
    least.costMs += unit.costMs;
  }
  const key = inputsKey(
    shards.map((s) => s.units.map((u) => [u.task, u.attempt, u.costMs])),
  );
  return { shards, key };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
