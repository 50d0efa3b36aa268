/**
 * What a patch may not do to a Go module beyond the files `isConfig` names: add or change a
 * `TestMain` (it decides whether and how the package's tests run and report), or point a
 * `go.mod` `replace` directive outside the module (the code built would come from elsewhere).
 *
 * Pure; no permissions.
 *
 * @module
 */

import { posix } from "node:path";
import { lex } from "./scan.ts";
import { declarations, signature } from "./scan.ts";

/** One file of a patch: its path and its text before and after (null: absent). */
export interface PatchedFile {
  /** The file, relative to the tree. */
  path: string;
  /** Its text before the patch; null when the patch adds it. */
  before: string | null;
  /** Its text after the patch; null when the patch deletes it. */
  after: string | null;
}

/** Something a patch does that must not be applied. */
export interface PatchFlag {
  /** The file. */
  path: string;
  /** What it does, in words. */
  what: string;
}

function testMain(source: string | null): string | undefined {
  if (source === null) return undefined;
  try {
    const { tokens } = lex(source);
    const d = declarations(tokens).find((d) => d.kind === "func" && d.names[0] === "TestMain");
    return d ? signature(tokens, d.from, d.to) : undefined;
  } catch {
    // A file that cannot be read: the compiler will say so; text comparison decides instead.
    return /\bfunc\s+TestMain\s*\(/.test(source) ? source : undefined;
  }
}

/** The `replace` directives of a go.mod, as `old => new` strings. */
export function replaceDirectives(goMod: string): { from: string; to: string }[] {
  const found: { from: string; to: string }[] = [];
  let block = false;
  for (const raw of goMod.split("\n")) {
    const line = raw.replace(/\/\/.*$/, "").trim();
    if (/^replace\s*\($/.test(line)) block = true;
    else if (block && line === ")") block = false;
    else {
      const body = block ? line : /^replace\s+(.*)$/.exec(line)?.[1];
      const m = body ? /^(.+?)\s*=>\s*(.+)$/.exec(body) : null;
      if (m) found.push({ from: m[1].trim(), to: m[2].trim() });
    }
  }
  return found;
}

/** Whether a replacement target is a directory outside the module (`../x`, `/abs`). */
function pointsOutside(target: string): boolean {
  const path = target.split(/\s+/)[0];
  if (path.startsWith("/")) return true;
  if (!(path.startsWith("./") || path.startsWith("../"))) return false;
  return posix.normalize(path).startsWith("../");
}

/** The flags a patch earns: a new or changed `TestMain`, a `replace` pointing outside. */
export function patchFlags(files: readonly PatchedFile[]): PatchFlag[] {
  const flags: PatchFlag[] = [];
  for (const f of files) {
    if (f.path.endsWith("_test.go")) {
      const before = testMain(f.before);
      const after = testMain(f.after);
      if (after !== undefined && after !== before) {
        flags.push({
          path: f.path,
          what: before === undefined
            ? (f.before === null
              ? "adds a TestMain in a new test file"
              : "adds a TestMain to an existing test file")
            : "changes the maintainers' TestMain",
        });
      } else if (before !== undefined && after === undefined) {
        flags.push({ path: f.path, what: "removes the maintainers' TestMain" });
      }
    }
    if (posix.basename(f.path) === "go.mod" && f.after !== null) {
      const old = new Set(replaceDirectives(f.before ?? "").map((r) => `${r.from}=>${r.to}`));
      for (const r of replaceDirectives(f.after)) {
        if (!old.has(`${r.from}=>${r.to}`) && pointsOutside(r.to)) {
          flags.push({
            path: f.path,
            what: `replaces ${r.from} with ${r.to}, a directory outside the module`,
          });
        }
      }
    }
  }
  return flags;
}
