/**
 * What every test-running stage (ground truth, cross-examination, scoring) takes.
 *
 * @module
 */

import type { TestEnv } from "./python/env.ts";
import type { Sandbox } from "./sandbox/types.ts";

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
