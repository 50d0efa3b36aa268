/**
 * Shards: a bout's race split across machines. `bugbout run --shard K/N` races share K of N of the
 * attempts (the same split on every machine that reads the same prep run's tasks and ground
 * truth, balanced by expected cost) and writes `shard.json` beside them; `bugbout merge` checks
 * that shards come from one race and copies their attempts into one `.bugbout/`, which
 * `bugbout run --no-race` then cross-examines, judges and scores.
 *
 * @module
 */

export { type MergeOptions, type MergeResult, mergeShards } from "./merge.ts";
export {
  raceSettings,
  readManifest,
  SHARD_FILE,
  shardManifest,
  type ShardSetup,
  tasksFingerprint,
} from "./manifest.ts";
export {
  AGENT_WORK_MS,
  attemptCostMs,
  parseShard,
  planShards,
  type PlanUnit,
  type Shard,
  shardLabel,
  type ShardPlan,
  TEST_RUNS_PER_ATTEMPT,
  testTimeMs,
} from "./plan.ts";
export { type PreparedShard, prepareShard } from "./prepare.ts";
