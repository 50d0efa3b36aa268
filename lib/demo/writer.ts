/**
 * The writer behind the fixture projects: records a project's history through
 * {@linkcode RepoBuilder} as edits of real files, remembers what each fix is (its issue, its
 * source and test files before and after, a plausible wrong fix), and after building turns that
 * into a manifest with commit ids and patch texts.
 *
 * Requires `--allow-run=git`, `--allow-read` and `--allow-write` (the repository, a temp dir).
 *
 * @module
 */

import { dirname, join } from "node:path";
import { git, gitRun } from "../git.ts";
import { type CommitRef, type FileChanges, RepoBuilder } from "./repo.ts";
import type { FixShape, FixtureFix, FixtureProject, GithubRecord } from "./fixture.ts";

/** How to change one file: new content, null to delete, or edits of the current content. */
export type EditSpec = string | null | { replace?: [string, string][]; append?: string };

/** Edits of several files. */
export type Edits = Record<string, EditSpec>;

/** One fix to record (see {@linkcode FixtureFix} for the meaning of the fields). */
export interface FixSpec {
  key: string;
  shape: FixShape;
  /** The commit message (commit and squash shapes). */
  message?: string;
  /** The edits of the fix (commit and squash shapes). */
  edits?: Edits;
  /** A pull request merged with a merge commit (merge shape). */
  merge?: {
    number: number;
    branch: string;
    title: string;
    body?: string;
    commits: { message: string; edits: Edits }[];
  };
  issue: number;
  expected: FixtureFix["expected"];
  onlineTaskId?: string;
  failToPass: string[];
  newTests: string[];
  flaky?: string[];
  noFlip?: boolean;
  tooBroad?: boolean;
  /** A plausible wrong fix: edits of the source files as they are before the fix. */
  wrong?: Edits;
  reproTest?: { path: string; content: string };
  specTest?: { path: string; content: string };
}

interface Pending {
  spec: FixSpec;
  commit: CommitRef;
  parent: CommitRef;
  title: string;
  packageDir: string;
  sourceFiles: string[];
  testFiles: string[];
  before: Record<string, string | null>;
  after: Record<string, string | null>;
}

/** Apply one edit to a file's current content. */
export function applyEdit(
  path: string,
  current: string | undefined,
  edit: EditSpec,
): string | null {
  if (edit === null || typeof edit === "string") return edit;
  if (current === undefined) throw new Error(`fixture: cannot edit missing ${path}`);
  let text = current;
  for (const [from, to] of edit.replace ?? []) {
    if (!text.includes(from)) {
      throw new Error(`fixture: ${path} does not contain ${JSON.stringify(from)}`);
    }
    text = text.replace(from, to);
  }
  if (edit.append) text = `${text.replace(/\n*$/, "\n")}${edit.append}`;
  return text;
}

/** Records a fixture project's history. */
export class ProjectWriter {
  readonly repo = new RepoBuilder();
  #pending: Pending[] = [];
  #head?: CommitRef;
  /** The package directory now. */
  packageDir: string;

  constructor(packageDir: string, readonly testsDir = "tests") {
    this.packageDir = packageDir;
  }

  #changes(edits: Edits, files: Map<string, string> | undefined = undefined): FileChanges {
    const out: FileChanges = {};
    for (const [path, edit] of Object.entries(edits)) {
      out[path] = applyEdit(path, files ? files.get(path) : this.repo.file(path), edit);
      if (files) {
        if (out[path] === null) files.delete(path);
        else files.set(path, out[path]!);
      }
    }
    return out;
  }

  /** A commit on the default branch. */
  commit(message: string, edits: Edits = {}, renames?: [string, string][]): CommitRef {
    this.#head = this.repo.commit({ message, files: this.#changes(edits), renames });
    return this.#head;
  }

  /** Move the package directory (every file under it) in one commit. */
  movePackage(to: string, message: string, edits: Edits = {}): CommitRef {
    const from = this.packageDir;
    const renames = this.repo.paths().filter((p) => p.startsWith(`${from}/`))
      .map((p): [string, string] => [p, `${to}/${p.slice(from.length + 1)}`]);
    this.packageDir = to;
    return this.commit(message, edits, renames);
  }

  /** Record a fix. */
  fix(spec: FixSpec): void {
    const parent = this.#head;
    if (!parent) throw new Error("fixture: a fix needs history before it");
    const edited = spec.shape === "merge"
      ? spec.merge!.commits.flatMap((c) => Object.keys(c.edits))
      : Object.keys(spec.edits ?? {});
    const paths = [...new Set(edited)].sort();
    const before = Object.fromEntries(paths.map((p) => [p, this.repo.file(p) ?? null]));
    let commit: CommitRef;
    let title: string;
    if (spec.shape === "merge") {
      const m = spec.merge!;
      const side = new Map(this.repo.paths().map((p) => [p, this.repo.file(p)!]));
      const commits = m.commits.map((c) => ({
        message: c.message,
        files: this.#changes(c.edits, side),
      }));
      commit = this.repo.merge(
        { number: m.number, branch: m.branch, title: m.title, body: m.body },
        commits,
      );
      this.#head = commit;
      title = m.title;
    } else {
      commit = this.commit(spec.message!, spec.edits);
      title = spec.message!.split("\n")[0];
    }
    const after = Object.fromEntries(paths.map((p) => [p, this.repo.file(p) ?? null]));
    const isTest = (p: string) =>
      p.startsWith(`${this.testsDir}/`) && /(^|\/)(test_[^/]*|[^/]*_test|check_[^/]*)\.py$/.test(p);
    this.#pending.push({
      spec,
      commit,
      parent,
      title,
      packageDir: this.packageDir,
      sourceFiles: paths.filter((p) => p.startsWith(`${this.packageDir}/`) && p.endsWith(".py")),
      testFiles: paths.filter((p) => isTest(p) && after[p] !== null),
      before,
      after,
    });
  }

  /** Build the repository into `dir` and return the manifest. */
  async build(
    dir: string,
    options: {
      name: string;
      github: { repository: string; items: GithubRecord[] };
      origin?: boolean;
    },
  ): Promise<FixtureProject> {
    await this.repo.build(dir);
    if (options.origin) {
      await git(
        ["remote", "add", "origin", `https://github.com/${options.github.repository}.git`],
        { cwd: dir },
      );
    }
    const fixes: FixtureFix[] = [];
    for (const p of this.#pending) {
      const goldPatch = p.sourceFiles.length
        ? await git(["diff", "--no-color", p.parent.sha, p.commit.sha, "--", ...p.sourceFiles], {
          cwd: dir,
        }) + "\n"
        : "";
      const wrongFiles: Record<string, string> = {};
      for (const [path, edit] of Object.entries(p.spec.wrong ?? {})) {
        wrongFiles[path] = applyEdit(path, p.before[path] ?? undefined, edit)!;
      }
      const str = (record: Record<string, string | null>, keys: string[]) =>
        Object.fromEntries(keys.filter((k) => record[k] !== null).map((k) => [k, record[k]!]));
      fixes.push({
        key: p.spec.key,
        title: p.title,
        shape: p.spec.shape,
        issue: p.spec.issue,
        expected: p.spec.expected,
        onlineTaskId: p.spec.onlineTaskId ??
          ("taskId" in p.spec.expected ? p.spec.expected.taskId : undefined),
        commit: p.commit.sha,
        parent: p.parent.sha,
        packageDir: p.packageDir,
        pythonPath: p.packageDir.includes("/") ? dirname(p.packageDir) : ".",
        sourceFiles: p.sourceFiles,
        testFiles: p.testFiles,
        newTests: p.spec.newTests,
        failToPass: p.spec.failToPass,
        flaky: p.spec.flaky ?? [],
        noFlip: p.spec.noFlip ?? false,
        tooBroad: p.spec.tooBroad ?? false,
        goldPatch,
        goldFiles: str(p.after, p.sourceFiles),
        sourceAtB: str(p.before, p.sourceFiles),
        hiddenTests: str(p.after, p.testFiles),
        wrongFiles,
        wrongPatch: Object.keys(wrongFiles).length ? await unifiedDiff(p.before, wrongFiles) : "",
        ...(p.spec.reproTest ? { reproTest: p.spec.reproTest } : {}),
        ...(p.spec.specTest ? { specTest: p.spec.specTest } : {}),
      });
    }
    return {
      name: options.name,
      dir,
      source: this.packageDir,
      tests: this.testsDir,
      head: this.#head!.sha,
      github: options.github,
      fixes,
    };
  }
}

/** A unified diff (a/ b/ prefixes, as `git apply` and `patch -p1` take) from old to new contents. */
export async function unifiedDiff(
  before: Record<string, string | null>,
  after: Record<string, string>,
): Promise<string> {
  const tmp = await Deno.makeTempDir({ prefix: "bugbout-fixture-diff-" });
  try {
    for (const [path, text] of Object.entries(after)) {
      const old = before[path];
      await Deno.mkdir(dirname(join(tmp, "old", path)), { recursive: true });
      await Deno.mkdir(dirname(join(tmp, "new", path)), { recursive: true });
      if (old !== null && old !== undefined) await Deno.writeTextFile(join(tmp, "old", path), old);
      await Deno.writeTextFile(join(tmp, "new", path), text);
    }
    const result = await gitRun(
      ["diff", "--no-index", "--no-color", "--src-prefix=a/", "--dst-prefix=b/", "old", "new"],
      { cwd: tmp, okCodes: [0, 1] },
    );
    return result.stdout.replaceAll("a/old/", "a/").replaceAll("b/new/", "b/");
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}
