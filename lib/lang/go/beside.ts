/**
 * An author's copy of a test file, installed beside the project's own in the same package (so
 * that package-internal tests still compile). Two files of one package cannot both declare
 * `TestX`, nor the same helper, table or type, so the copy is rewritten: every name it declares
 * at the top level gets the suffix `_bugbout_<author>` (and every use of it in the copy follows);
 * its `TestMain`, which the package may have only once, becomes an unused unexported function.
 *
 * Ids map back by the suffix: the author's `TestX/case` runs as `TestX_bugbout_<author>/case`
 * ({@linkcode besideId}, {@linkcode fromBesideId}). What the rewrite cannot see: a top-level name
 * of the copy that is also a struct field or method name used in it (`x.name` is left alone, a
 * field declared `name int` or a composite-literal key `name:` is renamed).
 *
 * Pure; no permissions.
 *
 * @module
 */

import { posix } from "node:path";
import { isTestName, parseId } from "./ids.ts";
import { declarations, lex } from "./scan.ts";

/** Operating systems and architectures Go reads from a file name's last elements. */
const GOOS_GOARCH = new Set(
  (
    "aix android darwin dragonfly freebsd hurd illumos ios js linux nacl netbsd openbsd plan9 " +
    "solaris wasip1 windows zos 386 amd64 amd64p32 arm armbe arm64 arm64be loong64 mips mipsle " +
    "mips64 mips64le mips64p32 mips64p32le ppc ppc64 ppc64le riscv riscv64 s390 s390x sparc " +
    "sparc64 wasm"
  ).split(" "),
);

/** The author as it appears in file and test names: letters and digits only. */
export function authorTag(author: string): string {
  const tag = author.replace(/[^A-Za-z0-9]+/g, "");
  return tag === "" ? "x" : tag;
}

/** The suffix the author's copy puts on every name it declares. */
export function besideSuffix(author: string): string {
  return `_bugbout_${authorTag(author)}`;
}

/**
 * Where `author`'s copy of test file `path` goes: `pkg/foo_test.go` →
 * `pkg/foo_bugbout_<author>_test.go`, in the same package directory. A GOOS/GOARCH tail of the
 * name (`foo_linux_test.go`) stays last, so the copy builds where the original builds; an author
 * whose tag is itself such a word gets `_by` after it, so that it constrains nothing.
 */
export function besidePath(path: string, author: string): string {
  const dir = posix.dirname(path);
  const base = posix.basename(path);
  const stem = base.endsWith("_test.go") ? base.slice(0, -"_test.go".length) : base.slice(0, -3);
  const parts = stem.split("_");
  let keep = 0;
  if (parts.length > 1 && GOOS_GOARCH.has(parts.at(-1)!)) keep = 1;
  if (parts.length > 2 && keep === 1 && GOOS_GOARCH.has(parts.at(-2)!)) keep = 2;
  const head = parts.slice(0, parts.length - keep).join("_");
  const tail = parts.slice(parts.length - keep);
  const tag = authorTag(author);
  const middle = GOOS_GOARCH.has(tag.toLowerCase()) ? [tag, "by"] : [tag];
  const name = [head, "bugbout", ...middle, ...tail].join("_") + "_test.go";
  return dir === "." ? name : `${dir}/${name}`;
}

/**
 * The author's copy rewritten to live beside the project's file: every top-level name it declares
 * gets {@linkcode besideSuffix}, uses follow; `TestMain` becomes `bugbout<Author>TestMain`,
 * which nothing calls. Layout and comments are kept. Throws `GoSyntaxError` when the source
 * cannot be read.
 */
export function besideSource(source: string, author: string): string {
  const { tokens } = lex(source);
  const decls = declarations(tokens);
  const suffix = besideSuffix(author);
  const renamed = new Map<string, string>();
  const skip = new Set<number>();
  for (const d of decls) {
    // A method's name belongs to its type, not to the package's scope.
    if (d.kind === "method" && d.nameAt !== undefined) skip.add(d.nameAt);
    for (const name of d.names) {
      if (name === "_" || name === "init") continue;
      renamed.set(
        name,
        name === "TestMain" ? `bugbout${authorTag(author)}TestMain` : name + suffix,
      );
    }
  }
  let out = "";
  let at = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.kind !== "ident" || skip.has(i) || tokens[i - 1]?.text === ".") continue;
    const to = renamed.get(t.text);
    if (to === undefined) continue;
    out += source.slice(at, t.start) + to;
    at = t.end;
  }
  return out + source.slice(at);
}

/** The id `author`'s copy of test `id` runs under: the function name gets the suffix. */
export function besideId(id: string, author: string): string {
  const parsed = parseId(id);
  if (!parsed) return id;
  const [fn, ...rest] = parsed.path;
  return [parsed.dir, fn + besideSuffix(author), ...rest].join("/");
}

/** The original id and author tag of an id from an author's copy; undefined for any other id. */
export function fromBesideId(id: string): { id: string; author: string } | undefined {
  const parsed = parseId(id);
  if (!parsed) return undefined;
  const m = /^(.*)_bugbout_([A-Za-z0-9]+)$/.exec(parsed.path[0]);
  if (!m || !isTestName(m[1])) return undefined;
  return { id: [parsed.dir, m[1], ...parsed.path.slice(1)].join("/"), author: m[2] };
}
