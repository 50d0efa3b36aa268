/**
 * Any project whose test command writes JUnit XML: the `[command]` table of `bugbout.toml` gives
 * the command (with `{ids}`, `{files}` and `{report}` placeholders), the globs of test, support
 * and configuration files, and where the report lands.
 *
 * - {@linkcode command}: the {@linkcode LanguageSpec}.
 * - {@linkcode CommandRunner}: its {@linkcode TestRunner}; {@linkcode runTestCommand} runs a command in
 *   the sandbox and reads its report; {@linkcode parseJUnit} reads JUnit XML.
 *
 * Requires `--allow-run` (the sandbox), `--allow-read` and `--allow-write` for runs; the rest is
 * pure.
 *
 * @module
 */

export type { TestRunner } from "../types.ts";
export { commandLanguage } from "./language.ts";
export { CommandRunner, UNSURE } from "./runner.ts";
export { type CommandRunSpec, runTestCommand } from "./run.ts";
export { type JUnitCase, parseJUnit, unescapeXml } from "./junit.ts";
export { caseId, caseName, idFile, idName, relativeFile } from "./ids.ts";
export {
  type CommandSettings,
  commandSettings,
  commandSettingsOf,
  commandTableSchema,
  expandArgv,
  useCommandSettings,
} from "../../config_command.ts";
