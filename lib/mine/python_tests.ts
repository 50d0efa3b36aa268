/**
 * The static reader of Python test modules the miner uses, now on the python floor
 * (`lib/python/outline.ts`, so that the Python runner shares it): re-exported here so that the
 * miner's imports keep working.
 *
 * Pure functions; no permissions needed.
 *
 * @module
 */

export {
  addedTestFunctions,
  changedByHunks,
  compareOutlines,
  definedBy,
  type ModuleHunks,
  type OutlineName,
  type OutlineTest,
  outlineTests,
  type TestChanges,
  testFunctions,
  type TestOutline,
} from "../lang/python/mod.ts";
