/**
 * The `[command]` table of `bugbout.toml`: how a project that no built-in language serves runs its
 * tests (a command with placeholders), which of its files are tests, test support and
 * configuration (globs), and where the JUnit XML its run writes lands.
 *
 * The settings are the loaded configuration's: {@linkcode useCommandSettings} is called when a
 * `bugbout.toml` with a `[command]` table is parsed (the language interface opens a tree's runner
 * from the tree alone, so the project's table is kept here for the one language that needs it).
 *
 * Pure but for that one slot; no permissions.
 *
 * @module
 */

import { z } from "./deps.ts";
import { BugboutError } from "./errors.ts";

const PLACEHOLDER = /\{(ids|files|report|names)\}/g;

const globs = z.array(z.string().min(1, "must not be an empty glob"));

/** The schema of `[command]` (keys as a person writes them). */
export const commandTableSchema = z.strictObject({
  test: z.array(z.string()).min(1, 'must name the program to run, e.g. ["make", "check"]')
    .refine((argv) => argv[0] !== "" && !argv[0].includes("{"), {
      message: "must start with the program to run, not a placeholder",
    }),
  "test-files": globs.min(1, 'must name at least one glob of test files, e.g. ["tests/**/*.cpp"]'),
  "support-files": globs.default([]),
  "config-files": globs.default([]),
  "source-files": globs.default([]),
  report: z.string().min(1).default("{report}").refine(
    (r) => r === "{report}" || !r.startsWith("/"),
    { message: 'must be "{report}" or a path (or glob) relative to the tree' },
  ),
  join: z.string().default(" "),
  name: z.string().min(1).default("test command"),
});

/** `[command]` as the runner uses it. */
export interface CommandSettings {
  /** The test command's argv, with `{ids}`, `{files}`, `{names}` and `{report}` placeholders. */
  test: string[];
  /** Globs of test files (relative to the tree). */
  testFiles: string[];
  /** Globs of test support files (helpers, data): test code, but holding no tests. */
  supportFiles: string[];
  /** Globs of files that decide what runs and how it reports (never applied from a patch). */
  configFiles: string[];
  /** Globs of source files (empty: everything that is no test, support or configuration file). */
  sourceFiles: string[];
  /** `{report}`: bugbout names the file; else where the command writes its XML (a glob). */
  report: string;
  /** How a placeholder inside a longer argument joins its items. */
  join: string;
  /** What the runner is called in reports. */
  name: string;
}

/** The table as validated into {@linkcode CommandSettings}, with the checks zod cannot make. */
export function commandSettingsOf(table: z.infer<typeof commandTableSchema>): CommandSettings {
  const used = new Set([...table.test.join("\0").matchAll(PLACEHOLDER)].map((m) => m[1]));
  if (table.report === "{report}" && !used.has("report")) {
    throw new BugboutError(
      "[command] test never names {report}, and [command] report is not set: bugbout cannot " +
        "find the JUnit XML the run writes.",
      {
        hint: 'Pass {report} to the command (e.g. "--gtest_output=xml:{report}"), or set ' +
          'report = "build/test-results/*.xml" to where it writes its XML.',
      },
    );
  }
  return {
    test: table.test,
    testFiles: table["test-files"],
    supportFiles: table["support-files"],
    configFiles: table["config-files"],
    sourceFiles: table["source-files"],
    report: table.report,
    join: table.join,
    name: table.name,
  };
}

let current: CommandSettings | undefined;

/** Make `settings` the `[command]` table the command language reads (undefined: none). */
export function useCommandSettings(settings: CommandSettings | undefined): void {
  current = settings;
}

/** The `[command]` table in force; throws a `BugboutError` when no `bugbout.toml` gave one. */
export function commandSettings(): CommandSettings {
  if (current) return current;
  throw new BugboutError(
    'language = "command" needs a [command] table in bugbout.toml.',
    {
      hint: 'Add [command] with test = ["program", "arg", "{report}"] and test-files = ' +
        '["tests/**/*"] (see docs/configuration.md).',
    },
  );
}

/**
 * Expand the placeholders of `argv`: an argument that is exactly `{ids}`, `{names}` or `{files}`
 * becomes one argument per item; inside a longer argument the items are joined with `join`.
 */
export function expandArgv(
  argv: readonly string[],
  values: {
    ids: readonly string[];
    names: readonly string[];
    files: readonly string[];
    report: string;
  },
  join: string,
): string[] {
  const out: string[] = [];
  const lists = { ids: values.ids, names: values.names, files: values.files } as const;
  for (const arg of argv) {
    const whole = arg.match(/^\{(ids|names|files)\}$/);
    if (whole) {
      out.push(...lists[whole[1] as keyof typeof lists]);
      continue;
    }
    out.push(
      arg.replace(
        PLACEHOLDER,
        (_, key: string) =>
          key === "report" ? values.report : lists[key as keyof typeof lists].join(join),
      ),
    );
  }
  return out;
}
