/**
 * What Python can tell ground truth that no other language can: what today's pytest refuses in a
 * tree's configuration, which modules a failure says are missing and what to set for them, which
 * pytest still runs a test a newer one refuses, and when a task's tests fail on B only because
 * the fix adds a name the agent cannot know (a new API).
 *
 * Requires `--allow-read` (the trees) for {@linkcode pythonConfigRefusal} and
 * {@linkcode newApiNames}; the rest is pure.
 *
 * @module
 */

import { basename, join } from "node:path";
import { readTextIfExists, statIfExists } from "../../fs.ts";
import type { Task } from "../../records.ts";
import type { RepeatedRuns, TruthAdvice } from "../types.ts";

/**
 * What today's pytest refuses in a tree's configuration, in a line, from the files themselves
 * (name → text): a `[pytest]` section in `setup.cfg`, which pytest stopped reading in 4.0.
 */
export function configRefusal(files: Record<string, string | undefined>): string | undefined {
  if (files["setup.cfg"] && /^\[pytest\]\s*$/m.test(files["setup.cfg"])) {
    return "setup.cfg has a [pytest] section, which pytest refuses since 4.0 (it reads " +
      "[tool:pytest]); this commit's tests cannot run on today's pytest.";
  }
  return undefined;
}

/** {@linkcode configRefusal} of the tree at `tree`. */
export async function pythonConfigRefusal(tree: string): Promise<string | undefined> {
  return configRefusal({ "setup.cfg": await readTextIfExists(join(tree, "setup.cfg")) });
}

/** Modules failures say are missing: `No module named 'pretend'` → `pretend`. */
export function missingModules(failures: Readonly<Record<string, string>>): string[] {
  const found = new Set<string>();
  for (const message of Object.values(failures)) {
    const match = message.match(/No module named ['"]?([\w.]+)['"]?/);
    if (match) found.add(match[1]);
  }
  return [...found].sort();
}

/** What to set for modules the tests import and the environment lacks (not the package's own). */
function dependencyHint(modules: readonly string[], packageName?: string): string {
  const missing = [
    ...new Set(modules.map((m) => m.split(".")[0]).filter((m) => m !== packageName)),
  ];
  if (missing.length === 0) return "";
  return ` Add ${missing.map((m) => JSON.stringify(m)).join(", ")} to [project] ` +
    `test-dependencies in bugbout.toml (the name on PyPI may differ).`;
}

/** pytest N turns what N-1 only warned about into errors: an older pytest runs the test. */
function failureNote(message: string): string {
  const removed = message.match(/PytestRemovedIn(\d+)Warning/);
  if (!removed) return "";
  const older = +removed[1] - 1;
  return ` A pytest older than ${older} runs it: add "pytest<${older}" to [project] ` +
    "test-dependencies.";
}

/**
 * The environment's fault in failures, if they show one: a module of the package itself that
 * cannot be imported (`calc._version`, which a build generates), a pytest that refuses a hook of
 * the tree's conftest (`pytest_ignore_collect(path, config)` since pytest 9), or a command that
 * is not there (`FileNotFoundError` for a bare name: the project's console script). Pure.
 */
export function environmentFault(
  failures: Readonly<Record<string, string>>,
  packageName?: string,
): string | undefined {
  const own = packageName === undefined
    ? []
    : missingModules(failures).filter((m) => m === packageName || m.startsWith(`${packageName}.`));
  if (own.length) {
    return `the tests cannot import ${
      own.map((m) => `\`${m}\``).join(", ")
    }, the project's own (built? a module generated at build time is missing from the tree)`;
  }
  for (const message of Object.values(failures)) {
    const hook = message.match(
      /PluginValidationError: Plugin .*? for hook ['"](\w+)['"][\s\S]*?Argument\(s\) (\{[^}]*\}) are declared in the hookimpl but can not be found in the hookspec/,
    );
    if (hook) {
      return `this pytest refuses the tree's \`${hook[1]}\` hook, whose argument(s) ${hook[2]} ` +
        "it no longer passes (the tree was written for an older pytest: the pytest of the " +
        "commit's own day runs it)";
    }
  }
  for (const message of Object.values(failures)) {
    const command = message.match(
      /FileNotFoundError: \[Errno 2\] No such file or directory: ['"]([\w.-]+)['"]/,
    );
    if (command) {
      return `the tests run \`${command[1]}\`, which the environment does not have (the ` +
        "project's console script? it exists once the project is installed)";
    }
  }
  return undefined;
}

/**
 * Python's advice for ground truth's reasons; `packageName` is the package's import name, whose
 * own modules are never a missing dependency.
 */
export function pythonTruthAdvice(packageName?: string): TruthAdvice {
  return {
    missingModules,
    dependencyHint: (modules) => dependencyHint(modules, packageName),
    failureNote,
    environmentFault: (failures) => environmentFault(failures, packageName),
  };
}

/** The import name of a task's package (`src/pkg` → `pkg`, `mod.py` → `mod`). */
export function packageNameOf(task: Pick<Task, "packageDir">): string {
  return basename(task.packageDir).replace(/\.py$/, "");
}

/** One name a failure says does not exist, and how it says so. */
export interface MissingName {
  /** The name. */
  name: string;
  /** `import`, `attribute`, `name`, `keyword` or `module`. */
  kind: "import" | "attribute" | "name" | "keyword" | "module";
}

const MISSING: [RegExp, MissingName["kind"]][] = [
  [/cannot import name ['"]?(\w+)['"]?/, "import"],
  [/module ['"][\w.]+['"] has no attribute ['"](\w+)['"]/, "attribute"],
  [/type object ['"]\w+['"] has no attribute ['"](\w+)['"]/, "attribute"],
  [
    /['"](?!NoneType|int|str|list|dict|tuple|bytes|float|bool|set)\w+['"] object has no attribute ['"](\w+)['"]/,
    "attribute",
  ],
  [/NameError: name ['"](\w+)['"] is not defined/, "name"],
  [/got an unexpected keyword argument ['"](\w+)['"]/, "keyword"],
  [/No module named ['"]([\w.]+)['"]/, "module"],
];

/** The name a failure line says does not exist yet, if it says so. */
export function missingName(message: string): MissingName | undefined {
  for (const [pattern, kind] of MISSING) {
    const match = message.match(pattern);
    if (match) return { name: match[1], kind };
  }
  return undefined;
}

/**
 * When every fail-to-pass test fails on B only because a name does not exist there (an import,
 * an attribute, a keyword argument, a module of the package), those names; undefined when any
 * fails another way. A test missing from B is read through its module's collection error.
 */
export function namesMissingOnB(
  failToPass: readonly string[],
  b: RepeatedRuns,
): MissingName[] | undefined {
  if (failToPass.length === 0) return undefined;
  const failures: Record<string, string> = {};
  for (const run of b.runs) Object.assign(failures, run.failures ?? {});
  const names = new Map<string, MissingName>();
  for (const id of failToPass) {
    const module = id.split("::")[0];
    const message = failures[id] ?? failures[module];
    const missing = message === undefined ? undefined : missingName(message);
    if (!missing) return undefined;
    names.set(missing.name, missing);
  }
  return [...names.values()];
}

/**
 * The names a task needs that the agent cannot know: when every fail-to-pass test fails on B only
 * because a name is missing (see {@linkcode namesMissingOnB}), and each such name is new in the
 * fix's source files (absent from them on B, present on G) and unnamed by the statement.
 * Undefined otherwise.
 */
export async function newApiNames(
  task: Task,
  failToPass: readonly string[],
  b: RepeatedRuns,
  trees: { B: string; G: string },
): Promise<string[] | undefined> {
  const missing = namesMissingOnB(failToPass, b);
  if (!missing?.length) return undefined;
  const read = async (tree: string) =>
    (await Promise.all(task.sourceFiles.map((f) => readTextIfExists(join(tree, f))))).join("\n");
  const [before, after] = await Promise.all([read(trees.B), read(trees.G)]);
  const word = (name: string) => new RegExp(`(?<![\\w.])${name.replace(/\W/g, "")}(?!\\w)`);
  for (const { name, kind } of missing) {
    if (word(name.split(".").pop()!).test(task.statement)) return undefined;
    if (kind === "module") {
      const path = `${name.replaceAll(".", "/")}`;
      const isNew = task.sourceFiles.some((f) =>
        f.endsWith(`${path}.py`) || f.endsWith(`${path}/__init__.py`)
      );
      if (!isNew || (await statIfExists(join(trees.B, task.pythonPath, `${path}.py`)))) {
        return undefined;
      }
      continue;
    }
    if (!word(name).test(after) || word(name).test(before)) return undefined;
  }
  return missing.map((m) => m.name);
}
