/**
 * Setting up a shard: the tasks and ground truth a prep run left in `.bugbout/` (never mined or
 * computed again here, so that every shard splits the same race), the split, and `shard.json`.
 *
 * Requires `--allow-read` and `--allow-write` on the results directory.
 *
 * @module
 */

import { BugboutError } from "../errors.ts";
import { TASKS_FILE } from "../mine/mod.ts";
import { readOracles } from "../oracle/mod.ts";
import type { Project } from "../project.ts";
import type { Racer } from "../race/mod.ts";
import {
  type OraclesFile,
  type ShardManifest,
  type TasksFile,
  tasksFileSchema,
} from "../records.ts";
import { readManifest, SHARD_FILE, shardManifest } from "./manifest.ts";
import { type Shard, shardLabel, type ShardPlan } from "./plan.ts";

/** What a shard races, and how the whole race was split. */
export interface PreparedShard {
  /** tasks.json as the prep run left it. */
  tasks: TasksFile;
  /** oracles.json as the prep run left it. */
  oracles: OraclesFile;
  /** The shard's manifest, as written to `shard.json`. */
  manifest: ShardManifest;
  /** The whole split. */
  plan: ShardPlan;
  /** Whether an attempt (by task id and attempt name) is this shard's. */
  owns: (task: string, attempt: string) => boolean;
}

const PREP_HINT = "Run `bugbout run --tasks-only` once, then give every shard a copy of the " +
  ".bugbout/ it leaves (see docs/scale.md).";

/**
 * Read the prep run's tasks and ground truth, split the race, and write `shard.json`. Throws when
 * the tasks or their ground truth are missing or unfinished, or when the results directory holds
 * another shard.
 */
export async function prepareShard(
  project: Project,
  shard: Shard,
  racers: readonly Racer[],
): Promise<PreparedShard> {
  const results = project.results;
  const tasks = await results.read(TASKS_FILE, tasksFileSchema, "mined tasks");
  if (!tasks) {
    throw new BugboutError(
      `A shard races the tasks of a prep run, and ${results.display(TASKS_FILE)} does not exist.`,
      { hint: PREP_HINT },
    );
  }
  const oracles = await readOracles(project);
  const missing = tasks.tasks.filter((t) => !oracles.oracles[t.id]).map((t) => t.id);
  const failed = tasks.tasks.filter((t) => oracles.oracles[t.id]?.status === "infra-error")
    .map((t) => t.id);
  if (missing.length || failed.length) {
    const what = missing.length
      ? `the ground truth of ${missing.join(", ")} is missing`
      : `the ground truth of ${failed.join(", ")} ended in an infrastructure error`;
    throw new BugboutError(
      `Cannot split the race: ${what}, so shards could disagree on which tasks race.`,
      { hint: PREP_HINT },
    );
  }
  const held = await readManifest(results);
  if (held && (held.shard.index !== shard.index || held.shard.count !== shard.count)) {
    throw new BugboutError(
      `${results.display()} holds shard ${shardLabel(held.shard)}, not ${shardLabel(shard)}.`,
      {
        hint: "Give each shard a results directory of its own: a copy of the prep run's .bugbout/.",
      },
    );
  }
  const { manifest, plan } = shardManifest(project, shard, {
    tasks: tasks.tasks,
    oracles,
    racers,
  });
  await results.write(SHARD_FILE, manifest);
  const owned = new Set(manifest.units.map((u) => `${u.task}\0${u.attempt}`));
  return {
    tasks,
    oracles,
    manifest,
    plan,
    owns: (task, attempt) => owned.has(`${task}\0${attempt}`),
  };
}
