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

const DEF_OR_CLASS = /^\s*(?:(?:async\s+)?def|(class))\s+(\w+)/;

/** Where each function and class of a module starts: name → lines, in order. */
function definitions(
  lines: readonly string[],
): { defs: Map<string, number[]>; classes: Map<string, number> } {
  const defs = new Map<string, number[]>();
  const classes = new Map<string, number>();
  for (const [n, line] of lines.entries()) {
    if (!line.includes("def ") && !line.includes("class ")) continue;
    const m = DEF_OR_CLASS.exec(line);
    if (!m) continue;
    if (m[1]) {
      if (!classes.has(m[2])) classes.set(m[2], n);
    } else defs.set(m[2], [...(defs.get(m[2]) ?? []), n]);
  }
  return { defs, classes };
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

/**
 * Of a test module's tests (`path::Class::name` ids), those skipped always and those typed only,
 * when every one is either (else none: the reading stops at the first test a run checks).
 */
export function pythonMarks(text: string, ids: readonly string[]): TestMarks {
  const skipped: string[] = [];
  const typeOnly: string[] = [];
  // Most new tests check what runs: look at the first before reading the whole module.
  if (
    !/@(?:pytest\.mark\.)?skip|unittest\.skip|\bskip(?:Test)?\(|SkipTest|assert_type|reveal_type/
      .test(text)
  ) {
    return { skipped, typeOnly };
  }
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const { defs, classes } = definitions(lines);
  for (const id of ids) {
    const parts = id.split("::").slice(1).map((p) => p.replace(/\[.*$/, ""));
    const name = parts.at(-1);
    if (!name) continue;
    const cls = parts.length > 1 ? parts[0] : undefined;
    const classLine = cls === undefined ? -1 : classes.get(cls) ?? -1;
    const at = (defs.get(name) ?? []).find((n) => n > classLine);
    if (at === undefined) return { skipped: [], typeOnly: [] };
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
    const typed = /\b(?:assert_type|reveal_type)\s*\(/.test(code) &&
      !/\bassert\s|\bself\.assert|pytest\.raises/.test(code);
    if (!typed) return { skipped: [], typeOnly: [] };
    typeOnly.push(id);
  }
  return { skipped, typeOnly };
}
