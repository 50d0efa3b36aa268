/**
 * What a subcommand receives and what it is: the contract between `main.ts` and the command
 * modules, in a module of its own so that neither imports the other.
 *
 * @module
 */

import type { CommandName, FlagsOf } from "./commands.ts";
import type { Io } from "./io.ts";

/** What every subcommand receives whatever its flags: where to write, and when to stop. */
export interface CliSession {
  /** Output. */
  io: Io;
  /** Aborts on Ctrl-C. */
  signal: AbortSignal;
}

/** What the subcommand `N` receives: the session, and its own flags, typed from the table. */
export interface CommandContext<N extends CommandName> extends CliSession {
  /** Parsed flags: booleans false and repeatable flags [] when absent. */
  flags: FlagsOf<N>;
  /** Positional arguments. */
  positionals: string[];
}

/** The subcommand `N`: returns the process's exit code. */
export type Command<N extends CommandName> = (context: CommandContext<N>) => Promise<number>;
