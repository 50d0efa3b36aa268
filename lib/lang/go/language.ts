/**
 * Go modules, tested with `go test`, as a {@linkcode LanguageSpec}.
 *
 * @module
 */

import { alphanumericTags, runnerInitConfig } from "../shared.ts";
import { perTreeTools } from "../tools.ts";
import { goChecks } from "./doctor.ts";
import type { LanguageSpec } from "../types.ts";
import { goAgentEnv } from "./agent.ts";
import { openRunnerMiner } from "../mining.ts";
import { GO_MINING } from "./mining.ts";
import { detectGo } from "./detect.ts";
import { goRunner } from "./runner.ts";

/** Go and `go test`. */
export const go: LanguageSpec = {
  name: "go",
  label: "Go",
  runWord: "test run",
  requires: [],
  kind: "a Go module",
  initConfig: (found) => runnerInitConfig(go.kind, found),
  doctor: goChecks,
  detect: detectGo,
  openRunner: () => Promise.resolve(goRunner()),
  placeOf: () => ({ packageDir: ".", pythonPath: "." }),
  tools: (project, options) => perTreeTools(go, project, goAgentEnv, options),
  authorTags: alphanumericTags,
  promptWords: () => ({
    fix: [
      "Fix the issue in the source code. Then add a regression test in a `_test.go` file beside the code it tests",
      "that fails without your fix and passes with it. Keep the change focused on the issue; do",
      "not change unrelated behaviour.",
    ],
    tests: "Go tests (`go test`) in `_test.go` files",
    within: "test files",
  }),

  // -- Mining ---------------------------------------------------------------------------------
  openMiner: (context) => openRunnerMiner(go, context, GO_MINING),
};
