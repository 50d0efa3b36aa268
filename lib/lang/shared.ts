/**
 * What languages share without naming one: the kinds of a path for a runner whose configuration
 * and test files are all it needs to know, the static reading of an author's test files, tags
 * for authors' copies, and the parts of a patch review every language makes the same way.
 *
 * Pure; no permissions.
 *
 * @module
 */

import type {
  AuthorFileChange,
  AuthorFileReading,
  InitConfig,
  PatchKind,
  PatchReview,
  ProjectDetection,
  ReviewedPath,
  TestRunner,
} from "./types.ts";
import type { PackageBaseline } from "./capabilities.ts";

/** Whether `path` lies under directory `dir` (`.` or "": everything). */
export function under(path: string, dir: string): boolean {
  if (!dir || dir === ".") return true;
  return path === dir || path.startsWith(`${dir}/`);
}

/**
 * A path's kind for a runner that alone says what is test code and configuration: everything else
 * under the package directory is source.
 */
export function kindByRunner(
  runner: Pick<TestRunner, "isConfig" | "isTestFile">,
  path: string,
  packageDir: string,
): PatchKind {
  if (runner.isConfig(path)) return "config";
  if (runner.isTestFile(path)) return "test";
  return under(path, packageDir) ? "source" : "other";
}

/**
 * An author's test files read statically with the runner's {@linkcode TestRunner.changedTests}:
 * a new file with tests is the author's whole (run whole where a file is its own entry); in a
 * changed file, the tests the author added or changed; a file static reading cannot read is one
 * row of its own when the runner runs it, else a helper.
 */
export function readTestsStatically(
  runner: Pick<TestRunner, "changedTests" | "runsFile" | "fileOf">,
  files: readonly AuthorFileChange[],
): AuthorFileReading[] {
  return files.map(({ path, before, after }): AuthorFileReading => {
    const tests = runner.changedTests(path, before, after);
    if ("error" in tests) {
      return runner.runsFile(path)
        ? { kind: "tests", whole: true, ids: [], unreadable: tests.error }
        : { kind: "helper" };
    }
    if (before === null) {
      if (tests.tests.length === 0 && !tests.unsure) return { kind: "helper" };
      // A file its runner can run whole runs whole when static reading could not name its tests.
      const whole = tests.unsure !== undefined && runner.fileOf(path) === path;
      return { kind: "tests", whole, ids: tests.tests };
    }
    if (tests.changed.length > 0) return { kind: "tests", whole: false, ids: tests.changed };
    return tests.tests.length === 0 ? { kind: "helper" } : { kind: "none" };
  });
}

/**
 * A tag per agent for the names of its copies: letters and digits of the name, numbered when two
 * would collide (whatever their case). Same names in, same tags out.
 */
export function alphanumericTags(names: readonly string[]): Map<string, string> {
  return numberedTags(names, (name) => name.replace(/[^A-Za-z0-9]+/g, "") || "x", "");
}

/**
 * Tags made by `tagOf`, numbered with `joiner` and 2, 3, ... when two would collide (whatever
 * their case).
 */
export function numberedTags(
  names: readonly string[],
  tagOf: (name: string) => string,
  joiner: string,
): Map<string, string> {
  const tags = new Map<string, string>();
  const used = new Set<string>();
  for (const name of names) {
    const base = tagOf(name);
    let tag = base;
    for (let n = 2; used.has(tag.toLowerCase()); n++) tag = `${base}${joiner}${n}`;
    used.add(tag.toLowerCase());
    tags.set(name, tag);
  }
  return tags;
}

function count(text: string | undefined, pattern: RegExp): number {
  return text === undefined ? 0 : [...text.matchAll(pattern)].length;
}

/**
 * Whether a path's change made `pattern` appear more often than before; with `base` (B's package,
 * by path), only when no file of it has `pattern` at all: a use B already had anywhere is not new.
 */
export function gained(
  path: Pick<ReviewedPath, "before" | "after">,
  pattern: RegExp,
  base?: PackageBaseline,
): boolean {
  if (count(path.after, pattern) <= count(path.before, pattern)) return false;
  if (base) { for (const text of base.values()) if (count(text, pattern) > 0) return false; }
  return true;
}

/** How a review of a runner language flags what it finds (see {@linkcode reviewByRunner}). */
export interface RunnerReviewRules {
  /** Skip markers a test file of the repository may not gain. */
  markers: RegExp;
  /** Source that reaches the test framework, and how each is said (`path` is the file). */
  source: { pattern: RegExp; flag: (path: string) => string }[];
}

/**
 * The review of a patch for a runner that says what is test code and configuration: its
 * configuration is never applied and is flagged, skip markers added to the repository's tests
 * are flagged, source reaching the test framework is flagged (and applied) unless `base` (B's
 * package) already did, and so is what the runner's `patchFlags` finds.
 */
export function reviewByRunner(
  runner: Pick<TestRunner, "name" | "patchFlags">,
  paths: readonly ReviewedPath[],
  rules: RunnerReviewRules,
  base?: PackageBaseline,
): PatchReview {
  const reasons = {
    config: `${runner.name} configuration: never applied when scoring`,
    test: "a test change: scoring runs the maintainers' tests",
    other: "outside the source directory: only source changes are applied",
  } as const;
  const flags: string[] = [];
  const ignored: PatchReview["ignored"] = [];
  for (const path of paths) {
    if (path.kind === "source") {
      for (const { pattern, flag } of rules.source) {
        if (gained(path, pattern, base)) flags.push(flag(path.path));
      }
      continue;
    }
    ignored.push({ path: path.path, reason: reasons[path.kind] });
    if (path.kind === "config") {
      flags.push(`${path.verb} ${path.path} (${runner.name} configuration)`);
    } else if (path.kind === "test" && path.verb !== "adds" && gained(path, rules.markers)) {
      flags.push(`adds skip markers to the repository's tests in ${path.path}`);
    }
  }
  const texts = paths.filter((p) => p.before !== undefined || p.after !== undefined)
    .map((p) => ({ path: p.path, before: p.before ?? null, after: p.after ?? null }));
  for (const finding of runner.patchFlags(texts)) flags.push(`${finding.what} (${finding.path})`);
  return { flags: [...new Set(flags)], ignored };
}

/**
 * The `[project]` lines `init` writes for a language whose runner is found again from the tree
 * each time: the language, and the settings every language has.
 */
export function runnerInitConfig(kind: string, found: ProjectDetection): InitConfig {
  const detected = found.detected!;
  return {
    lines: [
      `# ${kind} tested with ${detected.runner} (${detected.evidence}).`,
      "# Test files, ids and what may not be patched: docs/languages.md.",
      `language = ${JSON.stringify(detected.language)}`,
      "# The repository to mine: this directory, or a git URL to clone.",
      `# repository = "."`,
      `# github = "owner/name"       # where issues live, when origin is not on GitHub`,
      `# env = { CI = "1" }`,
    ],
    summary: [[
      "language",
      `${detected.language}, tested with ${detected.runner} (${detected.evidence})`,
    ]],
    notes: [],
  };
}
