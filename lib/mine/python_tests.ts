/**
 * Find the test functions pytest would collect from a Python module's text, without running
 * Python: module-level functions matching `python_functions`, methods of classes matching
 * `python_classes` (nested ones too, not classes with an `__init__`), and `test*` methods of
 * `unittest.TestCase` subclasses. Strings, comments and bracketed continuation lines are skipped,
 * so a `def test_x` inside a docstring does not count.
 *
 * Pure functions; no permissions needed.
 *
 * @module
 */

import { DEFAULT_RULES, matchesName, type PytestRules } from "../python/mod.ts";

interface Node {
  kind: "def" | "class";
  indent: number;
  name: string;
  /** For classes: the class path from the module (`Outer::Inner`), when pytest collects it. */
  path?: string;
  unittest?: boolean;
  hasInit?: boolean;
  methods?: { name: string; line: number }[];
}

const DEF = /^(?:async\s+)?def\s+([A-Za-z_]\w*)/;
const CLASS = /^class\s+([A-Za-z_]\w*)\s*(?:\(([^)]*)\)?)?/;
const UNITTEST_BASE = /\b(?:TestCase|IsolatedAsyncioTestCase)\b/;

/** Scanner state carried from one physical line to the next. */
interface ScanState {
  /** The open triple quote, when inside a triple-quoted string. */
  triple?: string;
  /** Open brackets. */
  depth: number;
  /** The line ended with a backslash. */
  backslash: boolean;
}

/** Advance the scanner over one physical line. */
function scan(line: string, state: ScanState): void {
  state.backslash = false;
  let i = 0;
  while (i < line.length) {
    if (state.triple) {
      const end = line.indexOf(state.triple, i);
      if (end < 0) return;
      i = end + 3;
      state.triple = undefined;
      continue;
    }
    const c = line[i];
    if (c === "#") return;
    if (c === '"' || c === "'") {
      if (line.startsWith(c.repeat(3), i)) {
        state.triple = c.repeat(3);
        i += 3;
        continue;
      }
      i++;
      while (i < line.length && line[i] !== c) i += line[i] === "\\" ? 2 : 1;
      i++;
      continue;
    }
    if (c === "(" || c === "[" || c === "{") state.depth++;
    else if (c === ")" || c === "]" || c === "}") state.depth = Math.max(0, state.depth - 1);
    else if (c === "\\" && i === line.length - 1) state.backslash = true;
    i++;
  }
}

function indentOf(line: string): number {
  let width = 0;
  for (const c of line) {
    if (c === " ") width++;
    else if (c === "\t") width = width - (width % 8) + 8;
    else if (c === "\f") width = 0;
    else break;
  }
  return width;
}

/**
 * The tests pytest would collect from a module, as node-id suffixes in source order:
 * `test_name` or `TestClass::test_name` (parametrised cases are not expanded).
 */
export function testFunctions(source: string, rules: PytestRules = DEFAULT_RULES): string[] {
  const found: { id: string; line: number }[] = [];
  const classes: Node[] = [];
  const stack: Node[] = [];
  const state: ScanState = { depth: 0, backslash: false };
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n];
    const continuing = state.triple !== undefined || state.depth > 0 || state.backslash;
    if (!continuing) {
      const text = line.trimStart();
      if (text !== "" && !text.startsWith("#")) {
        const indent = indentOf(line);
        while (stack.length && indent <= stack[stack.length - 1].indent) stack.pop();
        const parent = stack[stack.length - 1];
        const def = text.match(DEF);
        const cls = def ? null : text.match(CLASS);
        if (def) {
          const name = def[1];
          if (!parent) {
            if (matchesName(name, rules.functions)) found.push({ id: name, line: n });
          } else if (parent.kind === "class") {
            if (name === "__init__") parent.hasInit = true;
            parent.methods!.push({ name, line: n });
          }
          stack.push({ kind: "def", indent, name });
        } else if (cls) {
          const name = cls[1];
          const unittest = UNITTEST_BASE.test(cls[2] ?? "");
          const collectable = (unittest || matchesName(name, rules.classes)) &&
            (!parent || (parent.kind === "class" && parent.path !== undefined));
          const node: Node = {
            kind: "class",
            indent,
            name,
            path: collectable ? (parent ? `${parent.path}::${name}` : name) : undefined,
            unittest,
            hasInit: false,
            methods: [],
          };
          stack.push(node);
          classes.push(node);
        }
      }
    }
    scan(line, state);
  }
  for (const cls of classes) {
    if (cls.path === undefined || (cls.hasInit && !cls.unittest)) continue;
    for (const method of cls.methods!) {
      const isTest = cls.unittest
        ? method.name.startsWith("test")
        : matchesName(method.name, rules.functions);
      if (isTest) found.push({ id: `${cls.path}::${method.name}`, line: method.line });
    }
  }
  return found.sort((a, b) => a.line - b.line).map((f) => f.id);
}

/** Tests in `after` that are not in `before`: the test functions a change added. */
export function addedTestFunctions(
  before: string,
  after: string,
  rules: PytestRules = DEFAULT_RULES,
): string[] {
  const old = new Set(testFunctions(before, rules));
  return testFunctions(after, rules).filter((id) => !old.has(id));
}
