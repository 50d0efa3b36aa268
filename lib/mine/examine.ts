/**
 * Examining candidates newest first, a batch at a time, until `limit` tasks are found: read their
 * changelog entries and test modules (one git process per batch), keep the bug fixes that add or
 * change tests, read their statements, and keep one task per bug. Candidates never reached are
 * over the limit (or, when only their changelog could have shown them to be fixes, no fixes).
 *
 * Requires `--allow-run=git`, and what {@linkcode GithubClient} requires when one is given.
 *
 * @module
 */

import { InterruptedError } from "../errors.ts";
import type { Task } from "../records.ts";
import type { BlobReader } from "../blobs.ts";
import type { AddedTests, ChangeMiner } from "../lang/mod.ts";
import { type ChangeKind, changelogKind } from "./changelog.ts";
import type { Candidate, ExclusionReason, KindEvidence } from "./classify.ts";
import type { GithubClient } from "./github.ts";
import { labelEvidence, TaskIds } from "./select.ts";
import { readsLikeFix } from "./titles.ts";
import { commitStatement, githubStatement, type ResolvedStatement } from "./statement.ts";

/** What the examiner needs. */
export interface ExaminerOptions {
  /** `[tasks] limit`. */
  limit: number;
  /** Reads the tests candidates added or changed, the way their language does. */
  miner: ChangeMiner;
  /** Reads changelogs (and whatever the miner reads). */
  objects: BlobReader;
  /** GitHub, for statements and labels. */
  client?: GithubClient;
  /** The GitHub site, for issue addresses. */
  site?: { api: string; repository: string };
  /** Called as each task is kept. */
  onTask?: (done: number) => void;
  /** Records a left-out candidate. */
  exclude: (candidate: Candidate, reason: ExclusionReason, detail?: string) => void;
  /** Stop early. */
  signal?: AbortSignal;
}

type Qualifying = { candidate: Candidate; tests: AddedTests; evidence: KindEvidence[] };

/** The id of a task from its reference: `issue-12` or `pr-34`. */
export function taskId(ref: Task["ref"]): string {
  return `${ref.kind === "pull" ? "pr" : "issue"}-${ref.number}`;
}

/** Examines candidates, newest first, batch by batch, until enough tasks are found. */
export class Examiner {
  /** The tasks kept so far, newest first. */
  readonly tasks: Task[] = [];
  /** Candidates examined so far. */
  examined = 0;
  #ids = new TaskIds();
  #pending = new Map<Candidate, Promise<ResolvedStatement>>();

  /** An examiner with these options. */
  constructor(readonly options: ExaminerOptions) {}

  /** True once `limit` tasks are kept. */
  get done(): boolean {
    return this.tasks.length >= this.options.limit;
  }

  #statement(candidate: Candidate): Promise<ResolvedStatement> {
    let promise = this.#pending.get(candidate);
    if (!promise) {
      const { client, site } = this.options;
      promise = (async () =>
        (client ? await githubStatement(candidate, client) : undefined) ??
          commitStatement(candidate, site))();
      this.#pending.set(candidate, promise);
    }
    return promise;
  }

  /** Start reading what examining `batch` needs (its git processes run meanwhile). */
  prefetch(batch: readonly Candidate[]): void {
    this.options.objects.read(batch.flatMap(changelogNames)).catch(() => {});
    this.options.miner.prefetch(batch);
  }

  /** Examine a batch of candidates (newest first), keeping tasks until the limit. */
  async examine(batch: readonly Candidate[]): Promise<void> {
    if (this.options.signal?.aborted) throw new InterruptedError();
    const { miner, objects, limit } = this.options;
    this.examined += batch.length;
    await objects.read(batch.flatMap(changelogNames));
    const found = await miner.addedTests(batch);
    const qualifying: Qualifying[] = [];
    batch.forEach((candidate, i) => {
      const q = this.#qualify(candidate, found[i]);
      if (q) qualifying.push(q);
    });
    try {
      for (const [i, q] of qualifying.entries()) {
        if (this.done) {
          this.options.exclude(q.candidate, "over-limit", `limit = ${limit}, newest first`);
          continue;
        }
        for (let ahead = 1; ahead < Math.min(4, limit - this.tasks.length); ahead++) {
          const next = qualifying[i + ahead];
          if (next) this.#statement(next.candidate);
        }
        const task = this.#select(q, await this.#statement(q.candidate));
        if (task) {
          this.tasks.push(task);
          this.options.onTask?.(this.tasks.length);
        }
      }
    } finally {
      await Promise.allSettled(this.#pending.values());
      this.#pending.clear();
    }
  }

  /** Candidates never examined: over the limit, or no fixes when only a changelog could say. */
  finish(rest: readonly Candidate[]): void {
    for (const candidate of rest) {
      if (!candidate.titleFix && candidate.fragment?.kind !== "bug") {
        this.options.exclude(candidate, "not-a-fix");
      } else {
        this.options.exclude(
          candidate,
          "over-limit",
          `limit = ${this.options.limit}, newest first`,
        );
      }
    }
  }

  /** A bug fix by its title or changelog, adding or changing tests; else why not. */
  #qualify(candidate: Candidate, tests: AddedTests): Qualifying | undefined {
    const evidence: KindEvidence[] = [];
    if (candidate.titleFix) {
      const branch = !readsLikeFix(candidate.title) && candidate.branch;
      evidence.push({
        rule: "title",
        says: "bug",
        detail: branch ? `merged branch ${branch}` : `"${candidate.title}"`,
      });
    }
    const changelog = changelogEvidence(candidate, this.options.objects);
    if (changelog) evidence.push(changelog);
    if (changelog?.says === "feature" || (!changelog && !candidate.titleFix)) {
      this.options.exclude(
        candidate,
        candidate.titleFix ? "feature-in-changelog" : "not-a-fix",
        candidate.titleFix ? changelog?.detail : undefined,
      );
      return undefined;
    }
    if (tests.newTests.length === 0 && tests.unsure.length === 0) {
      this.options.exclude(
        candidate,
        "no-test-added",
        `changes ${
          (tests.testFiles.length ? tests.testFiles : candidate.testModules).join(", ") ||
          "test modules"
        } but adds or changes no test`,
      );
      return undefined;
    }
    return { candidate, tests, evidence };
  }

  /** Keep a qualifying candidate as a task, or say why not (a feature by its labels, a repeat). */
  #select(q: Qualifying, statement: ResolvedStatement): Task | undefined {
    const { candidate, tests } = q;
    const evidence = [...q.evidence];
    const label = labelEvidence(statement.labels);
    if (label) evidence.push(label);
    if (label?.says === "feature" && !evidence.some((e) => e.rule === "changelog")) {
      this.options.exclude(candidate, "feature-label", label.detail);
      return undefined;
    }
    const numbers = [
      statement.ref.number,
      ...(statement.linkedIssue ? [statement.linkedIssue] : []),
    ];
    const repeat = this.#ids.repeats(candidate, numbers);
    if (repeat) {
      this.options.exclude(
        candidate,
        "older-change-for-same-issue",
        `#${repeat.number} is fixed by the newer ${repeat.commit.slice(0, 10)}`,
      );
      return undefined;
    }
    return {
      id: this.#ids.keep(candidate, numbers, taskId(statement.ref)),
      ref: statement.ref,
      title: candidate.title,
      commit: candidate.commit,
      parent: candidate.parent,
      date: new Date(candidate.time * 1000).toISOString(),
      sourceFiles: candidate.sourceFiles,
      testFiles: tests.testFiles,
      newTests: tests.newTests,
      ...(tests.unsure.length ? { unsureTests: tests.unsure } : {}),
      evidence,
      packageDir: candidate.packageDir,
      pythonPath: candidate.pythonPath,
      statement: statement.statement,
      statementSource: statement.statementSource,
      ...support(candidate.supportFiles, tests.testFiles),
      ...(statement.linkedIssue ? { linkedIssue: statement.linkedIssue } : {}),
    };
  }
}

/** A task's support files: the candidate's, less those that turned out to be test files. */
function support(files: readonly string[], testFiles: readonly string[]) {
  const left = files.filter((f) => !testFiles.includes(f));
  return left.length ? { supportFiles: left } : {};
}

/** The changelog files a candidate's kind may depend on, as objects to read. */
function changelogNames(candidate: Candidate): string[] {
  if (candidate.fragment || candidate.changelogs.length === 0) return [];
  return candidate.changelogs.flatMap((f) => [
    f.newBlob ?? `${candidate.commit}:${f.path}`,
    ...(f.status === "A" ? [] : [f.oldBlob ?? `${candidate.parent}:${f.oldPath ?? f.path}`]),
  ]);
}

/** What the changelog says of a candidate: its fragment's type, or the section of its entry. */
function changelogEvidence(
  candidate: Candidate,
  blobs: BlobReader,
): KindEvidence | undefined {
  if (candidate.fragment) {
    return {
      rule: "changelog",
      says: candidate.fragment.kind,
      detail: `adds ${candidate.fragment.path}`,
    };
  }
  const kinds = new Set<ChangeKind>();
  let where = "";
  for (const f of candidate.changelogs) {
    const after = blobs.cached(f.newBlob ?? `${candidate.commit}:${f.path}`);
    if (after === undefined) continue;
    const before = f.status === "A"
      ? ""
      : blobs.cached(f.oldBlob ?? `${candidate.parent}:${f.oldPath ?? f.path}`) ?? "";
    const kind = changelogKind(before, after);
    if (kind) {
      kinds.add(kind);
      where = f.path;
    }
  }
  if (kinds.size !== 1) return undefined;
  const says = [...kinds][0];
  return {
    rule: "changelog",
    says,
    detail: `its entry in ${where} is under ${says === "bug" ? "bug fixes" : "features"}`,
  };
}
