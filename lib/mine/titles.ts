/**
 * Reading a change's message: does its title read like a fix, and what is the title at all (a
 * pull request's merge commit carries the pull request's title in its body).
 *
 * Pure functions; no permissions needed.
 *
 * @module
 */

/** Words that name a bug whatever surrounds them. */
const STRONG = new RegExp(
  String.raw`\b(?:fix(?:e[sd]|ing)?|bug(?:s|fix(?:es)?)?|hotfix(?:es)?|crash(?:e[sd]|ing)?|` +
    String.raw`regressions?|erroneous(?:ly)?|broken|incorrect(?:ly)?|wrong(?:ly)?)\b`,
  "i",
);

/**
 * Words that name a bug only when they describe something going wrong ("error when ...", "fails
 * on ...", "avoid an exception"), not a feature about errors ("Add error handling", "Improve
 * error messages"). Exception class names (`TypeError when ...`) count as such words.
 */
const WEAK = String.raw`(?:errors?|exceptions?|\w+(?:Error|Exception)|fail(?:s|ed|ing|ures?)?|` +
  String.raw`hang(?:s|ing)?|leak(?:s|ing)?|mistakes?)`;
const PROBLEM = new RegExp(
  String.raw`\b${WEAK}\s+(?:\w+\s+)?(?:when|on|with|in|if|while|for|during|after|from|at|` +
    String.raw`under|because|due)\b|\b(?:avoid|prevent|handle|don'?t|do\s+not|never|no\s+longer|` +
    String.raw`stop|suppress)\s+(?:\w+\s+){0,3}${WEAK}\b|\b(?:fails?|failing|hangs?|hanging|` +
    String.raw`leaks?|leaking)\s*$`,
  "i",
);

/** Titles that start by saying they add or improve something are features, error words or not. */
const FEATURE_START =
  /^\s*(?:\w+(?:\([^)]*\))?:\s*)?(?:add(?:s|ed)?|allow(?:s|ed)?|support(?:s|ed)?|implement(?:s|ed)?|introduce[sd]?|improve[sd]?|enable[sd]?|expose[sd]?|provide[sd]?|better|clearer|new|more|raise|feat(?:ure)?)\b/i;

/** A title without what is code: backtick spans, and identifiers (`snake_case`, `camelCase`, `a.b`). */
export function proseOf(title: string): string {
  return title
    .replace(/`[^`]*`/g, " ")
    .replace(/\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b(?:\(\))?/g, " ")
    .replace(/\b\w*_\w*\b(?:\(\))?/g, " ")
    .replace(/\b[a-z]+[A-Z]\w*\b(?:\(\))?/g, " ");
}

/**
 * True when a title reads like a fix: a fix word in its prose (fix, bug, crash, regression, ...),
 * or an error word describing something going wrong. Words inside identifiers or backticks do not
 * count (`catch_exceptions` says nothing about a bug). A title that is one token (a branch name,
 * `fix-restock-zero`) is read with its `-` and `_` as spaces.
 */
export function readsLikeFix(title: string): boolean {
  const text = /^\S+$/.test(title.trim()) ? title.replace(/[-_/]+/g, " ") : proseOf(title);
  if (STRONG.test(text)) return true;
  return !FEATURE_START.test(text) && PROBLEM.test(text);
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
  return readsLikeFix(text.title) ||
    (text.branch !== undefined && readsLikeFix(text.branch.replace(/[-_/]+/g, " ")));
}
