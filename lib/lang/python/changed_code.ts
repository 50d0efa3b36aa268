/**
 * Where a change to a Python module can be felt, for choosing which of the repository's tests a
 * patch can change: both versions are parsed with Python's own `ast` (by the environment's
 * interpreter; nothing is imported or run) and every outermost function (one at module level, or
 * in a class, or under an `if` or `try` of those, but not inside another function) has its body
 * set aside. When what is left (the module's skeleton: imports, assignments, class bodies, every
 * function's decorators, signature and defaults) is the same in both versions, the change lies in
 * function bodies only, and the answer is the line ranges, in the version before, of the functions
 * whose bodies differ. Otherwise (or when either version cannot be parsed) the answer is null: the
 * change can reach anything that imports the module.
 *
 * Requires `--allow-run` (the interpreter).
 *
 * @module
 */

import { dirname } from "node:path";
import { BugboutError } from "../../errors.ts";
import { run } from "../../proc.ts";

const SCRIPT = String.raw`
import ast, json, sys

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def split(source):
    tree = ast.parse(source)
    bodies = []

    class Strip(ast.NodeTransformer):
        def strip(self, node):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            bodies.append((start, node.end_lineno, "|".join(ast.dump(s) for s in node.body)))
            node.body = [ast.Pass()]
            return node

        visit_FunctionDef = strip
        visit_AsyncFunctionDef = strip

    Strip().visit(tree)
    return ast.dump(tree), bodies


def answer(item):
    try:
        before, after = split(item["before"]), split(item["after"])
    except (SyntaxError, ValueError, RecursionError):
        return None
    if before[0] != after[0] or len(before[1]) != len(after[1]):
        return None
    return [[b[0], b[1]] for b, a in zip(before[1], after[1]) if b[2] != a[2]]


items = json.loads(sys.stdin.read())
print(json.dumps([answer(item) for item in items]))
`;

/** One module's two versions. */
export interface ModuleChange {
  before: string;
  after: string;
}

/**
 * For each module: the line ranges (1-based, inclusive, in `before`) of the outermost functions
 * whose bodies the change touches, or null when it touches more than function bodies (see the
 * module's documentation). Throws a `BugboutError` when the interpreter cannot run the reader.
 */
export async function changedFunctions(
  python: string,
  modules: readonly ModuleChange[],
  signal?: AbortSignal,
): Promise<([number, number][] | null)[]> {
  if (modules.length === 0) return [];
  const result = await run([python, "-I", "-c", SCRIPT], {
    env: { PATH: `${dirname(python)}:/usr/bin:/bin`, LANG: "C.UTF-8" },
    clearEnv: true,
    stdin: JSON.stringify(modules),
    okCodes: "any",
    timeoutMs: 300_000,
    maxOutputBytes: 64 * 1024 * 1024,
    signal,
  });
  if (result.code !== 0) {
    throw new BugboutError(
      `Cannot compare modules with ${python}: ${
        result.stderr.trim().split("\n").slice(-5).join("\n")
      }`,
    );
  }
  const answers = JSON.parse(result.stdout) as ([number, number][] | null)[];
  if (!Array.isArray(answers) || answers.length !== modules.length) {
    throw new BugboutError(`Cannot compare modules with ${python}: unexpected answer.`);
  }
  return answers;
}
