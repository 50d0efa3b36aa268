/**
 * The bug-or-feature decision on a candidate whose files were read, from evidence first: its
 * changelog entry and its conventional-commit type (one rank: any that says feature leaves it
 * out), what its diff touches (type annotations only, the wording of messages only), what its
 * tests can check (skipped only, types only, a dependency B lacks), and its title's words only
 * when nothing stronger speaks. GitHub's labels, read with the statement, come after
 * ({@linkcode labelDecision}).
 *
 * Pure functions; no permissions needed.
 *
 * @module
 */

import type { BlobReader } from "../blobs.ts";
import type { AddedTests } from "../lang/mod.ts";
import { type ChangeKind, type ChangelogReading, readChangelog } from "./changelog.ts";
import type { Candidate, ExclusionReason, KindEvidence } from "./classify.ts";
import { labelEvidence } from "./select.ts";
import { readsLikeFix } from "./titles.ts";

/** Why a candidate is left out: its reason and what decided it. */
export interface LeftOut {
  /** The reason's code. */
  reason: ExclusionReason;
  /** What decided, in a few words. */
  detail?: string;
}

/** What the diff of a candidate's source files touches. */
export interface DiffSignals {
  /** Only type annotations. */
  typingOnly: boolean;
  /** Only the wording of messages (string literals of prose). */
  messageOnly: boolean;
}

/** The changelog files a candidate's kind may depend on, as objects to read. */
export function changelogNames(candidate: Candidate): string[] {
  if (candidate.fragment || candidate.changelogs.length === 0) return [];
  return candidate.changelogs.flatMap((f) => [
    f.newBlob ?? `${candidate.commit}:${f.path}`,
    ...(f.status === "A" ? [] : [f.oldBlob ?? `${candidate.parent}:${f.oldPath ?? f.path}`]),
  ]);
}

/**
 * What the changelog says of a candidate: `evidence`, from its fragment's type or the section of
 * its entry; or, when its entry says neither, `neither`: which entry, in a few words.
 */
export interface ChangelogEvidence {
  /** What the changelog says, when it says bug fix or feature. */
  evidence?: KindEvidence;
  /** The entry that says neither (`its entry in CHANGES.md says neither: "…"`). */
  neither?: string;
}

/** An entry's words, clipped for a one-line detail. */
function clip(text: string, max = 60): string {
  const one = text.replace(/^[-*+]\s+/, "").replace(/\s+/g, " ");
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

function readingDetail(where: string, reading: ChangelogReading): string {
  const says = reading.kind === "bug" ? "a bug fix" : "a feature";
  if (reading.heading) return `its entry in ${where} is under "${reading.heading}"`;
  return `its entry in ${where} reads as ${says}: "${clip(reading.entry ?? "")}"`;
}

/** What the changelog says of a candidate: its fragment's type, or the section of its entry. */
export function changelogEvidence(
  candidate: Candidate,
  blobs: Pick<BlobReader, "cached">,
): ChangelogEvidence {
  if (candidate.fragment) {
    return {
      evidence: {
        rule: "changelog",
        says: candidate.fragment.kind,
        detail: `adds ${candidate.fragment.path}`,
      },
    };
  }
  const kinds = new Set<ChangeKind>();
  let decided: { where: string; reading: ChangelogReading } | undefined;
  let silent: { where: string; reading: ChangelogReading } | undefined;
  for (const f of candidate.changelogs) {
    const after = blobs.cached(f.newBlob ?? `${candidate.commit}:${f.path}`);
    if (after === undefined) continue;
    const before = f.status === "A"
      ? ""
      : blobs.cached(f.oldBlob ?? `${candidate.parent}:${f.oldPath ?? f.path}`) ?? "";
    const reading = readChangelog(before, after);
    if (reading.kind) {
      kinds.add(reading.kind);
      decided = { where: f.path, reading };
    } else if (reading.entry) silent ??= { where: f.path, reading };
  }
  if (kinds.size === 1 && decided) {
    return {
      evidence: {
        rule: "changelog",
        says: decided.reading.kind!,
        detail: readingDetail(decided.where, decided.reading),
      },
    };
  }
  const shown = silent ?? decided;
  return shown?.reading.entry
    ? { neither: `its entry in ${shown.where} says neither: "${clip(shown.reading.entry)}"` }
    : {};
}

/** What the candidate's own message says: its conventional-commit type, else its title. */
export function messageEvidence(candidate: Candidate): KindEvidence | undefined {
  if (candidate.type) {
    return {
      rule: "type",
      says: "bug",
      detail: `a conventional commit of type ${candidate.type.type}`,
    };
  }
  if (!candidate.titleFix) return undefined;
  const branch = (candidate.bare || !readsLikeFix(candidate.title)) && candidate.branch;
  return {
    rule: "title",
    says: "bug",
    detail: branch ? `merged branch ${branch}` : `"${candidate.title}"`,
  };
}

/** True when evidence stronger than the title's words says bug fix. */
export function strongBug(evidence: readonly KindEvidence[]): boolean {
  return evidence.some((e) => e.says === "bug" && (e.rule === "changelog" || e.rule === "type"));
}

function names(ids: readonly string[], max = 2): string {
  const shown = ids.slice(0, max).join(", ");
  return ids.length > max ? `${shown} and ${ids.length - max} more` : shown;
}

/** What the tests say: none added, or none that a run can check. */
function testsDecision(candidate: Candidate, tests: AddedTests): LeftOut | undefined {
  if (tests.newTests.length === 0 && tests.unsure.length === 0) {
    const files = tests.testFiles.length ? tests.testFiles : candidate.testModules;
    return {
      reason: "no-test-added",
      detail: `changes ${files.join(", ") || "test files"} but adds or changes no test`,
    };
  }
  if (tests.unsure.length) return undefined;
  const skipped = new Set(tests.skipped ?? []);
  const typed = new Set(tests.typeOnly ?? []);
  if (tests.newTests.every((id) => skipped.has(id))) {
    return {
      reason: "skip-only",
      detail: `its new tests are always skipped: ${names(tests.newTests)}`,
    };
  }
  if (tests.newTests.every((id) => skipped.has(id) || typed.has(id))) {
    const only = tests.newTests.filter((id) => typed.has(id));
    return { reason: "type-only", detail: `its new tests check types only: ${names(only)}` };
  }
  if (tests.needsDependency) return { reason: "needs-dependency", detail: tests.needsDependency };
  return undefined;
}

/**
 * Decide on a candidate whose tests and files were read: the evidence that it fixes a bug, or
 * why it is left out.
 */
export function decide(
  candidate: Candidate,
  tests: AddedTests,
  read: ChangelogEvidence,
  diff: DiffSignals,
): { evidence: KindEvidence[] } | LeftOut {
  const changelog = read.evidence;
  const evidence: KindEvidence[] = [];
  const message = messageEvidence(candidate);
  if (message) evidence.push(message);
  if (changelog) evidence.push(changelog);
  if (changelog?.says === "feature") {
    return message
      ? { reason: "feature-in-changelog", detail: changelog.detail }
      : { reason: "not-a-fix", detail: changelog.detail };
  }
  if (!changelog && !message) {
    return { reason: "not-a-fix", detail: read.neither ?? "its changelog entry says neither" };
  }
  const byTests = testsDecision(candidate, tests);
  if (byTests) return byTests;
  if (diff.typingOnly) {
    return {
      reason: "typing-only",
      detail: `changes only type annotations in ${names(candidate.sourceFiles)}`,
    };
  }
  // A message's new wording is what the hidden test checks: no one could guess it, unless the
  // changelog or the commit's type says the change is a bug fix.
  if (diff.messageOnly && !strongBug(evidence)) {
    return {
      reason: "message-only",
      detail: `changes only the wording of messages in ${names(candidate.sourceFiles)}`,
    };
  }
  return { evidence };
}

/** What GitHub's labels add: evidence, or a feature label that nothing stronger outweighs. */
export function labelDecision(
  labels: readonly string[] | undefined,
  evidence: readonly KindEvidence[],
): { label?: KindEvidence } | LeftOut {
  const label = labelEvidence(labels);
  if (label?.says === "feature" && !strongBug(evidence)) {
    return { reason: "feature-label", detail: label.detail };
  }
  return label ? { label } : {};
}
