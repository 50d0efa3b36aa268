/**
 * Python, tested with pytest, as a {@linkcode LanguageSpec}.
 *
 * @module
 */

import type { LanguageSpec } from "../types.ts";
import { pythonRunner } from "./runner.ts";
import { openPythonMiner } from "./mining.ts";

/** Python and pytest. */
export const python: LanguageSpec = {
  name: "python",
  label: "Python",
  runWord: "pytest session",
  requires: ["source"],
  // A Python project is told by its layout (a package and pytest's configuration): `init` finds it.
  detect: () => Promise.resolve(undefined),
  openRunner: (tree) => pythonRunner(tree),

  // -- Mining ---------------------------------------------------------------------------------
  openMiner: openPythonMiner,
};
