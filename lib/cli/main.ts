/**
 * The CLI: parse argv, run one subcommand, map errors to exit codes. Usage errors exit 2 with a
 * one-line `error:` and a hint; runtime failures exit 1. Nothing here exits the process: `main.ts`
 * does, with the code this returns.
 *
 * @module
 */

import { BugboutError, UsageError } from "../errors.ts";
import { VERSION } from "../version.ts";
import { describeStart, detectStart, INTERNAL_COMMANDS } from "../self.ts";
import { type CommandInvocation, parseInvocation } from "./args.ts";
import type { CommandName } from "./commands.ts";
import type { CliSession, Command } from "./context.ts";
import { commandHelp, mainHelp } from "./help.ts";
import { palette } from "../style.ts";
import { type Io, processIo } from "./io.ts";

/** A loaded subcommand, bound to its flags and positionals. */
type Bound = (session: CliSession) => Promise<number>;

/** Import the module of the subcommand `invocation` names (lazily) and bind it to its flags. */
async function load(invocation: CommandInvocation): Promise<Bound> {
  switch (invocation.command) {
    case "init":
      return bind((await import("./init.ts")).initCommand, invocation);
    case "doctor":
      return bind((await import("./doctor.ts")).doctorCommand, invocation);
    case "tasks":
      return bind((await import("./tasks.ts")).tasksCommand, invocation);
    case "run":
      return bind((await import("./run.ts")).runCommand, invocation);
    case "merge":
      return bind((await import("./merge.ts")).mergeCommand, invocation);
    case "report":
      return bind((await import("./report.ts")).reportCommand, invocation);
    case "evidence":
      return bind((await import("./evidence.ts")).evidenceCommand, invocation);
    case "demo":
      return bind((await import("./demo.ts")).demoCommand, invocation);
    default: {
      const never: never = invocation;
      throw new Error(`unhandled command ${JSON.stringify(never)}`);
    }
  }
}

function bind<N extends CommandName>(
  command: Command<N>,
  invocation: CommandInvocation<N>,
): Bound {
  return (session) =>
    command({ ...session, flags: invocation.flags, positionals: invocation.positionals });
}

/** `--version`: bugbout's version, the Deno it runs on, and how it was started. */
function versionText(): string {
  const { deno, v8, typescript } = Deno.version;
  return [
    `bugbout ${VERSION}`,
    `deno ${deno} (v8 ${v8}, typescript ${typescript})`,
    describeStart(detectStart()),
  ].join("\n");
}

/** Run the CLI with `argv` and return the exit code. */
export async function runCli(argv: readonly string[], io?: Io): Promise<number> {
  // bugbout re-run as one of its own helpers (see lib/self.ts): no CLI at all.
  if (argv[0] === INTERNAL_COMMANDS.bridge) {
    return await (await import("../sandbox/bridge.ts")).runBridge(argv.slice(1));
  }
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
        out.out(versionText());
        return 0;
      case "command": {
        const command = await load(invocation);
        if (!io) {
          Deno.addSignalListener("SIGINT", onSigint);
          listening = true;
        }
        return await command({ io: out, signal: controller.signal });
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
