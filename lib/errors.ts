/**
 * Error classes shared by every layer. Library code throws these; only `main.ts` turns them into
 * exit codes (usage errors exit 2, everything else 1).
 *
 * @module
 */

/** A failure the user can act on: the message says what went wrong and what to do. */
export class BugboutError extends Error {
  /** An optional second line: what to do about it. */
  readonly hint?: string;
  /** An error with a message and, optionally, what to do about it. */
  constructor(message: string, options?: { hint?: string; cause?: unknown }) {
    super(message, { cause: options?.cause });
    this.name = "BugboutError";
    this.hint = options?.hint;
  }
}

/** The command line was wrong: exit 2 with a one-line `error:` and a hint. */
export class UsageError extends BugboutError {
  /** See the class description. */
  constructor(message: string, options?: { hint?: string }) {
    super(message, options);
    this.name = "UsageError";
  }
}

/** `bugbout.toml` is missing, unreadable or invalid. */
export class ConfigError extends BugboutError {
  /** See the class description. */
  constructor(message: string, options?: { hint?: string; cause?: unknown }) {
    super(message, options);
    this.name = "ConfigError";
  }
}

/** A file in `.bugbout/` (or the cache) is corrupt, foreign or from an incompatible version. */
export class StoreError extends BugboutError {
  /** See the class description. */
  constructor(message: string, options?: { hint?: string; cause?: unknown }) {
    super(message, options);
    this.name = "StoreError";
  }
}

/** Another bugbout process holds the results lock. */
export class LockedError extends BugboutError {
  /** See the class description. */
  constructor(message: string, options?: { hint?: string }) {
    super(message, options);
    this.name = "LockedError";
  }
}

/** A bout was interrupted (Ctrl-C); everything finished so far is saved. */
export class InterruptedError extends BugboutError {
  /** See the class description. */
  constructor(message = "Interrupted; everything that had finished is saved.") {
    super(message, { hint: "Run the same command again to carry on." });
    this.name = "InterruptedError";
  }
}

/** Collapse any thrown value into a message for a person. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
