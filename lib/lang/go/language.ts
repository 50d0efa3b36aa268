/**
 * Go modules, tested with `go test`, as a {@linkcode LanguageSpec}.
 *
 * @module
 */

import type { LanguageSpec } from "../types.ts";
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
};
