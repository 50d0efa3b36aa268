/**
 * The glob patterns test runners use (`**`, `*`, `?`, `{a,b}`, `[abc]`, and the extglob groups
 * `?(x)`, `+(x)`, `*(x)`, `@(x)` that jest's defaults use), turned into regular expressions over
 * `/`-separated paths relative to the tree. Enough to read the literal `include` and `testMatch`
 * lists of vitest and jest configurations; not a full micromatch.
 *
 * Pure; no permissions.
 *
 * @module
 */

/** Escape `text` for a regular expression. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/** Index of the `)` that closes the group opened at `open`, or -1. */
function closing(glob: string, open: number): number {
  let depth = 0;
  for (let i = open; i < glob.length; i++) {
    if (glob[i] === "(") depth++;
    else if (glob[i] === ")" && --depth === 0) return i;
  }
  return -1;
}

function translate(glob: string): string {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    const next = glob[i + 1];
    if ("?+*@!".includes(c) && next === "(") {
      const end = closing(glob, i + 1);
      if (end > 0) {
        const inner = glob.slice(i + 2, end).split("|").map(translate).join("|");
        const suffix = { "?": "?", "+": "+", "*": "*", "@": "", "!": "" }[c]!;
        out += c === "!" ? `(?!(?:${inner}))[^/]*` : `(?:${inner})${suffix}`;
        i = end;
        continue;
      }
    }
    if (c === "*" && next === "*") {
      // `**/` matches any number of directories, none included; a trailing `**` anything.
      if (glob[i + 2] === "/") {
        out += "(?:[^/]*/)*";
        i += 2;
      } else {
        out += ".*";
        i += 1;
      }
    } else if (c === "*") out += "[^/]*";
    else if (c === "?") out += "[^/]";
    else if (c === "{") {
      const end = glob.indexOf("}", i);
      if (end < 0) {
        out += "\\{";
        continue;
      }
      out += `(?:${glob.slice(i + 1, end).split(",").map(translate).join("|")})`;
      i = end;
    } else if (c === "[") {
      const end = glob.indexOf("]", i + 1);
      if (end < 0) {
        out += "\\[";
        continue;
      }
      out += `[${glob.slice(i + 1, end).replace(/^!/, "^").replace(/\\/g, "\\\\")}]`;
      i = end;
    } else out += escapeRegExp(c);
  }
  return out;
}

/**
 * A regular expression that matches the whole of a relative path against `glob`. A leading
 * `./` or `<rootDir>/` is dropped; a glob without a `/` matches the file name in any directory
 * (as jest and vitest do for `*.test.ts`).
 */
export function globToRegExp(glob: string): RegExp {
  let g = glob.trim().replace(/^<rootDir>\//, "").replace(/^\.\//, "");
  if (!g.includes("/")) g = `**/${g}`;
  return new RegExp(`^${translate(g)}$`);
}

/** Whether `path` matches any of `globs`. */
export function matchesGlob(path: string, globs: readonly RegExp[]): boolean {
  return globs.some((g) => g.test(path));
}
