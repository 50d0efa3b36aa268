/**
 * The sandbox contract: run one command confined to the paths and network it was given.
 *
 * @module
 */

import type { LogSink, ProcResult } from "../proc.ts";

/** Which sandbox implementation runs commands. */
export type SandboxKind = "bubblewrap" | "seatbelt" | "none";

/** What a confined command may see and do. */
export interface Confinement {
  /** Working directory; writable. */
  workdir: string;
  /** Other host paths the command may write (log dir, state dirs). */
  writable?: string[];
  /** Other host paths the command may read (toolchains, the test environment, the prompt). */
  readable?: string[];
  /**
   * Host paths that must stay unreadable even where an allowed path contains them: the "future"
   * (the user's repository, `BUGBOUT_HOME`, the results directory). Paths in `workdir`,
   * `writable` and `readable` that lie inside one are allowed again (the most specific path wins).
   */
  deny?: string[];
  /**
   * `none`: no network at all. Otherwise only these `host:port` pairs, through bugbout's proxy
   * (loopback targets are forwarded on the same port inside).
   */
  network: "none" | { allow: string[] };
  /** The complete environment inside (nothing else is inherited). */
  env: Record<string, string>;
  /** `HOME` inside; a private scratch directory when not also in `writable`. */
  home?: string;
  /** Wall-clock limit. */
  timeoutMs: number;
  /** Address-space cap for the command, in MiB. */
  memoryMb?: number;
  /** Size cap of each private tmpfs (`/tmp`, `HOME`), in MiB. */
  tmpfsMb?: number;
  /** Standard input text; `/dev/null` otherwise. */
  stdin?: string;
  /** Keep at most this many bytes of each stream in memory. */
  maxOutputBytes?: number;
  /** Stream stdout to a capped file. */
  stdoutLog?: LogSink;
  /** Stream stderr to a capped file. */
  stderrLog?: LogSink;
  /** Stop the command when this aborts. */
  signal?: AbortSignal;
}

/** A way of running confined commands. */
export interface Sandbox {
  /** Which implementation this is. */
  readonly kind: SandboxKind;
  /** Run `argv` under `confinement`; never throws for the command's own exit code. */
  run(argv: string[], confinement: Confinement): Promise<ProcResult>;
}
