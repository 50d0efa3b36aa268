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

/** The lines one change removed from and added to one file. */
export interface FileLines {
  /** Removed lines, without their `-`. */
  removed: string[];
  /** Added lines, without their `+`. */
  added: string[];
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
  for await (const lines of gitLineBatches(args, { cwd: repo, signal })) {
    for (const line of lines) {
      if (line.startsWith("\x1e")) {
        files = new Map();
        found.set(line.slice(1).trim(), files);
        file = undefined;
      } else if (line.startsWith("+++ ")) {
        const path = unquotePath(line.slice(4).trim()).replace(/^b\//, "");
        file = { removed: [], added: [] };
        files?.set(path, file);
      } else if (line.startsWith("--- ") || line.startsWith("@@") || !file) {
        continue;
      } else if (line[0] === "-") file.removed.push(line.slice(1));
      else if (line[0] === "+") file.added.push(line.slice(1));
    }
  }
  return found;
}

const STRING = /(?:[rbfuRBFU]{0,2})(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`)/g;

/** A line with its string literals emptied and its spacing dropped. */
function withoutStrings(line: string): string {
  return line.replace(STRING, '""').replace(/\s+/g, "");
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
  if (a.length !== b.length) return false;
  const x = [...a].sort();
  const y = [...b].sort();
  return x.every((line, i) => line === y[i]);
}

/**
 * True when a change altered nothing but the wording of messages: with string literals emptied,
 * every file's removed and added lines are the same, every string it added is prose (a format, a
 * pattern or a key changed is a change of behaviour), and one at least was reworded, not mended.
 */
export function messageOnly(files: ReadonlyMap<string, FileLines>): boolean {
  let changed = 0;
  for (const { removed, added } of files.values()) {
    const code = (lines: string[]) => lines.map(withoutStrings).filter((l) => l && l !== "#");
    if (!sameLines(code(removed), code(added))) return false;
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

/** True when every source file the change touched changed in its type annotations only. */
export function typingOnly(
  files: ReadonlyMap<string, FileLines>,
  miner: Pick<ChangeMiner, "typingOnly">,
): boolean {
  if (!miner.typingOnly || files.size === 0) return false;
  for (const [path, lines] of files) {
    if (!miner.typingOnly(path, lines.removed, lines.added)) return false;
  }
  return true;
}
