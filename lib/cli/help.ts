/**
 * Help text for `bugbout --help` and `bugbout <command> --help`.
 *
 * @module
 */

import {
  type CommandName,
  COMMANDS,
  type CommandSpec,
  type FlagSpec,
  GLOBAL_FLAGS,
} from "./commands.ts";

function flagLines(flags: Record<string, FlagSpec>): string[] {
  const rows = Object.entries(flags).map(([name, f]) => {
    const short = f.short ? `-${f.short}, ` : "    ";
    const value = f.type === "string" ? ` ${f.value ?? "VALUE"}` : "";
    return [`  ${short}--${name}${value}`, f.help] as const;
  });
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return rows.map(([left, help]) => left.padEnd(width) + help);
}

/** The top-level help. */
export function mainHelp(version: string): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length)) + 4;
  return [
    `bugbout ${version} — which coding agent actually fixes bugs in your codebase?`,
    "",
    "Usage: bugbout <command> [options]",
    "",
    "Commands:",
    ...Object.entries(COMMANDS).map(([name, spec]) => `  ${name.padEnd(width)}${spec.summary}`),
    "",
    "Options:",
    "  -c, --config FILE  the bugbout.toml to use, before or after the command",
    "                     (default: ./bugbout.toml)",
    "  -h, --help         show help (also: bugbout <command> --help)",
    "  -V, --version      print the version",
    "",
    "Start with `bugbout init` in your repository, then `bugbout doctor` and `bugbout run`.",
    "Try it first with `bugbout demo`: no agent CLI needed.",
  ].join("\n");
}

/** The help of one subcommand. */
export function commandHelp(name: CommandName): string {
  const spec: CommandSpec = COMMANDS[name];
  return [
    `Usage: bugbout ${name}${spec.usage ? ` ${spec.usage}` : ""}`,
    "",
    spec.description,
    "",
    "Options:",
    ...flagLines({ ...spec.flags, ...GLOBAL_FLAGS }),
  ].join("\n");
}
