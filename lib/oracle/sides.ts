/**
 * What ground truth does the same way for every language: the record of a task that could not be
 * decided, a side run `[tasks] reruns` times, the fix's test files present on a tree, and the test
 * durations kept from G.
 *
 * Requires `--allow-read` on the trees.
 *
 * @module
 */

import { join } from "node:path";
import { InterruptedError } from "../errors.ts";
import { statIfExists } from "../fs.ts";
import { mergeRepeats, type RepeatedRuns, type RunnerRun } from "../lang/mod.ts";
import type { Oracle, Task } from "../records.ts";
import type { RunLog, TaskContext } from "../testbed/mod.ts";

/** A maker of a task's undecided record (`infra-error`, `unscorable`) with the runs so far. */
export function blankOracle(task: Task, key: string, log: RunLog) {
  return (status: Oracle["status"], reason: string): Oracle => ({
    task: task.id,
    inputsKey: key,
    status,
    reason,
    failToPass: [],
    passToPass: [],
    unstable: [],
    runs: log.sorted(),
    durations: {},
  });
}

/** Run one side `[tasks] reruns` times in the stage's slots, recording each run; merge them. */
export async function runSide(
  context: Pick<TaskContext, "slots" | "signal">,
  log: RunLog,
  name: "B" | "G",
  reruns: number,
  once: () => Promise<RunnerRun>,
): Promise<RepeatedRuns> {
  const done: RunnerRun[] = [];
  for (let i = 0; i < reruns; i++) {
    const record = log.on(name);
    const run = await context.slots.use(() => {
      if (context.signal?.aborted) throw new InterruptedError();
      record.starting?.();
      return once();
    });
    record(run);
    done.push(run);
  }
  return mergeRepeats(done);
}

/** The paths of `paths` that are files in `tree`. */
export async function existing(tree: string, paths: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const path of paths) if ((await statIfExists(join(tree, path)))?.isFile) found.push(path);
  return found;
}

/** G's test durations, of the tests G ran (stable or not). */
export function durationsOnG(g: RepeatedRuns): Record<string, number> {
  const ran = new Set(Object.keys(g.stable).concat(g.unstable));
  const durations: Record<string, number> = {};
  for (const [id, ms] of Object.entries(g.durations)) if (ran.has(id)) durations[id] = ms;
  return durations;
}
