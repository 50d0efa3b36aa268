/**
 * What every test-running stage (ground truth, cross-examination, scoring) takes.
 *
 * @module
 */

import type { Project } from "../project.ts";
import type { TestEnv } from "../python/env.ts";
import type { Sandbox } from "../sandbox/types.ts";

/** Options shared by the stages that run tests. */
export interface StageOptions<Progress> {
  /** Stop: runs in flight are killed, finished tasks stay saved, then it throws. */
  signal?: AbortSignal;
  /** Called for every task and run as they start and finish. */
  onProgress?: (event: Progress) => void;
  /** Only these task ids. */
  only?: readonly string[];
  /** The sandbox; by default the one `[run] sandbox` names, checked. */
  sandbox?: Sandbox;
  /** The test environment; by default the project's, built on first use. */
  env?: TestEnv;
}

/**
 * What shapes every pytest session a stage runs: part of each stage's inputs key, so a saved
 * result is reused only while these are unchanged.
 */
export function sessionInputs(project: Project, env: TestEnv) {
  const c = project.config;
  return {
    env: env.key,
    pytestArgs: c.project.pytestArgs,
    testEnv: c.project.env,
    reruns: c.tasks.reruns,
    testTimeout: c.run.testTimeout,
    testMemory: c.run.testMemory,
  };
}
