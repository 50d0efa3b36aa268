/**
 * The sandbox contract: run one command confined to the paths and network it was given.
 *
 * @module
 */

import type { LogSink, ProcResult } from "../proc.ts";

/** Which sandbox implementation runs commands. */
export type SandboxKind = "bubblewrap" | "seatbelt" | "none";

/**
 * What a confined command may consume. Reaching a limit stops the command (the whole sandbox) and
 * {@linkcode SandboxResult.limit} says which one it was.
 */
export interface Limits {
  /** Processes and threads at once (`RLIMIT_NPROC` inside the sandbox, and metered). */
  processes?: number;
  /**
   * Memory in MiB: each process's data (`RLIMIT_DATA`: heap and private mappings, not the
   * address space that runtimes such as Node reserve up front) and the resident memory of all
   * its processes together (metered).
   */
  memoryMb?: number;
  /**
   * MiB the command may add to its working directory and writable paths: each file
   * (`RLIMIT_FSIZE`) and their total growth (metered). The private tmpfs mounts are capped at
   * this size too.
   */
  diskMb?: number;
  /**
   * Entries (files, directories, links) the command may add to its working directory and
   * writable paths, counted by a walk that stops at the limit (metered).
   */
  files?: number;
}

/** Which limit stopped a command. */
export type LimitHit = "processes" | "memory" | "disk" | "files";

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
  /** Address-space cap for the command (`RLIMIT_AS`), in MiB: for test sessions. */
  memoryMb?: number;
  /**
   * Limits on processes, memory and disk; see {@linkcode Limits}. The bubblewrap sandbox caps
   * processes at `DEFAULT_PROCESSES` when none is given.
   */
  limits?: Limits;
  /**
   * Symbolic links to make inside, as `path -> target`: how an executable found through a link
   * (`~/.local/bin/agent -> ../share/agent/bin/agent`) keeps its name without the directory it
   * lies in being shown. The target must be readable through another path.
   */
  links?: { path: string; target: string }[];
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

/** What a confined command left behind. */
export interface SandboxResult extends ProcResult {
  /** The limit that stopped the command, when one did. */
  limit?: LimitHit;
}

/** A way of running confined commands. */
export interface Sandbox {
  /** Which implementation this is. */
  readonly kind: SandboxKind;
  /** Run `argv` under `confinement`; never throws for the command's own exit code. */
  run(argv: string[], confinement: Confinement): Promise<SandboxResult>;
}
