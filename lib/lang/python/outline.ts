/**
 * Read a Python test module the way pytest collects it, without running Python: its tests (module
 * functions matching `python_functions`; methods of classes matching `python_classes` or deriving
 * from a `TestCase`, inherited ones included), each with its source text, the class headers it
 * depends on and the names it refers to; the module's other definitions by name; and what static
 * reading cannot see (test classes made by a factory function, `pytest_generate_tests`). Strings,
 * comments and bracketed continuation lines are skipped, so a `def test_x` inside a docstring
 * does not count.
 *
 * Pure functions; no permissions needed.
 *
 * @module
 */

import { DEFAULT_RULES, matchesName, type PytestRules } from "./pytest_rules.ts";

/** One statement of the module's block structure. */
interface Unit {
  kind: "def" | "class" | "decorator" | "other";
  /** The name a def, class or simple assignment defines. */
  name?: string;
  indent: number;
  /** First line (its first decorator's, for a def or class). */
  start: number;
  /** Last line of the statement and its block. */
  end: number;
  /** The statement's first line, trimmed. */
  text: string;
  /** For a class: the base expressions. */
  bases?: string[];
  /** For a def: the text of its decorators. */
  decorators: string[];
  children: Unit[];
}

/** One test pytest would collect, as static reading sees it. */
export interface OutlineTest {
  /** `name` or `Class::name` (without parameters). */
  id: string;
  /** A digest of its definition, decorators included (parametrize cases are in there). */
  readonly text: string;
  /**
   * A digest of what else it depends on: the headers (decorators, bases, class-level statements)
   * of its classes and the module's `pytestmark`.
   */
  readonly context: string;
  /** The classes whose members it sees (its own, those it inherits from, the enclosing ones). */
  scopes: string[];
  /** Its lines (0-based, first decorator to last line), and its `def` line. */
  span: { start: number; end: number; def: number };
  /** The lines of the class headers it depends on (empty for a module-level test). */
  headers: { start: number; end: number }[];
  /** Names its definition refers to (read when first asked for). */
  readonly refs: Set<string>;
  /** First line, for source order. */
  line: number;
}

/** Another definition of a module: a helper, a constant, a fixture, a class member. */
export interface OutlineName {
  /** The name it defines. */
  name: string;
  /** The class it is a member of ("" at module level). */
  scope: string;
  /** A digest of its text. */
  readonly text: string;
  /** Names its text refers to (read when asked for). */
  refs(): Set<string>;
  /** True when a change of it changes every test in its scope (setup hooks, autouse fixtures). */
  setup: boolean;
  /** Its lines (0-based). */
  span: { start: number; end: number };
}

/** A module, read. */
export interface TestOutline {
  /** The tests, in source order. */
  tests: OutlineTest[];
  /** Every other definition or assignment, by a key unique in the module. */
  names: Map<string, OutlineName>;
  /** Factory functions that build test classes, and `pytest_generate_tests`: by name. */
  dynamic: Set<string>;
  /** The lines of the module's `pytestmark`, which every test depends on. */
  marks: { start: number; end: number }[];
}

const DEF = /^(?:async\s+)?def\s+([A-Za-z_]\w*)/;
const CLASS = /^class\s+([A-Za-z_]\w*)\s*(?:\(([\s\S]*)\))?\s*:/;
const ASSIGN = /^([A-Za-z_]\w*)\s*(?::[^=]*)?=(?!=)/;
const UNITTEST_BASE = /(?:^|\.)\w*TestCase$/;
const SETUP_NAMES = new Set([
  "setup_module",
  "teardown_module",
  "setup_function",
  "teardown_function",
  "setUpModule",
  "tearDownModule",
  "setUp",
  "tearDown",
  "setUpClass",
  "tearDownClass",
  "setup_method",
  "teardown_method",
  "setup_class",
  "teardown_class",
  "asyncSetUp",
  "asyncTearDown",
  "pytestmark",
]);
const IDENTIFIER = /[A-Za-z_]\w*/g;

/** Scanner state carried from one physical line to the next. */
interface ScanState {
  /** The open triple quote, when inside a triple-quoted string. */
  triple?: string;
  /** Open brackets. */
  depth: number;
  /** The line ended with a backslash. */
  backslash: boolean;
}

const SPECIAL = /["'#()[\]{}\\]/g;

/** Advance the scanner over one physical line (jumping from one special character to the next). */
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
    SPECIAL.lastIndex = i;
    const found = SPECIAL.exec(line);
    if (!found) return;
    i = found.index;
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

/** Split base expressions at top-level commas, keyword arguments (`metaclass=`) left out. */
function splitBases(text: string | undefined): string[] {
  if (!text) return [];
  const out: string[] = [];
  let depth = 0;
  let current = "";
  for (const c of text) {
    if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") depth--;
    if (c === "," && depth === 0) {
      out.push(current);
      current = "";
    } else current += c;
  }
  out.push(current);
  return out.map((b) => b.replace(/\s+/g, "")).filter((b) => b !== "" && !b.includes("="));
}

/** The module's statements as a tree of blocks. */
function blocks(lines: string[]): Unit[] {
  const root: Unit = {
    kind: "other",
    indent: -1,
    start: 0,
    end: 0,
    text: "",
    decorators: [],
    children: [],
  };
  const stack: Unit[] = [root];
  const state: ScanState = { depth: 0, backslash: false };
  let pending: Unit[] = [];
  let open: Unit | undefined; // the statement whose logical line is still going on
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n];
    const continuing = state.triple !== undefined || state.depth > 0 || state.backslash;
    if (continuing) {
      if (open) open.end = n;
    } else {
      const text = line.trimStart();
      if (text !== "" && !text.startsWith("#")) {
        const indent = indentOf(line);
        while (stack.length > 1 && indent <= stack[stack.length - 1].indent) stack.pop();
        const parent = stack[stack.length - 1];
        const def = text.startsWith("def ") || text.startsWith("async ") ? text.match(DEF) : null;
        const decorator = text.startsWith("@");
        const cls = !def && text.startsWith("class ");
        if (parent.kind === "def" && !def && !decorator && !cls) {
          // Inside a function, plain statements only make it longer: no unit is made for them.
          pending = [];
          open = parent;
        } else {
          const unit: Unit = {
            kind: decorator ? "decorator" : def ? "def" : cls ? "class" : "other",
            indent,
            start: n,
            end: n,
            text,
            decorators: [],
            children: [],
          };
          if (def) unit.name = def[1];
          else if (!decorator && !cls) {
            const assign = text.match(ASSIGN);
            if (assign) unit.name = assign[1];
          }
          if (decorator) {
            pending.push(unit);
          } else {
            if ((unit.kind === "def" || unit.kind === "class") && pending.length) {
              unit.start = pending[0].start;
              unit.decorators = pending.map((d) => d.text);
            }
            pending = [];
            parent.children.push(unit);
            stack.push(unit);
          }
          open = unit;
        }
      }
    }
    scan(line, state);
    if (open && !(state.triple !== undefined || state.depth > 0 || state.backslash)) {
      // The logical line ended here: a class header is now complete.
      if (open.kind === "class" && open.bases === undefined) {
        const header = lines.slice(open.start, n + 1).join("\n");
        const at = header.search(/^\s*class\s/m);
        const match = header.slice(at).trimStart().match(CLASS);
        open.name = match?.[1];
        open.bases = splitBases(match?.[2]);
      }
      open.end = Math.max(open.end, n);
      // Every enclosing block reaches at least this far.
      for (let k = stack.length - 1; k > 0; k--) if (stack[k].end < n) stack[k].end = n;
      open = undefined;
    }
  }
  // A block ends where its last child ends.
  const close = (unit: Unit): number => {
    for (const child of unit.children) unit.end = Math.max(unit.end, close(child));
    return unit.end;
  };
  close(root);
  return root.children;
}

/** FNV-1a, to stand for a long text in comparisons. */
function digest(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(36) + ":" + text.length.toString(36);
}

const texts = new WeakMap<Unit, string>();

/** A unit's source, without blank lines or trailing spaces, dedented (built when needed). */
function textOf(lines: string[], unit: Unit): string {
  const known = texts.get(unit);
  if (known !== undefined) return known;
  const out: string[] = [];
  for (let n = unit.start; n <= unit.end; n++) {
    const line = lines[n].trimEnd();
    if (line.trim() !== "") out.push(line.slice(Math.min(unit.indent, indentOf(line))));
  }
  const text = out.join("\n");
  texts.set(unit, text);
  return text;
}

/** The digest of {@linkcode textOf}, computed without building the text. */
function digestOf(lines: string[], unit: Unit): string {
  let h = 0x811c9dc5;
  let length = 0;
  for (let n = unit.start; n <= unit.end; n++) {
    const line = lines[n];
    let end = line.length;
    while (
      end > 0 && (line.charCodeAt(end - 1) === 32 || line.charCodeAt(end - 1) === 9 ||
        line.charCodeAt(end - 1) === 13)
    ) end--;
    if (end === 0) continue;
    let from = 0;
    let width = 0;
    while (from < end && width < unit.indent) {
      const c = line.charCodeAt(from);
      if (c === 32) width++;
      else if (c === 9) width = width - (width % 8) + 8;
      else break;
      from++;
    }
    if (from === end) continue;
    for (let i = from; i < end; i++) {
      h ^= line.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    h ^= 10;
    h = Math.imul(h, 0x01000193);
    length += end - from + 1;
  }
  return (h >>> 0).toString(36) + ":" + length.toString(36);
}

function refsOf(text: string): Set<string> {
  return new Set(text.match(IDENTIFIER) ?? []);
}

/** Memoise a thunk. */
function once<T>(make: () => T): () => T {
  let value: T | undefined;
  let made = false;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value as T;
  };
}

/**
 * A test whose digests and `refs` are computed only when first asked for (most comparisons need
 * none of them: they go by the lines a change touched).
 */
function lazyTest(
  test: Omit<OutlineTest, "refs" | "text" | "context">,
  lines: string[],
  unit: Unit,
  context: () => string,
): OutlineTest {
  let refs: Set<string> | undefined;
  let text: string | undefined;
  return {
    ...test,
    get text() {
      return text ??= digestOf(lines, unit);
    },
    get context() {
      return context();
    },
    get refs() {
      return refs ??= refsOf(textOf(lines, unit));
    },
  };
}

/** Module-level statements, with the bodies of `if`/`try`/`with`/`for` blocks lifted up. */
function flatten(units: Unit[]): Unit[] {
  const out: Unit[] = [];
  for (const unit of units) {
    if (unit.kind === "other" && unit.children.length && !unit.name) {
      out.push(unit, ...flatten(unit.children));
    } else out.push(unit);
  }
  return out;
}

function baseName(base: string): string {
  return base.replace(/\[.*$/, "").split(".").pop() ?? base;
}

/** True when a class is a test class pytest collects with unittest's rules. */
function isUnittest(cls: Unit, classes: Map<string, Unit>, seen = new Set<Unit>()): boolean {
  if (seen.has(cls)) return false;
  seen.add(cls);
  for (const base of cls.bases ?? []) {
    if (UNITTEST_BASE.test(base.replace(/\[.*$/, ""))) return true;
    const local = classes.get(baseName(base));
    if (local && local !== cls && isUnittest(local, classes, seen)) return true;
  }
  return false;
}

/** True when a class's bases include one the module does not define (imported, say). */
function hasForeignBase(cls: Unit, classes: Map<string, Unit>): boolean {
  return (cls.bases ?? []).some((b) => b !== "object" && !classes.has(baseName(b)));
}

/** Methods of a class, its own first and then those it inherits from classes of the module. */
function methodsOf(
  cls: Unit,
  classes: Map<string, Unit>,
  seen = new Set<Unit>(),
): { unit: Unit; owner: Unit }[] {
  if (seen.has(cls)) return [];
  seen.add(cls);
  const own = cls.children.filter((c) => c.kind === "def").map((unit) => ({ unit, owner: cls }));
  const names = new Set(own.map((m) => m.unit.name));
  const inherited: { unit: Unit; owner: Unit }[] = [];
  for (const base of cls.bases ?? []) {
    const local = classes.get(baseName(base));
    if (!local || local === cls) continue;
    for (const m of methodsOf(local, classes, seen)) {
      if (names.has(m.unit.name)) continue;
      names.add(m.unit.name);
      inherited.push(m);
    }
  }
  return [...own, ...inherited];
}

/** The first line of a class's body (or the line after it, for a one-line class). */
function bodyStart(cls: Unit): number {
  return cls.children.length ? cls.children[0].start : cls.end + 1;
}

/** The line of a def's `def` (after its decorators). */
function defLine(unit: Unit): number {
  return unit.start + unit.decorators.length;
}

const headers = new WeakMap<Unit, string>();

/** A digest of a class's header: decorators, bases and class-level statements. */
function classHeader(lines: string[], cls: Unit): string {
  const known = headers.get(cls);
  if (known !== undefined) return known;
  const parts = [...cls.decorators, `class ${cls.name}(${(cls.bases ?? []).join(", ")})`];
  for (const child of cls.children) {
    if (child.kind === "other") parts.push(textOf(lines, child));
  }
  const header = digest(parts.join("\n"));
  headers.set(cls, header);
  return header;
}

function containsTestClass(unit: Unit, rules: PytestRules): boolean {
  return unit.children.some((c) =>
    (c.kind === "class" &&
      (c.children.some((m) => m.kind === "def" && /^test/.test(m.name ?? "")) ||
        containsTestClass(c, rules))) ||
    (c.kind !== "class" && containsTestClass(c, rules))
  );
}

/**
 * Read a test module's text: its tests, its other definitions, and what only collection can
 * tell. A class whose base the module does not define (a project base class imported from
 * elsewhere) is taken for a `TestCase` when it has `test*` methods, as pytest would collect it if
 * the base is one; collection says for sure.
 */
export function outlineTests(source: string, rules: PytestRules = DEFAULT_RULES): TestOutline {
  const lines = (source.includes("\r") ? source.replace(/\r\n?/g, "\n") : source).split("\n");
  const top = flatten(blocks(lines));
  const classes = new Map<string, Unit>();
  const indexClasses = (units: Unit[]) => {
    for (const u of units) {
      if (u.kind === "class" && u.name && !classes.has(u.name)) classes.set(u.name, u);
      if (u.kind === "class") indexClasses(u.children);
    }
  };
  indexClasses(top);
  const markUnits = top.filter((u) => u.name === "pytestmark");
  const outline: TestOutline = {
    tests: [],
    names: new Map(),
    dynamic: new Set(),
    marks: markUnits.map((u) => ({ start: u.start, end: u.end })),
  };
  const marks = once(() => digest(markUnits.map((u) => textOf(lines, u)).join("\n")));
  const define = (scope: string, name: string, unit: Unit, setup: boolean) => {
    let key = scope ? `${scope}.${name}` : name;
    for (let n = 1; outline.names.has(key); n++) key = `${scope}.${name}\u0000${n}`;
    let refs: Set<string> | undefined;
    let text: string | undefined;
    outline.names.set(key, {
      name,
      scope,
      get text() {
        return text ??= digestOf(lines, unit);
      },
      refs: () => refs ??= refsOf(textOf(lines, unit)),
      setup: setup || SETUP_NAMES.has(name),
      span: { start: unit.start, end: unit.end },
    });
  };
  const autouse = (u: Unit) =>
    u.decorators.some((d) => /fixture\b[\s\S]*autouse\s*=\s*True/.test(d));

  const headerSpan = (cls: Unit) => ({ start: cls.start, end: bodyStart(cls) - 1 });
  const visitClass = (
    cls: Unit,
    prefix: string,
    context: () => string,
    outer: string[],
    outerHeaders: { start: number; end: number }[],
  ) => {
    const name = cls.name ?? "";
    const unittest = isUnittest(cls, classes);
    const methods = methodsOf(cls, classes);
    const testish = methods.some((m) => /^test/.test(m.unit.name ?? ""));
    const assumedUnittest = !unittest && testish && hasForeignBase(cls, classes) &&
      !matchesName(name, rules.classes);
    const collected = unittest || assumedUnittest || matchesName(name, rules.classes);
    const disabled = cls.children.some((c) => c.name === "__test__" && /=\s*False/.test(c.text));
    const hasInit = methods.some((m) => m.unit.name === "__init__");
    const header = once(() => `${context()}|${classHeader(lines, cls)}`);
    for (const child of cls.children) {
      if (child.kind === "other" && child.name) {
        define(name, child.name, child, false);
      } else if (child.kind === "def" && child.name) {
        const method = child.name;
        const isTest = collected && !disabled &&
          (unittest || assumedUnittest
            ? method.startsWith("test")
            : matchesName(method, rules.functions));
        if (!isTest) define(name, method, child, autouse(child));
      }
    }
    if (!collected || disabled || (hasInit && !unittest && !assumedUnittest)) return;
    const path = `${prefix}${name}`;
    const owners = new Map<
      Unit,
      { context: () => string; scopes: string[]; headers: { start: number; end: number }[] }
    >();
    for (const { unit, owner } of methods) {
      const method = unit.name ?? "";
      const isTest = unittest || assumedUnittest
        ? method.startsWith("test")
        : matchesName(method, rules.functions);
      if (!isTest) continue;
      let seen = owners.get(owner);
      if (!seen) {
        seen = owner === cls
          ? {
            context: header,
            scopes: [...outer, name],
            headers: [...outerHeaders, headerSpan(cls)],
          }
          : {
            context: once(() => `${header()}|${classHeader(lines, owner)}`),
            scopes: [...outer, name, owner.name ?? ""],
            headers: [...outerHeaders, headerSpan(cls), headerSpan(owner)],
          };
        owners.set(owner, seen);
      }
      outline.tests.push(lazyTest(
        {
          id: `${path}::${method}`,
          scopes: seen.scopes,
          span: { start: unit.start, end: unit.end, def: defLine(unit) },
          headers: seen.headers,
          line: owner === cls ? unit.start : cls.start,
        },
        lines,
        unit,
        seen.context,
      ));
    }
    for (const child of cls.children) {
      if (child.kind === "class" && child.name) {
        visitClass(child, `${path}::`, header, [...outer, name], [
          ...outerHeaders,
          headerSpan(cls),
        ]);
      }
    }
  };

  for (const unit of top) {
    if (unit.kind === "def" && unit.name) {
      if (matchesName(unit.name, rules.functions)) {
        outline.tests.push(lazyTest(
          {
            id: unit.name,
            span: { start: unit.start, end: unit.end, def: defLine(unit) },
            headers: [],
            scopes: [],
            line: unit.start,
          },
          lines,
          unit,
          marks,
        ));
      } else {
        define("", unit.name, unit, autouse(unit));
        if (unit.name === "pytest_generate_tests" || containsTestClass(unit, rules)) {
          outline.dynamic.add(unit.name);
        }
      }
    } else if (unit.kind === "class" && unit.name) {
      visitClass(unit, "", marks, [], []);
    } else if (unit.kind === "other" && unit.name) {
      define("", unit.name, unit, false);
    }
  }
  outline.tests.sort((a, b) => a.line - b.line);
  return outline;
}

/** What a change did to a module's tests, as static reading sees it. */
export interface TestChanges {
  /** Tests that are new or whose definition (or what it depends on) changed, in source order. */
  changed: string[];
  /** Those of them that are new. */
  added: string[];
  /** Why static reading cannot tell every test the change made or changed, when it cannot. */
  unsure?: string;
}

/**
 * Compare a module before (null when it is new) and after a change: the tests that are new, and
 * those whose definition, class header, `pytestmark`, or a helper, constant or fixture they refer
 * to changed (a new case in a `parametrize` list, or in the list it names, changes the test).
 */
export function compareOutlines(before: TestOutline | null, after: TestOutline): TestChanges {
  if (!before) {
    const ids = after.tests.map((t) => t.id);
    return {
      changed: ids,
      added: ids,
      ...(after.dynamic.size ? { unsure: dynamicText(after.dynamic) } : {}),
    };
  }
  // Definitions that changed (or went), then those that refer to them, by key.
  const changed = new Map<string, OutlineName>();
  for (const [key, def] of after.names) {
    if (before.names.get(key)?.text !== def.text) changed.set(key, def);
  }
  for (const [key, def] of before.names) if (!after.names.has(key)) changed.set(key, def);
  if (changed.size) {
    const uses = new Map([...after.names].map(([key, def]) => [key, def.refs()]));
    for (let grew = true; grew;) {
      grew = false;
      const names = new Set([...changed.values()].map((d) => d.name));
      for (const [key, def] of after.names) {
        if (changed.has(key)) continue;
        if ([...uses.get(key)!].some((r) => r !== def.name && names.has(r))) {
          changed.set(key, def);
          grew = true;
        }
      }
    }
  }
  const everything = [...changed.values()].some((d) => d.setup && d.scope === "");
  const setupIn = new Set([...changed.values()].filter((d) => d.setup).map((d) => d.scope));
  const moduleNames = new Set(
    [...changed.values()].filter((d) => d.scope === "").map((d) => d.name),
  );
  const memberNames = new Map<string, Set<string>>();
  for (const d of changed.values()) {
    if (!d.scope) continue;
    const set = memberNames.get(d.scope) ?? new Set();
    set.add(d.name);
    memberNames.set(d.scope, set);
  }
  const dependsOnChange = (test: OutlineTest) => {
    if (test.scopes.some((s) => setupIn.has(s))) return true;
    if (!moduleNames.size && !test.scopes.some((s) => memberNames.has(s))) return false;
    const refs = test.refs;
    for (const name of moduleNames) if (refs.has(name)) return true;
    for (const scope of test.scopes) {
      for (const name of memberNames.get(scope) ?? []) if (refs.has(name)) return true;
    }
    return false;
  };
  const old = new Map(before.tests.map((t) => [t.id, t]));
  const out: string[] = [];
  const added: string[] = [];
  for (const test of after.tests) {
    const was = old.get(test.id);
    if (!was) {
      out.push(test.id);
      added.push(test.id);
    } else if (
      everything || was.text !== test.text || was.context !== test.context ||
      (changed.size > 0 && dependsOnChange(test))
    ) {
      out.push(test.id);
    }
  }
  const dynamic = [...after.dynamic].filter((name) =>
    [...changed.values()].some((d) => d.name === name || (d.scope === "" && d.refs().has(name)))
  );
  return {
    changed: out,
    added,
    ...(dynamic.length ? { unsure: dynamicText(new Set(dynamic)) } : {}),
  };
}

function dynamicText(names: Set<string>): string {
  const list = [...names].sort();
  return list.includes("pytest_generate_tests") && list.length === 1
    ? "tests are parametrised by pytest_generate_tests()"
    : `test classes are made by ${list.map((n) => `${n}()`).join(", ")}`;
}

/**
 * The tests pytest would collect from a module, as node-id suffixes in source order:
 * `test_name` or `TestClass::test_name` (parametrised cases are not expanded).
 */
export function testFunctions(source: string, rules: PytestRules = DEFAULT_RULES): string[] {
  return outlineTests(source, rules).tests.map((t) => t.id);
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

/** What a `-U0` diff says a change did to a module, in the new version's lines. */
export interface ModuleHunks {
  /** Line ranges of the new version the change wrote (0-based, inclusive). */
  written: { start: number; end: number }[];
  /** Where lines went away: between new lines `at - 1` and `at` (0-based). */
  removedAt: number[];
  /**
   * Where the lines that went away ended in decorators, whose definition follows at new line
   * `at` (an `@pytest.mark.xfail` taken off a test changes the test); optional.
   */
  decoratorsRemovedAt?: number[];
  /** Names that removed lines defined (`def x`, `class X`, `X = ...`). */
  removedNames: string[];
  /** Names that written lines define. */
  writtenNames: string[];
}

const DEFINES =
  /^\s*(?:(?:async\s+)?def\s+|class\s+)?([A-Za-z_]\w*)\s*(?:[(:]|\s*(?::[^=]*)?=(?!=))/;

/**
 * The name a source line defines, if it looks like it defines one: a `def` or `class` at any
 * depth, an assignment only at the module's level (a local variable names nothing tests share).
 */
export function definedBy(line: string): string | undefined {
  const match = line.match(DEFINES);
  if (!match) return undefined;
  if (/^\s*(?:async\s+def|def|class)\s/.test(line)) return match[1];
  return /^[A-Za-z_]/.test(line) && /=/.test(line) ? match[1] : undefined;
}

function touches(span: { start: number; end: number }, hunks: ModuleHunks): boolean {
  for (const w of hunks.written) if (w.start <= span.end && span.start <= w.end) return true;
  for (const at of hunks.removedAt) if (span.start < at && at <= span.end) return true;
  for (const at of hunks.decoratorsRemovedAt ?? []) if (at === span.start) return true;
  return false;
}

/**
 * The tests a change added or changed, from the module after it and the change's `-U0` hunks:
 * a test whose lines, class headers or `pytestmark` were written or had lines removed, or that
 * refers to a definition that did; new when its `def` line was written and no removed line
 * defined the same name. Only the new version is read.
 */
export function changedByHunks(after: TestOutline, hunks: ModuleHunks): TestChanges {
  const changed = new Map<string, OutlineName>();
  const removed = new Set(hunks.removedNames);
  for (const [key, def] of after.names) {
    if (touches(def.span, hunks) || removed.has(def.name)) changed.set(key, def);
  }
  const defined = new Set([...after.names.values()].map((d) => d.name));
  const goneNames = new Set(hunks.removedNames.filter((n) => !defined.has(n)));
  if (changed.size || goneNames.size) {
    for (let grew = true; grew;) {
      grew = false;
      const names = new Set([...changed.values()].map((d) => d.name).concat([...goneNames]));
      for (const [key, def] of after.names) {
        if (changed.has(key)) continue;
        if ([...def.refs()].some((r) => r !== def.name && names.has(r))) {
          changed.set(key, def);
          grew = true;
        }
      }
    }
  }
  const everything = after.marks.some((m) => touches(m, hunks)) ||
    [...changed.values()].some((d) => d.setup && d.scope === "");
  const setupIn = new Set([...changed.values()].filter((d) => d.setup).map((d) => d.scope));
  const moduleNames = new Set(
    [...changed.values()].filter((d) => d.scope === "").map((d) => d.name).concat([...goneNames]),
  );
  const memberNames = new Map<string, Set<string>>();
  for (const d of changed.values()) {
    if (!d.scope) continue;
    const set = memberNames.get(d.scope) ?? new Set();
    set.add(d.name);
    memberNames.set(d.scope, set);
  }
  const out: string[] = [];
  const added: string[] = [];
  for (const test of after.tests) {
    const name = test.id.slice(test.id.lastIndexOf(":") + 1);
    const isNew = hunks.written.some((w) => w.start <= test.span.def && test.span.def <= w.end) &&
      !removed.has(name);
    const depends = () => {
      if (test.scopes.some((s) => setupIn.has(s))) return true;
      if (!moduleNames.size && !test.scopes.some((s) => memberNames.has(s))) return false;
      const refs = test.refs;
      for (const n of moduleNames) if (refs.has(n)) return true;
      for (const scope of test.scopes) {
        for (const n of memberNames.get(scope) ?? []) if (refs.has(n)) return true;
      }
      return false;
    };
    if (
      isNew || everything || touches(test.span, hunks) ||
      test.headers.some((h) => touches(h, hunks)) || depends()
    ) {
      out.push(test.id);
      if (isNew) added.push(test.id);
    }
  }
  const dynamic = [...after.dynamic].filter((name) =>
    [...changed.values()].some((d) => d.name === name || (d.scope === "" && d.refs().has(name)))
  );
  return {
    changed: out,
    added,
    ...(dynamic.length ? { unsure: dynamicText(new Set(dynamic)) } : {}),
  };
}
