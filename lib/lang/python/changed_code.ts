/**
 * Where a change to a Python module can be felt, for choosing which of the repository's tests a
 * patch can change: both versions are parsed with Python's own `ast` (by the environment's
 * interpreter; nothing is imported or run) and every outermost function (one at module level, or
 * in a class, or under an `if` or `try` of those, but not inside another function) has its body
 * set aside. When what is left (the module's skeleton: imports, assignments, class bodies, every
 * function's decorators, signature and defaults) is the same in both versions, the change lies in
 * function bodies only, and the answer is the line ranges, in the version before, of the functions
 * whose bodies differ. Otherwise (or when either version cannot be parsed) the answer is null: the
 * change can reach anything that imports the module. A changed body that does something its old
 * one did not to state other tests can see (a store to anything but its own locals, `global`,
 * a mutating method of a name not its own, `setattr`/`globals`/`vars`/`exec`, a dunder attribute,
 * importing `sys`, `importlib`, `gc`, `ctypes`, `builtins`, `inspect` or `types`) answers null too:
 * a test that reaches it could leave what it did for a test that never does.
 *
 * Requires `--allow-run` (the interpreter).
 *
 * @module
 */

import { askPython } from "./changed_tests.ts";

const SCRIPT = String.raw`
import ast, json, sys
from collections import Counter

DANGEROUS = {"setattr", "delattr", "globals", "vars", "exec", "eval", "__import__", "compile", "locals"}
MUTATORS = {"append", "extend", "update", "insert", "pop", "clear", "setdefault", "add", "remove",
            "discard", "popitem", "appendleft", "extendleft", "sort", "reverse"}
MODULES = {"importlib", "gc", "ctypes", "builtins", "inspect", "sys", "types"}
PLAIN_DUNDERS = {"__init__", "__name__", "__qualname__", "__doc__"}


def root(node):
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def locals_of(func):
    a = func.args
    names = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
    names |= {x.arg for x in (a.vararg, a.kwarg) if x is not None}
    declared = set()
    for node in ast.walk(func):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            declared |= set(node.names)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.alias):
            # (What an import binds is shared by every importer: never the function's own.)
            declared.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif node is not func and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
    return names - declared


def reach(func):
    """What a function's body does that can leave state for other tests: writes to anything but
    its own locals, reflection, imports of the interpreter's machinery."""
    mine = locals_of(func)
    found = Counter()
    for node in ast.walk(func):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            found["global " + ",".join(node.names)] += 1
        elif isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            if root(node) not in mine:
                found["store " + ast.dump(node)] += 1
        elif isinstance(node, ast.Name) and node.id in DANGEROUS:
            found["name " + node.id] += 1
        elif isinstance(node, ast.Attribute) and node.attr.startswith("__") and node.attr not in PLAIN_DUNDERS:
            found["dunder " + node.attr] += 1
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                top = (getattr(node, "module", None) or alias.name).split(".")[0]
                if top in MODULES or alias.name.split(".")[0] in MODULES:
                    found["import " + top] += 1
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
            if root(node.func.value) not in mine:
                found["mutate " + ast.dump(node.func)] += 1
    return found


def split(source):
    tree = ast.parse(source)
    bodies = []

    class Strip(ast.NodeTransformer):
        def strip(self, node):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            dump = "|".join(ast.dump(s) for s in node.body)
            bodies.append((start, node.end_lineno, dump, reach(node)))
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
    changed = []
    for b, a in zip(before[1], after[1]):
        if b[2] == a[2]:
            continue
        # A changed body that reaches state its old one did not may be felt by any test after it.
        if a[3] - b[3]:
            return None
        changed.append([b[0], b[1]])
    return changed


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
  return await askPython<[number, number][] | null>(
    python,
    SCRIPT,
    JSON.stringify(modules),
    modules.length,
    "modules",
    signal,
  );
}
