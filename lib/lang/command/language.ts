/**
 * Any project whose test command writes JUnit XML, as a {@linkcode LanguageSpec}: the
 * `[command]` table of `bugbout.toml` says how (see `lib/config_command.ts`).
 *
 * @module
 */

import { inputsKey } from "../../hash.ts";
import { openRunnerMiner } from "../mining.ts";
import { alphanumericTags } from "../shared.ts";
import { perTreeTools } from "../tools.ts";
import type { LanguageSpec } from "../types.ts";
import { CommandRunner } from "./runner.ts";
import { commandInitConfig, detectCommand } from "./detect.ts";
import { commandSettings } from "../../config_command.ts";
import { globToRegExp } from "../glob.ts";

function quote(arg: string): string {
  return /^[\w./:=@%+,-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** A project tested by a command of its own that writes JUnit XML. */
export const commandLanguage: LanguageSpec = {
  name: "command",
  label: "a test command",
  runWord: "test run",
  requires: [],
  kind: "a project with a test command",
  // Last in the registry: a tool no built-in serves (Gradle, Maven, mocha, GoogleTest).
  detect: detectCommand,
  initConfig: commandInitConfig,
  doctor: async ({ project }) => {
    if (!project) {
      return [{
        name: "command",
        status: "fail",
        detail: "no bugbout.toml with a [command] table was loaded",
        fix: "Run bugbout init, then set [command] test and test-files.",
      }];
    }
    const settings = commandSettings();
    const program = settings.test[0];
    const found = program.includes("/") ? program : await which(program);
    return [{
      name: "command",
      status: found ? "ok" : "fail",
      detail: found
        ? `${settings.name}: ${settings.test.join(" ")} (${found})`
        : `${program} is not on PATH`,
      ...(found ? {} : { fix: `Install ${program}, or change [command] test.` }),
    }];
  },
  openRunner: () => Promise.resolve(new CommandRunner(commandSettings())),
  placeOf: () => ({ packageDir: ".", pythonPath: "." }),
  tools: (project, options) => {
    const tools = perTreeTools(commandLanguage, project, async ({ runner }, dirs) => {
      const settings = (runner as CommandRunner).settings;
      const report = `${dirs.state}/report.xml`;
      return await Promise.resolve({
        runner,
        path: [],
        readable: [],
        writable: [],
        links: [],
        env: {},
        testCommand: settings.test.map((a) =>
          a.replaceAll("{report}", report).replace(/\{(ids|files|names)\}/g, "")
        ).filter(Boolean).map(quote).join(" "),
        transient: [],
      });
    }, options);
    return { ...tools, key: inputsKey([tools.key, new CommandRunner(commandSettings()).key]) };
  },
  authorTags: alphanumericTags,
  promptWords: () => {
    const globs = commandSettings().testFiles.map((g) => `\`${g}\``).join(", ");
    return {
      fix: [
        `Fix the issue in the source code. Then add a regression test in a new test file matching ${globs}`,
        "that fails without your fix and passes with it. Keep the change focused on the issue; do",
        "not change unrelated behaviour.",
      ],
      tests: `tests in new files matching ${globs}`,
      within: "test files",
    };
  },
  openMiner: (context) => {
    const settings = commandSettings();
    const source = settings.sourceFiles.length
      ? new RegExp(settings.sourceFiles.map((g) => globToRegExp(g).source).join("|"))
      : /./;
    const tests = new RegExp(settings.testFiles.map((g) => globToRegExp(g).source).join("|"));
    return openRunnerMiner(commandLanguage, context, { source, tests });
  },
};

async function which(program: string): Promise<string | undefined> {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    const path = `${dir}/${program}`;
    if (await Deno.stat(path).then((s) => s.isFile, () => false)) return path;
  }
  return undefined;
}
