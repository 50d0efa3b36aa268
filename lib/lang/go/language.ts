/**
 * Go modules, tested with `go test`, as a {@linkcode LanguageSpec}.
 *
 * @module
 */

import type { LanguageSpec } from "../types.ts";
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
  detect: detectGo,
  openRunner: () => Promise.resolve(goRunner()),

  // -- Mining ---------------------------------------------------------------------------------
  openMiner: (context) => openRunnerMiner(go, context, GO_MINING),
};
