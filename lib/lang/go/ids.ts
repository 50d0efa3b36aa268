/**
 * Go test ids and the paths the runner cares about.
 *
 * An id is `<package dir>/<TestName>[/<subtest>...]`: the package directory relative to the
 * module root (`.` at the root, so `./TestParse`), then the test's name as `go test` prints it
 * (subtest names rewritten by Go: spaces become `_`). The first segment that is a test
 * function's name (`Test`, `Fuzz` or `Example`, followed by nothing or by a character that is not
 * a lower-case letter, as `go test` decides) starts the name; a package directory named like a
 * test (`pkg/TestData/`) would be misread, which Go projects do not do in practice.
 *
 * Pure; no permissions.
 *
 * @module
 */

import { posix } from "node:path";

/** Whether `name` is a name `go test` runs as a test, fuzz test or example. */
export function isTestName(name: string): boolean {
  const m = /^(Test|Fuzz|Example)(.*)$/su.exec(name);
  if (!m) return false;
  const rest = m[2];
  // `go test` skips TestMain and names such as `Testify` (next rune lower-case).
  if (name === "TestMain") return false;
  return rest === "" || !/^\p{Ll}/u.test(rest);
}

/** A parsed id: the package directory and the name's elements. */
export interface GoId {
  /** The package directory relative to the module root; `.` at the root. */
  dir: string;
  /** The test function and its subtests: `["TestX", "case_1"]`. */
  path: string[];
}

/** Split an id; undefined when it names no test (a package directory or a file). */
export function parseId(id: string): GoId | undefined {
  const parts = id.split("/");
  const at = parts.findIndex(isTestName);
  if (at < 0) return undefined;
  const dir = parts.slice(0, at).filter((p) => p !== "").join("/");
  return { dir: dir === "" ? "." : dir, path: parts.slice(at) };
}

/** The id of test `path` (name elements) in package directory `dir`. */
export function makeId(dir: string, path: readonly string[]): string {
  return [dir === "" ? "." : dir, ...path].join("/");
}

/** The package directory a test id, test file or package directory belongs to. */
export function fileOf(id: string): string {
  const parsed = parseId(id);
  if (parsed) return parsed.dir;
  if (id.endsWith(".go")) return packageDirOf(id);
  return id === "" ? "." : posix.normalize(id).replace(/\/$/, "");
}

/** The package directory of a file path (`.` at the root). */
export function packageDirOf(path: string): string {
  const dir = posix.dirname(path);
  return dir === "" ? "." : dir;
}

/** Whether `path` is test code: a `_test.go` file, or anything under a `testdata/` directory. */
export function isTestFile(path: string): boolean {
  if (path.endsWith("_test.go")) return true;
  return path.split("/").slice(0, -1).includes("testdata");
}

/**
 * Whether `path` decides how the module is built and tested: `go.mod`, `go.sum`, `go.work` and
 * `go.work.sum`, at any depth (a nested module's too). A maintainers' `TestMain` lives in a test
 * file with other tests, so it cannot be told by path: see `patchFlags` in `flags.ts`.
 */
export function isConfig(path: string): boolean {
  const base = posix.basename(path);
  return base === "go.mod" || base === "go.sum" || base === "go.work" || base === "go.work.sum";
}

/** Go's rewriting of a subtest's name (testing's `rewrite`): spaces to `_`, unprintables quoted. */
export function rewriteSubtestName(name: string): string {
  let out = "";
  for (const ch of name) {
    if (/^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/u.test(ch)) {
      out += "_";
    } else if (/^[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Zl}\p{Zp}]$/u.test(ch)) {
      const cp = ch.codePointAt(0)!;
      out += cp < 0x80
        ? `\\x${cp.toString(16).padStart(2, "0")}`
        : cp <= 0xffff
        ? `\\u${cp.toString(16).padStart(4, "0")}`
        : `\\U${cp.toString(16).padStart(8, "0")}`;
    } else out += ch;
  }
  return out;
}

/** `s` with every regular-expression metacharacter escaped (Go's `regexp.QuoteMeta`). */
export function quoteMeta(s: string): string {
  return s.replace(/[\\.+*?()|[\]{}^$]/g, "\\$&");
}

/**
 * The `-test.run` pattern that runs exactly `paths` (name elements, as from {@linkcode parseId}):
 * one alternative per test, each element anchored, e.g. `^TestA$|^TestB$/^case_1$`. A subtest's
 * own `/` splits it into levels, as Go matches it. Undefined for no paths.
 */
export function runPattern(paths: readonly (readonly string[])[]): string | undefined {
  if (paths.length === 0) return undefined;
  // A whole test makes its subtests' own entries redundant (and they would not narrow it).
  const whole = new Set(paths.filter((p) => p.length === 1).map((p) => p[0]));
  const kept = paths.filter((p) => p.length === 1 || !whole.has(p[0]));
  const seen = new Set<string>();
  const alternatives: string[] = [];
  for (const p of kept) {
    const alt = p.flatMap((e) => e.split("/")).map((e) => `^${quoteMeta(e)}$`).join("/");
    if (!seen.has(alt)) alternatives.push(alt);
    seen.add(alt);
  }
  return alternatives.join("|");
}
