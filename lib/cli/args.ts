/**
 * Argv → a typed invocation, against the command table. Unknown flags and commands become usage
 * errors that name the closest match (or the new name of a renamed flag); so does a flag value
 * outside the flag's choices. Each command's flags come out typed as {@linkcode FlagsOf} that
 * command: booleans are false when absent, repeatable flags [] when absent.
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
  type FlagsOf,
  type FlagSpec,
  GLOBAL_FLAGS,
  RENAMED_FLAGS,
} from "./commands.ts";

/** A subcommand to run, with its flags typed for that subcommand. */
export type CommandInvocation<N extends CommandName = CommandName> = {
  [K in N]: { kind: "command"; command: K; flags: FlagsOf<K>; positionals: string[] };
}[N];

/** What the command line asked for. */
export type CliInvocation =
  | { kind: "help"; command?: CommandName }
  | { kind: "version" }
  | CommandInvocation;

/** Flag values as `node:util` parseArgs gives them. */
type RawValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

/**
 * The global flags given before the command (`bugbout -c other.toml run`), and the argv from the
 * command on. Every command accepts them, so they parse as if given after it.
 */
function leadingGlobals(argv: readonly string[]): { globals: string[]; rest: string[] } {
  const forms = new Map<string, FlagSpec>();
  for (const [name, spec] of Object.entries(GLOBAL_FLAGS) as [string, FlagSpec][]) {
    if (name === "help") continue; // `bugbout --help` is the main help
    forms.set(`--${name}`, spec);
    if (spec.short) forms.set(`-${spec.short}`, spec);
  }
  const globals: string[] = [];
  let at = 0;
  while (at < argv.length) {
    const arg = argv[at];
    // `--config=FILE`, `--config FILE`, `-c FILE`, `-cFILE`, `--no-color`.
    const spec = forms.get(arg.split("=")[0]) ??
      (/^-\w./.test(arg) ? forms.get(arg.slice(0, 2)) : undefined);
    if (!spec) break;
    const takesNext = spec.type === "string" && forms.has(arg);
    if (takesNext && at + 1 >= argv.length) {
      throw new UsageError(`${arg} needs a value`, { hint: "Run `bugbout --help` for usage." });
    }
    const next = at + (takesNext ? 2 : 1);
    globals.push(...argv.slice(at, next));
    at = next;
  }
  return { globals, rest: argv.slice(at) };
}

/** Parse argv (without the program name). Throws {@linkcode UsageError}. */
export function parseInvocation(argv: readonly string[]): CliInvocation {
  const { globals, rest: fromCommand } = leadingGlobals(argv);
  const [first, ...afterCommand] = fromCommand;
  const rest = [...globals, ...afterCommand];
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
  const options = flagSpecs(command);
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
  const spec: CommandSpec = COMMANDS[command];
  const allowed = spec.positionals?.at(-1)?.endsWith("...")
    ? Infinity
    : spec.positionals?.length ?? 0;
  if (positionals.length > allowed) {
    throw new UsageError(
      `unexpected argument ${JSON.stringify(positionals[allowed])} for ${command}`,
      {
        hint: `Run \`bugbout ${command} --help\` for usage.`,
      },
    );
  }
  if (parsed.values.help) return { kind: "help", command };
  return commandInvocation(command, parsed.values, positionals);
}

/** Every flag `command` accepts, by name. */
function flagSpecs(command: CommandName): Record<string, FlagSpec> {
  return { ...GLOBAL_FLAGS, ...COMMANDS[command].flags };
}

/** Normalise parsed values to `FlagsOf<N>`, checking each value against the flag's choices. */
function commandInvocation<N extends CommandName>(
  command: N,
  values: RawValues,
  positionals: string[],
): CommandInvocation<N> {
  const flags: Record<string, string | boolean | string[]> = {};
  for (const [name, spec] of Object.entries(flagSpecs(command))) {
    const value = values[name];
    if (spec.type === "boolean") flags[name] = value === true;
    else if (spec.multiple) flags[name] = Array.isArray(value) ? value.map(String) : [];
    else if (typeof value === "string") flags[name] = checkChoice(command, name, spec, value);
  }
  // The loop gives every flag of the table the value its type in FlagsOf<N> promises; the
  // compiler cannot follow a loop over the table's keys, hence the one cast.
  return { kind: "command", command, flags, positionals } as CommandInvocation<N>;
}

function checkChoice(command: CommandName, name: string, spec: FlagSpec, value: string): string {
  if (!spec.choices || spec.choices.includes(value)) return value;
  // `report --format pdf` reads "unknown report format "pdf"".
  throw new UsageError(`unknown ${command} ${name} ${JSON.stringify(value)}`, {
    hint: `--${name} is one of: ${spec.choices.join(", ")}.`,
  });
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
