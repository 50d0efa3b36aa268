/**
 * Python and pytest, behind one door: the test environment (a uv virtual environment per project),
 * pytest sessions in the sandbox under the guard (its authenticated results channel, audit hook and
 * one process per group of tests), repeated runs, pytest's discovery rules as a project configures
 * them, the comparison of two versions of a test module (by the interpreter's `ast`, and statically
 * by `outline.ts`), and pytest as the test-runner interface's first implementation (`runner.ts`).
 *
 * Everything above this floor (the testbed and the stages) imports from here, never from the
 * files beside it.
 *
 * Requires what each part requires: `--allow-run` (uv, python, the sandbox), `--allow-read`,
 * `--allow-write` (`BUGBOUT_HOME`, scratch space) and `--allow-env`.
 *
 * @module
 */

export {
  type ChangedTests,
  changedTests,
  type ModuleVersions,
  testOfNode,
} from "./changed_tests.ts";
export { type Channel, type GuardEvent, readChannel } from "./channel.ts";
export { type GroupRun, type InfraCause, type PytestRun } from "./classify.ts";
export { describeEvent } from "../../records.ts";
export { checkTestDependencies, type DependencyCheck } from "./dependencies.ts";
export { resolvePython, uvVersion } from "./discover.ts";
export { ensureTestEnv, type EnvRequest, envRequest, type TestEnv, testEnvFor } from "./env.ts";
export {
  CONFIG_FILES,
  DEFAULT_RULES,
  fnmatchRegExp,
  inTestpaths,
  isTestModule,
  matchesName,
  parseIni,
  type PytestRules,
  pytestRules,
  rulesFromFile,
  testPathspecs,
} from "./pytest_rules.ts";
export {
  HARNESS_KEY,
  pytestFlags,
  type PytestOptions,
  runPytest,
  targetFile,
  type TestPython,
} from "./pytest.ts";
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
} from "./outline.ts";
export { mergeRepeats, type RepeatedRuns } from "./repeats.ts";
export {
  besideDir,
  besideModulePath,
  identOf,
  isPytestConfig,
  isTestFileName,
  pytestRulesIn,
  PythonRunner,
  pythonRunner,
  type PythonRunnerEnv,
  pythonRunnerEnv,
  type PythonRunnerOptions,
  pythonTestGlobs,
} from "./runner.ts";
export { python } from "./language.ts";
export { pythonTools } from "./tools.ts";
export {
  configRefusal,
  missingModules,
  type MissingName,
  missingName,
  namesMissingOnB,
  newApiNames,
  packageNameOf,
  pythonConfigRefusal,
  pythonTruthAdvice,
} from "./truth.ts";
export { PYTEST_HOOK, PYTEST_IMPORT, pytestSection, reviewPythonPatch } from "./review.ts";
export {
  declaredPython,
  declaredTestDependencies,
  detectLayout,
  type Layout,
  pythonPathFor,
} from "./layout.ts";

// -- Mining -----------------------------------------------------------------------------------
export { findAddedTests } from "./added_tests.ts";
export { openPythonMiner, type SortedFiles, sortFiles } from "./mining.ts";
export { inPackage, packageBefore, PackageTracker } from "./package.ts";
export { PYTHON_CAPABILITIES } from "./capabilities.ts";
