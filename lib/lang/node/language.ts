/**
 * TypeScript and JavaScript, tested with vitest, jest or `node --test`, as a
 * {@linkcode LanguageSpec}.
 *
 * @module
 */

import type { LanguageSpec } from "../types.ts";
import { openRunnerMiner, type RunnerCode } from "../mining.ts";
import { detectNode } from "./detect.ts";
import { openNodeRunner } from "./runner.ts";

/** TypeScript/JavaScript and its test runners. */
export const node: LanguageSpec = {
  name: "node",
  label: "JavaScript/TypeScript",
  runWord: "test run",
  requires: [],
  detect: detectNode,
  openRunner: openNodeRunner,

  // -- Mining ---------------------------------------------------------------------------------
  openMiner: (context) => openRunnerMiner(node, context, MINING),
};

// -- Mining -----------------------------------------------------------------------------------

/** What mining counts as JavaScript/TypeScript source and test code. */
const MINING: RunnerCode = {
  source: /\.([cm]?[jt]sx?|vue|svelte|astro)$/,
  tests: /\.[cm]?[jt]sx?$/,
};
