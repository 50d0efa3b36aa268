/**
 * Whether a change to a Python source file touches only its type annotations: a stub file, or
 * lines that are the same once annotations, typing imports, `TYPE_CHECKING` guards, overloads,
 * type variables and `# type:` comments are taken out. No test run checks such a change.
 *
 * Pure; no permissions needed.
 *
 * @module
 */

/** Lines that are typing machinery as a whole. */
const TYPING_LINE = new RegExp(
  String.raw`^\s*(?:from\s+(?:typing|typing_extensions|collections\.abc|__future__)\s+import\b|` +
    String.raw`import\s+typing(?:_extensions)?\b|if\s+(?:typing\.)?TYPE_CHECKING\s*:|` +
    String
      .raw`@(?:typing\.)?overload\b|[\w.]+\s*=\s*(?:typing\.)?(?:TypeVar|ParamSpec|NewType)\(|` +
    String.raw`[\w.]+\s*:\s*(?:typing\.)?TypeAlias\s*=|type\s+\w+\s*=|#\s*type:)`,
);

/** What an annotation starts with: a class name, a builtin type, a string or `None`. */
const TYPE_START = String
  .raw`(?:[A-Z]\w*|int|str|float|bool|bytes|complex|object|type|list|dict|tuple|set|frozenset|None|typing\.\w+|t\.\w+|"[^"]*"|'[^']*')`;
const ANNOTATION = String.raw`${TYPE_START}[\w.\[\], |"']*?`;
/** A parameter with its annotation, in a signature: `name: Type` before `,`, `=`, `)`. */
const PARAM = new RegExp(String.raw`(\*{0,2}\w+)\s*:\s*${ANNOTATION}\s*(?=[,=)]|$)`, "g");
/** A return annotation: `) -> Type:`. */
const RETURNS = new RegExp(String.raw`\)\s*->\s*.+?:\s*(#.*)?$`);
/** A variable annotation: `name: Type = value` or `name: Type` alone. */
const VARIABLE = new RegExp(String.raw`^(\s*[\w.]+)\s*:\s*${ANNOTATION}\s*(=|$)`);

function unannotated(line: string): string {
  if (TYPING_LINE.test(line)) return "";
  let out = line.replace(/#\s*type:.*$/, "").replace(/#\s*noqa.*$/, "");
  out = out.replace(RETURNS, "):");
  const signature = /^\s*(?:async\s+)?def\s/.test(out) || /^\s*\*{0,2}\w+\s*:/.test(out);
  if (signature) out = out.replace(PARAM, "$1");
  else out = out.replace(VARIABLE, (_, name: string, eq: string) => (eq ? `${name} =` : ""));
  const body = out.replace(/\s+/g, "");
  // Indentation is code: a line indented anew runs under another block.
  return body && line.match(/^[ \t]*/)![0] + body;
}

function code(lines: readonly string[]): string[] {
  return lines.map(unannotated).filter((l) => l);
}

/**
 * True when one hunk of a change to `path` (its `-U0` removed and added lines) changes
 * annotations only: what is left without them is the same lines, in the same order, indented
 * alike. (A hunk that only removes or only adds code has moved or changed it.)
 */
export function pythonTypingOnly(
  path: string,
  removed: readonly string[],
  added: readonly string[],
): boolean {
  if (path.endsWith(".pyi") || path.endsWith("py.typed")) return true;
  if (!path.endsWith(".py")) return false;
  const before = code(removed);
  const after = code(added);
  return before.length === after.length && before.every((line, i) => line === after[i]);
}
