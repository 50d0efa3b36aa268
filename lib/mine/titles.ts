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
  String.raw`\b(?:fix(?:es|ing)?|fixed(?![- ](?:number|size|width|length|point|format|version|` +
    String.raw`order|amount|seed|rate|offset|string|value|set|list|count|time|delay|height|` +
    String.raw`position|precision|window|line|header|footer|column|row|port|key|name|path)s?\b)|` +
    String.raw`bug(?:s|fix(?:es)?)?|hotfix(?:es)?|crash(?:e[sd]|ing)?|` +
    String.raw`regressions?|erroneous(?:ly)?|broken|incorrect(?:ly)?|wrong(?:ly)?)\b`,
  "i",
);

/**
 * Words that name a bug only when they describe something going wrong ("error when ...", "fails
 * on ...", "avoid an exception", Go's "don't panic on ..."), not a feature about errors ("Add
 * error handling", "Improve error messages"). Exception class names (`TypeError when ...`) count
 * as such words.
 */
const WEAK = String.raw`(?:errors?|exceptions?|\w+(?:Error|Exception)|fail(?:s|ed|ing|ures?)?|` +
  String.raw`hang(?:s|ing)?|leak(?:s|ing)?|mistakes?|panic(?:s|ked|king)?)`;
const WEAK_ONE = String.raw`(?:error|exception|\w+(?:Error|Exception)|fail(?:s|ed|ing|ure)?|` +
  String.raw`hang(?:s|ing)?|leak(?:s|ing)?|mistake|panic(?:s|ked|king)?)`;
const PROBLEM = new RegExp(
  // "Error when ...", "TypeError on ...", "fails with ...": one thing going wrong somewhere.
  String.raw`\b${WEAK_ONE}\s+(?:\w+\s+)?(?:when|on|with|in|if|while|for|during|after|from|at|` +
    String.raw`under|because|due)\b|` +
    // "errors when ...": plural only with a condition ("exceptions in X" is about handling them).
    String.raw`\b${WEAK}\s+(?:\w+\s+)?(?:when|if|while|during|after|because|due)\b|` +
    String.raw`\b(?:avoid|prevent|handle|don'?t|do\s+not|never|no\s+longer|stop|suppress)\s+` +
    String.raw`(?:\w+\s+){0,3}${WEAK}\b|\b(?:fails?|failing|hangs?|hanging|leaks?|leaking)\s*$`,
  "i",
);

/**
 * "Fix typos", "fix the docs", "fix flaky tests", "fix mypy": fix words about something other
 * than the code's behaviour. They are taken out of a title before it is read.
 */
const NOT_A_BUG = new RegExp(
  String.raw`\b(?:fix(?:e[sd]|ing)?|bug\s*fix(?:es)?|hotfix)\s*:?\s+(?:(?:a|an|the|some|more|` +
    String.raw`minor|small|few|several|various|all|two|broken|failing|flaky|incorrect|wrong|` +
    String.raw`outdated|bad|over-specified|unstable|intermittent|existing|remaining|misc|` +
    String.raw`miscellaneous|minor|more|other|obvious|code)\s+)*(?:typos|typo\s+in\s+(?:the\s+)?` +
    String
      .raw`(?:comments?|docs?|documentation|docstrings?|readme|changelog|tests?|examples?)|spelling|` +
    String.raw`grammar|wording|docs?|documentation|docstrings?|comments?|lint(?:ing)?|linters?|` +
    String.raw`flake8|pylint|mypy|ruff|black|isort|pre-commit|ci|builds?|tests?|test\s+suite|` +
    String.raw`testing|coverage|formatting|format|style|readme|changelog|type\s+(?:checking|` +
    String.raw`checks?)|warnings?|links?|examples?|badges?|release|packaging|setup\.py|tox|` +
    String.raw`workflows?|github\s+actions|benchmarks?)\b|\b(?:typos?|spelling|docs?|` +
    String.raw`documentation|docstrings?|comments?|lint|tests?|ci|mypy|formatting|style)\s+` +
    String.raw`fix(?:e[sd]|ing)?\b`,
  "gi",
);

/** "Fix issues found by flake8": what a linter reported is no bug of the code's behaviour. */
const FOUND_BY_LINTER = new RegExp(
  String.raw`\b(?:fix(?:e[sd]|ing)?\s+)?(?:\w+\s+){0,3}(?:found|reported|flagged)\s+by\s+` +
    String.raw`(?:flake8|pylint|mypy|ruff|codespell|bugbear|flake8-bugbear|pyflakes|pycodestyle|` +
    String.raw`lgtm|sonar\w*|pyupgrade|pyright|bandit|codeql|linters?)\b`,
  "gi",
);

/** Titles that start by saying they do something other than fix: for a fix named only by a branch. */
const NOT_FIX_START =
  /^\s*(?:\w+(?:\([^)]*\))?:\s*)?(?:refactor|rename|remove|deprecate|document|update|upgrade|bump|use|switch|migrate|drop|issue|emit|warn|log|export|convert|move|clean|tidy|simplify|optimi[sz]e|speed|test|docs?|ci|chore|style|typing|type)\b/i;

/** "closes #12", "resolves #3": name an issue, not a bug ("fixes #12" is a fix word of its own). */
const CLOSING_REFERENCE =
  /\b(?:close[sd]?|resolve[sd]?)\s*:?\s*(?:issues?\s*)?(?:[\w.-]+\/[\w.-]+)?#\d+/gi;

/** "error message", "exception handling": phrases about errors, not an error happening. */
const ABOUT_ERRORS =
  /\b(?:\w+Error|\w+Exception|errors?|exceptions?)\s+(?:messages?|text|handling|handlers?|reporting|class(?:es)?|types?|codes?|output|details?|hierarch(?:y|ies)|chain(?:ing|s)?|groups?|hooks?|callbacks?|pages?)\b/gi;

/** Titles that start by saying they add or improve something are features, error words or not. */
const FEATURE_START =
  /^\s*(?:\w+(?:\([^)]*\))?:\s*)?(?:add(?:s|ed)?|allow(?:s|ed)?|support(?:s|ed)?|implement(?:s|ed)?|introduce[sd]?|improve[sd]?|enable[sd]?|expose[sd]?|provide[sd]?|better|clearer|new|more|raise|feat(?:ure)?|clarif(?:y|ied|ies)|make\s+it\s+clear(?:er)?|emit\s+(?:a\s+)?(?:better|clearer|nicer|more))\b/i;

/** A title without what is code: backtick spans, and identifiers (`snake_case`, `camelCase`, `a.b`). */
export function proseOf(title: string): string {
  if (!/[`_.]|[a-z][A-Z]/.test(title)) return title;
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
  let text = /^\S+$/.test(title.trim()) ? title.replace(/[-_/]+/g, " ") : proseOf(title);
  if (/fix/i.test(text)) text = text.replace(NOT_A_BUG, " ");
  if (/(?:found|reported|flagged) by/i.test(text)) text = text.replace(FOUND_BY_LINTER, " ");
  // "Implement unzip (closes #239)": a closing keyword names the issue, not a bug.
  if (FEATURE_START.test(text)) text = text.replace(CLOSING_REFERENCE, " ");
  if (STRONG.test(text)) return true;
  if (!/error|exception|fail|hang|leak|mistake|panic/i.test(text)) return false;
  const problem = text.replace(ABOUT_ERRORS, " ");
  return !FEATURE_START.test(text) && PROBLEM.test(problem);
}

/**
 * The words of a title that say its fix is of something other than the code's behaviour ("fix
 * typos", "fix: CI workflow", "fix issues found by flake8"), if any: they outweigh a `fix:` type.
 */
export function fixesNoBug(title: string): string | undefined {
  const prose = proseOf(title);
  if (!/fix|found|reported|flagged/i.test(prose)) return undefined;
  return (prose.match(NOT_A_BUG) ?? prose.match(FOUND_BY_LINTER))?.[0].trim();
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
  /**
   * True when the title is a bare merge subject ("Merge pull request #29 from user/fix-types",
   * "Merge branch 'x'"): it says nothing of the change but the branch's name.
   */
  bare?: boolean;
}

const GITHUB_MERGE = /^Merge pull request #(\d+) from ([^\s]+)\s*$/;
const BRANCH_MERGE = /^Merge (?:remote-tracking )?branch '([^']+)'/;

/**
 * Split a commit message into title and body. For a GitHub merge commit ("Merge pull request #N
 * from owner/branch") the title is the first line of the body, where GitHub writes the pull
 * request's title.
 */
export function changeText(message: string): ChangeText {
  const normalised = message.includes("\r") ? message.replace(/\r\n?/g, "\n") : message;
  const eol = normalised.indexOf("\n");
  const subject = eol < 0 ? normalised : normalised.slice(0, eol);
  const body = eol < 0 ? "" : normalised.slice(eol + 1).replace(/^\n+/, "").trimEnd();
  if (subject.startsWith("Merge ")) {
    const github = subject.match(GITHUB_MERGE);
    if (github) {
      const end = body.indexOf("\n");
      const title = (end < 0 ? body : body.slice(0, end)).trim();
      const branch = github[2].includes("/")
        ? github[2].slice(github[2].indexOf("/") + 1)
        : github[2];
      return {
        title: title || subject.trim(),
        body: end < 0 ? "" : body.slice(end + 1).replace(/^\n+/, "").trimEnd(),
        pullRequest: Number(github[1]),
        branch,
        ...(title ? {} : { bare: true }),
      };
    }
    const local = subject.match(BRANCH_MERGE);
    if (local) return { title: subject.trim(), body, branch: local[1], bare: true };
  }
  // A subject wrapped onto the next lines with no blank line between (old Mercurial-era
  // commits: "fixed a problem with call blocks that\nhave an argument ... [#360]."): one title.
  const next = eol < 0 ? "" : normalised.slice(eol + 1);
  if (next && /^[a-z`(\[]/.test(next) && !/[.!?:)]\s*$/.test(subject)) {
    const end = next.search(/\n\s*\n|$/);
    const wrapped = next.slice(0, end).split("\n").slice(0, 3);
    const rest = next.slice(0, end).split("\n").slice(3).join("\n") + next.slice(end);
    return {
      title: [subject, ...wrapped].map((l) => l.trim()).join(" "),
      body: rest.replace(/^\n+/, "").trimEnd(),
    };
  }
  return { title: subject.trim(), body };
}

/**
 * True when a change's title, or the branch it merged, reads like a fix. A branch's name does not
 * make a fix of a title that says it adds something ("Add X" from `fix/x`).
 */
export function changeReadsLikeFix(text: ChangeText): boolean {
  if (isRevert(text.title)) return false;
  if (!text.bare && readsLikeFix(text.title)) return true;
  const title = proseOf(text.title);
  return text.branch !== undefined && !ADD_START.test(title) && !NOT_FIX_START.test(title) &&
    readsLikeFix(text.branch.replace(/[-_/]+/g, " "));
}

/**
 * Titles that say they add something: a branch's fix words do not make them fixes ("Add X" from
 * `fix/x`). Fewer than {@linkcode FEATURE_START}: "Raise GrammarError for ..." from
 * `fix/declare-rule-name-crash` is the fix of a crash.
 */
const ADD_START =
  /^\s*(?:\w+(?:\([^)]*\))?:\s*)?(?:add(?:s|ed)?|allow(?:s|ed)?|support(?:s|ed)?|implement(?:s|ed)?|introduce[sd]?|enable[sd]?|expose[sd]?|provide[sd]?|new|feat(?:ure)?)\b/i;

/** What a conventional-commit type (`fix:`, `feat(parser)!:`, `refactor:`) says a change is. */
export interface CommitType {
  /** The type as written, with its `!` (`feat!`). */
  type: string;
  /** A bug fix, a feature, or something else that fixes no bug (a refactor, docs, tests, ...). */
  says: "bug" | "feature" | "other";
}

const COMMIT_TYPE = /^\s*([A-Za-z]+)(?:\([^)]*\))?(!)?:\s+\S/;
const TYPE_SAYS: Record<string, CommitType["says"]> = {
  fix: "bug",
  fixes: "bug",
  fixed: "bug",
  bugfix: "bug",
  hotfix: "bug",
  bug: "bug",
  feat: "feature",
  feature: "feature",
  refactor: "other",
  chore: "other",
  docs: "other",
  doc: "other",
  test: "other",
  tests: "other",
  ci: "other",
  build: "other",
  style: "other",
  perf: "other",
  deps: "other",
  release: "other",
  wip: "other",
  typing: "other",
  types: "other",
  lint: "other",
};

/**
 * The conventional-commit type a title starts with, when it names one of the known types
 * (`fix`, `feat`, `refactor`, `chore`, `docs`, `test`, `perf`, ...); a component prefix such as
 * `parser: ...` is no type.
 */
export function commitType(title: string): CommitType | undefined {
  const m = title.match(COMMIT_TYPE);
  if (!m) return undefined;
  const says = TYPE_SAYS[m[1].toLowerCase()];
  return says ? { type: `${m[1].toLowerCase()}${m[2] ?? ""}`, says } : undefined;
}

/**
 * The words that kept a title from reading like a fix, in a few words (`"fix typos" fixes no
 * bug`, `starts with "Add"`); undefined when it simply has no fix word.
 */
export function notFixWords(text: ChangeText): string | undefined {
  if (text.bare) return "a bare merge subject";
  const prose = /^\S+$/.test(text.title.trim())
    ? text.title.replace(/[-_/]+/g, " ")
    : proseOf(text.title);
  // Cheap looks first: most titles are none of these.
  const phrase = /fix|found|reported|flagged/i.test(prose) ? fixesNoBug(prose) : undefined;
  if (phrase) return `"${phrase}" fixes no bug`;
  const start = prose.match(FEATURE_START);
  if (start) return `starts with "${start[0].trim()}"`;
  const about = /error|exception/i.test(prose) ? prose.match(ABOUT_ERRORS) : null;
  if (about) return `"${about[0]}" is about errors, not one`;
  return undefined;
}
