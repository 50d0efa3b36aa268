/**
 * The part of running a confined command that every sandbox shares: the command's own stdin,
 * timeout, abort signal and output caps come from the confinement; exit codes never throw.
 *
 * @module
 */

import { type ProcResult, run } from "../proc.ts";
import type { Confinement } from "./types.ts";

/** Run `argv` (the sandbox's own launcher and the command) with `env` as the whole environment. */
export function runConfined(
  argv: readonly string[],
  c: Confinement,
  options: { env: Record<string, string>; cwd?: string; ownGroup?: boolean },
): Promise<ProcResult> {
  return run(argv, {
    cwd: options.cwd,
    clearEnv: true,
    env: options.env,
    ownGroup: options.ownGroup,
    stdin: c.stdin,
    timeoutMs: c.timeoutMs,
    signal: c.signal,
    maxOutputBytes: c.maxOutputBytes,
    stdoutLog: c.stdoutLog,
    stderrLog: c.stderrLog,
    okCodes: "any",
  });
}
