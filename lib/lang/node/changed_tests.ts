/**
 * The tests of a JS/TS test file, read statically: calls of `describe`/`suite`/`it`/`test`
 * (with `.only`, `.skip`, `.todo`, `.concurrent`, `.sequential`, `.fails`, `.skipIf(...)`,
 * `.runIf(...)`) whose name is a string literal or a template literal without substitutions, and
 * `t.test(...)` subtests inside a test (node). A computed name, `.each`/`.for` tables and
 * `test.extend` fixtures make the reading unsure: running the file decides.
 *
 * A test changed when the text of its call (name, options and body, whitespace aside) differs
 * from before, or it is new.
 *
 * Pure; no permissions.
 *
 * @module
 */

import type { FileTests } from "../types.ts";

type Token =
  | { kind: "id"; text: string; at: number }
  | { kind: "punct"; text: string; at: number }
  | { kind: "string"; value: string; at: number; end: number }
  | { kind: "template"; value: string | null; at: number; end: number }
  | { kind: "other"; at: number };

/** Keywords after which a `/` starts a regular expression, not a division. */
const BEFORE_REGEX = new Set(["return", "typeof", "case", "do", "else", "in", "of", "void"]);

/** Split source into tokens; throws on an unterminated string, comment or template. */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const n = source.length;
  const regexAllowed = () => {
    const last = tokens.at(-1);
    if (!last) return true;
    if (last.kind === "punct") return !")]}".includes(last.text);
    if (last.kind === "id") return BEFORE_REGEX.has(last.text);
    return false;
  };
  const readQuoted = (quote: string): { value: string; end: number } => {
    let value = "";
    let j = i + 1;
    while (j < n && source[j] !== quote) {
      if (source[j] === "\\") {
        const escaped = source[j + 1];
        value += { n: "\n", t: "\t", r: "\r" }[escaped] ?? escaped;
        j += 2;
        continue;
      }
      if (source[j] === "\n" && quote !== "`") throw new SyntaxError(`unterminated string at ${i}`);
      value += source[j++];
    }
    if (j >= n) throw new SyntaxError(`unterminated string at ${i}`);
    return { value, end: j + 1 };
  };
  while (i < n) {
    const c = source[i];
    if (/\s/.test(c)) {
      i++;
    } else if (c === "/" && source[i + 1] === "/") {
      const end = source.indexOf("\n", i);
      i = end < 0 ? n : end;
    } else if (c === "/" && source[i + 1] === "*") {
      const end = source.indexOf("*/", i + 2);
      if (end < 0) throw new SyntaxError(`unterminated comment at ${i}`);
      i = end + 2;
    } else if (c === "'" || c === '"') {
      const { value, end } = readQuoted(c);
      tokens.push({ kind: "string", value, at: i, end });
      i = end;
    } else if (c === "`") {
      const end = skipTemplate(source, i);
      const raw = source.slice(i + 1, end - 1);
      const simple = !/(^|[^\\])\$\{/.test(raw);
      tokens.push({
        kind: "template",
        value: simple ? raw.replace(/\\(.)/g, "$1") : null,
        at: i,
        end,
      });
      i = end;
    } else if (c === "/" && regexAllowed()) {
      let j = i + 1;
      let inClass = false;
      while (j < n && (inClass || source[j] !== "/")) {
        if (source[j] === "\\") j++;
        else if (source[j] === "[") inClass = true;
        else if (source[j] === "]") inClass = false;
        else if (source[j] === "\n") {
          throw new SyntaxError(`unterminated regular expression at ${i}`);
        }
        j++;
      }
      j++;
      while (j < n && /[a-z]/i.test(source[j])) j++;
      tokens.push({ kind: "other", at: i });
      i = j;
    } else if (/[A-Za-z_$]/.test(c)) {
      const m = /^[A-Za-z0-9_$]+/.exec(source.slice(i, i + 200))!;
      tokens.push({ kind: "id", text: m[0], at: i });
      i += m[0].length;
    } else if (/[0-9]/.test(c)) {
      const m = /^[0-9A-Za-z_.]+/.exec(source.slice(i, i + 100))!;
      tokens.push({ kind: "other", at: i });
      i += m[0].length;
    } else {
      tokens.push({ kind: "punct", text: c, at: i });
      i++;
    }
  }
  return tokens;
}

/** End (exclusive) of the template literal opened at `start`, nested substitutions included. */
function skipTemplate(source: string, start: number): number {
  let j = start + 1;
  while (j < source.length) {
    const c = source[j];
    if (c === "\\") j += 2;
    else if (c === "`") return j + 1;
    else if (c === "$" && source[j + 1] === "{") {
      // Skip the substitution as code, up to its matching brace.
      let depth = 1;
      j += 2;
      while (j < source.length && depth > 0) {
        const d = source[j];
        if (d === "`") {
          j = skipTemplate(source, j);
          continue;
        }
        if (d === "'" || d === '"') {
          j++;
          while (j < source.length && source[j] !== d) j += source[j] === "\\" ? 2 : 1;
        } else if (d === "{") depth++;
        else if (d === "}") depth--;
        j++;
      }
    } else j++;
  }
  throw new SyntaxError(`unterminated template literal at ${start}`);
}

const SUITES = new Set(["describe", "suite", "context"]);
const TESTS = new Set(["it", "test", "specify"]);
const MODIFIERS = new Set([
  "only",
  "skip",
  "todo",
  "concurrent",
  "sequential",
  "fails",
  "shuffle",
  "failing",
]);

/** One test or suite call found in a file. */
interface Found {
  /** Names from the outermost suite down. */
  path: string[];
  kind: "suite" | "test";
  /** The call's text, whitespace collapsed. */
  text: string;
}

interface Reading {
  found: Found[];
  unsure: string[];
}

/** Index of the token that closes the bracket opened at `open`, or -1. */
function matching(tokens: Token[], open: number): number {
  const pairs: Record<string, string> = { "(": ")", "[": "]", "{": "}" };
  const stack: string[] = [];
  for (let k = open; k < tokens.length; k++) {
    const t = tokens[k];
    if (t.kind !== "punct") continue;
    if (pairs[t.text]) stack.push(pairs[t.text]);
    else if (")]}".includes(t.text)) {
      if (stack.pop() !== t.text) return -1;
      if (stack.length === 0) return k;
    }
  }
  return -1;
}

function read(source: string): Reading {
  const tokens = tokenize(source);
  const found: Found[] = [];
  const unsure = new Set<string>();
  /** Open suites and tests: where each ends (token index) and its name (null when unknown). */
  const open: { end: number; name: string | null; kind: "suite" | "test" }[] = [];
  for (let k = 0; k < tokens.length; k++) {
    while (open.length && k > open.at(-1)!.end) open.pop();
    const t = tokens[k];
    if (t.kind !== "id") continue;
    const prev = tokens[k - 1];
    const afterDot = prev?.kind === "punct" && prev.text === ".";
    let kind: "suite" | "test" | undefined;
    if (SUITES.has(t.text) && !afterDot) kind = "suite";
    else if (TESTS.has(t.text) && !afterDot) kind = "test";
    else if (t.text === "test" && afterDot && open.at(-1)?.kind === "test") {
      // `t.test("sub", ...)` inside a test: a node subtest (`t` a plain name, not `a.t`).
      const obj = tokens[k - 2];
      const before = tokens[k - 3];
      if (obj?.kind === "id" && !(before?.kind === "punct" && before.text === ".")) kind = "test";
    }
    if (!kind) {
      if (
        t.text === "extend" && afterDot && TESTS.has((tokens[k - 2] as { text?: string }).text!)
      ) {
        unsure.add("test.extend makes tests under another name");
      }
      continue;
    }
    // The chain of modifiers up to the call's parenthesis.
    let j = k + 1;
    let table = false;
    let ok = true;
    while (j < tokens.length) {
      const u = tokens[j];
      if (u.kind === "punct" && u.text === "(") break;
      if (u.kind !== "punct" || u.text !== ".") {
        ok = false;
        break;
      }
      const m = tokens[j + 1];
      if (m?.kind !== "id") {
        ok = false;
        break;
      }
      if (m.text === "each" || m.text === "for") {
        table = true;
        const after = tokens[j + 2];
        if (after?.kind === "template") j += 3;
        else if (after?.kind === "punct" && after.text === "(") {
          const close = matching(tokens, j + 2);
          if (close < 0) {
            ok = false;
            break;
          }
          j = close + 1;
        } else {
          ok = false;
          break;
        }
      } else if (m.text === "skipIf" || m.text === "runIf") {
        const close = matching(tokens, j + 2);
        if (close < 0) {
          ok = false;
          break;
        }
        j = close + 1;
      } else if (MODIFIERS.has(m.text)) {
        j += 2;
      } else {
        ok = false;
        break;
      }
    }
    if (!ok || j >= tokens.length) continue;
    const close = matching(tokens, j);
    if (close < 0) throw new SyntaxError(`unbalanced call of ${t.text} at ${t.at}`);
    const first = tokens[j + 1];
    const afterFirst = tokens[j + 2];
    const literal =
      (first?.kind === "string" || (first?.kind === "template" && first.value !== null)) &&
      afterFirst?.kind === "punct" && (afterFirst.text === "," || afterFirst.text === ")");
    const name = literal ? (first as { value: string }).value : null;
    const parents = open.map((o) => o.name);
    if (table) {
      unsure.add(`${t.text}.each names its cases from a table`);
    } else if (name === null) {
      unsure.add(`a ${kind === "suite" ? "suite" : "test"} at offset ${t.at} has a computed name`);
    } else if (!parents.includes(null)) {
      const end = endOf(tokens[close]);
      found.push({
        path: [...(parents as string[]), name],
        kind,
        text: source.slice(t.at, end).replace(/\s+/g, " "),
      });
    }
    open.push({ end: close, name: table ? null : name, kind });
  }
  return { found, unsure: [...unsure] };
}

function endOf(token: Token): number {
  if (token.kind === "string" || token.kind === "template") return token.end;
  if (token.kind === "id") return token.at + token.text.length;
  return token.at + 1;
}

/** The id of a test: `file > describe > name`. */
export function testId(file: string, path: readonly string[]): string {
  return [file, ...path].join(" > ");
}

/**
 * The tests a change added or changed in one test file (`before` null: a new file). Tests are
 * calls whose name is literal; a suite is no test, but a test with subtests is.
 */
export function nodeChangedTests(path: string, before: string | null, after: string): FileTests {
  let now: Reading;
  try {
    now = read(after);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    return { error: `Cannot read ${path}: ${error.message}` };
  }
  let then: Reading = { found: [], unsure: [] };
  if (before !== null) {
    try {
      then = read(before);
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
      // Unreadable before: every test counts as changed.
    }
  }
  const old = new Map(
    then.found.filter((f) => f.kind === "test").map((f) => [testId(path, f.path), f.text]),
  );
  const tests: string[] = [];
  const changed: string[] = [];
  for (const f of now.found) {
    if (f.kind !== "test") continue;
    const id = testId(path, f.path);
    if (tests.includes(id)) continue;
    tests.push(id);
    if (old.get(id) !== f.text) changed.push(id);
  }
  return now.unsure.length ? { tests, changed, unsure: now.unsure.join("; ") } : { tests, changed };
}
