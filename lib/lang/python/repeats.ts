/**
 * Run the same pytest session several times and merge the runs: the outcome of every test that
 * behaved the same each time, and the tests whose outcome differed (unstable).
 *
 * `mergeRepeats` is pure; `runRepeated` needs what `runPytest` needs.
 *
 * @module
 */

import { mergeRepeats } from "../results.ts";
import type { RepeatedRuns } from "../types.ts";
import { type PytestOptions, type PytestRun, runPytest } from "./pytest.ts";

export { mergeRepeats } from "../results.ts";
export type { RepeatedRuns } from "../types.ts";

/**
 * Run the same session `times` times, one after another (the repeats must not compete with each
 * other for the machine), and merge them.
 */
export async function runRepeated(options: PytestOptions, times: number): Promise<RepeatedRuns> {
  const runs: PytestRun[] = [];
  for (let i = 0; i < times; i++) runs.push(await runPytest(options));
  return mergeRepeats(runs);
}
