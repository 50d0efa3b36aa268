/**
 * `bugbout merge`: shards' results combined into one project's `.bugbout/`. Everything is checked
 * before anything is written — the shards come from one race (the same bugbout, tasks, settings
 * and split, and the same as this project's), every share is there and finished, and no two copies
 * of an attempt disagree — then each attempt is copied as the race saves one: its patches, then
 * its record, each file atomically, so a merge cut short leaves only whole attempts and can simply
 * be run again.
 *
 * Requires `--allow-read` on the shards' directories and `--allow-read`/`--allow-write` on the
 * project's results directory.
 *
 * @module
 */

import { join, resolve } from "node:path";
import { BugboutError } from "../errors.ts";
import { readTextIfExists, removeIfExists, statIfExists } from "../fs.ts";
import { canonicalJson } from "../hash.ts";
import { TASKS_FILE } from "../mine/mod.ts";
import { ORACLES_FILE } from "../oracle/mod.ts";
import type { Project } from "../project.ts";
import { attemptPaths, loadAttempt, racersFromConfig } from "../race/mod.ts";
import {
  type Attempt,
  type ShardManifest,
  type Task,
  type TasksFile,
  tasksFileSchema,
} from "../records.ts";
import { ResultsDir, writeTextAtomic } from "../store.ts";
import { VERSION } from "../version.ts";
import { plural } from "../words.ts";
import {
  raceSettings,
  readManifest,
  settingsDiff,
  SHARD_FILE,
  tasksFingerprint,
} from "./manifest.ts";
import { type Shard, shardLabel } from "./plan.ts";

/** Options of {@linkcode mergeShards}. */
export interface MergeOptions {
  /**
   * Merge even when shards are missing or unfinished: their attempts are simply absent (a later
   * `bugbout run` races them).
   */
  partial?: boolean;
}

/** What {@linkcode mergeShards} did. */
export interface MergeResult {
  /** The shards merged, by results directory. */
  shards: { dir: string; shard: Shard }[];
  /** Shards of the race that were not given (only with `partial`), as `K/N`. */
  missing: string[];
  /** Attempts of the given shards that had not finished (only with `partial`). */
  unfinished: number;
  /** Attempts copied into the project's results. */
  copied: number;
  /** Attempts the project's results held already, the same. */
  unchanged: number;
  /** Attempts that replaced one saved under other inputs (an older race). */
  replaced: number;
  /** One line for a person. */
  summary: string;
}

/** One shard's results directory, read. */
interface ShardDir {
  dir: string;
  results: ResultsDir;
  manifest: ShardManifest;
  tasks: TasksFile;
}

/** One attempt's files as found in a shard: its record and the exact text of each file. */
interface Found {
  dir: string;
  task: string;
  name: string;
  attempt: Attempt;
  texts: { json: string; source: string; tests: string; full: string; trajectory: string };
}

const MERGE_HINT = "Merge shards of one race: every shard from a copy of the same prep run's " +
  ".bugbout/, with the same bugbout.toml and bugbout (see docs/scale.md).";

/**
 * Merge the shard results in `dirs` (each a `.bugbout/` that `bugbout run --shard K/N` wrote, or
 * the directory holding it) into the project's `.bugbout/`. Throws a {@linkcode BugboutError}
 * naming what differs, what is missing or which attempts disagree, before writing anything.
 */
export async function mergeShards(
  project: Project,
  dirs: readonly string[],
  options: MergeOptions = {},
): Promise<MergeResult> {
  if (!dirs.length) throw new BugboutError("Nothing to merge: name the shards' directories.");
  const target = project.results;
  const shards: ShardDir[] = [];
  for (const dir of dirs) shards.push(await openShard(dir, target));
  checkSameRace(shards);
  await checkAgainstProject(project, shards[0]);

  const first = shards[0];
  const count = first.manifest.shard.count;
  const given = new Set(shards.map((s) => s.manifest.shard.index));
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((k) => !given.has(k))
    .map((k) => `${k}/${count}`);
  const found = new Map<string, Found>();
  const unfinished: string[] = [];
  const conflicts: string[] = [];
  for (const shard of shards) {
    for (const unit of shard.manifest.units) {
      const attempt = await loadAttempt(shard.results, unit.task, unit.attempt);
      if (attempt?.inputsKey !== unit.inputsKey) {
        unfinished.push(
          `${unit.attempt} at ${unit.task} (shard ${shardLabel(shard.manifest.shard)})`,
        );
        continue;
      }
      const here = await readFound(shard, unit.task, unit.attempt, attempt);
      const id = `${unit.task}\0${unit.attempt}`;
      const other = found.get(id);
      if (!other) found.set(id, here);
      else if (!sameAttempt(other, here)) conflicts.push(disagreement(other, here));
    }
  }
  if (conflicts.length) throw disagreements(conflicts);
  if (!options.partial && (missing.length || unfinished.length)) {
    const parts = [
      missing.length ? `${plural(missing.length, "shard")} missing (${missing.join(", ")})` : "",
      unfinished.length
        ? `${plural(unfinished.length, "attempt")} unfinished: ${listed(unfinished)}`
        : "",
    ].filter(Boolean);
    throw new BugboutError(`The race is not complete: ${parts.join("; ")}.`, {
      hint: "Run the missing or unfinished shards (`bugbout run --shard K/N` resumes one in its " +
        "own directory, or runs a lost one again from the prep run's .bugbout/), or merge with " +
        "--partial and let `bugbout run` race what is left.",
    });
  }

  await target.ensure();
  await using _lock = await target.lock();
  let unchanged = 0;
  let replaced = 0;
  const copies: Found[] = [];
  for (const here of found.values()) {
    const saved = await loadAttempt(target, here.task, here.name);
    if (saved && saved.inputsKey === here.attempt.inputsKey) {
      const mine = await readFound(
        { dir: target.path, results: target },
        here.task,
        here.name,
        saved,
      );
      if (sameAttempt(mine, here)) unchanged++;
      else conflicts.push(disagreement(mine, here));
      continue;
    }
    if (saved) replaced++;
    copies.push(here);
  }
  if (conflicts.length) throw disagreements(conflicts);

  // The prep run's tasks and ground truth, where the project has none yet: the merged results
  // are then whole on their own.
  for (const name of [TASKS_FILE, ORACLES_FILE]) {
    if (await statIfExists(target.file(name))) continue;
    const text = await readTextIfExists(first.results.file(name));
    if (text !== undefined) await writeTextAtomic(target.file(name), text);
  }
  for (const copy of copies) {
    const paths = attemptPaths(target, copy.task, copy.name);
    // As the race saves an attempt: the patches first, the record last.
    await writeTextAtomic(paths.source, copy.texts.source);
    await writeTextAtomic(paths.tests, copy.texts.tests);
    await writeTextAtomic(paths.full, copy.texts.full);
    if (copy.texts.trajectory) await writeTextAtomic(paths.trajectory, copy.texts.trajectory);
    else await removeIfExists(paths.trajectory);
    await writeTextAtomic(paths.json, copy.texts.json);
  }
  const indexes = [...given].sort((a, b) => a - b);
  const summary = `merged ${indexes.length === 1 ? "shard" : "shards"} ${indexes.join(", ")} of ` +
    `${count} from ${plural(shards.length, "directory", "directories")}: ` +
    `${plural(copies.length, "attempt")} copied, ` +
    `${unchanged} already here` + (replaced ? `, ${replaced} replacing older ones` : "") +
    (missing.length ? `; missing shards ${missing.join(", ")}` : "") +
    (unfinished.length ? `; ${plural(unfinished.length, "attempt")} unfinished` : "");
  return {
    shards: shards.map((s) => ({ dir: s.dir, shard: s.manifest.shard })),
    missing,
    unfinished: unfinished.length,
    copied: copies.length,
    unchanged,
    replaced,
    summary,
  };
}

/** Read a shard's results directory: `dir` itself or its `.bugbout/`. */
async function openShard(dir: string, target: ResultsDir): Promise<ShardDir> {
  const candidates = [resolve(dir), resolve(dir, ".bugbout")];
  let path: string | undefined;
  for (const candidate of candidates) {
    if (await statIfExists(join(candidate, SHARD_FILE))) {
      path = candidate;
      break;
    }
  }
  if (!path) {
    throw new BugboutError(
      `${dir} holds no shard results: no ${SHARD_FILE} in it or in its .bugbout/.`,
      {
        hint: "Name the .bugbout/ directories that `bugbout run --shard K/N` wrote.",
      },
    );
  }
  if (path === resolve(target.path)) {
    throw new BugboutError(`${dir} is this project's own results directory: nothing to merge.`, {
      hint: "Merge into another project directory, or remove its shard.json if it is no shard.",
    });
  }
  const results = new ResultsDir(path);
  const manifest = (await readManifest(results))!;
  const tasks = await results.read(TASKS_FILE, tasksFileSchema, "mined tasks");
  if (!tasks) {
    throw new BugboutError(`${path} has a ${SHARD_FILE} but no ${TASKS_FILE}.`, {
      hint: "Give the whole .bugbout/ directory the shard wrote.",
    });
  }
  if (tasksFingerprint(tasks.tasks) !== manifest.tasks) {
    throw new BugboutError(`${join(path, TASKS_FILE)} changed after its shard ran.`, {
      hint: "Run the shard again from a copy of the prep run's .bugbout/.",
    });
  }
  return { dir: path, results, manifest, tasks };
}

/** Throw unless every shard comes from the same race as the first. */
function checkSameRace(shards: readonly ShardDir[]): void {
  const [first, ...rest] = shards;
  const a = first.manifest;
  for (const shard of rest) {
    const b = shard.manifest;
    const names = { a: `in ${first.dir}`, b: `in ${shard.dir}` };
    const differ = (what: string) =>
      new BugboutError(`Cannot merge ${shard.dir} with ${first.dir}: ${what}.`, {
        hint: MERGE_HINT,
      });
    if (a.bugbout !== b.bugbout) {
      throw differ(
        `they were raced by different versions of bugbout (${a.bugbout} ${names.a}, ${b.bugbout} ${names.b})`,
      );
    }
    if (a.shard.count !== b.shard.count) {
      throw differ(`one is a share of ${a.shard.count}, the other of ${b.shard.count}`);
    }
    if (a.tasks !== b.tasks) {
      throw differ(
        `they raced different tasks (${
          tasksDiff(first.tasks.tasks, shard.tasks.tasks, names).join("; ")
        })`,
      );
    }
    const settings = settingsDiff(a.settings, b.settings, names);
    if (settings.length) throw differ(`their settings differ: ${settings.join("; ")}`);
    if (a.groundTruth !== b.groundTruth) {
      throw differ("their ground truth (oracles.json) differs, so they split the race differently");
    }
    if (a.plan !== b.plan) throw differ("they split the race differently");
  }
}

/** Throw unless the shards match this project: its bugbout, its settings and its tasks. */
async function checkAgainstProject(project: Project, shard: ShardDir): Promise<void> {
  const m = shard.manifest;
  const hint = "Merge with the bugbout and the bugbout.toml that ran the shards, into a project " +
    "at the same commit.";
  if (m.bugbout !== VERSION) {
    throw new BugboutError(
      `The shards were raced by bugbout ${m.bugbout}; this is bugbout ${VERSION}.`,
      { hint },
    );
  }
  const mine = raceSettings(project, racersFromConfig(project));
  const differ = settingsDiff(m.settings, mine, { a: "in the shards", b: "here" });
  if (differ.length) {
    throw new BugboutError(
      `The shards ran with other settings than ${project.config.file}: ${differ.join("; ")}.`,
      { hint },
    );
  }
  const tasks = await project.results.read(TASKS_FILE, tasksFileSchema, "mined tasks");
  if (tasks && tasksFingerprint(tasks.tasks) !== m.tasks) {
    const names = { a: "in the shards", b: `in ${project.results.display(TASKS_FILE)}` };
    throw new BugboutError(
      `The shards raced other tasks than this project's: ` +
        `${tasksDiff(shard.tasks.tasks, tasks.tasks, names).join("; ")}.`,
      { hint: "Merge into a copy of the prep run's .bugbout/, or into a project without one." },
    );
  }
}

/** How two task lists differ, one phrase each, for a person. */
function tasksDiff(
  a: readonly Task[],
  b: readonly Task[],
  names: { a: string; b: string },
): string[] {
  const byId = (tasks: readonly Task[]) => new Map(tasks.map((t) => [t.id, t]));
  const [ma, mb] = [byId(a), byId(b)];
  const onlyA = a.filter((t) => !mb.has(t.id)).map((t) => t.id);
  const onlyB = b.filter((t) => !ma.has(t.id)).map((t) => t.id);
  const out: string[] = [];
  if (onlyA.length) out.push(`${onlyA.join(", ")} only ${names.a}`);
  if (onlyB.length) out.push(`${onlyB.join(", ")} only ${names.b}`);
  for (const task of a) {
    const other = mb.get(task.id);
    if (!other) continue;
    const keys = [...new Set([...Object.keys(task), ...Object.keys(other)])] as (keyof Task)[];
    const fields = keys.filter((k) => canonicalJson(task[k]) !== canonicalJson(other[k]));
    if (fields.length) out.push(`${task.id} differs in ${fields.join(", ")}`);
  }
  return out.length ? out : ["the same tasks in another order"];
}

async function readFound(
  shard: Pick<ShardDir, "dir" | "results">,
  task: string,
  name: string,
  attempt: Attempt,
): Promise<Found> {
  const paths = attemptPaths(shard.results, task, name);
  const read = async (path: string) => (await readTextIfExists(path)) ?? "";
  return {
    dir: shard.dir,
    task,
    name,
    attempt,
    texts: {
      json: await read(paths.json),
      source: await read(paths.source),
      tests: await read(paths.tests),
      full: await read(paths.full),
      trajectory: await read(paths.trajectory),
    },
  };
}

/**
 * Whether two copies of an attempt are the same result: the same record but for when it started
 * and how long it took (which two runs of one shard can never share), and the same patches.
 */
function sameAttempt(a: Found, b: Found): boolean {
  const record = ({ startedAt: _s, durationMs: _d, ...rest }: Attempt) => canonicalJson(rest);
  return record(a.attempt) === record(b.attempt) && a.texts.source === b.texts.source &&
    a.texts.tests === b.texts.tests && a.texts.full === b.texts.full;
}

function disagreements(conflicts: readonly string[]): BugboutError {
  return new BugboutError(
    `Cannot merge: ${plural(conflicts.length, "attempt")} disagree: ${listed(conflicts)}.`,
    {
      hint: "Two copies of one attempt must be the same result (a shard merged twice, or run " +
        "twice by scripted agents). For a shard that ran twice with different outcomes, merge " +
        "only one of its directories.",
    },
  );
}

function disagreement(a: Found, b: Found): string {
  return `${a.name} at ${a.task} (${a.dir} and ${b.dir} hold different results)`;
}

function listed(items: readonly string[], max = 5): string {
  const shown = items.slice(0, max).join(", ");
  return items.length > max ? `${shown} and ${items.length - max} more` : shown;
}
