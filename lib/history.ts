/**
 * The first-parent history of a branch in one streaming `git log` pass: each change that landed
 * (a squashed commit, a rebased one, or a pull request's merge commit judged by its diff against
 * the first parent) with its message and the files it touched, with their blobs and exact renames.
 *
 * Requires `--allow-run=git`.
 *
 * @module
 */

import { gitLineBatches, gitRun } from "./git.ts";

/** One file a change touched, relative to its first parent. */
export interface PathChange {
  /** A added, M modified, D deleted, R renamed, C copied, T type changed. */
  status: "A" | "M" | "D" | "R" | "C" | "T" | "U" | "X";
  /** The path after the change (before it, for a deletion). */
  path: string;
  /** For renames and copies: the path before. */
  oldPath?: string;
  /** The blob before the change (absent for an addition, or when the log did not say). */
  oldBlob?: string;
  /** The blob after the change (absent for a deletion, or when the log did not say). */
  newBlob?: string;
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
  /**
   * The log's own lines for those files, when the change was read from `git log`: `files` is then
   * parsed from them only when first asked for (most changes never are, see {@linkcode pickFiles}).
   */
  raw?: string[];
}

/** The path a `--raw` or `--name-status` line ends with (the new path of a rename). */
function lastPath(line: string): string {
  return unquotePath(line.slice(line.lastIndexOf("\t") + 1));
}

/**
 * The files of a change whose path (after the change) passes `test`, parsing only those lines
 * when the change still has its log lines (`quick`, when given, looks at a whole line first and
 * must pass every line `test` would); exact renames are not paired here.
 */
export function pickFiles(
  change: Change,
  test: (path: string) => boolean,
  quick?: (line: string) => boolean,
): PathChange[] {
  if (!change.raw) return change.files.filter((f) => test(f.path));
  const out: PathChange[] = [];
  for (const line of change.raw) {
    if (quick && !quick(line)) continue;
    if (!test(lastPath(line))) continue;
    const file = line[0] === ":" ? parseRaw(line) : parseNameStatus(line);
    if (file) out.push(file);
  }
  return out;
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

const NULL_BLOB = /^0+$/;

/**
 * Parse one `--raw` line (`:100644 100644 <old> <new> M\tpath`, renames with two paths);
 * undefined if it is not one.
 */
export function parseRaw(line: string): PathChange | undefined {
  if (line[0] !== ":") return undefined;
  const tab = line.indexOf("\t");
  if (tab < 0) return undefined;
  const fields = line.slice(1, tab).split(" ");
  if (fields.length < 5) return undefined;
  const [, , oldBlob, newBlob, status] = fields;
  const change = parseNameStatus(`${status}${line.slice(tab)}`);
  if (!change) return undefined;
  if (!NULL_BLOB.test(oldBlob)) change.oldBlob = oldBlob;
  if (!NULL_BLOB.test(newBlob)) change.newBlob = newBlob;
  return change;
}

/** The blob of an empty file: git never pairs empty files as renames, nor does this. */
const EMPTY_BLOB = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";

function commonTail(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[a.length - 1 - n] === b[b.length - 1 - n]) n++;
  return n;
}

/**
 * Pair the deletions and additions of a change that carry the same blob into renames, as
 * `git log -M` would for exact renames (the only renames bugbout needs, and far cheaper than
 * git's similarity search). Files whose content also changed stay a deletion and an addition.
 */
export function pairExactRenames(files: PathChange[]): PathChange[] {
  const deleted = new Map<string, PathChange[]>();
  for (const f of files) {
    if (f.status === "D" && f.oldBlob && f.oldBlob !== EMPTY_BLOB) {
      const list = deleted.get(f.oldBlob) ?? [];
      list.push(f);
      deleted.set(f.oldBlob, list);
    }
  }
  if (deleted.size === 0) return files;
  const paired = new Set<PathChange>();
  const out: PathChange[] = [];
  for (const f of files) {
    if (f.status !== "A" || !f.newBlob) continue;
    const sources = deleted.get(f.newBlob)?.filter((d) => !paired.has(d));
    if (!sources?.length) continue;
    const from = sources.reduce((best, d) =>
      commonTail(d.path, f.path) > commonTail(best.path, f.path) ? d : best
    );
    paired.add(from);
    paired.add(f);
    out.push({
      status: "R",
      path: f.path,
      oldPath: from.path,
      oldBlob: from.oldBlob,
      newBlob: f.newBlob,
    });
  }
  if (out.length === 0) return files;
  return [...files.filter((f) => !paired.has(f)), ...out];
}

/**
 * Reads the output of `git log` with {@linkcode LOG_FORMAT} and `--raw` or `--name-status`, a
 * batch of lines at a time, into changes.
 */
export class LogParser {
  #current: Change | undefined;
  #message: string[] | undefined;

  /** Read some lines; returns the changes they completed. */
  push(lines: Iterable<string>): Change[] {
    const done: Change[] = [];
    for (const line of lines) {
      if (line.startsWith(START)) {
        if (this.#current) done.push(this.#current);
        const [ids, time] = line.slice(1).split(FIELD, 2);
        const [commit, ...parents] = ids.split(" ").filter(Boolean);
        const current = new LazyChange(commit, parents, Number(time));
        this.#current = current;
        const rest = line.slice(1 + ids.length + 1 + time.length + 1);
        if (rest.endsWith(END)) {
          current.message = rest.slice(0, -1);
          this.#message = undefined;
        } else {
          this.#message = [rest];
        }
        continue;
      }
      const current = this.#current;
      if (!current) continue;
      if (this.#message) {
        if (line.endsWith(END)) {
          this.#message.push(line.slice(0, -1));
          current.message = this.#message.join("\n").replace(/\n+$/, "");
          this.#message = undefined;
        } else {
          this.#message.push(line);
        }
        continue;
      }
      if (line[0] === ":" || (line.length > 1 && line.indexOf("\t") > 0)) current.raw!.push(line);
    }
    return done;
  }

  /** The last change, once the output has ended. */
  end(): Change[] {
    const last = this.#current;
    this.#current = undefined;
    return last ? [last] : [];
  }
}

/** A change whose `files` are parsed from `raw` when first read. */
class LazyChange implements Change {
  message = "";
  readonly raw: string[] = [];
  #files: PathChange[] | undefined;

  constructor(readonly commit: string, readonly parents: string[], readonly time: number) {}

  get files(): PathChange[] {
    if (!this.#files) {
      const parsed: PathChange[] = [];
      for (const line of this.raw) {
        const file = line[0] === ":" ? parseRaw(line) : parseNameStatus(line);
        if (file) parsed.push(file);
      }
      this.#files = pairExactRenames(parsed);
    }
    return this.#files;
  }

  set files(value: PathChange[]) {
    this.#files = value;
  }
}

/**
 * Parse the output of `git log` with {@linkcode LOG_FORMAT} and `--raw` or `--name-status`, line
 * by line, into changes. Works on any iterable of lines, so it is tested without git.
 */
export async function* parseLog(lines: AsyncIterable<string> | Iterable<string>): AsyncGenerator<
  Change
> {
  const parser = new LogParser();
  for await (const line of lines) yield* parser.push([line]);
  yield* parser.end();
}

/** Options for {@linkcode firstParentHistory}. */
export interface HistoryOptions {
  /** Stop early. */
  signal?: AbortSignal;
  /** Only changes after this date (`git log --since`). */
  since?: Date;
  /**
   * Read git's output through a pipe as it comes, for a reader that may stop early; by default
   * git writes it to a temporary file read once it is done (a pipe of a log that git writes a
   * commit at a time costs more to drain than the log costs to make).
   */
  stream?: boolean;
  /** Commits whose history is left out (`^commit`): a merged branch's walk ends where it forked. */
  not?: readonly string[];
}

/**
 * Stream the first-parent history of `rev`, newest first, in one `git log` process, a batch of
 * changes at a time: every change with its message and the files it touched against its first
 * parent. Renames are not looked for (git's similarity search is the walk's dearest part): a move
 * reads as a deletion and an addition, which is all the package tracker needs.
 */
export async function* firstParentBatches(
  repo: string,
  rev: string,
  options: HistoryOptions = {},
): AsyncGenerator<Change[]> {
  const args = [
    "log",
    "--first-parent",
    "--diff-merges=first-parent",
    "--name-status",
    "--no-renames",
    LOG_FORMAT,
    ...(options.since ? [`--since=${options.since.toISOString()}`] : []),
    rev,
    ...(options.not ?? []).map((commit) => `^${commit}`),
    "--",
  ];
  const parser = new LogParser();
  const lines = options.stream
    ? gitLineBatches(args, { cwd: repo, signal: options.signal })
    : gitFileLines(args, { cwd: repo, signal: options.signal });
  for await (const batch of lines) {
    const done = parser.push(batch);
    if (done.length) yield done;
  }
  const last = parser.end();
  if (last.length) yield last;
}

/**
 * Run a `git log` that writes its output to a temporary file (`--output`), then read the file a
 * large chunk at a time, as batches of lines.
 */
export async function* gitFileLines(
  args: readonly string[],
  options: { cwd: string; signal?: AbortSignal },
): AsyncGenerator<string[]> {
  const file = await Deno.makeTempFile({ prefix: "bugbout-log-" });
  try {
    const at = args.indexOf("--");
    const withOutput = at < 0
      ? [...args, `--output=${file}`]
      : [...args.slice(0, at), `--output=${file}`, ...args.slice(at)];
    await gitRun(withOutput, { cwd: options.cwd, signal: options.signal });
    using handle = await Deno.open(file);
    const decoder = new TextDecoder();
    const buffer = new Uint8Array(4 * 1024 * 1024);
    let rest = "";
    for (;;) {
      const n = await handle.read(buffer);
      if (n === null) break;
      const text = rest + decoder.decode(buffer.subarray(0, n), { stream: true });
      const last = text.lastIndexOf("\n");
      if (last < 0) {
        rest = text;
        continue;
      }
      rest = text.slice(last + 1);
      yield text.slice(0, last).split("\n");
    }
    rest += decoder.decode();
    if (rest) yield [rest];
  } finally {
    await Deno.remove(file).catch(() => {}); // a temporary file: gone already is fine
  }
}

/** {@linkcode firstParentBatches}, one change at a time. */
export async function* firstParentHistory(
  repo: string,
  rev: string,
  options: HistoryOptions = {},
): AsyncGenerator<Change> {
  for await (const batch of firstParentBatches(repo, rev, options)) yield* batch;
}

/**
 * The `git log` arguments that print the `-U0` hunks of `paths` in each of `commits` against its
 * first parent (a merge commit's as its pull request brought them in), each commit's after a line
 * `\x1e<sha>`.
 */
export function hunkLogArgs(commits: readonly string[], paths: readonly string[]): string[] {
  return [
    "log",
    "--no-walk=unsorted",
    "--diff-merges=first-parent",
    "-p",
    "-U0",
    "--no-renames",
    "--no-ext-diff",
    "--no-textconv",
    "--format=%x1e%H",
    ...commits,
    "--",
    ...paths.map((p) => `:(literal)${p}`),
  ];
}
