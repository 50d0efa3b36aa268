/**
 * An agent's limits (`[run] agent-processes`, `agent-memory`, `agent-disk`, `agent-files`) and
 * what reaching one makes of its attempt: `too-many-processes`, `out-of-memory`, `disk-full` or
 * `too-many-files`, with a line that says which setting it was.
 *
 * The sandbox stops an agent that reaches a limit and says which one. A single allocation over
 * the memory limit is refused by the kernel instead (`RLIMIT_DATA`): the agent then fails on its
 * own, and its last words (`MemoryError`, `JavaScript heap out of memory`, `std::bad_alloc`, ...)
 * say why. A single file over the disk limit kills its writer with `SIGXFSZ`.
 *
 * @module
 */

import type { Config } from "../config.ts";
import type { AttemptStatus } from "../records.ts";
import type { LimitHit, Limits, SandboxResult } from "../sandbox/types.ts";

/** The status of an attempt that reached each limit. */
export const LIMIT_STATUSES: Record<LimitHit, AttemptStatus> = {
  processes: "too-many-processes",
  memory: "out-of-memory",
  disk: "disk-full",
  files: "too-many-files",
};

/** What runtimes print when the kernel refuses them memory. */
const OUT_OF_MEMORY = new RegExp(
  [
    "MemoryError",
    "Cannot allocate memory",
    "JavaScript heap out of memory",
    "std::bad_alloc",
    "memory allocation of \\d+ bytes failed",
    "fatal error: runtime: out of memory",
    "java\\.lang\\.OutOfMemoryError",
  ].join("|"),
);
/** The exit code of a process killed by `SIGXFSZ` (a file over `RLIMIT_FSIZE`). */
const FILE_TOO_LARGE = 128 + 25;
/** How much of the end of the output is read for a runtime's last words. */
const LAST_WORDS = 2000;

/** The limits of an agent's attempt, from `[run]`. */
export function agentLimits(run: Config["run"]): Required<Limits> {
  return {
    processes: run.agentProcesses,
    memoryMb: run.agentMemory,
    diskMb: run.agentDisk,
    files: run.agentFiles,
  };
}

/**
 * The limit an agent's run reached: the one the sandbox stopped it at, or, for a run that failed
 * on its own, the one its exit code or last words point to. Undefined when none did.
 */
export function limitReached(
  result: Pick<SandboxResult, "limit" | "code" | "timedOut" | "stdout" | "stderr">,
): LimitHit | undefined {
  if (result.limit) return result.limit;
  if (result.timedOut || result.code === 0) return undefined;
  if (result.code === FILE_TOO_LARGE) return "disk";
  const end = `${result.stdout.slice(-LAST_WORDS)}\n${result.stderr.slice(-LAST_WORDS)}`;
  return OUT_OF_MEMORY.test(end) ? "memory" : undefined;
}

/** One line for the attempt record: which limit, and the setting that holds it. */
export function limitMessage(hit: LimitHit, limits: Required<Limits>): string {
  switch (hit) {
    case "processes":
      return `stopped at ${limits.processes} processes ([run] agent-processes)`;
    case "memory":
      return `out of memory at ${limits.memoryMb} MiB ([run] agent-memory)`;
    case "disk":
      return `stopped after writing ${limits.diskMb} MiB ([run] agent-disk)`;
    case "files":
      return `stopped at ${limits.files} new files ([run] agent-files)`;
  }
}
