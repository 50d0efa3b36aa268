/**
 * A toy language, in this folder only: shell projects whose code is `calc.sh` and whose tests
 * are lines `name: <shell command>` of `tests/*.t` files (see `runner.ts`). It implements the
 * whole language interface with what `lib/lang/` offers every language, and registering it is
 * the only thing a bout needs to run on one of its projects.
 *
 * @module
 */

import { openRunnerMiner } from "../../../lib/lang/mod.ts";
import { alphanumericTags, runnerInitConfig } from "../../../lib/lang/shared.ts";
import { perTreeTools } from "../../../lib/lang/tools.ts";
import type { LanguageSpec } from "../../../lib/lang/types.ts";
import { ToyRunner } from "./runner.ts";

/** The toy language. */
export const toy: LanguageSpec = {
  name: "toy",
  label: "Toy shell",
  kind: "a toy shell project",
  runWord: "toy run",
  requires: [],
  detect: async (tree) => {
    const conf = await Deno.stat(`${tree}/toy.conf`).catch(() => undefined);
    return conf ? { language: "toy", runner: "toy-sh", evidence: "toy.conf" } : undefined;
  },
  initConfig: (found) => runnerInitConfig(toy.kind, found),
  doctor: () => Promise.resolve([{ name: "toy", status: "ok", detail: "sh runs the tests" }]),
  openRunner: () => Promise.resolve(new ToyRunner()),
  placeOf: () => ({ packageDir: ".", pythonPath: "." }),
  tools: (project, options) =>
    perTreeTools(toy, project, ({ runner }) =>
      Promise.resolve({
        runner,
        path: [],
        readable: [],
        writable: [],
        links: [],
        env: {},
        testCommand: "for t in tests/*.t; do echo $t; done",
        transient: [],
      }), options),
  authorTags: alphanumericTags,
  promptWords: () => ({
    fix: [
      "Fix the issue in calc.sh. Then add a regression test line to a file in `tests/`",
      "that fails without your fix and passes with it.",
    ],
    tests: "toy tests (`name: command` lines) in `tests/*.t`",
    within: "`tests/`",
  }),
  openMiner: (context) => openRunnerMiner(toy, context, { source: /\.sh$/, tests: /\.t$/ }),
};
