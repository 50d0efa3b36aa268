/**
 * References to issues and pull requests in commit messages: `(#12)`, `Fixes #45`, `Closes issue
 * #226`, `Refs #379, #383`, `gh-7`, `owner/name#3` and full URLs such as
 * `https://github.com/owner/name/issues/12`.
 *
 * Pure functions; no permissions needed.
 *
 * @module
 */

/** A reference to an issue or pull request found in text. */
export interface Reference {
  /** `issue` or `pull` when the text says which; `unknown` for a bare `#N`. */
  kind: "issue" | "pull" | "unknown";
  /** The issue or pull request number. */
  number: number;
  /** True when a closing keyword precedes it (`Fixes #12`, `Closes: #3`, `resolves issue #4`). */
  closing: boolean;
  /** True when `Refs` or `References` precedes it: named as what the change is about. */
  cited?: boolean;
  /** The URL, when the reference was written as one. */
  url?: string;
  /** `owner/name` when the reference names a repository. */
  repo?: string;
}

// One reference token: a URL, `owner/name#N`, `#N`, or `gh-N`.
const TOKEN = new RegExp(
  [
    String
      .raw`(?<url>https?://[^\s/]+/(?<urlRepo>[\w.-]+/[\w.-]+)/(?<urlKind>issues|pulls?)/(?<urlNumber>\d+))`,
    String.raw`(?<![\w&/])(?:(?<repo>[\w.-]+/[\w.-]+))?#(?<number>\d+)\b`,
    String.raw`\b[gG][hH]-(?<gh>\d+)\b`,
  ].join("|"),
  "g",
);

// A keyword right before the token, possibly with the word "issue" and after other references in
// a list ("Fixes #1, #2 and #3", "Closes issue #226", "Refs #379, #383").
const LIST = String
  .raw`\s*:?\s*(?:(?:issues?|bugs?|tickets?)\s*)?(?:(?:\S*#\d+|\S+\/\d+|gh-\d+)\s*(?:,|and|&)?\s*(?:(?:issues?|bugs?|tickets?)\s*)?)*$`;
const CLOSING_BEFORE = new RegExp(
  String.raw`\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)` + LIST,
  "i",
);
const CITED_BEFORE = new RegExp(String.raw`\b(?:refs?|references?)` + LIST, "i");

const MAY_REFER = /#\d|gh-\d|\/(?:issues|pulls?)\/\d/i;
const KEYWORD = /close|fix|resolve|ref/i;

/** Every reference in `text`, in order of appearance. */
export function findReferences(text: string): Reference[] {
  const found: Reference[] = [];
  if (!MAY_REFER.test(text)) return found;
  for (const match of text.matchAll(TOKEN)) {
    const g = match.groups!;
    const before = text.slice(Math.max(0, match.index! - 80), match.index!);
    // Only a keyword makes a reference closing or cited: look for one before the slow patterns.
    const keyword = KEYWORD.test(before);
    const closing = keyword && CLOSING_BEFORE.test(before);
    const cited = keyword && !closing && CITED_BEFORE.test(before) ? { cited: true } : {};
    if (g.url) {
      found.push({
        kind: g.urlKind === "issues" ? "issue" : "pull",
        number: Number(g.urlNumber),
        closing,
        ...cited,
        url: g.url,
        repo: g.urlRepo,
      });
    } else if (g.number) {
      found.push({
        kind: "unknown",
        number: Number(g.number),
        closing,
        ...cited,
        ...(g.repo ? { repo: g.repo } : {}),
      });
    } else if (g.gh) {
      found.push({ kind: "issue", number: Number(g.gh), closing, ...cited });
    }
  }
  return found.filter((ref) => ref.number > 0);
}

/** Closing references (`Fixes #12`) in a body, for a pull request's linked issues. */
export function closingReferences(text: string): Reference[] {
  return findReferences(text).filter((ref) => ref.closing);
}

/**
 * Keep references to this repository: those naming no repository, or naming `slug` (compared
 * case-insensitively). When `slug` is unknown, references naming another repository by
 * `owner/name#N` are dropped but URLs are kept (a self-hosted forge has URLs of its own).
 */
export function ownReferences(refs: Reference[], slug: string | undefined): Reference[] {
  return refs.filter((ref) => {
    if (!ref.repo) return true;
    if (slug) return ref.repo.toLowerCase() === slug.toLowerCase();
    return ref.url !== undefined;
  });
}

/**
 * The reference a change is about. In order: an issue it says it closes; a reference in its
 * title; a pull request it says it closes; an issue it cites (`Refs #12`); the pull request it
 * merged. Other references in a body ("see #5", "related to #6") do not count.
 */
export function primaryReference(
  title: string,
  body: string,
  options: { slug?: string; pullRequest?: number } = {},
): Reference | undefined {
  const titleRefs = ownReferences(findReferences(title), options.slug);
  const bodyRefs = ownReferences(findReferences(body), options.slug);
  const closing = [...titleRefs, ...bodyRefs].find((ref) => ref.closing && ref.kind !== "pull");
  if (closing) return closing;
  const inTitle = titleRefs.find((ref) => ref.number !== options.pullRequest) ?? titleRefs[0];
  if (inTitle) return inTitle;
  const closingPull = bodyRefs.find((ref) => ref.closing);
  if (closingPull) return closingPull;
  const cited = bodyRefs.find((ref) => ref.cited);
  if (cited) return cited;
  if (options.pullRequest) {
    return { kind: "pull", number: options.pullRequest, closing: false };
  }
  return undefined;
}
