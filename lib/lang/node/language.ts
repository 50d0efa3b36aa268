/**
 * TypeScript and JavaScript, tested with vitest, jest or `node --test`, as a
 * {@linkcode LanguageSpec}.
 *
 * @module
 */

import type { LanguageSpec } from "../types.ts";
import { openRunnerMiner } from "../mining.ts";
import { NODE_MINING } from "./mining.ts";
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
  openMiner: (context) => openRunnerMiner(node, context, NODE_MINING),
};
