/**
 * Test runners, behind one door: the interface every language's runner implements (see
 * `types.ts`) and what a tree's languages are.
 *
 * Requires `--allow-read` (the tree) and `--allow-run` (to find each toolchain).
 *
 * @module
 */

import { detectGo, goRunner } from "./go/mod.ts";
import { detectNode, openNodeRunner } from "./node/mod.ts";
import { pythonRunner } from "./python/mod.ts";
import type { Language } from "../records.ts";
import type { Detected, TestRunner } from "./types.ts";

export type * from "./types.ts";
export { LANGUAGES } from "../records.ts";

/**
 * The languages other than Python found at the root of `tree`, each with its runner and what it
 * was told by: a `go.mod`, a `package.json` with a test runner. (Python is `init`'s own layout
 * detection: a package directory and pytest's configuration.)
 */
export async function detectOtherLanguages(tree: string): Promise<Detected[]> {
  const found = await Promise.all([detectGo(tree), detectNode(tree)]);
  return found.filter((d) => d !== undefined);
}

/**
 * The runner of a tree (JavaScript's reads the project's runner configuration from `tree`,
 * Python's pytest's discovery rules). Python's runner opened here has no environment request:
 * its `prepare` needs the project's (`pythonRunner(tree, { environment: envRequest(project) })`),
 * and the stages run Python through `lib/python/` and the testbed with the guard's extras.
 */
export async function openRunner(language: Language, tree: string): Promise<TestRunner> {
  if (language === "python") return await pythonRunner(tree);
  return language === "go" ? goRunner() : await openNodeRunner(tree);
}
