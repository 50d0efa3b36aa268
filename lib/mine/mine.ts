/**
 * The `mine` stage: first-parent history → candidate fixes → tasks, written to
 * `.bugbout/tasks.json` with every left-out fix and the counts by reason. Skipped when HEAD and
 * the relevant settings are unchanged.
 *
 * Requires `--allow-run=git`, `--allow-read`/`--allow-write` on `.bugbout/` and `BUGBOUT_HOME`,
 * `--allow-env`, and `--allow-net` to the GitHub API for issue texts.
 *
 * @module
 */

import { BugboutError, InterruptedError } from "../errors.ts";
import { defaultBranch, revParse } from "../git.ts";
import { inputsKey } from "../hash.ts";
import type { Project } from "../project.ts";
import {
  type Exclusion,
  RESULTS_VERSION,
  type Task,
  type TasksFile,
  tasksFileSchema,
} from "../records.ts";
import { accessNote, clientFor, githubSetup } from "./access.ts";
import { findAddedTests } from "./added_tests.ts";
import {
  type Candidate,
  classifyChange,
  COUNTED_ONLY,
  EXCLUSION_REASONS,
  type ExclusionReason,
} from "./classify.ts";
import { readPytestRules } from "./files_at.ts";
import type { EnvLike, GithubClient } from "./github.ts";
import { firstParentHistory } from "./history.ts";
import { PackageTracker } from "./package.ts";
import { commitStatement, githubStatement, type ResolvedStatement } from "./statement.ts";

/** Bumped when mining rules change, so an old tasks.json is mined again. */
export const MINER_VERSION = 1;

/** The name of the stage's file in `.bugbout/`. */
export const TASKS_FILE = "tasks.json";

/** What mining reports while it works. */
export type MineProgress =
  | { stage: "walk"; examined: number }
  | { stage: "tests"; candidates: number }
  | { stage: "statements"; done: number; total: number };

/** Options for {@linkcode mineAll}. */
export interface MineOptions {
  /** Mine again even when tasks.json is up to date. Also skips cached GitHub responses. */
  refresh?: boolean;
  /** Stop early. */
  signal?: AbortSignal;
  /** Environment for the GitHub token (default `Deno.env`). */
  env?: EnvLike;
  /** GitHub request limits: total back-off budget and per-request timeout, milliseconds. */
  github?: { maxWaitMs?: number; timeoutMs?: number };
  /** Called as mining progresses. */
  onProgress?: (event: MineProgress) => void;
}

/** What {@linkcode mineAll} returns. */
export interface MineResult {
  /** The contents of tasks.json. */
  file: TasksFile;
  /** True when tasks.json was up to date and nothing was mined. */
  cached: boolean;
  /** Absolute path of tasks.json. */
  path: string;
  /** One line for a person. */
  summary: string;
}

/** The id of a task from its reference: `issue-12` or `pr-34`. */
export function taskId(ref: Task["ref"]): string {
  return `${ref.kind === "pull" ? "pr" : "issue"}-${ref.number}`;
}

interface Walked {
  examined: number;
  /** Every commit walked, newest first. */
  order: string[];
  candidates: Candidate[];
  excluded: Exclusion[];
  counts: Record<string, number>;
}

/** Walk history once and apply the cheap rules to every change. */
async function walk(
  project: Project,
  head: string,
  context: Parameters<typeof classifyChange>[2],
  options: MineOptions,
): Promise<Walked> {
  const tracker = new PackageTracker(project.config.project.source);
  const walked: Walked = { examined: 0, order: [], candidates: [], excluded: [], counts: {} };
  for await (
    const change of firstParentHistory(project.repository, head, { signal: options.signal })
  ) {
    walked.examined++;
    walked.order.push(change.commit);
    if (walked.examined % 5000 === 0) {
      options.onProgress?.({ stage: "walk", examined: walked.examined });
    }
    const where = tracker.step(change.files);
    const result = classifyChange(change, where, context);
    if (result.kind === "candidate") {
      walked.candidates.push(result.candidate);
      continue;
    }
    walked.counts[result.reason] = (walked.counts[result.reason] ?? 0) + 1;
    if (!COUNTED_ONLY.includes(result.reason)) {
      walked.excluded.push({
        commit: change.commit,
        title: result.title,
        reason: result.reason,
        ...(result.detail ? { detail: result.detail } : {}),
      });
    }
  }
  return walked;
}

function exclusion(candidate: Candidate, reason: ExclusionReason, detail?: string): Exclusion {
  return {
    commit: candidate.commit,
    title: candidate.title,
    reason,
    ...(detail ? { detail } : {}),
  };
}

/**
 * Mine the project's history into tasks, or return tasks.json when it is up to date. Nothing is
 * written when `signal` aborts: it throws {@linkcode InterruptedError} instead.
 */
export async function mineAll(project: Project, options: MineOptions = {}): Promise<MineResult> {
  try {
    const result = await mine(project, options);
    if (options.signal?.aborted) throw new InterruptedError();
    const f = result.file;
    const excluded = Object.values(f.counts).reduce((a, b) => a + b, 0);
    return {
      ...result,
      summary: `${f.tasks.length} task(s) from ${f.examined} change(s); ${excluded} left out` +
        (result.cached ? " (up to date)" : ""),
    };
  } catch (error) {
    if (options.signal?.aborted && !(error instanceof InterruptedError)) {
      throw new InterruptedError();
    }
    throw error;
  }
}

async function mine(
  project: Project,
  options: MineOptions,
): Promise<Omit<MineResult, "summary">> {
  const repo = project.repository;
  const config = project.config;
  const branch = await defaultBranch(repo);
  const head = await revParse(repo, branch);
  const setup = await githubSetup(project, { env: options.env });
  const key = inputsKey({
    miner: MINER_VERSION,
    head,
    branch,
    source: config.project.source,
    tests: config.project.tests,
    maxSourceFiles: config.tasks.maxSourceFiles,
    since: config.tasks.since?.toISOString() ?? null,
    limit: config.tasks.limit,
    github: setup.repository ?? null,
    api: setup.api,
    token: setup.tokenSource,
  });
  const path = project.results.file(TASKS_FILE);
  if (!options.refresh) {
    const saved = await project.results.read(TASKS_FILE, tasksFileSchema, "mined tasks");
    if (saved?.inputsKey === key) return { file: saved, cached: true, path };
  }

  const rules = await readPytestRules(repo, head);
  const walked = await walk(project, head, {
    rules,
    maxSourceFiles: config.tasks.maxSourceFiles,
    since: config.tasks.since,
    slug: setup.repository,
    tests: config.project.tests,
  }, options);
  options.onProgress?.({ stage: "tests", candidates: walked.candidates.length });
  const added = await findAddedTests(
    repo,
    walked.candidates.map((c) => c.commit),
    rules,
    { signal: options.signal },
  );
  const excluded = [...walked.excluded];
  const counts = { ...walked.counts };
  const exclude = (candidate: Candidate, reason: ExclusionReason, detail?: string) => {
    excluded.push(exclusion(candidate, reason, detail));
    counts[reason] = (counts[reason] ?? 0) + 1;
  };
  const qualifying: Candidate[] = [];
  for (const candidate of walked.candidates) {
    const tests = added.get(candidate.commit)!;
    if (tests.newTests.length === 0) {
      exclude(
        candidate,
        "no-test-added",
        `changes ${tests.testFiles.join(", ") || "test modules"} but adds no test function`,
      );
    } else qualifying.push(candidate);
  }

  const client = clientFor(project, setup, {
    refresh: options.refresh,
    signal: options.signal,
    ...options.github,
  });
  const tasks = await selectTasks(qualifying, {
    limit: config.tasks.limit,
    client,
    site: setup.repository ? { api: setup.api, repository: setup.repository } : undefined,
    onProgress: options.onProgress,
    exclude,
    build: (candidate, statement) => {
      const tests = added.get(candidate.commit)!;
      return {
        id: taskId(statement.ref),
        ref: statement.ref,
        title: candidate.title,
        commit: candidate.commit,
        parent: candidate.parent,
        date: new Date(candidate.time * 1000).toISOString(),
        sourceFiles: candidate.sourceFiles,
        testFiles: tests.testFiles,
        newTests: tests.newTests,
        packageDir: candidate.packageDir,
        pythonPath: candidate.pythonPath,
        statement: statement.statement,
        statementSource: statement.statementSource,
        ...(candidate.supportFiles.length ? { supportFiles: candidate.supportFiles } : {}),
        ...(statement.linkedIssue ? { linkedIssue: statement.linkedIssue } : {}),
      };
    },
  });

  // Newest first, as history was walked.
  const position = new Map(walked.order.map((commit, i) => [commit, i]));
  excluded.sort((a, b) => (position.get(a.commit) ?? 0) - (position.get(b.commit) ?? 0));
  const order = new Map(EXCLUSION_REASONS.map((r, i) => [r as string, i]));
  const file: TasksFile = {
    version: RESULTS_VERSION,
    kind: "tasks",
    // When GitHub stopped answering, the next run tries again instead of reusing this file.
    inputsKey: client?.stopped ? `${key}-retry` : key,
    repository: { head, branch },
    examined: walked.examined,
    tasks,
    excluded,
    counts: Object.fromEntries(
      Object.entries(counts).sort((a, b) => (order.get(a[0]) ?? 99) - (order.get(b[0]) ?? 99)),
    ),
    statementNote: accessNote(setup, client),
  };
  if (options.signal?.aborted) throw new InterruptedError();
  await project.results.ensure();
  await project.results.write(TASKS_FILE, file);
  return { file, cached: false, path };
}

interface SelectOptions {
  limit: number;
  client?: GithubClient;
  site?: { api: string; repository: string };
  onProgress?: (event: MineProgress) => void;
  exclude: (candidate: Candidate, reason: ExclusionReason, detail?: string) => void;
  build: (candidate: Candidate, statement: ResolvedStatement) => Task;
}

/**
 * Newest first: keep one change per issue (a pull request counts as the issue it closes) up to the
 * limit, reading statements as it goes (a few ahead at a time).
 */
async function selectTasks(qualifying: Candidate[], options: SelectOptions): Promise<Task[]> {
  const { client, limit } = options;
  const resolve = async (candidate: Candidate): Promise<ResolvedStatement> =>
    (client ? await githubStatement(candidate, client) : undefined) ??
      commitStatement(candidate, options.site);
  const pending = new Map<number, Promise<ResolvedStatement>>();
  const statementOf = (i: number) => {
    let promise = pending.get(i);
    if (!promise) {
      promise = resolve(qualifying[i]);
      pending.set(i, promise);
    }
    return promise;
  };
  const keptBy = new Map<number, string>();
  const tasks: Task[] = [];
  try {
    for (let i = 0; i < qualifying.length; i++) {
      const candidate = qualifying[i];
      const number = candidate.reference.number;
      const newer = keptBy.get(number);
      if (newer) {
        options.exclude(
          candidate,
          "older-change-for-same-issue",
          `#${number} is fixed by the newer ${newer.slice(0, 10)}`,
        );
        continue;
      }
      if (tasks.length >= limit) {
        keptBy.set(number, candidate.commit);
        options.exclude(candidate, "over-limit", `limit = ${limit}, newest first`);
        continue;
      }
      for (let ahead = 1; ahead < Math.min(4, limit - tasks.length); ahead++) {
        const j = i + ahead;
        if (j < qualifying.length && !keptBy.has(qualifying[j].reference.number)) statementOf(j);
      }
      const statement = await statementOf(i);
      const linked = statement.linkedIssue;
      const newerLinked = linked ? keptBy.get(linked) : undefined;
      if (newerLinked) {
        options.exclude(
          candidate,
          "older-change-for-same-issue",
          `#${linked} is fixed by the newer ${newerLinked.slice(0, 10)}`,
        );
        continue;
      }
      keptBy.set(number, candidate.commit);
      if (linked) keptBy.set(linked, candidate.commit);
      tasks.push(options.build(candidate, statement));
      options.onProgress?.({
        stage: "statements",
        done: tasks.length,
        total: Math.min(limit, qualifying.length),
      });
    }
  } finally {
    await Promise.allSettled(pending.values());
  }
  return tasks;
}

/** Read `.bugbout/tasks.json`; throws with a hint when it has not been mined yet. */
export async function readTasks(project: Project): Promise<TasksFile> {
  const file = await project.results.read(TASKS_FILE, tasksFileSchema, "mined tasks");
  if (!file) {
    throw new BugboutError(`No tasks yet: ${project.results.display(TASKS_FILE)} does not exist.`, {
      hint: "Run `bugbout tasks` to mine them.",
    });
  }
  return file;
}
