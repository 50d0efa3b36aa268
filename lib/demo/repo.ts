/**
 * Build real git repositories from code, fast and deterministic: the whole history is written in one
 * `git fast-import` stream (fixed authors and dates), then the default branch is checked out.
 *
 * @module
 */

import { git } from "../git.ts";

/** File changes of one commit: content to write, or null to delete. */
export type FileChanges = Record<string, string | null>;

/** One commit to create. */
export interface CommitSpec {
  /** Full commit message (title, blank line, body). */
  message: string;
  /** Files to write or delete. */
  files?: FileChanges;
  /** Rename files: [from, to] (content kept unless `files` also writes `to`). */
  renames?: [string, string][];
  /** Author name; defaults to a fixed developer. */
  author?: string;
  /** When it was committed (seconds since the epoch); by default an hour after the last one. */
  time?: number;
}

/** A handle on a commit the builder made, resolved to a sha after `build()`. */
export interface CommitRef {
  /** fast-import mark number. */
  mark: number;
  /** The commit id, known after build(). */
  sha: string;
}

interface Entry {
  mark: number;
  ref: string;
  parents: number[];
  spec: CommitSpec;
  time: number;
  /** File deletions and writes relative to the first parent. */
  ops: ({ kind: "M"; path: string; content: string } | { kind: "D"; path: string })[];
}

const EPOCH = 1_700_000_000; // 2023-11-14, then one hour per commit

/**
 * Records a history and writes it with `git fast-import`. Commits go on `main` unless made on a
 * branch through {@linkcode RepoBuilder.merge}.
 */
export class RepoBuilder {
  #entries: Entry[] = [];
  #refs = new Map<number, CommitRef>();
  #tree = new Map<string, string>();
  #head = 0;
  #clock = EPOCH;
  /** The default branch name. */
  readonly branch: string;

  constructor(branch = "main") {
    this.branch = branch;
  }

  /** The current content of a file on the default branch, if it exists. */
  file(path: string): string | undefined {
    return this.#tree.get(path);
  }

  /** Every path on the default branch. */
  paths(): string[] {
    return [...this.#tree.keys()].sort();
  }

  #apply(tree: Map<string, string>, spec: CommitSpec): Entry["ops"] {
    const ops: Entry["ops"] = [];
    for (const [from, to] of spec.renames ?? []) {
      const content = tree.get(from);
      if (content === undefined) throw new Error(`fixture: cannot rename missing ${from}`);
      tree.delete(from);
      ops.push({ kind: "D", path: from });
      tree.set(to, content);
      ops.push({ kind: "M", path: to, content });
    }
    for (const [path, content] of Object.entries(spec.files ?? {})) {
      if (content === null) {
        if (!tree.has(path)) throw new Error(`fixture: cannot delete missing ${path}`);
        tree.delete(path);
        ops.push({ kind: "D", path });
      } else {
        tree.set(path, content);
        ops.push({ kind: "M", path, content });
      }
    }
    return ops;
  }

  #add(ref: string, parents: number[], spec: CommitSpec, ops: Entry["ops"]): CommitRef {
    const mark = this.#entries.length + 1;
    this.#clock = spec.time !== undefined && spec.time > this.#clock
      ? spec.time
      : this.#clock + 3600;
    this.#entries.push({ mark, ref, parents, spec, time: this.#clock, ops });
    const handle = { mark, sha: "" };
    this.#refs.set(mark, handle);
    return handle;
  }

  /** Add a commit on the default branch. */
  commit(spec: CommitSpec): CommitRef {
    const ops = this.#apply(this.#tree, spec);
    const handle = this.#add(
      `refs/heads/${this.branch}`,
      this.#head ? [this.#head] : [],
      spec,
      ops,
    );
    this.#head = handle.mark;
    return handle;
  }

  /**
   * A pull request: `commits` on a branch from the current head, then a merge commit on the default
   * branch titled "Merge pull request #N from owner/branch" with the PR title as its body's first
   * line (what GitHub writes).
   */
  merge(
    options: { number: number; branch: string; title: string; body?: string; owner?: string },
    commits: CommitSpec[],
  ): CommitRef {
    if (!this.#head) throw new Error("fixture: a merge needs a commit on the default branch first");
    const side = new Map(this.#tree);
    let tip = this.#head;
    for (const spec of commits) {
      const ops = this.#apply(side, spec);
      tip = this.#add(`refs/heads/${options.branch}`, [tip], spec, ops).mark;
    }
    // The merge's tree is the branch's tree: express it as ops against the first parent.
    const ops: Entry["ops"] = [];
    for (const path of this.#tree.keys()) if (!side.has(path)) ops.push({ kind: "D", path });
    for (const [path, content] of side) {
      if (this.#tree.get(path) !== content) ops.push({ kind: "M", path, content });
    }
    this.#tree = side;
    const message = `Merge pull request #${options.number} from ${
      options.owner ?? "octo"
    }/${options.branch}\n\n${options.title}${options.body ? `\n\n${options.body}` : ""}\n`;
    const handle = this.#add(`refs/heads/${this.branch}`, [this.#head, tip], { message }, ops);
    this.#head = handle.mark;
    return handle;
  }

  /** The fast-import stream for the recorded history. */
  stream(): string {
    const enc = new TextEncoder();
    const data = (text: string) => `data ${enc.encode(text).length}\n${text}\n`;
    const parts: string[] = [];
    for (const e of this.#entries) {
      const who = e.spec.author ?? "Dana Developer <dana@example.com>";
      parts.push(`commit ${e.ref}\nmark :${e.mark}\n`);
      parts.push(`author ${who} ${e.time} +0000\ncommitter ${who} ${e.time} +0000\n`);
      parts.push(data(e.spec.message.endsWith("\n") ? e.spec.message : `${e.spec.message}\n`));
      if (e.parents[0]) parts.push(`from :${e.parents[0]}\n`);
      for (const p of e.parents.slice(1)) parts.push(`merge :${p}\n`);
      for (const op of e.ops) {
        if (op.kind === "D") parts.push(`D ${quote(op.path)}\n`);
        else parts.push(`M 100644 inline ${quote(op.path)}\n${data(op.content)}`);
      }
      parts.push("\n");
    }
    return parts.join("");
  }

  /** Write the repository into `dir` (created), check out the default branch, fill in shas. */
  async build(dir: string): Promise<string> {
    await Deno.mkdir(dir, { recursive: true });
    await git(["init", "--quiet", "--initial-branch", this.branch, dir]);
    const marks = `${dir}/.git/bugbout-fixture-marks`;
    await git(["fast-import", "--quiet", `--export-marks=${marks}`], {
      cwd: dir,
      stdin: this.stream(),
    });
    for (const line of (await Deno.readTextFile(marks)).split("\n")) {
      const [mark, sha] = line.split(" ");
      if (mark && sha) this.#refs.get(Number(mark.slice(1)))!.sha = sha;
    }
    await Deno.remove(marks);
    await git(["checkout", "--quiet", "--force", this.branch], { cwd: dir });
    return dir;
  }
}

function quote(path: string): string {
  return /[\s"\\]/.test(path) ? JSON.stringify(path) : path;
}
