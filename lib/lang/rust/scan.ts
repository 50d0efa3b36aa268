/**
 * The `#[test]` functions of a Rust file, read statically: every function with an attribute
 * whose path ends in `test` (`#[test]`, `#[tokio::test]`), inside the modules (`mod m { ... }`)
 * it is nested in, with the text of its body (a change to the body is a changed test).
 *
 * Pure; no permissions.
 *
 * @module
 */

/** One test function. */
export interface RustTest {
  /** Its path inside the file (`m::t`). */
  path: string;
  /** Its attributes and body, as written. */
  text: string;
}

/** `text` with comments, strings and char literals blanked (same length, newlines kept). */
export function blankRust(text: string): string {
  let out = "";
  let i = 0;
  const blank = (s: string) => s.replace(/[^\n]/g, " ");
  while (i < text.length) {
    const rest = text.slice(i);
    let m = rest.match(/^\/\/[^\n]*/) ?? rest.match(/^\/\*[\s\S]*?\*\//) ??
      rest.match(/^r(#*)"[\s\S]*?"\1/) ?? rest.match(/^b?"(?:\\[\s\S]|[^"\\])*"/) ??
      rest.match(/^b?'(?:\\.|[^'\\\n])'/);
    if (m && m.index === 0 && !(m[0].startsWith("r") && /[\w]/.test(text[i - 1] ?? ""))) {
      out += m[0].startsWith('"') || m[0].startsWith("b") || m[0].startsWith("r") ||
          m[0].startsWith("'")
        ? m[0][0] + blank(m[0].slice(1, -1)) + m[0].at(-1)
        : blank(m[0]);
      i += m[0].length;
      continue;
    }
    m = null;
    out += text[i++];
  }
  return out;
}

/** The index of the `}` that closes the `{` at `open`, or the text's end. */
function closing(code: string, open: number): number {
  let depth = 0;
  for (let i = open; i < code.length; i++) {
    if (code[i] === "{") depth++;
    else if (code[i] === "}" && --depth === 0) return i;
  }
  return code.length - 1;
}

/** The tests of a Rust file, in source order. */
export function rustTests(text: string): RustTest[] {
  const code = blankRust(text);
  const found: RustTest[] = [];
  const walk = (from: number, to: number, prefix: string[]) => {
    const token =
      /\bmod\s+([A-Za-z_]\w*)\s*\{|#\[\s*(?:[\w:]+::)?test\s*(?:\([^\]]*\))?\]((?:\s*#\[[^\]]*\])*)\s*(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+([A-Za-z_]\w*)/g;
    token.lastIndex = from;
    let m;
    while ((m = token.exec(code)) && m.index < to) {
      if (m[1]) {
        const open = m.index + m[0].length - 1;
        const end = closing(code, open);
        walk(open + 1, end, [...prefix, m[1]]);
        token.lastIndex = end + 1;
        continue;
      }
      const open = code.indexOf("{", m.index + m[0].length);
      const end = open < 0 ? code.length - 1 : closing(code, open);
      found.push({ path: [...prefix, m[3]].join("::"), text: text.slice(m.index, end + 1) });
      token.lastIndex = end + 1;
    }
  };
  walk(0, code.length, []);
  return found;
}
