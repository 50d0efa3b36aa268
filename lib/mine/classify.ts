/**
 * The cheap rules that decide whether a change on first-parent history can become a task, before
 * any file is read: the title, the changelog fragments it adds, the issue reference, and which
 * files it touched (as its language sorts them at that commit).
 *
 * Pure functions; no permissions needed.
 *
 * @module
 */

import { type Change, type PathChange, pickFiles } from "../history.ts";
import type { SortedChange } from "../lang/mod.ts";
import { type ChangeKind, fragmentKind, isChangelogFile, mayBeChangelog } from "./changelog.ts";
import { primaryReference, type Reference } from "./refs.ts";
import {
  changeReadsLikeFix,
  type ChangeText,
  changeText,
  type CommitType,
  commitType,
  fixesNoBug,
  notFixWords,
} from "./titles.ts";

/** Why a change was left out, as stable codes (in the order the rules are applied). */
export const EXCLUSION_REASONS = [
  "before-since",
  "after-until",
  "not-a-fix",
  "root-commit",
  "no-issue-reference",
  "no-source-change",
  "too-many-source-files",
  "feature-in-changelog",
  "no-test-added",
  "skip-only",
  "type-only",
  "typing-only",
  "message-only",
  "needs-dependency",
  "feature-label",
  "no-statement",
  "older-change-for-same-issue",
  "same-change",
  "over-limit",
] as const;
/** Why a change was left out. */
export type ExclusionReason = typeof EXCLUSION_REASONS[number];

/** Reasons counted but not listed one by one in tasks.json (they cover most of history). */
export const COUNTED_ONLY: readonly ExclusionReason[] = [
  "before-since",
  "after-until",
  "not-a-fix",
];

/** One piece of evidence on whether a change fixes a bug or adds a feature. */
export interface KindEvidence {
  /**
   * The rule: the title's words, its conventional-commit type, the changelog entry the change
   * adds, GitHub's labels, or what the diff touches.
   */
  rule: "title" | "type" | "changelog" | "label" | "diff";
  /** What it says. */
  says: ChangeKind;
  /** What it saw, in a few words. */
  detail: string;
}

/** A change that passed the rules that need only its message and file names. */
export interface Screened {
  /** The change. */
  change: Change;
  /** Its message, read. */
  text: ChangeText;
  /** The issue or pull request it is about. */
  reference: Reference;
  /** True when its title (or merged branch, or conventional-commit type) reads like a fix. */
  titleFix: boolean;
  /** Its conventional-commit type, when it has one (then it says bug). */
  type?: CommitType;
  /** What its changelog fragments say, when they say one thing. */
  fragment?: { kind: ChangeKind; path: string };
  /** Changelog files it changed, to read when neither the title nor a fragment decides. */
  changelogs: PathChange[];
}

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
  /** Source files it changed (paths at G; at B for deletions). */
  sourceFiles: string[];
  /** Test files it added or changed (paths at G). */
  testModules: string[];
  /** For each test file that was renamed: its path at B. */
  renamedFrom: Record<string, string>;
  /** Test data and helpers it added or changed. */
  supportFiles: string[];
  /** Where the code under test lives at B. */
  packageDir: string;
  /** What goes on the import path at B. */
  pythonPath: string;
  /** The test files' entries in the change, with their blobs. */
  testChanges: PathChange[];
  /** What its language needs to read its tests (see `SortedChange.reading`). */
  reading?: unknown;
  /** True when its title (or merged branch, or conventional-commit type) reads like a fix. */
  titleFix: boolean;
  /** Its conventional-commit type, when it has one (then it says bug). */
  type?: CommitType;
  /** True when its title is a bare merge subject (see `ChangeText.bare`). */
  bare?: boolean;
  /** The branch a merge commit merged, when it names one. */
  branch?: string;
  /** What its changelog fragments say, when they say one thing. */
  fragment?: { kind: ChangeKind; path: string };
  /** Changelog files it changed. */
  changelogs: PathChange[];
}

/** The outcome of the rules for one change. */
export type Classified<T> =
  | { kind: "candidate"; candidate: T }
  | { kind: "excluded"; reason: ExclusionReason; title: string; detail?: string };

/** What the rules need besides the change. */
export interface ClassifyContext {
  /** `max-source-files`. */
  maxSourceFiles: number;
  /** `since`, when set. */
  since?: Date;
  /** The GitHub `owner/name`, to ignore references to other repositories. */
  slug?: string;
}

/**
 * The rules that need only a change's message and the names of its files: reverts, the title,
 * the changelog fragments it adds, the first commit, the issue reference. A change whose title
 * does not read like a fix still passes when a changelog fragment calls it a bug fix, or when it
 * edits a changelog file (whose entry is read later).
 */
export function screenChange(
  change: Change,
  context: Pick<ClassifyContext, "slug">,
): Classified<Screened> {
  const text = changeText(change.message);
  const title = text.title;
  const excluded = (reason: ExclusionReason, detail?: string): Classified<Screened> => ({
    kind: "excluded",
    reason,
    title,
    ...(detail ? { detail } : {}),
  });
  // A conventional-commit type decides before the title's words: `feat:`, `refactor:`, `docs:`
  // fix no bug whatever follows.
  const type = text.bare ? undefined : commitType(title);
  if (type && type.says !== "bug") return excluded("not-a-fix", `type ${type.type}`);
  if (type && fixesNoBug(title)) return excluded("not-a-fix", notFixWords(text));
  const titleFix = type !== undefined || changeReadsLikeFix(text);
  const fragments = new Map<ChangeKind, string>();
  const changelogs: PathChange[] = [];
  for (const f of pickFiles(change, mayBeChangelog, mayBeChangelog)) {
    if (f.status === "D") continue;
    const kind = fragmentKind(f.path);
    if (kind && !fragments.has(kind)) fragments.set(kind, f.path);
    if (!kind && isChangelogFile(f.path)) changelogs.push(f);
  }
  // A change fixing a bug may also add a feature fragment: a bug fragment decides.
  const fragment = fragments.has("bug")
    ? { kind: "bug" as const, path: fragments.get("bug")! }
    : fragments.has("feature")
    ? { kind: "feature" as const, path: fragments.get("feature")! }
    : undefined;
  if (/^revert\b/i.test(title.trim())) return excluded("not-a-fix", "a revert");
  if (fragment?.kind === "feature") {
    return titleFix
      ? excluded("feature-in-changelog", `its changelog entry ${fragment.path} is a feature`)
      : excluded("not-a-fix", `adds ${fragment.path}`);
  }
  // Not a fix by its title and no fragment says so: only a changelog entry could tell.
  const maybe = !titleFix && fragment === undefined;
  const notFix = () => excluded("not-a-fix", notFixWords(text));
  if (maybe && changelogs.length === 0) return notFix();
  if (change.parents.length === 0) {
    return maybe ? notFix() : excluded("root-commit", "the first commit has no parent");
  }
  const reference = primaryReference(title, text.body, {
    slug: context.slug,
    pullRequest: text.pullRequest,
  });
  if (!reference) return maybe ? notFix() : excluded("no-issue-reference");
  return {
    kind: "candidate",
    candidate: {
      change,
      text,
      reference,
      titleFix,
      ...(type ? { type } : {}),
      ...(fragment ? { fragment } : {}),
      changelogs,
    },
  };
}

/**
 * The rules on which files a screened change touched, as its language sorted them at G: it must
 * change source code (at most `max-source-files` files) and test code.
 */
export function classifyFiles(
  screened: Screened,
  files: SortedChange,
  context: Pick<ClassifyContext, "maxSourceFiles">,
): Classified<Candidate> {
  const { change, text } = screened;
  const maybe = !screened.titleFix && screened.fragment === undefined;
  const excluded = (reason: ExclusionReason, detail?: string): Classified<Candidate> =>
    maybe
      ? { kind: "excluded", reason: "not-a-fix", title: text.title, detail: notFixWords(text) }
      : { kind: "excluded", reason, title: text.title, ...(detail ? { detail } : {}) };
  if (files.sourceFiles.length === 0) return excluded("no-source-change", files.noSource);
  if (files.sourceFiles.length > context.maxSourceFiles) {
    return excluded(
      "too-many-source-files",
      `changes ${files.sourceFiles.length} source files (max-source-files = ${context.maxSourceFiles})`,
    );
  }
  if (files.testChanges.length === 0) return excluded("no-test-added", files.noTests);
  return {
    kind: "candidate",
    candidate: {
      commit: change.commit,
      parent: change.parents[0],
      time: change.time,
      title: text.title,
      body: text.body,
      ...(text.pullRequest ? { pullRequest: text.pullRequest } : {}),
      merge: change.parents.length > 1,
      reference: screened.reference,
      sourceFiles: files.sourceFiles,
      testModules: files.testChanges.map((f) => f.path).sort(),
      renamedFrom: files.renamedFrom,
      supportFiles: files.supportFiles,
      packageDir: files.packageDir,
      pythonPath: files.pythonPath,
      testChanges: files.testChanges,
      ...(files.reading === undefined ? {} : { reading: files.reading }),
      titleFix: screened.titleFix,
      ...(screened.type ? { type: screened.type } : {}),
      ...(text.bare ? { bare: true } : {}),
      ...(text.branch ? { branch: text.branch } : {}),
      ...(screened.fragment ? { fragment: screened.fragment } : {}),
      changelogs: screened.changelogs,
    },
  };
}
