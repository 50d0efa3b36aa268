/**
 * Argv → a typed invocation, against the command table. Unknown flags and commands become usage
 * errors that name the closest match (or the new name of a renamed flag).
 *
 * @module
 */

import { parseArgs } from "node:util";
import { UsageError } from "../errors.ts";
import { closest } from "../suggest.ts";
import {
  type CommandName,
  COMMANDS,
  type CommandSpec,
  GLOBAL_FLAGS,
  RENAMED_FLAGS,
} from "./commands.ts";

/** Parsed flag values by name. */
export type Flags = Record<string, string | boolean | string[] | undefined>;

/** What the command line asked for. */
export type Invocation =
  | { kind: "help"; command?: CommandName }
  | { kind: "version" }
  | {
    kind: "command";
    command: CommandName;
    flags: Flags;
    positionals: string[];
  };

/** Parse argv (without the program name). Throws {@linkcode UsageError}. */
export function parseInvocation(argv: readonly string[]): Invocation {
  const [first, ...rest] = argv;
  if (first === undefined || first === "--help" || first === "-h" || first === "help") {
    const topic = first === "help" ? rest[0] : undefined;
    if (topic !== undefined) return { kind: "help", command: commandName(topic) };
    return { kind: "help" };
  }
  if (first === "--version" || first === "-V") return { kind: "version" };
  if (first.startsWith("-")) {
    throw new UsageError(`unknown option ${first}`, { hint: "Run `bugbout --help` for usage." });
  }
  const command = commandName(first);
  const spec: CommandSpec = COMMANDS[command];
  const options = { ...GLOBAL_FLAGS, ...spec.flags };
  let parsed;
  try {
    parsed = parseArgs({
      args: [...rest],
      options: Object.fromEntries(
        Object.entries(options).map(([name, f]) => [name, {
          type: f.type,
          ...(f.short ? { short: f.short } : {}),
          ...(f.multiple ? { multiple: true } : {}),
        }]),
      ),
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw translate(error as Error, command, Object.keys(options));
  }
  const positionals = parsed.positionals;
  const allowed = spec.positionals?.length ?? 0;
  if (positionals.length > allowed) {
    throw new UsageError(
      `unexpected argument ${JSON.stringify(positionals[allowed])} for ${command}`,
      {
        hint: `Run \`bugbout ${command} --help\` for usage.`,
      },
    );
  }
  if (parsed.values.help) return { kind: "help", command };
  return { kind: "command", command, flags: parsed.values as Flags, positionals };
}

function commandName(word: string): CommandName {
  if (word in COMMANDS) return word as CommandName;
  const hint = closest(word, Object.keys(COMMANDS));
  throw new UsageError(
    `unknown command ${JSON.stringify(word)}` + (hint ? `; did you mean \`bugbout ${hint}\`?` : ""),
    { hint: `Commands: ${Object.keys(COMMANDS).join(", ")}. Run \`bugbout --help\`.` },
  );
}

function translate(error: Error, command: string, known: string[]): UsageError {
  const message = error.message;
  const unknown = message.match(/Unknown option '(-{1,2}[^']+)'/);
  const help = `Run \`bugbout ${command} --help\` for usage.`;
  if (unknown) {
    const flag = unknown[1];
    const bare = flag.replace(/^-+/, "").split("=")[0];
    if (RENAMED_FLAGS[bare]) {
      return new UsageError(`--${bare} was renamed to --${RENAMED_FLAGS[bare]}`, { hint: help });
    }
    const hint = closest(bare, known);
    return new UsageError(
      `unknown option ${flag} for ${command}` + (hint ? `; did you mean --${hint}?` : ""),
      { hint: help },
    );
  }
  const missing = message.match(/Option '(-[^']+)' argument missing/) ??
    message.match(/Option '([^']+)' argument missing/);
  if (missing) return new UsageError(`${missing[1]} needs a value`, { hint: help });
  return new UsageError(message.split("\n")[0], { hint: help });
}
