/**
 * Which of a change's new pytest tests can check nothing when run: always skipped
 * (`@pytest.mark.skip`, `@unittest.skip`, `pytest.skip(...)` first, on the test or its class), or
 * checking types only (`assert_type`, with no assertion of what runs). Read from the module's
 * text around each test only, stopping at the first test a run checks.
 *
 * Pure; no permissions needed.
 *
 * @module
 */

import type { TestMarks } from "../mining.ts";
import type { TestOutline } from "./outline.ts";

const SKIP_DECORATOR = /^\s*@(?:pytest\.mark\.skip|unittest\.skip|skip)\b(?!if|If|Unless)/;
const SKIP_FIRST = /^\s*(?:pytest\.skip|self\.skipTest|raise\s+(?:unittest\.)?SkipTest)\s*\(/;
const NONE: TestMarks = { skipped: [], typeOnly: [] };

function escape(name: string): string {
  return name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The lines of `text` just above offset `at` (nearest first), at most `max` of them. */
function linesAbove(text: string, at: number, max: number): string[] {
  const out: string[] = [];
  let end = at - 1;
  while (end > 0 && out.length < max) {
    const start = text.lastIndexOf("\n", end - 1) + 1;
    out.push(text.slice(start, end));
    end = start - 1;
  }
  return out;
}

/** The decorator lines right above the definition at offset `at`. */
function decorators(text: string, at: number): string[] {
  const found: string[] = [];
  for (const line of linesAbove(text, at, 12)) {
    if (/^\s*@/.test(line)) found.push(line);
    else if (!line.trim() || !/^\s*(?:[)\]},"'#]|\w+\s*=)/.test(line)) break;
  }
  return found;
}

/** The first lines of the body of the definition at offset `at` (those indented under it). */
function bodyOf(text: string, at: number, max = 80): string[] {
  const lineEnd = (from: number) => {
    const n = text.indexOf("\n", from);
    return n < 0 ? text.length : n;
  };
  let end = lineEnd(at);
  const indent = text.slice(at, end).search(/\S/);
  // The rest of a signature that spans lines.
  while (
    end < text.length && !/:\s*(#.*)?$/.test(text.slice(text.lastIndexOf("\n", end - 1) + 1, end))
  ) {
    end = lineEnd(end + 1);
  }
  const out: string[] = [];
  for (let from = end + 1; from < text.length && out.length < max;) {
    const to = lineEnd(from);
    const line = text.slice(from, to);
    if (line.trim() && line.search(/\S/) <= indent) break;
    if (line.trim() && !/^\s*(#|"""|''')/.test(line)) out.push(line);
    from = to + 1;
  }
  return out;
}

/** Where `def name` starts in `text` (after offset `after`), or -1. */
function definition(text: string, name: string, after: number): number {
  const re = new RegExp(String.raw`^[ \t]*(?:async[ \t]+)?def[ \t]+${escape(name)}[ \t]*\(`, "gm");
  re.lastIndex = after;
  return re.exec(text)?.index ?? -1;
}

/**
 * Of a test module's tests (`path::Class::name` ids), those skipped always and those typed only,
 * when every one is either (else none: the reading stops at the first test a run checks).
 */
export function pythonMarks(
  source: string,
  ids: readonly string[],
  outline?: TestOutline,
): TestMarks {
  // Most new tests check what runs: nothing to look for in a module without these words.
  if (!/skip|SkipTest|assert_type|reveal_type/.test(source)) return NONE;
  const text = source.includes("\r") ? source.replace(/\r\n?/g, "\n") : source;
  if (outline) return marksByOutline(text, ids, outline);
  const skipped: string[] = [];
  const typeOnly: string[] = [];
  for (const id of ids) {
    const parts = id.split("::").slice(1).map((p) => p.replace(/\[.*$/, ""));
    const name = parts.at(-1);
    if (!name) return NONE;
    const cls = parts.length > 1 ? parts[0] : undefined;
    const classAt = cls === undefined
      ? -1
      : text.search(new RegExp(String.raw`^[ \t]*class[ \t]+${escape(cls)}\b`, "m"));
    const at = definition(text, name, Math.max(0, classAt));
    if (at < 0) return NONE;
    const decorated = [...decorators(text, at), ...(classAt >= 0 ? decorators(text, classAt) : [])];
    const own = bodyOf(text, at);
    if (decorated.some((d) => SKIP_DECORATOR.test(d)) || SKIP_FIRST.test(own[0] ?? "")) {
      skipped.push(id);
      continue;
    }
    const code = own.join("\n");
    const typed = /\b(?:assert_type|reveal_type)\s*\(/.test(code) &&
      !/\bassert\s|\bself\.assert|pytest\.raises/.test(code);
    if (!typed) return NONE;
    typeOnly.push(id);
  }
  return { skipped, typeOnly };
}

/** The lines of `text` by number, each cut when first asked for. */
function lineReader(text: string): (n: number) => string {
  const starts = [0];
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) starts.push(at + 1);
  return (n) => {
    const from = starts[n];
    if (from === undefined) return "";
    const to = starts[n + 1];
    return text.slice(from, to === undefined ? text.length : to - 1);
  };
}

/** {@linkcode pythonMarks} with the module's outline, which says where each test's lines are. */
function marksByOutline(text: string, ids: readonly string[], outline: TestOutline): TestMarks {
  const line = lineReader(text);
  const byId = new Map(outline.tests.map((t) => [t.id, t]));
  const skipped: string[] = [];
  const typeOnly: string[] = [];
  for (const id of ids) {
    const test = byId.get(id.slice(id.indexOf("::") + 2).replace(/\[.*$/, ""));
    if (!test) return NONE;
    const { start, def, end } = test.span;
    const above: string[] = [];
    for (let n = start; n < def; n++) above.push(line(n));
    for (const h of test.headers) for (let n = h.start; n <= h.end; n++) above.push(line(n));
    const own: string[] = [];
    for (let n = def + 1; n <= end && own.length < 80; n++) {
      const l = line(n);
      if (l.trim() && !/^\s*(#|"""|\'\'\')/.test(l)) own.push(l);
    }
    if (above.some((d) => SKIP_DECORATOR.test(d)) || SKIP_FIRST.test(own[0] ?? "")) {
      skipped.push(id);
      continue;
    }
    const code = own.join("\n");
    const typed = /\b(?:assert_type|reveal_type)\s*\(/.test(code) &&
      !/\bassert\s|\bself\.assert|pytest\.raises/.test(code);
    if (!typed) return NONE;
    typeOnly.push(id);
  }
  return { skipped, typeOnly };
}
