/**
 * The part of running a confined command that every sandbox shares: the command's own stdin,
 * timeout, abort signal and output caps come from the confinement; exit codes never throw; the
 * confinement's limits are metered, and reaching one stops the command and is reported.
 *
 * @module
 */

import { run } from "../proc.ts";
import { Meter } from "./limits.ts";
import type { Confinement, LimitHit, SandboxResult } from "./types.ts";

/** Run `argv` (the sandbox's own launcher and the command) with `env` as the whole environment. */
export async function runConfined(
  argv: readonly string[],
  c: Confinement,
  options: {
    env: Record<string, string>;
    cwd?: string;
    ownGroup?: boolean;
    /** Host paths whose growth counts against `c.limits.diskMb` (real paths). */
    writable?: readonly string[];
  },
): Promise<SandboxResult> {
  const limits = c.limits ?? {};
  const metered = Object.values(limits).some((v) => v !== undefined);
  const stop = new AbortController();
  let meter: Meter | undefined;
  if (metered) {
    meter = await Meter.start({
      limits,
      paths: options.writable ?? [],
      onHit: () => stop.abort(),
    });
  }
  const signal = c.signal ? AbortSignal.any([c.signal, stop.signal]) : stop.signal;
  let result: SandboxResult;
  try {
    result = await run(argv, {
      cwd: options.cwd,
      clearEnv: true,
      env: options.env,
      ownGroup: options.ownGroup,
      stdin: c.stdin,
      timeoutMs: c.timeoutMs,
      signal,
      maxOutputBytes: c.maxOutputBytes,
      stdoutLog: c.stdoutLog,
      stderrLog: c.stderrLog,
      okCodes: "any",
      onSpawn: (pid) => meter?.watch(pid),
    });
  } catch (error) {
    // The first failure is the one to report, whatever stopping the meter runs into.
    await meter?.stop().finally(() => {
      throw error;
    });
    throw error;
  }
  const limit: LimitHit | undefined = await meter?.stop();
  // Stopped for a limit is not stopped by the caller.
  return limit ? { ...result, aborted: c.signal?.aborted ?? false, limit } : result;
}
