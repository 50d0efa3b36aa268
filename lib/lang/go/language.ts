/**
 * Go modules, tested with `go test`, as a {@linkcode LanguageSpec}.
 *
 * @module
 */

import type { LanguageSpec } from "../types.ts";
import { openRunnerMiner, type RunnerCode } from "../mining.ts";
import { detectGo } from "./detect.ts";
import { goRunner } from "./runner.ts";

/** Go and `go test`. */
export const go: LanguageSpec = {
  name: "go",
  label: "Go",
  runWord: "test run",
  requires: [],
  detect: detectGo,
  openRunner: () => Promise.resolve(goRunner()),

  // -- Mining ---------------------------------------------------------------------------------
  openMiner: (context) => openRunnerMiner(go, context, MINING),
};

// -- Mining -----------------------------------------------------------------------------------

/** What mining counts as Go source and test code. */
const MINING: RunnerCode = {
  source: /\.(go|s|c|h|cc|cpp|hpp)$/,
  tests: /_test\.go$/,
};
