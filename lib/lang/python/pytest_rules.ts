/**
 * pytest's discovery rules: which files are test modules and which functions and classes are
 * tests, including a project's own `python_files` / `python_functions` / `python_classes` /
 * `testpaths` settings from `pytest.toml`, `pytest.ini`, `pyproject.toml`, `tox.ini` or
 * `setup.cfg`.
 *
 * Pure functions; no permissions needed.
 *
 * @module
 */

import { parseToml, TomlError } from "../../deps.ts";

/** The discovery settings that decide what pytest collects. */
export interface PytestRules {
  /** Glob patterns of test module file names (`python_files`). */
  files: string[];
  /** Prefixes or globs of test function names (`python_functions`). */
  functions: string[];
  /** Prefixes or globs of test class names (`python_classes`). */
  classes: string[];
  /** Directories pytest collects from when given none (`testpaths`), when set. */
  testpaths?: string[];
  /** The file the settings came from, when not pytest's defaults. */
  from?: string;
}

/** pytest's defaults. */
export const DEFAULT_RULES: PytestRules = {
  files: ["test_*.py", "*_test.py"],
  functions: ["test"],
  classes: ["Test"],
};

/** Configuration files in the order pytest looks for them. */
export const CONFIG_FILES = [
  "pytest.toml",
  ".pytest.toml",
  "pytest.ini",
  ".pytest.ini",
  "pyproject.toml",
  "tox.ini",
  "setup.cfg",
];

const compiled = new Map<string, RegExp>();

/** Translate an fnmatch pattern (`*`, `?`, `[seq]`, `[!seq]`) into a RegExp (compiled once). */
export function fnmatchRegExp(pattern: string): RegExp {
  let regexp = compiled.get(pattern);
  if (!regexp) {
    regexp = compileFnmatch(pattern);
    compiled.set(pattern, regexp);
  }
  return regexp;
}

function compileFnmatch(pattern: string): RegExp {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "*") out += ".*";
    else if (c === "?") out += ".";
    else if (c === "[") {
      const end = pattern.indexOf("]", i + 2);
      if (end < 0) {
        out += "\\[";
        continue;
      }
      let body = pattern.slice(i + 1, end);
      if (body.startsWith("!")) body = "^" + body.slice(1);
      out += `[${body.replace(/\\/g, "\\\\")}]`;
      i = end;
    } else out += c.replace(/[.+^${}()|\\\]]/g, "\\$&");
  }
  return new RegExp(`^${out}$`, "s");
}

const GLOB_CHARS = /[*?[]/;

/** pytest's rule for `python_functions` and `python_classes`: a prefix, or a glob if it has one. */
export function matchesName(name: string, patterns: readonly string[]): boolean {
  return patterns.some((p) =>
    name.startsWith(p) || (GLOB_CHARS.test(p) && fnmatchRegExp(p).test(name))
  );
}

/**
 * True when pytest would collect `path` (relative to the repository) as a test module: a `.py`
 * file whose name (or path, for patterns with a `/`) matches one of `python_files`.
 */
export function isTestModule(path: string, rules: PytestRules = DEFAULT_RULES): boolean {
  if (!path.endsWith(".py")) return false;
  const name = path.slice(path.lastIndexOf("/") + 1);
  if (name === "conftest.py" || name === "__init__.py") return false;
  return rules.files.some((pattern) =>
    pattern.includes("/")
      ? fnmatchRegExp(pattern.startsWith("*") ? pattern : `*${pattern}`).test(path)
      : fnmatchRegExp(pattern).test(name)
  );
}

/** Git pathspecs that select the files `python_files` matches, anywhere in the tree. */
export function testPathspecs(rules: PytestRules = DEFAULT_RULES): string[] {
  return rules.files.map((p) =>
    p.includes("/") ? `:(glob)**/${p.replace(/^\*+\/?/, "")}` : `:(glob)**/${p}`
  );
}

/** Split an ini value the way pytest splits `args` settings (shell-like words). */
function words(value: string): string[] {
  const out: string[] = [];
  for (const m of value.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) out.push(m[1] ?? m[2] ?? m[3]);
  return out;
}

/** Sections of an ini file: name → key → raw value (continuation lines joined). */
export function parseIni(text: string): Map<string, Map<string, string>> {
  const sections = new Map<string, Map<string, string>>();
  let section: Map<string, string> | undefined;
  let key: string | undefined;
  for (const raw of text.replace(/\r\n?/g, "\n").split("\n")) {
    if (/^\s*[#;]/.test(raw) || raw.trim() === "") {
      if (raw.trim() === "") key = undefined;
      continue;
    }
    const header = raw.match(/^\[([^\]]+)\]\s*$/);
    if (header) {
      section = new Map();
      sections.set(header[1].trim(), section);
      key = undefined;
      continue;
    }
    if (/^\s/.test(raw) && key && section) {
      section.set(key, `${section.get(key)} ${raw.trim()}`);
      continue;
    }
    const pair = raw.match(/^([^=:]+?)\s*[=:]\s*(.*)$/);
    if (pair && section) {
      key = pair[1].trim();
      section.set(key, pair[2].trim());
    }
  }
  return sections;
}

function withTestpaths(rules: PytestRules, testpaths: string[] | undefined): PytestRules {
  const dirs = (testpaths ?? []).map((d) => d.replace(/^\.\//, "").replace(/\/+$/, ""))
    .filter((d) => d !== "" && d !== ".");
  return dirs.length ? { ...rules, testpaths: dirs } : rules;
}

function fromIni(values: Map<string, string>, from: string): PytestRules {
  const pick = (name: string, fallback: string[]) => {
    const value = values.get(name);
    return value === undefined ? fallback : words(value);
  };
  const testpaths = values.get("testpaths");
  return withTestpaths({
    files: pick("python_files", DEFAULT_RULES.files),
    functions: pick("python_functions", DEFAULT_RULES.functions),
    classes: pick("python_classes", DEFAULT_RULES.classes),
    from,
  }, testpaths === undefined ? undefined : words(testpaths));
}

function fromToml(table: Record<string, unknown>, from: string): PytestRules {
  const pick = (name: string, fallback: string[]) => {
    const value = table[name];
    if (typeof value === "string") return words(value);
    if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
    return fallback;
  };
  return withTestpaths({
    files: pick("python_files", DEFAULT_RULES.files),
    functions: pick("python_functions", DEFAULT_RULES.functions),
    classes: pick("python_classes", DEFAULT_RULES.classes),
    from,
  }, table.testpaths === undefined ? undefined : pick("testpaths", []));
}

/** The `[tool.pytest...]` tables at the start of `text`, up to the next other table. */
function pytestTables(text: string): string {
  const lines = text.split("\n");
  let end = lines.length;
  for (let i = 1; i < lines.length; i++) {
    const header = lines[i].match(/^\s*\[\[?\s*([^\]]+?)\s*\]/);
    if (header && !/^tool\s*\.\s*pytest\b/.test(header[1])) {
      end = i;
      break;
    }
  }
  return lines.slice(0, end).join("\n");
}

/** True when `path` lies under one of the rules' `testpaths` (always, when none are set). */
export function inTestpaths(path: string, rules: PytestRules): boolean {
  return !rules.testpaths || rules.testpaths.some((d) => path === d || path.startsWith(`${d}/`));
}

/**
 * The discovery rules from a project's configuration files (name → text; missing files absent),
 * chosen as pytest chooses its configuration file: `pytest.toml` (pytest 9, a `[pytest]` table),
 * then `pytest.ini` (even without settings), then
 * `pyproject.toml` with `[tool.pytest.ini_options]` or `[tool.pytest]`, then `tox.ini` with
 * `[pytest]`, then `setup.cfg` with `[tool:pytest]`. Unreadable files are skipped.
 */
export function pytestRules(files: Record<string, string | undefined>): PytestRules {
  for (const name of CONFIG_FILES) {
    const text = files[name];
    if (text === undefined) continue;
    const rules = rulesFromFile(name, text);
    if (rules) return rules;
  }
  return DEFAULT_RULES;
}

/**
 * The discovery rules one configuration file sets, or undefined when pytest would pass it by
 * (no pytest section, or unreadable) and look at the next one (see {@linkcode pytestRules}).
 */
export function rulesFromFile(name: string, text: string): PytestRules | undefined {
  if (name === "pytest.ini" || name === ".pytest.ini") {
    return fromIni(parseIni(text).get("pytest") ?? new Map(), name);
  }
  if (name === "pytest.toml" || name === ".pytest.toml") {
    try {
      const data = parseToml(text) as { pytest?: Record<string, unknown> };
      return fromToml(data.pytest ?? {}, name);
    } catch (error) {
      if (error instanceof TomlError) return undefined; // pytest would refuse it too
      throw error;
    }
  }
  if (name === "pyproject.toml") {
    // Most pyproject.toml files say nothing to pytest: no need to parse those. Of the others,
    // only the pytest tables are parsed (the rest may change often; their rules are the same).
    const at = text.search(/^\s*\[\s*tool\s*\.\s*pytest\b/m);
    if (at < 0) return undefined;
    let data: Record<string, unknown>;
    try {
      data = parseToml(pytestTables(text.slice(at))) as Record<string, unknown>;
    } catch (error) {
      if (error instanceof TomlError) return undefined;
      throw error;
    }
    const pytest = (data.tool as Record<string, unknown> | undefined)?.pytest as
      | Record<string, unknown>
      | undefined;
    if (!pytest) return undefined;
    const legacy = pytest.ini_options as Record<string, unknown> | undefined;
    return fromToml(legacy ?? pytest, name);
  }
  const header = name === "tox.ini" ? "pytest" : "tool:pytest";
  const at = text.search(new RegExp(`^\\[${header}\\]\\s*$`, "m"));
  if (at < 0) return undefined;
  // Only that section: tox.ini and setup.cfg hold much else.
  const next = text.slice(at + 1).search(/^\[/m);
  const section = parseIni(next < 0 ? text.slice(at) : text.slice(at, at + 1 + next)).get(header);
  return section ? fromIni(section, name) : undefined;
}
