/**
 * Attempts on disk: `.bugbout/attempts/<task>/<name>.json` plus the captured patches beside it,
 * where the name is the agent's (`codex`), or for its repeats `codex#2`, ... (see `attemptName`).
 * The patches are written first and the JSON last, so a JSON file means a finished attempt.
 *
 * @module
 */

import { join } from "node:path";
import { slug } from "../hash.ts";
import { type Attempt, type AttemptPatches, attemptSchema, nameOf } from "../records.ts";
import { readJson, type ResultsDir, writeJsonAtomic, writeTextAtomic } from "../store.ts";
import { readTextIfExists, removeIfExists } from "../fs.ts";
import { type Atif, atifSchema } from "../transcript/atif.ts";

/** The end of a transcript's file name beside its attempt's record. */
const TRAJECTORY_SUFFIX = ".trajectory.json";

/** Paths of one attempt's files, by the attempt's name. */
export function attemptPaths(results: ResultsDir, task: string, name: string) {
  const base = results.file("attempts", task, slug(name));
  return {
    json: `${base}.json`,
    source: `${base}.source.patch`,
    tests: `${base}.tests.patch`,
    full: `${base}.patch`,
    /** The agent's transcript as an ATIF trajectory, when its adapter reads one. */
    trajectory: `${base}${TRAJECTORY_SUFFIX}`,
  };
}

/**
 * Save a finished attempt atomically (patches and its transcript, then the record). An attempt
 * without a transcript leaves none behind from an earlier run of the same name.
 */
export async function saveAttempt(
  results: ResultsDir,
  attempt: Attempt,
  patches: AttemptPatches,
  trajectory?: Atif,
): Promise<void> {
  const paths = attemptPaths(results, attempt.task, nameOf(attempt));
  await writeTextAtomic(paths.source, patches.source);
  await writeTextAtomic(paths.tests, patches.tests);
  await writeTextAtomic(paths.full, patches.full);
  if (trajectory) await writeJsonAtomic(paths.trajectory, trajectory);
  else await removeIfExists(paths.trajectory);
  await writeJsonAtomic(paths.json, attempt);
}

/**
 * Read an attempt's transcript (an ATIF trajectory) by the attempt's name; undefined when it has
 * none. A file that is not ATIF throws, naming it.
 */
export function loadTrajectory(
  results: ResultsDir,
  task: string,
  name: string,
): Promise<Atif | undefined> {
  return readJson(attemptPaths(results, task, name).trajectory, atifSchema, "attempts");
}

/** Read a finished attempt by its name, or undefined when there is none. */
export function loadAttempt(
  results: ResultsDir,
  task: string,
  name: string,
): Promise<Attempt | undefined> {
  return readJson(attemptPaths(results, task, name).json, attemptSchema, "attempts");
}

/** Read an attempt's patches by its name (empty strings when missing). */
export async function loadPatches(
  results: ResultsDir,
  task: string,
  name: string,
): Promise<AttemptPatches> {
  const paths = attemptPaths(results, task, name);
  const read = async (p: string) => (await readTextIfExists(p)) ?? "";
  return {
    source: await read(paths.source),
    tests: await read(paths.tests),
    full: await read(paths.full),
  };
}

/** Every attempt saved for a task, by the attempt's name. */
export async function loadTaskAttempts(
  results: ResultsDir,
  task: string,
): Promise<Map<string, Attempt>> {
  const found = new Map<string, Attempt>();
  const dir = results.file("attempts", task);
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.isFile || !entry.name.endsWith(".json")) continue;
      if (entry.name.endsWith(TRAJECTORY_SUFFIX)) continue;
      const attempt = await readJson(join(dir, entry.name), attemptSchema, "attempts");
      if (attempt) found.set(nameOf(attempt), attempt);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return found;
}

/** Every attempt saved for every task. */
export async function loadAllAttempts(results: ResultsDir): Promise<Attempt[]> {
  const found: Attempt[] = [];
  try {
    for await (const entry of Deno.readDir(results.file("attempts"))) {
      if (entry.isDirectory) found.push(...(await loadTaskAttempts(results, entry.name)).values());
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return found;
}

/** Statuses `--retry-failed` runs again. */
export const RETRYABLE: readonly Attempt["status"][] = ["quota", "infra-error"];

/** Whether an attempt must run (again). */
export function needsRun(
  saved: Attempt | undefined,
  inputsKey: string,
  retryFailed: boolean,
): boolean {
  if (!saved) return true;
  if (saved.inputsKey !== inputsKey) return true;
  // Never started for want of budget: run when the budget allows (the race checks it again).
  if (saved.status === "budget") return true;
  return retryFailed && RETRYABLE.includes(saved.status);
}
