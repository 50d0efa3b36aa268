/**
 * A small Go lexer and reader of a file's top-level declarations: enough to name the tests a file
 * declares, the subtests it starts with literal names, and the text each is made of, without a Go
 * toolchain (the runner's static reading is synchronous). Comments and layout are not part of a
 * declaration's signature, so reformatting changes no test.
 *
 * Pure; no permissions.
 *
 * @module
 */

/** One token: an identifier, a literal, or an operator or punctuation character (sequence). */
export interface Token {
  kind: "ident" | "string" | "char" | "number" | "op";
  /** The token's text as written. */
  text: string;
  /** Offset of its first character. */
  start: number;
  /** Offset after its last character. */
  end: number;
  /** A newline (or a comment holding one) came between the previous token and this one. */
  newline: boolean;
}

/** A file's tokens and comments. */
export interface Lexed {
  tokens: Token[];
  /** Comments as written, with their offsets. */
  comments: { text: string; start: number }[];
}

/** Why a source cannot be read. */
export class GoSyntaxError extends Error {
  /** See the class description. */
  constructor(message: string) {
    super(message);
    this.name = "GoSyntaxError";
  }
}

const IDENT_START = /[\p{L}_]/u;
const IDENT_PART = /[\p{L}\p{N}_]/u;

/** Split Go source into tokens. Throws {@linkcode GoSyntaxError} on an unterminated literal. */
export function lex(source: string): Lexed {
  const tokens: Token[] = [];
  const comments: Lexed["comments"] = [];
  let i = 0;
  let newline = false;
  const line = (at: number) => source.slice(0, at).split("\n").length;
  while (i < source.length) {
    const c = source[i];
    if (c === "\n") {
      newline = true;
      i++;
    } else if (c === " " || c === "\t" || c === "\r") {
      i++;
    } else if (c === "/" && source[i + 1] === "/") {
      const end = source.indexOf("\n", i);
      const stop = end < 0 ? source.length : end;
      comments.push({ text: source.slice(i, stop), start: i });
      i = stop;
    } else if (c === "/" && source[i + 1] === "*") {
      const end = source.indexOf("*/", i + 2);
      if (end < 0) throw new GoSyntaxError(`comment not terminated (line ${line(i)})`);
      const text = source.slice(i, end + 2);
      if (text.includes("\n")) newline = true;
      comments.push({ text, start: i });
      i = end + 2;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < source.length && source[j] !== c) {
        if (source[j] === "\n") break;
        j += source[j] === "\\" ? 2 : 1;
      }
      if (source[j] !== c) throw new GoSyntaxError(`literal not terminated (line ${line(i)})`);
      tokens.push({
        kind: c === '"' ? "string" : "char",
        text: source.slice(i, j + 1),
        start: i,
        end: j + 1,
        newline,
      });
      newline = false;
      i = j + 1;
    } else if (c === "`") {
      const end = source.indexOf("`", i + 1);
      if (end < 0) throw new GoSyntaxError(`raw string not terminated (line ${line(i)})`);
      tokens.push({
        kind: "string",
        text: source.slice(i, end + 1),
        start: i,
        end: end + 1,
        newline,
      });
      newline = false;
      i = end + 1;
    } else if (IDENT_START.test(c)) {
      let j = i + 1;
      while (j < source.length && IDENT_PART.test(source[j])) j++;
      tokens.push({ kind: "ident", text: source.slice(i, j), start: i, end: j, newline });
      newline = false;
      i = j;
    } else if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(source[i + 1] ?? ""))) {
      let j = i + 1;
      while (j < source.length && /[0-9A-Za-z_.]/.test(source[j])) {
        // An exponent's sign belongs to the number (1e-9).
        if (/[eEpP]/.test(source[j]) && /[+-]/.test(source[j + 1] ?? "")) j++;
        j++;
      }
      tokens.push({ kind: "number", text: source.slice(i, j), start: i, end: j, newline });
      newline = false;
      i = j;
    } else {
      tokens.push({ kind: "op", text: c, start: i, end: i + 1, newline });
      newline = false;
      i++;
    }
  }
  return { tokens, comments };
}

/** The value of a Go string literal token (interpreted or raw). */
export function stringValue(text: string): string {
  if (text.startsWith("`")) return text.slice(1, -1).replaceAll("\r", "");
  const body = text.slice(1, -1);
  let out = "";
  const bytes: number[] = [];
  const flush = () => {
    if (bytes.length) out += new TextDecoder().decode(new Uint8Array(bytes.splice(0)));
  };
  for (let i = 0; i < body.length; i++) {
    if (body[i] !== "\\") {
      flush();
      out += body[i];
      continue;
    }
    const e = body[++i];
    const simple: Record<string, string> = {
      a: "\x07",
      b: "\b",
      f: "\f",
      n: "\n",
      r: "\r",
      t: "\t",
      v: "\v",
      "\\": "\\",
      '"': '"',
      "'": "'",
    };
    if (e in simple) {
      flush();
      out += simple[e];
    } else if (e === "x") {
      bytes.push(parseInt(body.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (/[0-7]/.test(e)) {
      bytes.push(parseInt(body.slice(i, i + 3), 8));
      i += 2;
    } else if (e === "u" || e === "U") {
      const n = e === "u" ? 4 : 8;
      flush();
      out += String.fromCodePoint(parseInt(body.slice(i + 1, i + 1 + n), 16));
      i += n;
    }
  }
  flush();
  return out;
}

/** Index of the token closing the bracket opened at `open`. */
export function closing(tokens: readonly Token[], open: number): number {
  const pairs: Record<string, string> = { "(": ")", "[": "]", "{": "}" };
  const stack: string[] = [];
  for (let i = open; i < tokens.length; i++) {
    const t = tokens[i].text;
    if (tokens[i].kind !== "op") continue;
    if (t in pairs) stack.push(pairs[t]);
    else if (t === ")" || t === "]" || t === "}") {
      if (stack.pop() !== t) throw new GoSyntaxError(`unbalanced "${t}"`);
      if (stack.length === 0) return i;
    }
  }
  throw new GoSyntaxError(`"${tokens[open].text}" is never closed`);
}

/** A top-level declaration. */
export interface Decl {
  kind: "func" | "method" | "var" | "const" | "type" | "import";
  /** Names it declares (a function's name; every name of a `var (...)` group). */
  names: string[];
  /** Index of its first token (`func`, `var`, ...) and after its last. */
  from: number;
  to: number;
  /** For a function: the tokens of its parameter list, without the parentheses. */
  params?: Token[];
  /** For a function: index of the body's `{` and its `}`. */
  body?: [number, number];
  /** For a method: index of the method name token. */
  nameAt?: number;
}

/** The top-level declarations of a lexed file, in source order. */
export function declarations(tokens: readonly Token[]): Decl[] {
  const decls: Decl[] = [];
  let i = 0;
  // Skip the package clause.
  while (i < tokens.length && !(tokens[i].kind === "ident" && tokens[i].text === "package")) i++;
  i += 2;
  while (i < tokens.length) {
    const t = tokens[i];
    if (t.kind !== "ident") {
      i++;
      continue;
    }
    if (t.text === "func") {
      let j = i + 1;
      let kind: Decl["kind"] = "func";
      if (tokens[j]?.text === "(") {
        kind = "method";
        j = closing(tokens, j) + 1;
      }
      const nameAt = j;
      const name = tokens[j]?.text ?? "";
      j++;
      if (tokens[j]?.text === "[") j = closing(tokens, j) + 1; // type parameters
      if (tokens[j]?.text !== "(") throw new GoSyntaxError(`cannot read func ${name}`);
      const close = closing(tokens, j);
      const params = tokens.slice(j + 1, close);
      // The body is the first "{" at this level after the signature (results may hold braces
      // only inside parentheses or brackets: `func f() (x struct{}) {`).
      let k = close + 1;
      while (k < tokens.length && tokens[k].text !== "{" && !tokens[k].newline) {
        if (tokens[k].text === "(" || tokens[k].text === "[") k = closing(tokens, k);
        else if (tokens[k].text === "struct" || tokens[k].text === "interface") {
          k = closing(tokens, k + 1);
        }
        k++;
      }
      if (tokens[k]?.text === "{") {
        const end = closing(tokens, k);
        decls.push({
          kind,
          names: kind === "func" ? [name] : [],
          from: i,
          to: end + 1,
          params,
          body: [k, end],
          nameAt,
        });
        i = end + 1;
      } else {
        decls.push({ kind, names: kind === "func" ? [name] : [], from: i, to: k, params, nameAt });
        i = k;
      }
    } else if (["var", "const", "type", "import"].includes(t.text)) {
      const kind = t.text as Decl["kind"];
      if (tokens[i + 1]?.text === "(") {
        const end = closing(tokens, i + 1);
        const names: string[] = [];
        for (let k = i + 2; k < end; k++) {
          if (k === i + 2 || tokens[k].newline || tokens[k - 1].text === ";") {
            // A spec's leading identifiers: `a, b = 1, 2` or `T struct {...}`.
            let m = k;
            while (tokens[m]?.kind === "ident") {
              names.push(tokens[m].text);
              if (tokens[m + 1]?.text !== ",") break;
              m += 2;
            }
          }
          if (["(", "[", "{"].includes(tokens[k].text)) k = closing(tokens, k);
        }
        decls.push({ kind, names: kind === "import" ? [] : names, from: i, to: end + 1 });
        i = end + 1;
      } else {
        const names: string[] = [];
        let k = i + 1;
        while (tokens[k]?.kind === "ident") {
          names.push(tokens[k].text);
          if (tokens[k + 1]?.text !== ",") break;
          k += 2;
        }
        // The spec ends at the first newline at this level.
        let end = k + 1;
        while (end < tokens.length && !tokens[end].newline) {
          if (["(", "[", "{"].includes(tokens[end].text)) end = closing(tokens, end);
          end++;
        }
        decls.push({ kind, names: kind === "import" ? [] : names, from: i, to: end });
        i = end;
      }
    } else {
      i++;
    }
  }
  return decls;
}

/** The tokens from `from` to `to` as one comparable string (layout and comments left out). */
export function signature(tokens: readonly Token[], from: number, to: number): string {
  return tokens.slice(from, to).map((t) => t.text).join(" ");
}
