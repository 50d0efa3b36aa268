/**
 * What a TypeScript/JavaScript tree is: its package manager (from the lockfile), its test runner
 * (vitest, jest or `node --test`, from `scripts.test`, the runner's config files and the
 * devDependencies), and what its runner configuration says where it can be read statically
 * (literal `include`/`testMatch` globs, setup files).
 *
 * Deno projects (`deno.json` without a `package.json`) are not served: `deno test` has no
 * reporter bugbout can keep out of the tested code's process, and its dependencies are not
 * installed from a lockfile into a directory the sandbox can read.
 *
 * Requires `--allow-read` (the tree).
 *
 * @module
 */

import { join } from "node:path";
import { readDirIfExists, readTextIfExists } from "../../fs.ts";
import type { Detected } from "../types.ts";

/** The package managers served, as told by the lockfile (`yarn-berry`: yarn 2 and later). */
export type PackageManager = "npm" | "pnpm" | "yarn" | "yarn-berry";

/** The test runners served. */
export type NodeRunnerKind = "vitest" | "jest" | "node";

/** Names people know the runners by (`TestRunner.name`). */
export const RUNNER_NAMES: Record<NodeRunnerKind, string> = {
  vitest: "vitest",
  jest: "jest",
  node: "node --test",
};

/** Lockfiles, in the order they are believed when a tree has several. */
export const LOCKFILES: readonly { file: string; manager: PackageManager }[] = [
  { file: "pnpm-lock.yaml", manager: "pnpm" },
  { file: "yarn.lock", manager: "yarn" },
  { file: "package-lock.json", manager: "npm" },
  { file: "npm-shrinkwrap.json", manager: "npm" },
];

/** Everything bugbout knows about a JS/TS tree's tests, read without running anything. */
export interface NodeProject {
  /** The package manager. */
  manager: PackageManager;
  /** The lockfile (relative), or null when there is none (npm then resolves versions itself). */
  lockfile: string | null;
  /** The test runner. */
  runner: NodeRunnerKind;
  /** What told the runner, in words. */
  evidence: string;
  /** The runner's config files at the root (relative). */
  configFiles: string[];
  /** Globs of test files the config lists literally; empty: the runner's defaults. */
  include: string[];
  /** Regular expressions of test files (jest `testRegex`). */
  includeRegex: string[];
  /** Setup files the config names (relative). */
  setupFiles: string[];
  /** Set when the config's test-file settings are not literal: the defaults are used. */
  unread?: string;
}

/** The part of `package.json` detection reads. */
export interface PackageJson {
  scripts?: Record<string, string>;
  devDependencies?: Record<string, string>;
  dependencies?: Record<string, string>;
  jest?: Record<string, unknown>;
  packageManager?: string;
  [key: string]: unknown;
}

const VITEST_CONFIGS = /^vitest\.(config|workspace|projects)\.[cm]?[jt]s$/;
const VITE_CONFIGS = /^vite\.config\.[cm]?[jt]s$/;
const JEST_CONFIGS = /^jest\.config\.([cm]?[jt]s|json)$/;

/** Parse `package.json` text; undefined when it is not a JSON object. */
export function parsePackageJson(text: string): PackageJson | undefined {
  try {
    const value = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? value : undefined;
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

/** The package manager of a tree with these root files (and `yarn.lock` text, for its version). */
export function managerOf(
  files: ReadonlySet<string>,
  yarnLock?: string,
): { manager: PackageManager; lockfile: string | null } {
  for (const { file, manager } of LOCKFILES) {
    if (!files.has(file)) continue;
    if (manager === "yarn" && yarnLock !== undefined && /^__metadata:/m.test(yarnLock)) {
      return { manager: "yarn-berry", lockfile: file };
    }
    return { manager, lockfile: file };
  }
  return { manager: "npm", lockfile: null };
}

/** Which runner `scripts.test` runs, if it names one. */
export function runnerOfScript(script: string | undefined): NodeRunnerKind | undefined {
  if (!script) return undefined;
  if (/(^|[\s;&|/])vitest(\s|$)/.test(script)) return "vitest";
  if (/(^|[\s;&|/])jest(\s|$)/.test(script)) return "jest";
  if (/(^|[\s;&|])node(\s+--?[\w-]+(=\S+)?)*\s+--test\b/.test(script)) return "node";
  return undefined;
}

/** The string literals of `text` (single, double, or template quotes without substitutions). */
function literals(text: string): string[] | undefined {
  const found: string[] = [];
  const re = /'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\$]|\\.|\$(?!\{))*)`/g;
  let rest = text;
  for (const m of text.matchAll(re)) {
    found.push(m[1] ?? m[2] ?? m[3]);
    rest = rest.replace(m[0], "");
  }
  // Anything but literals, commas and comments is computed: not read.
  rest = rest.replace(/\/\/.*$/gm, "").replace(/\/\*[\s\S]*?\*\//g, "");
  if (/[^\s,]/.test(rest)) return undefined;
  return found;
}

/**
 * The literal strings a config's `key` is set to (`key: ["a", "b"]` or `key: "a"`): undefined
 * when the key is absent, null when it is set to something computed.
 */
export function literalSetting(config: string, key: string): string[] | null | undefined {
  const at = new RegExp(`(^|[\\s,{])["']?${key}["']?\\s*:\\s*`, "m").exec(config);
  if (!at) return undefined;
  const from = at.index + at[0].length;
  if (config[from] === "[") {
    const end = config.indexOf("]", from);
    if (end < 0) return null;
    return literals(config.slice(from + 1, end)) ?? null;
  }
  const single = /^('(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")/.exec(config.slice(from));
  if (single) return [single[1].slice(1, -1)];
  return null;
}

function stripRoot(path: string): string {
  return path.replace(/^<rootDir>\//, "").replace(/^\.\//, "");
}

/** What a runner's config text says about test files and setup files. Pure. */
export function readRunnerConfig(
  runner: NodeRunnerKind,
  config: string | Record<string, unknown>,
): Pick<NodeProject, "include" | "includeRegex" | "setupFiles" | "unread"> {
  const get = (key: string): string[] | null | undefined => {
    if (typeof config !== "string") {
      const value = config[key];
      if (value === undefined) return undefined;
      if (typeof value === "string") return [value];
      if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value;
      return null;
    }
    return literalSetting(config, key);
  };
  const result: Pick<NodeProject, "include" | "includeRegex" | "setupFiles" | "unread"> = {
    include: [],
    includeRegex: [],
    setupFiles: [],
  };
  const unread: string[] = [];
  const keys = runner === "jest" ? ["testMatch", "testRegex"] : ["include"];
  for (const key of keys) {
    const value = get(key);
    if (value === null) unread.push(key);
    else if (value && key === "testRegex") result.includeRegex.push(...value);
    else if (value) result.include.push(...value.map(stripRoot));
  }
  const setupKeys = runner === "jest"
    ? ["setupFiles", "setupFilesAfterEnv", "globalSetup", "globalTeardown", "testEnvironment"]
    : ["setupFiles", "globalSetup"];
  for (const key of setupKeys) {
    const value = get(key);
    if (value === null) unread.push(key);
    // A jest environment named by package (`jsdom`) is no file of the tree.
    else if (value) {
      result.setupFiles.push(
        ...value.filter((v) => key !== "testEnvironment" || /^[.<]/.test(v)).map(stripRoot),
      );
    }
  }
  if (unread.length) result.unread = `${unread.join(", ")} not literal`;
  return result;
}

/** Files of the tree's root directory. */
async function rootFiles(tree: string): Promise<Set<string>> {
  return new Set((await readDirIfExists(tree)).filter((e) => e.isFile).map((e) => e.name));
}

/** Read a tree's package manager, runner and runner config; undefined when it is not served. */
export async function readNodeProject(tree: string): Promise<NodeProject | undefined> {
  const text = await readTextIfExists(join(tree, "package.json"));
  if (text === undefined) return undefined;
  const pkg = parsePackageJson(text) ?? {};
  const files = await rootFiles(tree);
  const { manager, lockfile } = managerOf(
    files,
    files.has("yarn.lock") ? await readTextIfExists(join(tree, "yarn.lock")) : undefined,
  );
  const names = [...files].sort();
  const vitestConfigs = names.filter((f) => VITEST_CONFIGS.test(f));
  const viteConfigs: string[] = [];
  for (const f of names.filter((f) => VITE_CONFIGS.test(f))) {
    // A vite config serves vitest only when it has a `test` section.
    if (/(^|[\s,{])test\s*:/m.test((await readTextIfExists(join(tree, f))) ?? "")) {
      viteConfigs.push(f);
    }
  }
  const jestConfigs = names.filter((f) => JEST_CONFIGS.test(f));
  const deps = { ...pkg.dependencies, ...pkg.devDependencies };
  let runner: NodeRunnerKind | undefined;
  let evidence = "";
  const byScript = runnerOfScript(pkg.scripts?.test);
  if (byScript) {
    runner = byScript;
    evidence = `package.json scripts.test: ${pkg.scripts!.test}`;
  } else if (vitestConfigs.length || viteConfigs.length) {
    runner = "vitest";
    evidence = [...vitestConfigs, ...viteConfigs][0];
  } else if (jestConfigs.length || pkg.jest) {
    runner = "jest";
    evidence = jestConfigs[0] ?? `package.json "jest"`;
  } else if (deps.vitest) {
    runner = "vitest";
    evidence = "package.json devDependencies: vitest";
  } else if (deps.jest) {
    runner = "jest";
    evidence = "package.json devDependencies: jest";
  }
  if (!runner) return undefined;
  const configFiles = runner === "vitest"
    ? [...vitestConfigs, ...viteConfigs]
    : runner === "jest"
    ? jestConfigs
    : [];
  let settings: ReturnType<typeof readRunnerConfig> = {
    include: [],
    includeRegex: [],
    setupFiles: [],
  };
  if (runner === "jest" && pkg.jest && typeof pkg.jest === "object") {
    settings = readRunnerConfig("jest", pkg.jest);
  } else if (configFiles.length) {
    const config = (await readTextIfExists(join(tree, configFiles[0]))) ?? "";
    settings = readRunnerConfig(runner, config);
  } else if (runner === "node") {
    settings.include = nodeScriptFiles(pkg.scripts?.test ?? "");
  }
  return { manager, lockfile, runner, evidence, configFiles, ...settings };
}

/** The files or globs a `node --test` script names (`node --test test/*.test.js`). */
export function nodeScriptFiles(script: string): string[] {
  const at = script.search(/--test\b/);
  if (at < 0) return [];
  const words = script.slice(at).split(/\s*(?:&&|\|\||;)\s*/)[0].split(/\s+/).slice(1);
  return words.filter((w) => w && !w.startsWith("-")).map((w) => w.replace(/^['"]|['"]$/g, ""));
}

/**
 * The runner of a tree, for `detectRunner`: undefined when the tree has no `package.json` or
 * names no runner bugbout serves.
 */
export async function detectNode(tree: string): Promise<Detected | undefined> {
  const project = await readNodeProject(tree);
  if (!project) return undefined;
  return {
    language: "node",
    runner: RUNNER_NAMES[project.runner],
    evidence: project.lockfile
      ? `${project.evidence}; ${project.lockfile}`
      : `${project.evidence}; no lockfile (npm)`,
  };
}
