/**
 * The CLI: parse argv, run one subcommand, map errors to exit codes. Usage errors exit 2 with a
 * one-line `error:` and a hint; runtime failures exit 1. Nothing here exits the process: `main.ts`
 * does, with the code this returns.
 *
 * @module
 */

import { BugboutError, UsageError } from "../errors.ts";
import { VERSION } from "../version.ts";
import { type Flags, parseInvocation } from "./args.ts";
import type { CommandName } from "./commands.ts";
import { commandHelp, mainHelp } from "./help.ts";
import { type Io, palette, processIo } from "./io.ts";

/** What a subcommand receives. */
export interface CommandContext {
  /** Parsed flags. */
  flags: Flags;
  /** Positional arguments. */
  positionals: string[];
  /** Output. */
  io: Io;
  /** Aborts on Ctrl-C. */
  signal: AbortSignal;
}

/** A subcommand: returns the process's exit code. */
export type Command = (context: CommandContext) => Promise<number>;

async function load(name: CommandName): Promise<Command> {
  switch (name) {
    case "init":
      return (await import("./init.ts")).init;
    case "doctor":
      return (await import("./doctor.ts")).doctor;
    case "tasks":
      return (await import("./tasks.ts")).tasks;
    case "run":
      return (await import("./run.ts")).run;
    case "report":
      return (await import("./report.ts")).report;
    case "evidence":
      return (await import("./evidence.ts")).evidence;
    case "demo":
      return (await import("./demo.ts")).demo;
    default: {
      const never: never = name;
      throw new Error(`unhandled command ${never}`);
    }
  }
}

/** Run the CLI with `argv` and return the exit code. */
export async function runCli(argv: readonly string[], io?: Io): Promise<number> {
  const noColor = argv.includes("--no-color");
  const out = io ?? processIo({ noColor });
  const p = palette(out.color);
  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) return;
    out.err(p.warn("Stopping: finishing nothing new, keeping everything that has finished..."));
    controller.abort();
  };
  let listening = false;
  try {
    const invocation = parseInvocation(argv);
    switch (invocation.kind) {
      case "help":
        out.out(invocation.command ? commandHelp(invocation.command) : mainHelp(VERSION));
        return 0;
      case "version":
        out.out(`bugbout ${VERSION}`);
        return 0;
      case "command": {
        const command = await load(invocation.command);
        if (!io) {
          Deno.addSignalListener("SIGINT", onSigint);
          listening = true;
        }
        return await command({
          flags: invocation.flags,
          positionals: invocation.positionals,
          io: out,
          signal: controller.signal,
        });
      }
      default: {
        const never: never = invocation;
        throw new Error(`unhandled invocation ${JSON.stringify(never)}`);
      }
    }
  } catch (error) {
    if (error instanceof UsageError) {
      out.err(`${p.bad("error:")} ${error.message}`);
      if (error.hint) out.err(error.hint);
      return 2;
    }
    if (error instanceof BugboutError) {
      out.err(`${p.bad("error:")} ${error.message}`);
      if (error.hint) out.err(`${p.dim("hint:")} ${error.hint}`);
      return 1;
    }
    out.err(`${p.bad("internal error:")} bugbout hit a bug it did not expect. Please report it.`);
    out.err(error instanceof Error ? (error.stack ?? error.message) : String(error));
    return 1;
  } finally {
    if (listening) Deno.removeSignalListener("SIGINT", onSigint);
  }
}
