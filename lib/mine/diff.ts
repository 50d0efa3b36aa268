/**
 * What a fix's diff of its source files touches, as evidence on whether it fixes a bug an agent
 * can be asked to fix: only type annotations (no test run checks them), or only the wording of
 * messages (the hidden test checks text no one could guess). One `git log -p -U0` per batch of
 * candidates reads the lines each changed.
 *
 * Requires `--allow-run=git`.
 *
 * @module
 */

import { gitLineBatches } from "../git.ts";
import { hunkLogArgs, unquotePath } from "../history.ts";
import type { ChangeMiner } from "../lang/mod.ts";

/** The lines one hunk of a `-U0` diff removed and added, in file order. */
export interface Hunk {
  /** Removed lines, without their `-`. */
  removed: string[];
  /** Added lines, without their `+`. */
  added: string[];
}

/**
 * The lines one change removed from and added to one file, hunk by hunk: a line removed in one
 * place and added in another is code moved, which only its hunks tell from an edit in place.
 */
export interface FileLines {
  /** The hunks, in file order. */
  hunks: Hunk[];
}

/**
 * The `-U0` lines of `paths` in each of `commits` against the first parent: commit → path →
 * lines.
 */
export async function changedLines(
  repo: string,
  commits: readonly string[],
  paths: readonly string[],
  signal?: AbortSignal,
): Promise<Map<string, Map<string, FileLines>>> {
  const found = new Map<string, Map<string, FileLines>>();
  if (commits.length === 0 || paths.length === 0) return found;
  const args = hunkLogArgs(commits, paths);
  let files: Map<string, FileLines> | undefined;
  let file: FileLines | undefined;
  let hunk: Hunk | undefined;
  for await (const lines of gitLineBatches(args, { cwd: repo, signal })) {
    for (const line of lines) {
      if (line.startsWith("\x1e")) {
        files = new Map();
        found.set(line.slice(1).trim(), files);
        file = undefined;
      } else if (line.startsWith("+++ ")) {
        const path = unquotePath(line.slice(4).trim()).replace(/^b\//, "");
        file = { hunks: [] };
        hunk = undefined;
        files?.set(path, file);
      } else if (line.startsWith("@@") && file) {
        hunk = { removed: [], added: [] };
        file.hunks.push(hunk);
      } else if (line.startsWith("--- ") || !hunk) {
        continue;
      } else if (line[0] === "-") hunk.removed.push(line.slice(1));
      else if (line[0] === "+") hunk.added.push(line.slice(1));
    }
  }
  return found;
}

const STRING = /(?:[rbfuRBFU]{0,2})(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`)/g;

/**
 * A line with its string literals emptied and its spacing dropped, but for its indentation
 * (which is code in Python: a line indented anew has changed what it does).
 */
function withoutStrings(line: string): string {
  const indent = line.match(/^[ \t]*/)![0];
  return indent + line.slice(indent.length).replace(STRING, '""').replace(/\s+/g, "");
}

/** The string literals of a line. */
function stringsOf(line: string): string[] {
  return [...line.matchAll(STRING)].map((m) => m[0]);
}

/** Words a message has: prose, not a format, a pattern or a key. */
function isProse(literal: string): boolean {
  const text = literal.replace(/^[rbfuRBFU]*["'`]|["'`]$/g, "");
  return (text.match(/[A-Za-z]{2,}/g)?.length ?? 0) >= 3 && /\s/.test(text);
}

/** The edit distance of two short strings. */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return row[b.length];
}

/** True when `after` is `before` reworded, not `before` with a typo mended. */
function reworded(before: string | undefined, after: string | undefined): boolean {
  if (before === undefined || after === undefined) return true;
  if (before.length > 300 || after.length > 300) return true;
  const d = distance(before, after);
  return d > 3 && d > 0.2 * Math.max(before.length, after.length);
}

function sameLines(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((line, i) => line === b[i]);
}

/**
 * True when a change altered nothing but the wording of messages: with string literals emptied,
 * each hunk's removed and added lines are the same, in the same order and indentation, every
 * string it added is prose (a format, a pattern or a key changed is a change of behaviour), and
 * one at least was reworded, not mended.
 */
export function messageOnly(files: ReadonlyMap<string, FileLines>): boolean {
  let changed = 0;
  const code = (lines: string[]) =>
    lines.map(withoutStrings).filter((l) => l.trim() && l.trim() !== "#");
  for (const { hunks } of files.values()) {
    if (!hunks.every((h) => sameLines(code(h.removed), code(h.added)))) return false;
    const removed = hunks.flatMap((h) => h.removed);
    const added = hunks.flatMap((h) => h.added);
    const before = removed.flatMap(stringsOf);
    const after = added.flatMap(stringsOf);
    const gone = before.filter((s) => !after.includes(s));
    const come = after.filter((s) => !before.includes(s));
    // Prose on one side at least: a format, a pattern or a key changed is no wording.
    if (!(come.length ? come : gone).every(isProse)) return false;
    // A typo mended in a message is a fix anyone can make; a message reworded is not.
    const pairs = Math.max(gone.length, come.length);
    for (let i = 0; i < pairs; i++) if (reworded(gone[i], come[i])) changed++;
  }
  return changed > 0;
}

/**
 * True when every source file the change touched changed in its type annotations only, hunk by
 * hunk (code moved from one hunk to another is a change of code, whatever its lines say).
 */
export function typingOnly(
  files: ReadonlyMap<string, FileLines>,
  miner: Pick<ChangeMiner, "typingOnly">,
): boolean {
  if (!miner.typingOnly || files.size === 0) return false;
  for (const [path, { hunks }] of files) {
    if (!hunks.every((h) => miner.typingOnly!(path, h.removed, h.added))) return false;
  }
  return true;
}
