/**
 * Which of a change's new pytest tests can check nothing when run: always skipped
 * (`@pytest.mark.skip`, `@unittest.skip`, `pytest.skip(...)` first, on the test or its class), or
 * checking types only (`assert_type`, with no assertion of what runs).
 *
 * Pure; no permissions needed.
 *
 * @module
 */

import type { TestMarks } from "../mining.ts";

const SKIP_DECORATOR = /^\s*@(?:pytest\.mark\.skip|unittest\.skip|skip)\b(?!if|If|Unless)/;
const SKIP_FIRST = /^\s*(?:pytest\.skip|self\.skipTest|raise\s+(?:unittest\.)?SkipTest)\s*\(/;

/** The line where `def name` (inside `class`, when given) starts, or -1. */
function definition(lines: readonly string[], name: string, inClass?: string): number {
  let from = 0;
  if (inClass) {
    from = lines.findIndex((l) => new RegExp(String.raw`^\s*class\s+${inClass}\b`).test(l));
    if (from < 0) return -1;
  }
  const def = new RegExp(String.raw`^\s*(?:async\s+)?def\s+${name}\s*\(`);
  for (let n = Math.max(0, from); n < lines.length; n++) if (def.test(lines[n])) return n;
  return -1;
}

/** The decorator lines right above line `at`. */
function decorators(lines: readonly string[], at: number): string[] {
  const found: string[] = [];
  for (let n = at - 1; n >= 0 && n >= at - 12; n--) {
    const line = lines[n];
    if (/^\s*@/.test(line)) found.push(line);
    else if (!/^\s*(?:[)\]},"'#]|\w+\s*=)/.test(line) || !line.trim()) break;
  }
  return found;
}

/** The body of the definition at line `at`: the lines indented under it. */
function body(lines: readonly string[], at: number): string[] {
  const indent = lines[at].search(/\S/);
  const out: string[] = [];
  let n = at + 1;
  // The rest of a signature that spans lines.
  while (n < lines.length && !/:\s*(#.*)?$/.test(lines[n - 1])) n++;
  for (; n < lines.length; n++) {
    const line = lines[n];
    if (line.trim() && line.search(/\S/) <= indent) break;
    out.push(line);
  }
  return out;
}

/** Of a test module's tests (`path::Class::name` ids), those skipped always and typed only. */
export function pythonMarks(text: string, ids: readonly string[]): TestMarks {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const skipped: string[] = [];
  const typeOnly: string[] = [];
  for (const id of ids) {
    const parts = id.split("::").slice(1).map((p) => p.replace(/\[.*$/, ""));
    const name = parts.at(-1);
    if (!name || !/^\w+$/.test(name) || parts.some((p) => !/^\w+$/.test(p))) continue;
    const cls = parts.length > 1 ? parts[0] : undefined;
    const at = definition(lines, name, cls);
    if (at < 0) continue;
    const classLine = cls
      ? lines.findIndex((l) => new RegExp(String.raw`^\s*class\s+${cls}\b`).test(l))
      : -1;
    const decorated = [
      ...decorators(lines, at),
      ...(classLine >= 0 ? decorators(lines, classLine) : []),
    ];
    const own = body(lines, at).filter((l) => l.trim() && !/^\s*(#|"""|''')/.test(l));
    if (decorated.some((d) => SKIP_DECORATOR.test(d)) || SKIP_FIRST.test(own[0] ?? "")) {
      skipped.push(id);
      continue;
    }
    const code = own.join("\n");
    if (
      /\b(?:assert_type|reveal_type)\s*\(/.test(code) &&
      !/\bassert\s|\bself\.assert|pytest\.raises/.test(code)
    ) {
      typeOnly.push(id);
    }
  }
  return { skipped, typeOnly };
}
