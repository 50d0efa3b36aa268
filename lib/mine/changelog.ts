/**
 * What a change's own changelog entry says it is: a towncrier-style fragment whose name gives its
 * type (`changelog/1234.bugfix.rst`, `newsfragments/99.feature.md`), or lines added to a
 * `CHANGES` / `CHANGELOG` / `HISTORY` / `NEWS` file under a section such as "Bug fixes" or
 * "Features".
 *
 * Pure functions; no permissions needed.
 *
 * @module
 */

/** What a changelog entry says a change is. */
export type ChangeKind = "bug" | "feature";

const FRAGMENT_DIRS =
  /(?:^|\/)(?:changelog|changelog\.d|changes|newsfragments|news|\.changelog|\.changes|changelogs|unreleased|release-notes|whatsnew\/fragments)\//i;
const FRAGMENT_NAME = /^(?:[\w.+-]*?[-_.])?([a-z]+)(?:\.\d+)?(?:\.(?:rst|md|txt|markdown))?$/i;

const BUG_TYPES = new Set([
  "bugfix",
  "bugfixes",
  "bug",
  "bugs",
  "fix",
  "fixes",
  "fixed",
  "crash",
  "false_positive",
  "false_negative",
  "regression",
]);
const FEATURE_TYPES = new Set([
  "feature",
  "features",
  "feat",
  "added",
  "addition",
  "enhancement",
  "enhancements",
  "improvement",
  "improvements",
  "new",
  "new_check",
]);

/**
 * The type a changelog fragment's path names (`changelog/12.bugfix.rst` → bug,
 * `changes/+foo.feature.md` → feature), or undefined for other files and other types (doc, misc,
 * removal, ...).
 */
export function fragmentKind(path: string): ChangeKind | undefined {
  if (!FRAGMENT_DIRS.test(path)) return undefined;
  const name = path.slice(path.lastIndexOf("/") + 1);
  const parts = name.toLowerCase().replace(/\.(?:rst|md|txt|markdown)$/, "").split(".");
  // `<issue>.<type>[.<n>]`: the type is the part after the first, skipping a trailing counter.
  const candidates = parts.slice(1).filter((p) => !/^\d+$/.test(p));
  const type = candidates[0] ?? (FRAGMENT_NAME.exec(name)?.[1] ?? "").toLowerCase();
  if (BUG_TYPES.has(type)) return "bug";
  if (FEATURE_TYPES.has(type)) return "feature";
  return undefined;
}

const CHANGELOG_WORDS = /change|news|history|release|unreleased|whats/i;

/** A quick look at a path: could it be a changelog fragment or file at all? */
export function mayBeChangelog(path: string): boolean {
  return CHANGELOG_WORDS.test(path);
}

/** True for a project's changelog file (`CHANGES.rst`, `docs/changelog.md`, `HISTORY`, ...). */
export function isChangelogFile(path: string): boolean {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return /^(?:changes|changelog|change_log|history|news|release[-_]?notes|whatsnew|whats[-_]new)(?:\.(?:rst|md|txt|markdown))?$/i
    .test(name);
}

/** Section headings that name bug fixes: "Bug fixes", "Bugfixes", "Fixed", "Fixes for ...". */
const BUG_HEADING =
  /^(?:bug\s*-?\s*fix(?:es)?|bugs?(?:\s+fixed)?|fix(?:es|ed)?|fixes\s+(?:and\s+\w+|for\b.*|to\b.*|in\b.*)|(?:other\s+|minor\s+|important\s+)?bug\s*-?\s*fix(?:es)?\b.*|security(?:\s+fixes)?|regressions?(?:\s+fixed)?)$/i;
/** Section headings that name features: "Features", "Added", "Enhancements", "New ...". */
const FEATURE_HEADING =
  /^(?:(?:new\s+|major\s+|minor\s+)?features?(?:\s+added)?|added|additions?|enhancements?|improvements?|new(?:\s+\w+)?|what'?s\s+new)$/i;
/** The start of a version's notes: "1.2.0 (2024-01-01)", "Version 2.0", "Unreleased". */
const VERSION_LINE = /\bv?\d+\.\d+(?:\.\d+)?\b|^unreleased\b|^in development\b/i;

function headingText(line: string): string {
  return line.trim()
    .replace(/^#+\s*/, "")
    .replace(/^[-*]\s+/, "")
    .replace(/^\*\*(.*)\*\*$/, "$1")
    .replace(/[:*]+$/, "")
    .replace(/^\*\*|\*\*$/g, "")
    .trim();
}

/** An underline of a reStructuredText or setext heading (`-----`, `=====`, `~~~~`). */
const UNDERLINE = /^([-=~^*+#"'`])\1{2,}\s*$/;

/**
 * Whether line `n` of `lines` is a heading by its shape: `## Heading`, a line underlined by the
 * next one, `**Heading**`, or a short line of its own ending in a colon (`Bugfixes:`), not an
 * entry of a list.
 */
function isHeading(lines: readonly string[], n: number): boolean {
  const line = lines[n];
  const text = line.trim();
  if (!text || UNDERLINE.test(text)) return false;
  if (/^#{1,6}\s+\S/.test(text)) return true;
  const next = lines[n + 1]?.trim() ?? "";
  if (UNDERLINE.test(next) && next.length >= Math.min(text.length, 3) && !/^\s/.test(line)) {
    return true;
  }
  if (/^(?:\*\*|__)[^*_]{2,80}(?:\*\*|__):?$/.test(text)) return true;
  return /^[A-Z][^.!?]{1,80}:$/.test(text) && !/^\s/.test(line);
}

/**
 * What the heading at line `n` says its section holds: bug fixes, features, the start of a
 * version's notes, or nothing known ("Behavior changes", "Deprecations"); undefined when the line
 * is no heading at all.
 */
function kindOfHeading(
  lines: readonly string[],
  n: number,
): ChangeKind | "version" | "other" | undefined {
  const line = lines[n];
  const text = headingText(line);
  const heading = isHeading(lines, n);
  if (text.length < 60 && VERSION_LINE.test(text) && !/^[-*]\s/.test(line.trim())) {
    return "version";
  }
  if (!heading && !/^[-*]\s+\*\*/.test(line.trim())) return undefined;
  if (BUG_HEADING.test(text)) return "bug";
  if (FEATURE_HEADING.test(text)) return "feature";
  return heading ? "other" : undefined;
}

/** A list item that names the section of the list nested under it: `- Bugfixes:`. */
const LIST_HEADING = /^[-*+]\s+(?:\*\*)?([A-Za-z][\w /&-]{1,40}?)(?:\*\*)?:(?:\*\*)?$/;

function indentOf(line: string): number {
  return line.match(/^[ \t]*/)![0].length;
}

/** What a section's title says it holds, when it names bug fixes or features. */
function kindOfTitle(title: string): ChangeKind | undefined {
  if (BUG_HEADING.test(title)) return "bug";
  if (FEATURE_HEADING.test(title)) return "feature";
  return undefined;
}

/** An entry that says it breaks something: "**Potentially breaking**: ...", "BREAKING: ...". */
const BREAKING =
  /^\s*(?:[-*+]\s+|\d+\.\s+)?(?:\*\*|__)?(?:potentially\s+)?breaking(?:\s+change)?\b/i;

function kindOfEntry(line: string): ChangeKind | undefined {
  const text = line.trim().replace(/^[-*+]\s+|^\d+\.\s+/, "").replace(/^:\w+:`[^`]*`\s*:?\s*/, "");
  if (/^(?:\[?bug\s*-?\s*fix\]?|fix(?:e[sd])?|bug)\b/i.test(text)) return "bug";
  if (
    /^(?:\[?feature\]?|add(?:s|ed)?|new|support(?:s|ed)?|allow(?:s|ed)?|implement(?:s|ed)?)\b/i
      .test(text)
  ) {
    return "feature";
  }
  // A changelog without sections (pallets' projects) says what now works: words of a mended
  // behaviour make the entry a fix ("is no longer incorrectly folded", "fixes a crash").
  if (MENDED.test(text) && !/^\.\.\s/.test(text)) return "bug";
  return undefined;
}

/**
 * Words of an entry that describe behaviour put right: "is no longer incorrectly folded", "now
 * correctly overrides", "is hashable again", "no longer silently drops", "fixes a crash".
 */
const MENDED = new RegExp(
  String.raw`\b(?:(?:in)?correctly|properly|again|no longer (?:silently|wrongly|erroneously|` +
    String.raw`accidentally|mistakenly|unexpectedly)|fix(?:e[sd])?|bugs?|regression|` +
    String.raw`crash(?:e[sd]|ing)?)\b`,
  "i",
);

/** What the lines a change added to a changelog file say, and what decided. */
export interface ChangelogReading {
  /** Bug fix or feature; absent when the added lines say nothing, or say both. */
  kind?: ChangeKind;
  /** The heading of the section that decided, without its markup (`Bug fixes`, `Features`). */
  heading?: string;
  /** The first added entry that decided, or else the first added line, trimmed. */
  entry?: string;
}

/**
 * What the lines a change added to a changelog file say: the kinds of the sections they sit in
 * ("Bug fixes", "Features", "Fixed", "Added", ...), or, in a changelog without such sections,
 * what each added entry starts with ("Fix ...", "Add ..."). Undefined when the added lines say
 * nothing, or say both.
 */
export function changelogKind(before: string, after: string): ChangeKind | undefined {
  return readChangelog(before, after).kind;
}

/**
 * {@linkcode changelogKind}, with the heading and the entry that decided (to say why a change
 * was left out, or kept).
 */
export function readChangelog(before: string, after: string): ChangelogReading {
  // A changelog is long and a change adds a few lines: split only the lines from the top of the
  // file to the end of what changed (the headings above an entry are all that is read).
  const a = before.includes("\r") ? before.replace(/\r\n?/g, "\n") : before;
  const b = after.includes("\r") ? after.replace(/\r\n?/g, "\n") : after;
  let first = 0;
  const shorter = Math.min(a.length, b.length);
  while (first < shorter && a.charCodeAt(first) === b.charCodeAt(first)) first++;
  let last = 0;
  while (
    last < shorter - first &&
    a.charCodeAt(a.length - 1 - last) === b.charCodeAt(b.length - 1 - last)
  ) last++;
  const start = b.lastIndexOf("\n", first - 1) + 1;
  const endAt = b.indexOf("\n", b.length - last);
  const end = endAt < 0 ? b.length : endAt;
  const nextLine = b.indexOf("\n", end + 1);
  const now = b.slice(0, nextLine < 0 ? b.length : nextLine).split("\n");
  const top = b.slice(0, start).split("\n").length - 1;
  const bottomLine = b.slice(0, end).split("\n").length;
  const oldStart = a.lastIndexOf("\n", first - 1) + 1;
  const oldEndAt = a.indexOf("\n", a.length - last);
  const oldLines = a.slice(oldStart, oldEndAt < 0 ? a.length : oldEndAt).split("\n");
  const oldSet = new Set(oldLines);
  // A line whose words were there before (markup or punctuation edited, an entry wrapped anew)
  // is no new entry.
  const words = (line: string) => line.toLowerCase().replace(/[^a-z0-9]+/g, "");
  const oldWords = new Set(oldLines.map(words));
  const oldText = oldLines.map(words).join("");
  const edited = (line: string) => {
    const w = words(line);
    return oldWords.has(w) || (w.length >= 12 && oldText.includes(w));
  };
  const added: number[] = [];
  for (let n = top; n < bottomLine; n++) {
    if (now[n]?.trim() && !oldSet.has(now[n]) && !edited(now[n])) added.push(n);
  }
  if (added.length === 0) return {};
  // Headings the change added (a new version's, a new section's) are no entries.
  const entries = added.filter((n) =>
    !UNDERLINE.test(now[n].trim()) && kindOfHeading(now, n) === undefined
  );
  const kinds = new Set<ChangeKind>();
  let decided: { heading?: string; entry: string } | undefined;
  for (const n of entries.length ? entries : added) {
    // The nearest heading above the entry decides; one it does not know ends the search.
    let section: ChangeKind | "other" | undefined;
    let at = -1;
    let indent = indentOf(now[n]);
    let level = 7;
    for (let k = n - 1; k >= 0; k--) {
      // An entry of a list nested under an item that names a section ("- Bugfixes:", gitlint);
      // an item of other words ("- Parsing:") may be an entry's own start: read on above it.
      if (indent > 0 && now[k].trim() && indentOf(now[k]) < indent) {
        indent = indentOf(now[k]);
        const named = kindOfTitle(now[k].trim().match(LIST_HEADING)?.[1] ?? "");
        if (named) {
          section = named;
          at = k;
          break;
        }
      }
      const heading = kindOfHeading(now, k);
      if (heading === "version") break;
      if (!heading) continue;
      // Markdown says which section holds which: a subsection of other words ("#### CLI" under
      // "### Bug fixes") leaves the decision to the section above it, and a heading as deep as
      // one passed already is a sibling's.
      const depth = now[k].match(/^\s*(#{1,6})\s/)?.[1].length ?? 0;
      if (depth && depth >= level) continue;
      section = heading;
      at = k;
      if (heading !== "other" || !depth) break;
      level = depth;
    }
    // A breaking change is no bug fix, whatever section it sits in.
    const kind = BREAKING.test(now[n])
      ? "feature"
      : section === "other"
      ? undefined
      : section ?? kindOfEntry(now[n]);
    if (!kind) continue;
    kinds.add(kind);
    decided ??= {
      entry: now[n].trim(),
      ...(section && !BREAKING.test(now[n]) ? { heading: headingText(now[at]) } : {}),
    };
  }
  if (kinds.size !== 1) {
    // The entry to quote: the first that starts an item of a list, not a wrapped line's rest.
    const item = entries.find((n) => /^\s*(?:[-*+]|\d+\.)\s/.test(now[n]));
    return { entry: now[item ?? entries[0] ?? added[0]].trim() };
  }
  return { kind: [...kinds][0], ...decided };
}
