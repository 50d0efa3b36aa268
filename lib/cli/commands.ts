/**
 * The command table: every subcommand, its flags and its help text. Argv parses against this table
 * into a typed value; `main` then switches on the command name. The flag types of each command
 * ({@linkcode FlagsOf}) are derived from the table, so the table is their one source.
 *
 * @module
 */

/** A flag of a subcommand. */
export interface FlagSpec {
  /** `boolean` flags take no value. */
  type: "boolean" | "string";
  /** One-letter alias. */
  short?: string;
  /** The flag may be given several times (string flags only). */
  multiple?: boolean;
  /** Placeholder shown in help, e.g. `FILE`. */
  value?: string;
  /** The only values allowed (string flags only); anything else is a usage error. */
  choices?: readonly string[];
  /** One line of help. */
  help: string;
}

/** One subcommand. */
export interface CommandSpec {
  /** One line for `bugbout --help`. */
  summary: string;
  /** Usage line after `bugbout <name>`. */
  usage: string;
  /** Paragraph(s) for `bugbout <name> --help`. */
  description: string;
  /** Flags besides the global ones. */
  flags: Record<string, FlagSpec>;
  /** Positional arguments allowed (names for help); none when empty; a last `NAME...`: any number. */
  positionals?: string[];
}

/** Flags every subcommand accepts. */
export const GLOBAL_FLAGS = {
  config: {
    type: "string",
    short: "c",
    value: "FILE",
    help: "the bugbout.toml to use (default: ./bugbout.toml)",
  },
  "no-color": { type: "boolean", help: "never colour the output (also: NO_COLOR=1)" },
  help: { type: "boolean", short: "h", help: "show this help" },
} as const satisfies Record<string, FlagSpec>;

/** Flags that were renamed, and their new names. */
export const RENAMED_FLAGS: Record<string, string> = {
  retry: "retry-failed",
  "retry-quota": "retry-failed",
  "only-tasks": "tasks-only",
  "skip-race": "no-race",
  out: "output",
  fmt: "format",
};

/** Every subcommand. */
export const COMMANDS = {
  init: {
    summary: "write a commented bugbout.toml from the repository's layout",
    usage: "[--force] [DIR]",
    description:
      "Looks at the repository in DIR (default: the current directory): the package directory, the\n" +
      "tests directory, the Python version it declares, and the agent CLIs on PATH, and writes a\n" +
      "commented bugbout.toml there. An existing file is kept unless --force is given.",
    flags: {
      force: { type: "boolean", short: "f", help: "overwrite an existing bugbout.toml" },
    },
    positionals: ["DIR"],
  },
  doctor: {
    summary: "check that everything a bout needs is in place (spends no agent quota)",
    usage: "",
    description:
      "Checks the git repository, bugbout.toml, uv and Python, the sandbox, every agent's\n" +
      "executable and GitHub access, one line each, and says what to do about each failure.\n" +
      "Exits 0 when `bugbout run` can start, 1 otherwise.",
    flags: {},
  },
  tasks: {
    summary: "mine the repository's history for fixed bugs and list them",
    usage: "[--json] [--refresh] [--why SHA]",
    description:
      "Walks the first-parent history of the default branch (and of [tasks] branches) and lists\n" +
      "the fixes that become tasks (with their issue, source files and new tests), and how many\n" +
      "changes were left out and why. Writes .bugbout/tasks.json. With --why, says why one\n" +
      "commit became a task or was left out, and what decided it.",
    flags: {
      json: { type: "boolean", help: "print tasks.json instead of a table" },
      refresh: { type: "boolean", help: "mine again even if tasks.json is up to date" },
      why: {
        type: "string",
        value: "SHA",
        help: "explain why this commit is a task or was left out",
      },
    },
  },
  run: {
    summary: "run a bout: mine, ground truth, race, cross-examine, judge, score, report",
    usage: "[--task ID]... [--tasks-only] [--no-race] [--retry-failed] [--shard K/N] [--quiet]",
    description:
      "Runs every stage, carrying on from whatever is already in .bugbout/: finished work is never\n" +
      "done twice, an agent added to bugbout.toml later runs alone, and Ctrl-C keeps everything\n" +
      "that had finished.\n\n" +
      "With --shard K/N it races only share K of N of the attempts (the same split on every\n" +
      "machine, balanced by expected cost) on the tasks and ground truth that a prep run\n" +
      "(`bugbout run --tasks-only`) left in .bugbout/, and stops: merge the shards' .bugbout/\n" +
      "directories with `bugbout merge`, then finish with `bugbout run --no-race`.",
    flags: {
      task: { type: "string", multiple: true, value: "ID", help: "only this task (repeatable)" },
      "tasks-only": { type: "boolean", help: "stop after mining and ground truth" },
      "no-race": {
        type: "boolean",
        help: "run no agent; re-examine, re-judge and re-score what is there",
      },
      "retry-failed": {
        type: "boolean",
        help:
          "run again attempts that hit a quota or infrastructure, tasks whose environment failed",
      },
      shard: {
        type: "string",
        value: "K/N",
        help: "race only share K of N of the attempts, then stop (see `bugbout merge`)",
      },
      quiet: { type: "boolean", short: "q", help: "print no progress, only the report" },
    },
  },
  merge: {
    summary: "combine the results of `bugbout run --shard K/N` runs into this project's .bugbout/",
    usage: "[--partial] DIR...",
    description:
      "Checks that the shards' results directories (each a .bugbout/ a shard wrote, or the\n" +
      "directory holding it) come from one race — the same bugbout, tasks, settings and split, and\n" +
      "the same as this project's — that every shard is there and finished, and that no two copies\n" +
      "of an attempt disagree; then copies their attempts into .bugbout/. Nothing is written when a\n" +
      "check fails. Finish the bout with `bugbout run --no-race`.",
    flags: {
      partial: {
        type: "boolean",
        help: "merge even when shards are missing or unfinished (`bugbout run` races the rest)",
      },
    },
    positionals: ["DIR..."],
  },
  report: {
    summary: "render the report of the last bout again",
    usage: "[--format terminal|markdown|json|html] [--output FILE] | --open",
    description:
      "Renders the report from .bugbout/ without running anything. Default: the terminal table.\n" +
      "--open writes the report's site again (.bugbout/report/: the index, a page per task and per\n" +
      "attempt; .bugbout/junit/ beside it) and prints the path of its index page to open.",
    flags: {
      format: {
        type: "string",
        short: "f",
        value: "FORMAT",
        // The same list as REPORT_FORMATS in lib/report/mod.ts (cli/report.ts fails to type-check
        // if they part); spelled out so that parsing argv does not load the report renderers.
        choices: ["terminal", "markdown", "json", "html"],
        help: "terminal, markdown, json or html",
      },
      output: {
        type: "string",
        short: "o",
        value: "FILE",
        help: "write to FILE instead of stdout",
      },
      open: {
        type: "boolean",
        help: "write the report's site and print the path of its index page",
      },
    },
  },
  evidence: {
    summary: "check whether the tests in a working tree's change are evidence about a bug",
    usage: "[--base REV] [--against REV] [--tests GLOB]... [--json] [DIR]",
    description:
      "Splits the uncommitted change in DIR into tests and source, replays the tests alone on the\n" +
      "base revision in a history-free copy, and reports for each new or changed test whether it\n" +
      "fails there (it discriminates the bug) or passes (no evidence about the bug). With --against,\n" +
      "also replays them on a reference fix. Exits 1 when no test discriminates.",
    flags: {
      base: { type: "string", value: "REV", help: "the revision before the change (default HEAD)" },
      against: { type: "string", value: "REV", help: "a reference fix to replay the tests on too" },
      tests: {
        type: "string",
        multiple: true,
        value: "GLOB",
        help:
          "what counts as a test file (default: the runner's; Python: tests dir, conftest.py, test_*.py, *_test.py)",
      },
      json: { type: "boolean", help: "print the result as JSON" },
    },
    positionals: ["DIR"],
  },
  demo: {
    summary: "run a whole bout on a bundled project with built-in scripted agents",
    usage: "[--dir DIR] [--quiet]",
    description:
      "Builds a small Python project whose history holds a handful of fixed bugs, races four\n" +
      "scripted demo agents and a scripted examiner on it (none of them right everywhere, one a\n" +
      "cheat), and prints the report, leaving report.html beside it. Needs no agent CLI and no\n" +
      "network.",
    flags: {
      dir: { type: "string", value: "DIR", help: "where to build the demo (default: a temp dir)" },
      quiet: { type: "boolean", short: "q", help: "print no progress, only the report" },
    },
  },
} as const satisfies Record<string, CommandSpec>;

/** A subcommand name. */
export type CommandName = keyof typeof COMMANDS;

/** The flag table of `name`: its own flags and the global ones. */
export type FlagSpecsOf<N extends CommandName> =
  & (typeof COMMANDS)[N]["flags"]
  & typeof GLOBAL_FLAGS;

/** Booleans (false when absent) and repeatable flags ([] when absent) always have a value. */
type AlwaysSet<F> = F extends { type: "boolean" } ? true
  : F extends { multiple: true } ? true
  : false;

/** The parsed value of one flag: a boolean, a list, one of its choices or any string. */
type FlagValue<F> = F extends { type: "boolean" } ? boolean
  : F extends { multiple: true } ? string[]
  : F extends { choices: readonly (infer C extends string)[] } ? C
  : string;

/** Spell an intersection out as one object type, equal to the same type written out by hand. */
type Flatten<T> = { [K in keyof T]: T[K] };

/** Parsed flags of a flag table: booleans and lists always set, other strings optional. */
type FlagsFrom<S> = Flatten<
  & { -readonly [K in keyof S as AlwaysSet<S[K]> extends true ? K : never]: FlagValue<S[K]> }
  & { -readonly [K in keyof S as AlwaysSet<S[K]> extends true ? never : K]?: FlagValue<S[K]> }
>;

/**
 * The parsed flags of the subcommand `N`, e.g. `FlagsOf<"run">` is `{ task: string[];
 * "tasks-only": boolean; ...; config?: string; "no-color": boolean; help: boolean }`.
 */
export type FlagsOf<N extends CommandName> = FlagsFrom<FlagSpecsOf<N>>;
