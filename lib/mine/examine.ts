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
import type { BlobReader } from "../blobs.ts";
import type { AddedTests, ChangeMiner } from "../lang/mod.ts";
import type { Task } from "../records.ts";
import type { Candidate, ExclusionReason, KindEvidence } from "./classify.ts";
import {
  changelogEvidence,
  changelogNames,
  decide,
  type DiffSignals,
  labelDecision,
} from "./decide.ts";
import { changedLines, type FileLines, messageOnly, typingOnly } from "./diff.ts";
import type { GithubClient } from "./github.ts";
import { TaskIds } from "./select.ts";
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
  /**
   * The patch-id of each of some commits, when several branches are mined: a candidate with the
   * patch-id of a task kept already is the same change, landed twice.
   */
  patchIds?: (commits: string[]) => Promise<Map<string, string>>;
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
  /** Tasks kept whose statement came from GitHub. */
  fromGithub = 0;
  #ids = new TaskIds();
  #pending = new Map<Candidate, Promise<ResolvedStatement>>();
  #lines = new Map<string, Promise<Map<string, Map<string, FileLines>>>>();
  /** Patch-id → the commit of the task kept with it. */
  #patches = new Map<string, string>();

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
    this.#sourceLines(batch).catch(() => {}); // examine() reads the same and sees any failure
  }

  /** The lines each candidate of `batch` changed in its source files (one git process). */
  #sourceLines(batch: readonly Candidate[]): Promise<Map<string, Map<string, FileLines>>> {
    const key = batch.map((c) => c.commit).join(",");
    let lines = this.#lines.get(key);
    if (!lines) {
      const { objects, signal } = this.options;
      const paths = [...new Set(batch.flatMap((c) => c.sourceFiles))];
      lines = changedLines(objects.repo, batch.map((c) => c.commit), paths, signal);
      this.#lines.set(key, lines);
    }
    return lines;
  }

  /** Examine a batch of candidates (newest first), keeping tasks until the limit. */
  async examine(batch: readonly Candidate[]): Promise<void> {
    if (this.options.signal?.aborted) throw new InterruptedError();
    const { miner, objects, limit } = this.options;
    this.examined += batch.length;
    const [, found, lines] = await Promise.all([
      objects.read(batch.flatMap(changelogNames)),
      miner.addedTests(batch),
      this.#sourceLines(batch),
    ]);
    const qualifying: Qualifying[] = [];
    batch.forEach((candidate, i) => {
      const q = this.#qualify(candidate, found[i], lines.get(candidate.commit));
      if (q) qualifying.push(q);
    });
    const patches = await this.options.patchIds?.(qualifying.map((q) => q.candidate.commit));
    try {
      for (const [i, q] of qualifying.entries()) {
        const patch = patches?.get(q.candidate.commit);
        const twin = patch && this.#patches.get(patch);
        if (twin) {
          this.options.exclude(
            q.candidate,
            "same-change",
            `the same change as ${twin.slice(0, 10)}`,
          );
          continue;
        }
        if (this.done) {
          this.options.exclude(q.candidate, "over-limit", `limit = ${limit}, newest first`);
          continue;
        }
        for (let ahead = 1; ahead < Math.min(4, limit - this.tasks.length); ahead++) {
          const next = qualifying[i + ahead];
          if (next) this.#statement(next.candidate);
        }
        const statement = await this.#statement(q.candidate);
        const task = this.#select(q, statement);
        if (task) {
          if (patch) this.#patches.set(patch, task.commit);
          if (statement.fromGithub) this.fromGithub++;
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

  /** A bug fix by the evidence, adding or changing tests a run can check; else why not. */
  #qualify(
    candidate: Candidate,
    tests: AddedTests,
    lines: ReadonlyMap<string, FileLines> | undefined,
  ): Qualifying | undefined {
    const files = lines ?? new Map<string, FileLines>();
    const diff: DiffSignals = {
      typingOnly: typingOnly(files, this.options.miner),
      messageOnly: messageOnly(files),
    };
    const changelog = changelogEvidence(candidate, this.options.objects);
    const decided = decide(candidate, tests, changelog, diff);
    if ("reason" in decided) {
      this.options.exclude(candidate, decided.reason, decided.detail);
      return undefined;
    }
    return { candidate, tests, evidence: decided.evidence };
  }

  /** Keep a qualifying candidate as a task, or say why not (a feature by its labels, a repeat). */
  #select(q: Qualifying, statement: ResolvedStatement): Task | undefined {
    const { candidate, tests } = q;
    const evidence = [...q.evidence];
    const labelled = labelDecision(statement.labels, evidence);
    if ("reason" in labelled) {
      this.options.exclude(candidate, labelled.reason, labelled.detail);
      return undefined;
    }
    if (labelled.label) evidence.push(labelled.label);
    if (statement.none) {
      this.options.exclude(candidate, "no-statement", statement.none);
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
