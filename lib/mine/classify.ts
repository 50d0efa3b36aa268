/**
 * The cheap rules that decide whether a change on first-parent history can become a task, before
 * any diff text is read: date, title, issue reference, and which files it touched.
 *
 * Pure functions; no permissions needed.
 *
 * @module
 */

import type { Change } from "./history.ts";
import { pythonPathFor } from "../layout.ts";
import { inPackage } from "./package.ts";
import { isTestModule, type PytestRules } from "../python/mod.ts";
import { primaryReference, type Reference } from "./refs.ts";
import { changeReadsLikeFix, changeText } from "./titles.ts";

/** Why a change was left out, as stable codes (in the order the rules are applied). */
export const EXCLUSION_REASONS = [
  "before-since",
  "not-a-fix",
  "root-commit",
  "no-issue-reference",
  "no-source-change",
  "too-many-source-files",
  "no-test-added",
  "older-change-for-same-issue",
  "over-limit",
] as const;
/** Why a change was left out. */
export type ExclusionReason = typeof EXCLUSION_REASONS[number];

/** Reasons counted but not listed one by one in tasks.json (they cover most of history). */
export const COUNTED_ONLY: readonly ExclusionReason[] = ["before-since", "not-a-fix"];

/** A change that passed the cheap rules. */
export interface Candidate {
  /** G. */
  commit: string;
  /** B. */
  parent: string;
  /** Committer time, seconds since the epoch. */
  time: number;
  /** The title (a pull request's title for its merge commit). */
  title: string;
  /** The rest of the message (a pull request's description for its merge commit). */
  body: string;
  /** The pull request a merge commit merged. */
  pullRequest?: number;
  /** True for a merge commit (judged by its diff against the first parent). */
  merge: boolean;
  /** The issue or pull request the change is about. */
  reference: Reference;
  /** Python files of the package it changed (paths at G; at B for deletions). */
  sourceFiles: string[];
  /** Test modules it added or changed (paths at G). */
  testModules: string[];
  /** For each test module that was renamed: its path at B. */
  renamedFrom: Record<string, string>;
  /** Other files under the tests directory, and conftest.py files, it added or changed. */
  supportFiles: string[];
  /** Where the package lives at B. */
  packageDir: string;
  /** What goes on PYTHONPATH at B. */
  pythonPath: string;
}

/** The outcome of the cheap rules for one change. */
export type Classified =
  | { kind: "candidate"; candidate: Candidate }
  | { kind: "excluded"; reason: ExclusionReason; title: string; detail?: string };

/** What the rules need besides the change. */
export interface ClassifyContext {
  /** pytest's discovery rules for the project. */
  rules: PytestRules;
  /** `max-source-files`. */
  maxSourceFiles: number;
  /** `since`, when set. */
  since?: Date;
  /** The GitHub `owner/name`, to ignore references to other repositories. */
  slug?: string;
  /** The tests directory, for support files. */
  tests: string;
}

function underDir(path: string, dir: string): boolean {
  return dir === "." || dir === "" || path.startsWith(`${dir}/`);
}

/** Sort the files a change touched into source files, test modules and support files. */
export function sortFiles(
  change: Pick<Change, "files">,
  where: { atG: string; atB: string },
  rules: PytestRules,
  tests: string,
): Pick<Candidate, "sourceFiles" | "testModules" | "supportFiles" | "renamedFrom"> {
  const sourceFiles = new Set<string>();
  const testModules = new Set<string>();
  const supportFiles = new Set<string>();
  const renamedFrom: Record<string, string> = {};
  for (const f of change.files) {
    const name = f.path.slice(f.path.lastIndexOf("/") + 1);
    const deleted = f.status === "D";
    if (!deleted && isTestModule(f.path, rules)) {
      testModules.add(f.path);
      if (f.oldPath && f.oldPath !== f.path) renamedFrom[f.path] = f.oldPath;
      continue;
    }
    const python = f.path.endsWith(".py") || (f.oldPath?.endsWith(".py") ?? false);
    const atG = !deleted && inPackage(f.path, where.atG);
    const atB = f.status !== "A" && inPackage(f.oldPath ?? f.path, where.atB);
    if (python && (atG || atB) && name !== "conftest.py" && !isTestModule(f.path, rules)) {
      sourceFiles.add(f.path);
      continue;
    }
    if (!deleted && (name === "conftest.py" || underDir(f.path, tests))) supportFiles.add(f.path);
  }
  return {
    sourceFiles: [...sourceFiles].sort(),
    testModules: [...testModules].sort(),
    supportFiles: [...supportFiles].sort(),
    renamedFrom,
  };
}

/** Apply the cheap rules to one change, given where the package was after and before it. */
export function classifyChange(
  change: Change,
  where: { atG: string; atB: string },
  context: ClassifyContext,
): Classified {
  const text = changeText(change.message);
  const title = text.title;
  const excluded = (reason: ExclusionReason, detail?: string): Classified => ({
    kind: "excluded",
    reason,
    title,
    ...(detail ? { detail } : {}),
  });
  if (context.since && change.time * 1000 < context.since.getTime()) {
    return excluded("before-since");
  }
  if (!changeReadsLikeFix(text)) return excluded("not-a-fix");
  if (change.parents.length === 0) return excluded("root-commit", "the first commit has no parent");
  const reference = primaryReference(title, text.body, {
    slug: context.slug,
    pullRequest: text.pullRequest,
  });
  if (!reference) return excluded("no-issue-reference");
  const files = sortFiles(change, where, context.rules, context.tests);
  if (files.sourceFiles.length === 0) {
    return excluded("no-source-change", `changes no Python file under ${where.atG}`);
  }
  if (files.sourceFiles.length > context.maxSourceFiles) {
    return excluded(
      "too-many-source-files",
      `changes ${files.sourceFiles.length} source files (max-source-files = ${context.maxSourceFiles})`,
    );
  }
  if (files.testModules.length === 0) return excluded("no-test-added", "changes no test module");
  return {
    kind: "candidate",
    candidate: {
      commit: change.commit,
      parent: change.parents[0],
      time: change.time,
      title,
      body: text.body,
      ...(text.pullRequest ? { pullRequest: text.pullRequest } : {}),
      merge: change.parents.length > 1,
      reference,
      ...files,
      packageDir: where.atB,
      pythonPath: pythonPathFor(where.atB),
    },
  };
}
