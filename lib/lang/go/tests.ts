/**
 * The tests a `_test.go` file declares and which of them a change added or changed, read
 * statically: top-level `func TestX(t *testing.T)`, `func FuzzX(f *testing.F)` and examples with
 * an output comment, and the subtests each starts with `x.Run("literal name", ...)` (nested ones
 * too), named as Go names them (spaces to `_`, a repeated name gets `#01`).
 *
 * A test changed when its text changed (layout and comments aside; an example's comments count,
 * they hold its expected output) or when a top-level declaration of the same file that it uses
 * changed (a table of cases in a package-level `var`, a helper), followed through helpers. A
 * subtest whose name is computed (`t.Run(tc.name, ...)` over a table) cannot be named, nor can
 * the runs of a literal one started inside a loop (`for _, tc := range cases { t.Run("case",
 * ...) }` runs `case`, `case#01`, `case#02`, ...): when the change touched such a test, the result
 * is `unsure`, naming those tests only, and running the package decides.
 *
 * Pure; no permissions.
 *
 * @module
 */

import type { FileTests } from "../types.ts";
import { isTestName, makeId, packageDirOf, rewriteSubtestName } from "./ids.ts";
import {
  closing,
  declarations,
  GoSyntaxError,
  lex,
  type Lexed,
  signature,
  stringValue,
  type Token,
} from "./scan.ts";

/** One test or subtest found in a file. */
export interface FoundTest {
  /** The function's name and its subtests' names: `["TestX", "case_1"]`. */
  path: string[];
  /** Its text, as tokens (comments too for an example). */
  sig: string;
  /** Top-level names of the file it uses. */
  uses: Set<string>;
}

/** What static reading found in one file. */
export interface FileReading {
  /** Tests and subtests, depth first, in source order. */
  tests: FoundTest[];
  /** Signature of each top-level declaration by name (tests left out). */
  decls: Map<string, { sig: string; uses: Set<string> }>;
  /** Tests that start subtests with computed names. */
  computed: string[];
  /** Literal subtests started inside a loop (Go numbers their runs), by their test. */
  looped: { test: string; name: string }[];
  /** The file's `//go:build` constraint, if any. */
  constraint?: string;
}

function paramsAre(params: readonly Token[] | undefined, type: "T" | "F"): boolean {
  const text = (params ?? []).map((t) => t.text).join(" ");
  return new RegExp(`^(\\S+ )?\\* (\\S+ \\. )?${type}$`).test(text);
}

function usesOf(tokens: readonly Token[], from: number, to: number): Set<string> {
  const used = new Set<string>();
  for (let i = from; i < to; i++) {
    if (tokens[i].kind === "ident" && tokens[i - 1]?.text !== ".") used.add(tokens[i].text);
  }
  return used;
}

/** Split the tokens between `open` and its closing bracket at top-level commas. */
function args(tokens: readonly Token[], open: number, close: number): [number, number][] {
  const out: [number, number][] = [];
  let start = open + 1;
  for (let i = open + 1; i < close; i++) {
    const t = tokens[i].text;
    if (t === "(" || t === "[" || t === "{") i = closing(tokens, i);
    else if (t === ",") {
      out.push([start, i]);
      start = i + 1;
    }
  }
  if (start < close) out.push([start, close]);
  return out;
}

/** Read the tests a Go test file declares. Throws {@linkcode GoSyntaxError}. */
export function readTests(source: string): FileReading {
  const lexed: Lexed = lex(source);
  const { tokens } = lexed;
  const decls = declarations(tokens);
  const reading: FileReading = { tests: [], decls: new Map(), computed: [], looped: [] };
  const pkgAt = tokens.find((t) => t.kind === "ident" && t.text === "package")?.start ?? 0;
  const build = lexed.comments.find((c) => c.start < pkgAt && /^\/\/go:build /.test(c.text));
  if (build) reading.constraint = build.text.slice("//go:build ".length).trim();
  const commentsIn = (from: number, to: number) =>
    lexed.comments.filter((c) => c.start >= from && c.start < to).map((c) => c.text);
  for (const d of decls) {
    const name = d.names[0];
    const span = signature(tokens, d.from, d.to);
    const uses = usesOf(tokens, d.from, d.to);
    const test = d.kind === "func" && d.body && isTestName(name) &&
      ((name.startsWith("Test") && paramsAre(d.params, "T")) ||
        (name.startsWith("Fuzz") && paramsAre(d.params, "F")) ||
        (name.startsWith("Example") && (d.params ?? []).length === 0 &&
          commentsIn(tokens[d.body[0]].start, tokens[d.body[1]].end)
            .some((c) => /^\/\/\s*(Unordered output|Output):/i.test(c))));
    if (!test) {
      for (const n of d.names) reading.decls.set(n, { sig: span, uses });
      continue;
    }
    const comments = name.startsWith("Example")
      ? commentsIn(tokens[d.from].start, tokens[d.to - 1].end).join("\n")
      : "";
    reading.tests.push({ path: [name], sig: span + comments, uses });
    subtests(tokens, d.body!, [name], reading, loopBodies(tokens, d.body!));
  }
  return reading;
}

/**
 * The bodies (`{` and `}` indexes) of the `for` statements inside `range`. A `for` header may hold
 * braces of its own (`range []struct{ n int }{{1}, {2}} {`): a brace group that another `{` on
 * the same line follows is the header's, the first that none follows is the body.
 */
function loopBodies(tokens: readonly Token[], range: [number, number]): [number, number][] {
  const bodies: [number, number][] = [];
  for (let i = range[0] + 1; i < range[1]; i++) {
    if (tokens[i].kind !== "ident" || tokens[i].text !== "for") continue;
    for (let j = i + 1; j < range[1]; j++) {
      const t = tokens[j];
      if (t.kind !== "op") continue;
      if (t.text === "(" || t.text === "[") j = closing(tokens, j);
      else if (t.text === "{") {
        const end = closing(tokens, j);
        const next = tokens[end + 1];
        if (next?.text === "{" && !next.newline) {
          j = end;
          continue;
        }
        bodies.push([j, end]);
        break;
      }
    }
  }
  return bodies;
}

/** The subtests started with literal names inside `range`, depth first, in source order. */
function subtests(
  tokens: readonly Token[],
  range: [number, number],
  parent: string[],
  reading: FileReading,
  loops: readonly [number, number][],
) {
  const used = new Map<string, number>();
  for (let k = range[0] + 1; k < range[1]; k++) {
    if (
      !(tokens[k].text === "." && tokens[k + 1]?.text === "Run" && tokens[k + 2]?.text === "(")
    ) continue;
    const open = k + 2;
    const close = closing(tokens, open);
    const list = args(tokens, open, close);
    if (list.length !== 2) continue; // `cmd.Run()`: not a subtest
    const [first] = list;
    if (first[1] - first[0] !== 1 || tokens[first[0]].kind !== "string") {
      if (!reading.computed.includes(parent[0])) reading.computed.push(parent[0]);
      k = close;
      continue;
    }
    let name = rewriteSubtestName(stringValue(tokens[first[0]].text));
    const seen = used.get(name) ?? 0;
    used.set(name, seen + 1);
    if (name === "") name = `#${String(seen).padStart(2, "0")}`;
    else if (seen > 0) name = `${name}#${String(seen).padStart(2, "0")}`;
    const path = [...parent, name];
    if (loops.some(([from, to]) => from < k && k < to)) {
      reading.looped.push({ test: parent[0], name: path.slice(1).join("/") });
    }
    reading.tests.push({
      path,
      sig: signature(tokens, open, close + 1),
      uses: usesOf(tokens, open, close + 1),
    });
    subtests(tokens, [open, close], path, reading, loops);
    k = close;
  }
}

/** Top-level names whose declaration is new or changed, followed through what uses them. */
function changedNames(before: FileReading | null, after: FileReading): Set<string> {
  const changed = new Set<string>();
  for (const [name, d] of after.decls) {
    if (before?.decls.get(name)?.sig !== d.sig) changed.add(name);
  }
  let grew = true;
  while (grew) {
    grew = false;
    for (const [name, d] of after.decls) {
      if (!changed.has(name) && [...d.uses].some((u) => u !== name && changed.has(u))) {
        changed.add(name);
        grew = true;
      }
    }
  }
  return changed;
}

/**
 * The tests a change added or changed in `path` (`before` null for a new file): every test id
 * of the file after the change, those the change made, and why static reading may not be the
 * whole story (computed subtest names, a build constraint).
 */
export function goChangedTests(path: string, before: string | null, after: string): FileTests {
  let now: FileReading;
  let then: FileReading | null = null;
  try {
    now = readTests(after);
  } catch (error) {
    if (error instanceof GoSyntaxError) return { error: `Cannot read ${path}: ${error.message}` };
    throw error;
  }
  if (before !== null) {
    try {
      then = readTests(before);
    } catch (error) {
      // A file that could not be read before: every test in it counts as the change's.
      if (!(error instanceof GoSyntaxError)) throw error;
    }
  }
  const dir = packageDirOf(path);
  const old = new Map((then?.tests ?? []).map((t) => [t.path.join("/"), t.sig]));
  const names = changedNames(then, now);
  const changed = new Set<string>();
  for (const t of now.tests) {
    const key = t.path.join("/");
    if (old.get(key) !== t.sig || [...t.uses].some((u) => names.has(u))) {
      // A changed subtest changes its parents.
      for (let n = 1; n <= t.path.length; n++) changed.add(t.path.slice(0, n).join("/"));
    }
  }
  const tests = now.tests.map((t) => makeId(dir, t.path));
  // Only the tests the change touched: what static reading cannot tell of the others is no
  // uncertainty of this change.
  const touched = (test: string) => changed.has(test);
  const reasons: string[] = [];
  const computed = now.computed.filter(touched);
  if (computed.length) {
    reasons.push(
      `${listed(computed)} ${
        computed.length === 1 ? "names its" : "name their"
      } subtests at run time (t.Run with a computed name)`,
    );
  }
  const looped = now.looped.filter((l) => touched(l.test));
  if (looped.length) {
    const byTest = [...new Set(looped.map((l) => l.test))].map((test) => {
      const names = looped.filter((l) => l.test === test).map((l) => `"${l.name}"`);
      return `${test} (${[...new Set(names)].join(", ")})`;
    });
    reasons.push(
      `${listed(byTest)} ${
        byTest.length === 1 ? "starts" : "start"
      } literal subtests inside a loop, which go test runs once per pass as name, name#01, name#02, ...`,
    );
  }
  if (now.constraint) reasons.push(`the file is built only under //go:build ${now.constraint}`);
  return {
    tests,
    changed: now.tests.filter((t) => changed.has(t.path.join("/"))).map((t) => makeId(dir, t.path)),
    ...(reasons.length ? { unsure: `${reasons.join("; ")}: running the package decides.` } : {}),
  };
}

/** A list for a person: the first five, then how many more. */
function listed(items: readonly string[]): string {
  const shown = items.slice(0, 5).join(", ");
  return items.length > 5 ? `${shown} and ${items.length - 5} more` : shown;
}

/** The top-level test names (`TestX`, `FuzzX`, examples) a test file declares, in order. */
export function topLevelTests(source: string): string[] {
  return readTests(source).tests.filter((t) => t.path.length === 1).map((t) => t.path[0]);
}
