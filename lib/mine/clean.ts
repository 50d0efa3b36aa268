/**
 * Clean a problem statement so it describes the problem without its answer: sections in which an
 * author describes their fix (Solution, Proposed fix, Changes, Implementation, ...), diff and patch
 * code blocks, HTML comments, pull-request checklists and commit trailers are removed.
 *
 * Pure functions; no permissions needed.
 *
 * @module
 */

/** Headings of sections that describe a fix rather than the problem. */
const FIX_HEADING = new RegExp(
  "^(?:" +
    [
      "solutions?",
      "(?:the |my |our |possible |suggested |proposed |potential )?(?:fix|fixes|solution|patch|change|changes)(?: proposal| proposed| made| description| summary)?",
      "proposed (?:changes?|fix|solution|implementation|approach)",
      "suggested (?:changes?|fix|solution|implementation)",
      "implementation(?: details| notes)?",
      "(?:technical )?approach",
      "how (?:(?:was )?(?:it|this) (?:was )?(?:fixed|solved|implemented)|to fix(?: it)?|it works|i fixed it|this works)",
      "what (?:does )?(?:this|the) (?:pr|pull request|change|patch)(?: do| does| change| changes)?",
      "what (?:i|we) (?:did|changed)",
      "description of (?:the )?changes?",
      "(?:summary of )?changes?(?: in this (?:pr|pull request))?",
      "this (?:pr|pull request)",
      "(?:pr|pull request) (?:description|summary|checklist)",
      "checklist",
      "(?:how (?:has this been|was this) )?tested(?: by)?",
      "testing(?: done| performed| notes)?",
      "test plan",
    ].join("|") +
    ")$",
  "i",
);

/** A line that starts a section: `## Heading`, `**Heading**`, `Heading:` alone, or underlined. */
function headingOf(
  line: string,
  next: string | undefined,
): { text: string; level: number } | undefined {
  const atx = line.match(/^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/);
  if (atx) return { text: atx[2], level: atx[1].length };
  const bold = line.match(/^\s*(?:\*\*|__)([^*_]+?)(?:\*\*|__)\s*:?\s*$/);
  if (bold) return { text: bold[1], level: 7 };
  const colon = line.match(/^\s*([A-Za-z][\w /'-]{1,60}):\s*$/);
  if (colon) return { text: colon[1], level: 7 };
  if (next !== undefined && line.trim() && /^\s*(=+|-+)\s*$/.test(next)) {
    return { text: line.trim(), level: next.trim().startsWith("=") ? 1 : 2 };
  }
  return undefined;
}

function normaliseHeading(text: string): string {
  return text.replace(/[*_`:.!?]+/g, " ").replace(/^[^\w]+/, "").replace(/\s+/g, " ").trim();
}

/** True when a section heading names a description of the fix. */
export function isFixHeading(text: string): boolean {
  return FIX_HEADING.test(normaliseHeading(text));
}

const DIFF_LINE =
  /^(?:diff --git |--- a\/|\+\+\+ b\/|@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@|index [0-9a-f]+\.\.)/;

/** True when a fenced block's info string or content says it is a diff or a patch. */
function isDiffBlock(info: string, content: string[]): boolean {
  if (/^(?:diff|patch|udiff)\b/i.test(info.trim())) return true;
  const lines = content.filter((l) => l.trim());
  const diffLike = lines.filter((l) => DIFF_LINE.test(l)).length;
  const signed = lines.filter((l) => /^[+-]/.test(l)).length;
  return diffLike >= 2 || (diffLike >= 1 && signed >= lines.length / 2);
}

/** Remove `<!-- ... -->` comments, including unterminated ones at the end. */
export function stripHtmlComments(text: string): string {
  return text.replace(/<!--[\s\S]*?(?:-->|$)/g, "");
}

/** Remove fenced code blocks that hold a diff or a patch. */
export function stripDiffBlocks(text: string): string {
  const lines = text.split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = lines[i].match(/^\s{0,3}(`{3,}|~{3,})(.*)$/);
    if (!open) {
      out.push(lines[i]);
      continue;
    }
    const fence = open[1];
    let end = i + 1;
    while (end < lines.length && !lines[end].trimStart().startsWith(fence)) end++;
    const content = lines.slice(i + 1, end);
    if (!isDiffBlock(open[2], content)) {
      out.push(...lines.slice(i, Math.min(end + 1, lines.length)));
    }
    i = end;
  }
  return out.join("\n");
}

/** Remove sections whose heading describes the fix, up to the next heading of the same level. */
export function stripFixSections(text: string): string {
  const lines = text.split("\n");
  const out: string[] = [];
  let skipping: number | undefined;
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fenceMark = line.match(/^\s{0,3}(`{3,}|~{3,})/);
    if (fence) {
      if (fenceMark && fenceMark[1].startsWith(fence)) fence = undefined;
      if (skipping === undefined) out.push(line);
      continue;
    }
    if (fenceMark) fence = fenceMark[1][0].repeat(3);
    const heading = fenceMark ? undefined : headingOf(line, lines[i + 1]);
    if (heading) {
      if (skipping !== undefined && heading.level <= skipping) skipping = undefined;
      if (skipping === undefined && isFixHeading(heading.text)) {
        skipping = heading.level;
        if (/^\s*(=+|-+)\s*$/.test(lines[i + 1] ?? "") && heading.level <= 2) i++;
        continue;
      }
    }
    if (skipping === undefined) out.push(line);
  }
  return out.join("\n");
}

const TRAILER =
  /^(?:Signed-off-by|Co-authored-by|Reviewed-by|Acked-by|Tested-by|Reported-by|Change-Id|Cc):/i;
const REFERENCE_ONLY =
  /^\s*(?:[-*]\s*)?(?:(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?|refs?|see|related(?: to)?)\s*:?\s*)?(?:(?:[\w.-]+\/[\w.-]+)?#\d+|gh-\d+|https?:\/\/\S+\/(?:issues|pulls?)\/\d+)(?:\s*(?:,|and)\s*(?:(?:[\w.-]+\/[\w.-]+)?#\d+|gh-\d+|https?:\/\/\S+\/(?:issues|pulls?)\/\d+))*\s*\.?\s*$/i;
const CHECKBOX = /^\s*[-*]\s+\[[ xX]\]\s/;

/**
 * Clean an issue's, a pull request's or a commit's text for use as a problem statement. Keeps
 * the problem, its reproduction and expected behaviour; drops whatever describes the fix.
 */
export function cleanStatement(text: string | null | undefined): string {
  if (!text) return "";
  let body = text.replace(/\r\n?/g, "\n");
  body = stripHtmlComments(body);
  body = stripDiffBlocks(body);
  body = stripFixSections(body);
  const lines = body.split("\n").filter((line) =>
    !TRAILER.test(line) && !REFERENCE_ONLY.test(line) && !CHECKBOX.test(line)
  );
  return lines.join("\n").replace(/[ \t]+$/gm, "").replace(/\n{3,}/g, "\n\n").trim();
}

/** A statement from a title and a body: the title on its own line, then the cleaned body. */
export function composeStatement(title: string, body: string | null | undefined): string {
  const cleaned = cleanStatement(body);
  return cleaned ? `${title.trim()}\n\n${cleaned}` : title.trim();
}

const REF = String.raw`(?:(?:[\w.-]+\/[\w.-]+)?#\d+|gh-\d+|https?:\/\/\S+\/(?:issues|pulls?)\/\d+)`;
const REF_KEYWORD = String
  .raw`(?:(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?|refs?|see|for|issues?)\s*:?\s*)`;
const TITLE_REFERENCES = new RegExp(
  String.raw`\s*[([]\s*${REF_KEYWORD}?${REF}(?:\s*(?:,|and|&)\s*${REF})*\s*[)\]]|` +
    String.raw`\s*(?:\b(?:close[sd]?|refs?|see|issues?)\s*:?\s*)?${REF}`,
  "gi",
);
const FIX_PREFIX = /^\s*\[?(?:fix(?:e[sd])?|bug|bugfix|hotfix)\]?(?:\([^)]*\))?!?\s*:\s*/i;
const HOW_CLAUSE = new RegExp(
  String.raw`\s+(?:by\s+(?:\w+ing|using|not|no\s+longer|always|only)\b|via\s|using\s|` +
    String.raw`through\s+\w+ing\b|in\s+favou?r\s+of\s|instead\s+of\s+\w+ing\b).*$|\s*[;:]\s+` +
    String.raw`(?:use|add|move|call|check|pass|set|remove|replace|switch|make|return|skip|wrap|` +
    String.raw`handle|escape|normali[sz]e|ensure|don'?t|do\s+not)\b.*$|\s+[-—–]+\s+.*$`,
  "i",
);

/**
 * A problem statement from a change's title alone, for when no issue text can be read: what an
 * issue's title would say. References (`(#12)`, `Fixes #12`), a `fix:` prefix and a clause that
 * says how the fix works ("... by moving the call", "...; use a lock") are removed; the body,
 * which often describes the fix, is not used at all.
 */
export function titleStatement(title: string): string {
  let text = title.replace(TITLE_REFERENCES, " ").replace(FIX_PREFIX, "");
  text = text.replace(HOW_CLAUSE, "");
  text = text.replace(/\s+/g, " ").replace(/\s+([,.;:!?])/g, "$1").replace(/[\s,;:.-]+$/, "")
    .replace(/^[\s,;:.-]+/, "").replace(FIX_PREFIX, "").trim();
  if (!/[a-z]{3}.*\s\S/i.test(text)) return title.trim();
  return text[0].toUpperCase() + text.slice(1);
}
