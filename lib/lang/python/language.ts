/**
 * Python, tested with pytest, as a {@linkcode LanguageSpec}.
 *
 * @module
 */

import { numberedTags } from "../shared.ts";
import { pythonChecks } from "./doctor.ts";
import { detectPython, pythonInitConfig } from "./init.ts";
import { pythonPathFor } from "./layout.ts";
import type { LanguageSpec, PromptWords } from "../types.ts";
import { identOf, pythonRunner, pythonTestGlobs } from "./runner.ts";
import { pythonTools } from "./tools.ts";
import { newApiNames, packageNameOf, pythonConfigRefusal, pythonTruthAdvice } from "./truth.ts";
import { openPythonMiner } from "./mining.ts";

/** Python and pytest. */
export const python: LanguageSpec = {
  name: "python",
  label: "Python",
  runWord: "pytest session",
  requires: ["source"],
  kind: "a Python package",
  initConfig: pythonInitConfig,
  doctor: pythonChecks,
  // A Python project is told by its layout: a package directory, its tests.
  detect: detectPython,
  openRunner: (tree) => pythonRunner(tree),
  placeOf: (source) => ({
    packageDir: source ?? ".",
    pythonPath: source ? pythonPathFor(source) : ".",
  }),
  tools: (project, options) => pythonTools(python, project, options),
  testGlobs: pythonTestGlobs,
  // Directory names of the copies: `_bugbout_<identifier>`, numbered `_2`, `_3` on a collision.
  authorTags: (names) => numberedTags(names, identOf, "_"),
  // The guard's events name `file.py:line` when code of a file raised them.
  originOf: (event) => event.where.match(/^([^\s:]+\.py):\d+$/)?.[1],
  promptWords: ({ task, testsDir }): PromptWords => ({
    fix: [
      `Fix the issue in the source code (the package is in \`${task.packageDir}\`). Then add a regression`,
      `test under \`${testsDir}/\` that fails without your fix and passes with it. Keep the change`,
      "focused on the issue; do not change unrelated behaviour.",
    ],
    tests: `pytest tests under \`${testsDir}/\``,
    within: `\`${testsDir}/\``,
  }),
  truthAdvice: (task) => pythonTruthAdvice(packageNameOf(task)),
  configRefusal: pythonConfigRefusal,
  newApiNames,

  // -- Mining ---------------------------------------------------------------------------------
  openMiner: openPythonMiner,
};
