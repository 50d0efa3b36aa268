/**
 * Which paths of a JS/TS tree are test code and which are configuration a patch may not apply,
 * where an author's copy of a test file goes, and which parts of a `package.json` change decide
 * how tests run.
 *
 * Pure; no permissions.
 *
 * @module
 */

import { globToRegExp, matchesGlob } from "../glob.ts";
import type { NodeProject, NodeRunnerKind, PackageJson } from "./detect.ts";
import { parsePackageJson } from "./detect.ts";

/** The runners' own default test-file globs (vitest 3, jest 29, node 20). */
export const DEFAULT_INCLUDE: Record<NodeRunnerKind, readonly string[]> = {
  vitest: ["**/*.{test,spec}.?(c|m)[jt]s?(x)"],
  jest: ["**/__tests__/**/*.[jt]s?(x)", "**/?(*.)+(spec|test).[jt]s?(x)"],
  node: [
    "**/*.test.?(c|m)js",
    "**/*-test.?(c|m)js",
    "**/*_test.?(c|m)js",
    "**/test-*.?(c|m)js",
    "**/test.?(c|m)js",
    "**/test/**/*.?(c|m)js",
  ],
};

/** Directories whose every file is test code (helpers, fixtures, mocks), whatever the runner. */
const TEST_DIRS = /(^|\/)(__tests__|__mocks__|__fixtures__|test|tests)\//;
/** Test-file names every runner would take: `*.test.*`, `*.spec.*`. */
const TEST_NAMES = /\.(test|spec)\.[cm]?[jt]sx?$/;
/** Setup files by convention (`vitest.setup.ts`, `jest.setup.js`, `setupTests.ts`). */
const SETUP_NAMES = /(^|\/)((vitest|jest|test)[.-]setup|setup[.-]?tests?)\.[cm]?[jt]sx?$/i;

/** Configuration by name: runner, bundler, compiler and package-manager files. */
const CONFIG_NAMES = [
  /(^|\/)(vitest|vite)\.(config|workspace|projects)\.[cm]?[jt]s$/,
  /(^|\/)jest\.(config|preset)\.([cm]?[jt]s|json)$/,
  /(^|\/)(babel\.config\.([cm]?js|json)|\.babelrc(\.[cm]?js|\.json)?)$/,
  /(^|\/)\.mocharc(\.[a-z]+)?$/,
  /(^|\/)tsconfig[^/]*\.json$/,
  /(^|\/)jsconfig[^/]*\.json$/,
  /(^|\/)\.swcrc$/,
  /(^|\/)package\.json$/,
  /(^|\/)(package-lock\.json|npm-shrinkwrap\.json|pnpm-lock\.yaml|yarn\.lock)$/,
  /(^|\/)(pnpm-workspace\.yaml|\.npmrc|\.yarnrc(\.yml)?|\.pnpmfile\.cjs)$/,
  /(^|\/)\.node-version$|(^|\/)\.nvmrc$/,
];

/** The runner-facing facts of a project that path rules need. */
export type NodePathRules = Pick<
  NodeProject,
  "runner" | "include" | "includeRegex" | "setupFiles" | "configFiles"
>;

/** The test-file matchers of a project: its literal config globs, or the runner's defaults. */
export function testMatchers(rules: NodePathRules): RegExp[] {
  const globs = rules.include.length || rules.includeRegex.length
    ? rules.include
    : DEFAULT_INCLUDE[rules.runner];
  const regexes: RegExp[] = [];
  for (const source of rules.includeRegex) {
    try {
      regexes.push(new RegExp(source));
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
    }
  }
  return [...globs.map(globToRegExp), ...regexes];
}

/** Whether `path` is test code: the runner's test files, test directories, setup files. */
export function isNodeTestFile(rules: NodePathRules, path: string): boolean {
  if (/(^|\/)node_modules\//.test(path)) return false;
  if (rules.setupFiles.includes(path)) return true;
  if (matchesGlob(path, testMatchers(rules))) return true;
  if (!/\.([cm]?[jt]sx?|json|snap)$/.test(path)) return TEST_DIRS.test(path);
  return TEST_NAMES.test(path) || TEST_DIRS.test(path) || SETUP_NAMES.test(path) ||
    /(^|\/)__snapshots__\//.test(path);
}

/** Whether `path` decides which tests run or how: never applied from a patch. */
export function isNodeConfig(rules: NodePathRules, path: string): boolean {
  if (/(^|\/)node_modules(\/|$)/.test(path)) return true;
  if (rules.configFiles.includes(path) || rules.setupFiles.includes(path)) return true;
  return CONFIG_NAMES.some((re) => re.test(path)) || SETUP_NAMES.test(path);
}

/** The file of a test id: the part before the first ` > `. */
export function nodeFileOf(id: string): string {
  const at = id.indexOf(" > ");
  return at < 0 ? id : id.slice(0, at);
}

/** An author's name as it may appear in a file name. */
function authorSlug(author: string): string {
  return author.replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60) || "author";
}

/**
 * Where an author's copy of `path` goes: the same directory (relative imports keep working),
 * the name marked with the author and still a test file of the project
 * (`src/a.test.ts` → `src/a.bugbout-<author>.test.ts`).
 */
export function nodeBesidePath(rules: NodePathRules, path: string, author: string): string {
  const slash = path.lastIndexOf("/");
  const dir = path.slice(0, slash + 1);
  const name = path.slice(slash + 1);
  const tag = `bugbout-${authorSlug(author)}`;
  const candidates: string[] = [];
  const suffixed = /^(.*?)([._-](?:test|spec)\.[^/]+)$/.exec(name);
  if (suffixed) candidates.push(`${dir}${suffixed[1]}.${tag}${suffixed[2]}`);
  const dot = name.indexOf(".");
  const stem = dot < 0 ? name : name.slice(0, dot);
  const ext = dot < 0 ? "" : name.slice(dot);
  candidates.push(
    `${dir}${stem}.${tag}${ext}`,
    `${dir}${tag}-${name}`,
    `${dir}${stem}-${tag}${ext}`,
  );
  const matchers = testMatchers(rules);
  return candidates.find((c) => matchesGlob(c, matchers)) ?? candidates[0];
}

/** Dev dependencies that change how tests run. */
const RUNNER_PACKAGES =
  /^(vitest|@vitest\/.*|vite|jest|@jest\/.*|jest-.*|ts-jest|babel-jest|@swc\/jest|tsx|ts-node|@babel\/.*|typescript|happy-dom|jsdom)$/;

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The parts of a `package.json` change that decide how tests run (`scripts.test`, `jest`,
 * `vitest`, `type`, `imports`, the runner's packages in the dependencies, ...); empty when the
 * change touches only other fields. A file that cannot be parsed counts as all of it changed.
 */
export function packageJsonTestChanges(before: string | null, after: string | null): string[] {
  const a: PackageJson | undefined = before === null ? {} : parsePackageJson(before);
  const b: PackageJson | undefined = after === null ? {} : parsePackageJson(after);
  if (!a || !b) return ["package.json (not valid JSON)"];
  const changed: string[] = [];
  for (const script of ["test", "pretest", "posttest"]) {
    if (!same(a.scripts?.[script], b.scripts?.[script])) changed.push(`scripts.${script}`);
  }
  for (const field of ["jest", "vitest", "type", "imports", "exports", "main", "workspaces"]) {
    if (!same(a[field], b[field])) changed.push(field);
  }
  for (const section of ["devDependencies", "dependencies", "optionalDependencies"] as const) {
    const x = (a[section] ?? {}) as Record<string, string>;
    const y = (b[section] ?? {}) as Record<string, string>;
    for (const name of new Set([...Object.keys(x), ...Object.keys(y)])) {
      if (RUNNER_PACKAGES.test(name) && x[name] !== y[name]) changed.push(`${section}.${name}`);
    }
  }
  if (!same(a.packageManager, b.packageManager)) changed.push("packageManager");
  return changed;
}
