/**
 * The command table: every subcommand, its flags and its help text. Argv parses against this table
 * into a typed value; `main` then switches on the command name.
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
  /** Positional arguments allowed (names for help); none when empty. */
  positionals?: string[];
}

/** Flags every subcommand accepts. */
export const GLOBAL_FLAGS: Record<string, FlagSpec> = {
  config: {
    type: "string",
    short: "c",
    value: "FILE",
    help: "the bugbout.toml to use (default: ./bugbout.toml)",
  },
  "no-color": { type: "boolean", help: "never colour the output (also: NO_COLOR=1)" },
  help: { type: "boolean", short: "h", help: "show this help" },
};

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
    usage: "[--json]",
    description:
      "Walks the first-parent history of the default branch and lists the fixes that become\n" +
      "tasks (with their issue, source files and new tests), and how many changes were left out\n" +
      "and why. Writes .bugbout/tasks.json.",
    flags: {
      json: { type: "boolean", help: "print tasks.json instead of a table" },
      refresh: { type: "boolean", help: "mine again even if tasks.json is up to date" },
    },
  },
  run: {
    summary: "run a bout: mine, ground truth, race, cross-examine, judge, score, report",
    usage: "[--task ID]... [--tasks-only] [--no-race] [--retry-failed]",
    description:
      "Runs every stage, carrying on from whatever is already in .bugbout/: finished work is never\n" +
      "done twice, an agent added to bugbout.toml later runs alone, and Ctrl-C keeps everything\n" +
      "that had finished.",
    flags: {
      task: { type: "string", multiple: true, value: "ID", help: "only this task (repeatable)" },
      "tasks-only": { type: "boolean", help: "stop after mining and ground truth" },
      "no-race": {
        type: "boolean",
        help: "run no agent; re-examine, re-judge and re-score what is there",
      },
      "retry-failed": {
        type: "boolean",
        help: "run attempts that ended on a quota or an infrastructure error again",
      },
    },
  },
  report: {
    summary: "render the report of the last bout again",
    usage: "[--format terminal|markdown|json|html] [--output FILE]",
    description:
      "Renders the report from .bugbout/ without running anything. Default: the terminal table.",
    flags: {
      format: {
        type: "string",
        short: "f",
        value: "FORMAT",
        help: "terminal, markdown, json or html",
      },
      output: {
        type: "string",
        short: "o",
        value: "FILE",
        help: "write to FILE instead of stdout",
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
        help: "what counts as a test file (default: tests dir, conftest.py, test_*.py, *_test.py)",
      },
      json: { type: "boolean", help: "print the result as JSON" },
    },
    positionals: ["DIR"],
  },
  demo: {
    summary: "run a whole bout on a bundled project with built-in scripted agents",
    usage: "[--dir DIR]",
    description:
      "Builds a small Python project whose history holds a handful of fixed bugs, races four\n" +
      "scripted demo agents (careful, sloppy, weak fixes with tests, and a cheat) on it, and prints\n" +
      "the report, leaving report.html beside it. Needs no agent CLI and no network.",
    flags: {
      dir: { type: "string", value: "DIR", help: "where to build the demo (default: a temp dir)" },
    },
  },
} as const satisfies Record<string, CommandSpec>;

/** A subcommand name. */
export type CommandName = keyof typeof COMMANDS;
