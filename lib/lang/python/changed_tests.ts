/**
 * Which test functions a change added or changed in a test module: both versions are parsed with
 * Python's own `ast` module (by the test environment's interpreter; nothing is imported or run)
 * and each test pytest would collect is compared by its syntax tree, decorators included. A test
 * that is new, or whose definition (or enclosing class header, or the module's `pytestmark`)
 * differs, is the change's; the rest of the module is the repository's.
 *
 * Requires `--allow-run` (the interpreter).
 *
 * @module
 */

import { dirname } from "node:path";
import { BugboutError } from "../../errors.ts";
import type { PytestRules } from "./pytest_rules.ts";
import { run } from "../../proc.ts";

const SCRIPT = String.raw`
import ast, fnmatch, json, sys

def matches(name, patterns):
    for p in patterns:
        if name.startswith(p):
            return True
        if any(c in p for c in "*?[") and fnmatch.fnmatchcase(name, p):
            return True
    return False

def sig(node):
    return ast.dump(node, include_attributes=False)

def is_unittest(cls):
    for base in cls.bases:
        name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
        if name in ("TestCase", "IsolatedAsyncioTestCase"):
            return True
    return False

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)

def header(cls):
    parts = [sig(d) for d in cls.decorator_list] + [sig(b) for b in cls.bases]
    parts += [sig(k) for k in cls.keywords]
    parts += [sig(s) for s in cls.body if not isinstance(s, FUNCS + (ast.ClassDef,))]
    return "|".join(parts)

def is_pytestmark(stmt):
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
    return any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in targets)

def tests_of(source, rules):
    tree = ast.parse(source)
    found = {}
    marks = "|".join(sig(s) for s in tree.body
                     if isinstance(s, (ast.Assign, ast.AnnAssign)) and is_pytestmark(s))
    def visit(cls, prefix, outer):
        unit = is_unittest(cls)
        if not (unit or matches(cls.name, rules["classes"])):
            return
        has_init = any(isinstance(s, FUNCS) and s.name == "__init__" for s in cls.body)
        if has_init and not unit:
            return
        path = prefix + cls.name
        head = outer + "|" + header(cls)
        for s in cls.body:
            if isinstance(s, FUNCS):
                ok = s.name.startswith("test") if unit else matches(s.name, rules["functions"])
                if ok:
                    found[path + "::" + s.name] = head + "|" + sig(s)
            elif isinstance(s, ast.ClassDef):
                visit(s, path + "::", head)
    for s in tree.body:
        if isinstance(s, FUNCS) and matches(s.name, rules["functions"]):
            found[s.name] = sig(s)
        elif isinstance(s, ast.ClassDef):
            visit(s, "", "")
    return found, marks

request = json.load(sys.stdin)
rules = request["rules"]
answers = []
for item in request["items"]:
    try:
        after, after_marks = tests_of(item["after"], rules)
    except (SyntaxError, ValueError) as error:
        answers.append({"error": "%s: %s" % (type(error).__name__, error)})
        continue
    before, before_marks = {}, None
    if item.get("before") is not None:
        try:
            before, before_marks = tests_of(item["before"], rules)
        except (SyntaxError, ValueError):
            before, before_marks = {}, None
    everything = item.get("before") is None or before_marks != after_marks
    changed = [t for t, s in after.items() if everything or before.get(t) != s]
    answers.append({"tests": list(after), "changed": changed})
json.dump(answers, sys.stdout)
`;

/** One module to compare: its text before the change (null when it is new) and after. */
export interface ModuleVersions {
  /** Text before the change, or null for a new module. */
  before: string | null;
  /** Text after the change. */
  after: string;
}

/** What the comparison says about one module. */
export type ChangedTests =
  | {
    /** Every test of the module after the change (`name` or `Class::name`), in source order. */
    tests: string[];
    /** Those the change added or changed. */
    changed: string[];
  }
  | {
    /** Why the module after the change cannot be parsed. */
    error: string;
  };

/**
 * Compare each module's two versions with the interpreter `python` (a test environment's) and
 * return, per module and in order, the tests the change added or changed. One process for all
 * modules. Throws a {@linkcode BugboutError} when the interpreter cannot run the comparison.
 */
export async function changedTests(
  python: string,
  modules: readonly ModuleVersions[],
  rules: Pick<PytestRules, "functions" | "classes">,
  signal?: AbortSignal,
): Promise<ChangedTests[]> {
  if (modules.length === 0) return [];
  const request = JSON.stringify({
    rules: { functions: rules.functions, classes: rules.classes },
    items: modules,
  });
  return await askPython<ChangedTests>(
    python,
    SCRIPT,
    request,
    modules.length,
    "test modules",
    signal,
  );
}

/**
 * Run `script` in an isolated `python` with `request` on its standard input, and read its answer:
 * a JSON array of `count` items, one per item asked about. Throws a `BugboutError` naming `what`
 * when the script fails or answers otherwise.
 */
export async function askPython<T>(
  python: string,
  script: string,
  request: string,
  count: number,
  what: string,
  signal?: AbortSignal,
): Promise<T[]> {
  const result = await run([python, "-I", "-c", script], {
    env: { PATH: `${dirname(python)}:/usr/bin:/bin`, LANG: "C.UTF-8" },
    clearEnv: true,
    stdin: request,
    okCodes: "any",
    timeoutMs: 300_000,
    maxOutputBytes: 64 * 1024 * 1024,
    signal,
  });
  if (result.code !== 0) {
    throw new BugboutError(
      `Cannot compare ${what} with ${python}: ${
        result.stderr.trim().split("\n").slice(-5).join("\n")
      }`,
    );
  }
  const answers = JSON.parse(result.stdout) as T[];
  if (!Array.isArray(answers) || answers.length !== count) {
    throw new BugboutError(`Cannot compare ${what} with ${python}: unexpected answer.`);
  }
  return answers;
}

/**
 * The test a node id names within its module, without parameters:
 * `tests/a.py::TestK::test_m[1-2]` → `TestK::test_m`; undefined for a module's own id.
 */
export function testOfNode(nodeId: string, file: string): string | undefined {
  if (!nodeId.startsWith(`${file}::`)) return undefined;
  const rest = nodeId.slice(file.length + 2);
  const bracket = rest.indexOf("[");
  return bracket < 0 ? rest : rest.slice(0, bracket);
}
