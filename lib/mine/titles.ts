/**
 * Reading a change's message: does its title read like a fix, and what is the title at all (a
 * pull request's merge commit carries the pull request's title in its body).
 *
 * Pure functions; no permissions needed.
 *
 * @module
 */

const FIX_WORDS = new RegExp(
  String.raw`\b(?:fix(?:e[sd]|ing)?|bug(?:s|fix(?:es)?)?|hotfix(?:es)?|crash(?:e[sd]|ing)?|` +
    String.raw`regressions?|errors?|erroneous(?:ly)?|broken|incorrect(?:ly)?|wrong(?:ly)?|` +
    String.raw`exceptions?|fail(?:s|ed|ing|ures?)?|hang(?:s|ing)?|leak(?:s|ing)?|mistakes?)\b`,
  "i",
);

/** True when a title (or a branch name) reads like a fix: fix, bug, crash, regression, ... */
export function readsLikeFix(title: string): boolean {
  return FIX_WORDS.test(title.replace(/[_]+/g, " "));
}

/** True for `Revert "..."` commits: undoing a fix is not a fix. */
export function isRevert(title: string): boolean {
  return /^revert\b/i.test(title.trim());
}

/** A change's message, split the way a reviewer would read it. */
export interface ChangeText {
  /** The title: the first line, or a pull request's title for its merge commit. */
  title: string;
  /** The rest of the message (a pull request's description for its merge commit). */
  body: string;
  /** The pull request a GitHub merge commit merged. */
  pullRequest?: number;
  /** The merged branch, for merge commits that name one. */
  branch?: string;
}

const GITHUB_MERGE = /^Merge pull request #(\d+) from ([^\s]+)\s*$/;
const BRANCH_MERGE = /^Merge (?:remote-tracking )?branch '([^']+)'/;

/**
 * Split a commit message into title and body. For a GitHub merge commit ("Merge pull request #N
 * from owner/branch") the title is the first line of the body, where GitHub writes the pull
 * request's title.
 */
export function changeText(message: string): ChangeText {
  const normalised = message.replace(/\r\n?/g, "\n");
  const [subject = "", ...rest] = normalised.split("\n");
  const body = rest.join("\n").replace(/^\n+/, "").trimEnd();
  const github = subject.match(GITHUB_MERGE);
  if (github) {
    const lines = body.split("\n");
    const title = lines[0]?.trim() ?? "";
    const branch = github[2].includes("/")
      ? github[2].slice(github[2].indexOf("/") + 1)
      : github[2];
    return {
      title: title || subject.trim(),
      body: lines.slice(1).join("\n").replace(/^\n+/, "").trimEnd(),
      pullRequest: Number(github[1]),
      branch,
    };
  }
  const local = subject.match(BRANCH_MERGE);
  if (local) return { title: subject.trim(), body, branch: local[1] };
  return { title: subject.trim(), body };
}

/** True when a change's title, or the branch it merged, reads like a fix. */
export function changeReadsLikeFix(text: ChangeText): boolean {
  if (isRevert(text.title)) return false;
  return readsLikeFix(text.title) || (text.branch !== undefined && readsLikeFix(text.branch));
}
