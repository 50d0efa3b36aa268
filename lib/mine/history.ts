/**
 * The first-parent history of a branch in one streaming `git log` pass: each change that landed
 * (a squashed commit, a rebased one, or a pull request's merge commit judged by its diff against
 * the first parent) with its message and the files it touched, renames included.
 *
 * Requires `--allow-run=git`.
 *
 * @module
 */

import { gitLines } from "../git.ts";

/** One file a change touched, relative to its first parent. */
export interface PathChange {
  /** A added, M modified, D deleted, R renamed, C copied, T type changed. */
  status: "A" | "M" | "D" | "R" | "C" | "T" | "U" | "X";
  /** The path after the change (before it, for a deletion). */
  path: string;
  /** For renames and copies: the path before. */
  oldPath?: string;
}

/** One change on first-parent history. */
export interface Change {
  /** The commit id (G). */
  commit: string;
  /** Parent ids; the first is B. Empty for a root commit. */
  parents: string[];
  /** Committer time, seconds since the epoch. */
  time: number;
  /** The full message. */
  message: string;
  /** Files touched, against the first parent. */
  files: PathChange[];
}

const START = "\x1e";
const FIELD = "\x1f";
const END = "\x1d";

/** The `git log` format this parser reads. */
export const LOG_FORMAT = `--format=${START}%H %P${FIELD}%ct${FIELD}%B${END}`;

/** Undo git's C-style quoting of a path (`"a\"b\303\251"`), which it uses for odd characters. */
export function unquotePath(path: string): string {
  if (!path.startsWith('"') || !path.endsWith('"') || path.length < 2) return path;
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  const inner = path.slice(1, -1);
  const escapes: Record<string, number> = {
    a: 7,
    b: 8,
    t: 9,
    n: 10,
    v: 11,
    f: 12,
    r: 13,
    '"': 34,
    "\\": 92,
  };
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c !== "\\") {
      bytes.push(...encoder.encode(c));
      continue;
    }
    const next = inner[++i];
    if (/[0-7]/.test(next)) {
      bytes.push(parseInt(inner.slice(i, i + 3), 8));
      i += 2;
    } else {
      bytes.push(escapes[next] ?? next.charCodeAt(0));
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** Parse one `--name-status` line (`M\tpath`, `R087\told\tnew`); undefined if it is not one. */
export function parseNameStatus(line: string): PathChange | undefined {
  const tab = line.indexOf("\t");
  if (tab < 1) return undefined;
  const code = line[0] as PathChange["status"];
  if (!"AMDRCTUX".includes(code)) return undefined;
  const rest = line.slice(tab + 1);
  if (code === "R" || code === "C") {
    const [from, to] = rest.split("\t");
    if (to === undefined) return undefined;
    return { status: code, path: unquotePath(to), oldPath: unquotePath(from) };
  }
  return { status: code, path: unquotePath(rest) };
}

/**
 * Parse the output of `git log` with {@linkcode LOG_FORMAT} and `--name-status`, line by line,
 * into changes. Works on any iterable of lines, so it is tested without git.
 */
export async function* parseLog(lines: AsyncIterable<string> | Iterable<string>): AsyncGenerator<
  Change
> {
  let current: Change | undefined;
  let message: string[] | undefined;
  for await (const line of lines) {
    if (line.startsWith(START)) {
      if (current) yield current;
      const [ids, time] = line.slice(1).split(FIELD, 2);
      const [commit, ...parents] = ids.split(" ").filter(Boolean);
      current = { commit, parents, time: Number(time), message: "", files: [] };
      message = [];
      const rest = line.slice(1 + ids.length + 1 + time.length + 1);
      if (rest.endsWith(END)) {
        current.message = rest.slice(0, -1);
        message = undefined;
      } else {
        message.push(rest);
      }
      continue;
    }
    if (!current) continue;
    if (message) {
      if (line.endsWith(END)) {
        message.push(line.slice(0, -1));
        current.message = message.join("\n").replace(/\n+$/, "");
        message = undefined;
      } else {
        message.push(line);
      }
      continue;
    }
    const file = parseNameStatus(line);
    if (file) current.files.push(file);
  }
  if (current) yield current;
}

/** Options for {@linkcode firstParentHistory}. */
export interface HistoryOptions {
  /** Stop early. */
  signal?: AbortSignal;
  /** Only changes after this date (`git log --since`). */
  since?: Date;
}

/**
 * Stream the first-parent history of `rev`, newest first, in one `git log` process: every change
 * with its message and the files it touched against its first parent (renames detected).
 */
export function firstParentHistory(
  repo: string,
  rev: string,
  options: HistoryOptions = {},
): AsyncGenerator<Change> {
  const args = [
    "log",
    "--first-parent",
    "--diff-merges=first-parent",
    "--name-status",
    "-M",
    "--no-abbrev",
    LOG_FORMAT,
    ...(options.since ? [`--since=${options.since.toISOString()}`] : []),
    rev,
    "--",
  ];
  return parseLog(gitLines(args, { cwd: repo, signal: options.signal }));
}
