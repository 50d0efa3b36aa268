/**
 * `shard.json`: what a shard's results directory holds (share K of N of which race) and what the
 * race was made from — the bugbout version, the tasks, the ground truth the split read, and every
 * setting that shapes an attempt — so that `bugbout merge` can tell shards of one race from
 * strangers and say what differs.
 *
 * Requires `--allow-read` and `--allow-write` on the results directory.
 *
 * @module
 */

import { canonicalJson, inputsKey } from "../hash.ts";
import type { Project } from "../project.ts";
import { attemptKey, type Racer } from "../race/mod.ts";
import {
  attemptName,
  type OraclesFile,
  RESULTS_VERSION,
  type ShardManifest,
  shardManifestSchema,
  type Task,
} from "../records.ts";
import type { ResultsDir } from "../store.ts";
import { VERSION } from "../version.ts";
import {
  attemptCostMs,
  planShards,
  type PlanUnit,
  type Shard,
  type ShardPlan,
  testTimeMs,
} from "./plan.ts";

/** The name of the manifest in a shard's results directory. */
export const SHARD_FILE = "shard.json";

/** Hash of a tasks.json's tasks: equal for shards that raced the same tasks. */
export function tasksFingerprint(tasks: readonly Task[]): string {
  return inputsKey(tasks);
}

/**
 * Every setting that shapes an attempt, by a name a person knows it by: the value itself where it
 * is short and harmless, a hash where it may hold a secret or a long list (agent options, test
 * environment variables). Scheduling settings (`quotas`, `jobs`) change no attempt and are left out.
 */
export function raceSettings(project: Project, racers: readonly Racer[]): Record<string, string> {
  const run = project.config.run;
  const p = project.config.project;
  const settings: Record<string, string> = {
    "[project] source": p.source,
    "[project] tests": p.tests,
    "[project] python": p.python ?? p.interpreter ?? "(default)",
    "[project] test-dependencies": canonicalJson(p.testDependencies),
    "[project] pytest-args": canonicalJson(p.pytestArgs),
    "[project] env": `hash ${inputsKey(p.env)}`,
    "[project] install-project": String(p.installProject),
    "[run] sandbox": run.sandbox,
    "[run] timeout": String(run.timeout),
    "[run] agent-memory": String(run.agentMemory),
    "[run] agent-processes": String(run.agentProcesses),
    "[run] agent-disk": String(run.agentDisk),
    "[run] agent-files": String(run.agentFiles),
    "[run] repeats": String(run.repeats),
    "[run.budget]": canonicalJson(run.budget),
  };
  for (const { agent, role, settings: own } of racers) {
    settings[`agent "${agent.name}"`] = `${role}, type ${agent.type}` +
      (agent.model ? `, model ${agent.model}` : "") + `, settings hash ${inputsKey(own)}`;
  }
  return settings;
}

/** Every attempt of the race with its expected cost: scorable tasks × racers × repeats. */
export function raceUnits(
  project: Project,
  tasks: readonly Task[],
  oracles: OraclesFile,
  racers: readonly Racer[],
): (PlanUnit & { inputsKey: string })[] {
  const units = [];
  for (const task of tasks) {
    const oracle = oracles.oracles[task.id];
    if (oracle?.status !== "scorable") continue;
    const costMs = attemptCostMs(testTimeMs(oracle));
    for (const racer of racers) {
      for (let repeat = 1; repeat <= project.config.run.repeats; repeat++) {
        units.push({
          task: task.id,
          attempt: attemptName(racer.agent.name, repeat),
          costMs,
          inputsKey: attemptKey(task, racer, repeat),
        });
      }
    }
  }
  return units;
}

/** Hash of what the split reads from the ground truth: each task's status and test time. */
export function groundTruthFingerprint(tasks: readonly Task[], oracles: OraclesFile): string {
  return inputsKey(tasks.map((task) => {
    const oracle = oracles.oracles[task.id];
    return [task.id, oracle?.status ?? null, oracle ? testTimeMs(oracle) : null];
  }));
}

/** What {@linkcode shardManifest} returns: the manifest and the whole split it comes from. */
export interface ShardSetup {
  manifest: ShardManifest;
  plan: ShardPlan;
}

/** The manifest of share `shard` of the race over `tasks` (and the whole split). */
export function shardManifest(
  project: Project,
  shard: Shard,
  inputs: { tasks: readonly Task[]; oracles: OraclesFile; racers: readonly Racer[] },
): ShardSetup {
  const units = raceUnits(project, inputs.tasks, inputs.oracles, inputs.racers);
  const plan = planShards(units, shard.count);
  const keys = new Map(units.map((u) => [`${u.task}\0${u.attempt}`, u.inputsKey]));
  const mine = plan.shards[shard.index - 1].units.map((u) => ({
    task: u.task,
    attempt: u.attempt,
    inputsKey: keys.get(`${u.task}\0${u.attempt}`)!,
    costMs: u.costMs,
  }));
  const manifest: ShardManifest = {
    version: RESULTS_VERSION,
    kind: "shard",
    bugbout: VERSION,
    shard: { index: shard.index, count: shard.count },
    tasks: tasksFingerprint(inputs.tasks),
    groundTruth: groundTruthFingerprint(inputs.tasks, inputs.oracles),
    settings: raceSettings(project, inputs.racers),
    plan: plan.key,
    units: mine,
  };
  return { manifest, plan };
}

/** Read a results directory's `shard.json`; undefined when it holds none. */
export function readManifest(results: ResultsDir): Promise<ShardManifest | undefined> {
  return results.read(SHARD_FILE, shardManifestSchema, "shard results");
}

/**
 * The settings that differ between two sets, one phrase each:
 * `[run] timeout (600 in a, 1800 in b)`.
 */
export function settingsDiff(
  a: Readonly<Record<string, string>>,
  b: Readonly<Record<string, string>>,
  names: { a: string; b: string },
): string[] {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  return keys.filter((key) => a[key] !== b[key]).map((key) =>
    `${key} (${a[key] ?? "absent"} ${names.a}, ${b[key] ?? "absent"} ${names.b})`
  );
}
