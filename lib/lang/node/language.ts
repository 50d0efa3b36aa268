/**
 * TypeScript and JavaScript, tested with vitest, jest or `node --test`, as a
 * {@linkcode LanguageSpec}.
 *
 * @module
 */

import { alphanumericTags, runnerInitConfig } from "../shared.ts";
import { perTreeTools } from "../tools.ts";
import { nodeChecks } from "./doctor.ts";
import type { LanguageSpec } from "../types.ts";
import { nodeAgentEnv } from "./agent.ts";
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
  kind: "a JavaScript project",
  initConfig: (found) => runnerInitConfig(node.kind, found),
  doctor: nodeChecks,
  detect: detectNode,
  openRunner: openNodeRunner,
  placeOf: () => ({ packageDir: ".", pythonPath: "." }),
  tools: (project, options) => perTreeTools(node, project, nodeAgentEnv, options),
  authorTags: alphanumericTags,
  promptWords: ({ runner }) => ({
    fix: [
      `Fix the issue in the source code. Then add a regression test in a test file that ${runner} runs, where the project keeps its tests`,
      "that fails without your fix and passes with it. Keep the change focused on the issue; do",
      "not change unrelated behaviour.",
    ],
    tests: `${runner} tests in test files`,
    within: "test files",
  }),

  // -- Mining ---------------------------------------------------------------------------------
  openMiner: (context) => openRunnerMiner(node, context, NODE_MINING),
};
