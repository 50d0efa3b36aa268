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

import { BlobReader } from "../blobs.ts";
import { BugboutError, InterruptedError } from "../errors.ts";
import { checkRepository, defaultBranch, firstParentCount, revParse } from "../git.ts";
import { inputsKey } from "../hash.ts";
import { type Language, languageOf, runnerAt, type TestRunner } from "../lang/mod.ts";
import type { Project } from "../project.ts";
import { RESULTS_VERSION, type TasksFile, tasksFileSchema } from "../records.ts";
import { accessNote, clientFor, type GithubSetup, githubSetup } from "./access.ts";
import type { Candidate } from "./classify.ts";
import { Examiner } from "./examine.ts";
import type { EnvLike, GithubClient } from "./github.ts";
import { Ledger } from "./ledger.ts";
import { type Branch, branchesOf, branchHint, patchIds } from "./branches.ts";
import { walkBranches, type Walked } from "./walk.ts";

export { taskId } from "./examine.ts";

/** Bumped when mining rules change, so an old tasks.json is mined again. */
export const MINER_VERSION = 6;

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

/** How much work mining did: what the walk read, and what was read to examine candidates. */
export interface MineStats {
  /** Commits the history walk read (`since` stops it early). */
  walked: number;
  /** Changes that passed the cheap rules. */
  candidates: number;
  /** Candidates whose files were read (newest first, until `limit` tasks were found). */
  examined: number;
  /** Distinct blobs read from git. */
  blobsRead: number;
  /** `git cat-file` processes started. */
  readers: number;
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
  /** How much work mining did (absent when tasks.json was up to date). */
  stats?: MineStats;
  /**
   * How this run read the tasks' problem statements (tasks.json's `statementNote`), or why it
   * could not: only when this run mined and read statements or asked GitHub, so a bout says it
   * once, not on every run that reuses tasks.json.
   */
  note?: string;
}

/** What mining starts from: the repository's state and settings, and their inputs key. */
interface Start {
  head: string;
  branch: string;
  /** The branches to mine, the default (or first) one first. */
  branches: Branch[];
  setup: GithubSetup;
  key: string;
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
  const start = await begin(project, options);
  const path = project.results.file(TASKS_FILE);
  if (!options.refresh) {
    const saved = await project.results.read(TASKS_FILE, tasksFileSchema, "mined tasks");
    if (saved?.inputsKey === start.key) return { file: saved, cached: true, path };
  }
  const config = project.config;
  const repo = project.repository;
  // With `since`, the walk stops early; the commits it did not read are counted by git.
  const total = config.tasks.since ? firstParentCount(repo, start.head) : undefined;
  const objects = new BlobReader(repo, options.signal);
  const ledger = new Ledger();
  const client = clientFor(project, start.setup, {
    refresh: options.refresh,
    signal: options.signal,
    ...options.github,
  });
  const language = languageOf(config.project.language);
  const branches = await Promise.all(start.branches.map(async (branch) => ({
    head: branch.head,
    miner: await language.openMiner({
      repo,
      head: branch.head,
      objects,
      source: config.project.source,
      tests: config.project.tests,
    }),
  })));
  let several = branches.length > 1;
  // Each candidate's files, and how many candidates changed the very same files.
  const filesOf = new Map<string, string>();
  const shared = new Map<string, number>();
  const examiner = new Examiner({
    limit: config.tasks.limit,
    miner: branches[0].miner,
    objects,
    client,
    site: start.setup.repository
      ? { api: start.setup.api, repository: start.setup.repository }
      : undefined,
    onTask: (done) =>
      options.onProgress?.({ stage: "statements", done, total: config.tasks.limit }),
    exclude: (c, reason, detail) => ledger.exclude(c, reason, detail),
    // Several histories (branches, or merged maintenance lines) can land one change twice.
    // Only commits that share their files with another candidate can share a patch-id.
    patchIds: (commits: string[]) => {
      const maybe = commits.filter((c) => (shared.get(filesOf.get(c) ?? "") ?? 0) > 1);
      return several && maybe.length
        ? patchIds(repo, maybe, options.signal)
        : Promise.resolve(new Map<string, string>());
    },
    signal: options.signal,
  });
  const walked = await walkBranches(branches, {
    repo,
    objects,
    since: config.tasks.since,
    until: config.tasks.until,
    maxSourceFiles: config.tasks.maxSourceFiles,
    limit: config.tasks.limit,
    slug: start.setup.repository,
    ledger,
    prefetch: (batch) => examiner.prefetch(batch),
    onProgress: (examined) => options.onProgress?.({ stage: "walk", examined }),
    openMiner: (head) =>
      language.openMiner({
        repo,
        head,
        objects,
        source: config.project.source,
        tests: config.project.tests,
      }),
    signal: options.signal,
  });
  if (walked.lines.length) several = true;
  if (several) {
    for (const c of walked.candidates) {
      const key = [...c.sourceFiles, ...c.testModules].sort().join("\0");
      filesOf.set(c.commit, key);
      shared.set(key, (shared.get(key) ?? 0) + 1);
    }
  }
  options.onProgress?.({ stage: "tests", candidates: walked.candidates.length });
  await examineNewestFirst(examiner, walked.candidates, config.tasks.limit);
  const branchNote = branches.length > 1 ? undefined : await branchHint(repo, {
    branch: start.branch,
    walked: new Set(walked.order),
    tasks: examiner.tasks.length,
    limit: config.tasks.limit,
  }, options.signal);
  const history = total === undefined ? walked.walked : walked.walked - walked.first + await total;
  ledger.count("before-since", history - walked.walked);
  const file = tasksFile(start, history, walked, examiner, ledger, {
    merged: walked.lines,
    failed: client?.failed ?? false,
    statementNote: accessNote(start.setup, client, examiner.tasks, examiner),
  });
  if (branchNote) file.branchNote = branchNote;
  if (options.signal?.aborted) throw new InterruptedError();
  await project.results.ensure();
  await project.results.write(TASKS_FILE, file);
  return {
    file,
    cached: false,
    path,
    ...noteOf(file, examiner, client),
    stats: {
      walked: walked.walked,
      candidates: walked.candidates.length,
      examined: examiner.examined,
      blobsRead: objects.blobsRead,
      readers: objects.processes,
    },
  };
}

/**
 * Check the repository and read what mining starts from (its HEAD, the GitHub setup) and the key
 * of the inputs that decide tasks.json. Not a repository, no commits, or a shallow clone: said
 * before any history is read. (The git calls run side by side: each process costs a few
 * milliseconds to start.)
 */
async function begin(project: Project, options: MineOptions): Promise<Start> {
  const repo = project.repository;
  const config = project.config;
  const [checked, found] = await Promise.allSettled([checkRepository(repo), defaultBranch(repo)]);
  if (checked.status === "rejected") throw checked.reason;
  if (found.status === "rejected") throw found.reason;
  const defaultName = found.value;
  const [defaultHead, setup] = await Promise.all([
    revParse(repo, defaultName),
    githubSetup(project, { env: options.env }),
  ]);
  const branches = await branchesOf(repo, config.tasks.branches, {
    name: defaultName,
    head: defaultHead,
  });
  const { name: branch, head } = branches[0];
  const key = inputsKey({
    miner: MINER_VERSION,
    language: config.project.language,
    head,
    branch,
    ...(branches.length > 1 ? { branches } : {}),
    source: config.project.source,
    tests: config.project.tests,
    maxSourceFiles: config.tasks.maxSourceFiles,
    since: config.tasks.since?.toISOString() ?? null,
    ...(config.tasks.until ? { until: config.tasks.until.toISOString() } : {}),
    limit: config.tasks.limit,
    github: setup.repository ?? null,
    api: setup.api,
    token: setup.tokenSource,
  });
  return { head, branch, branches, setup, key };
}

/**
 * Candidates newest first, in batches, until `limit` tasks are found: each batch is one diff and
 * one read of their test files (and changelogs). The rest are never examined.
 */
async function examineNewestFirst(
  examiner: Examiner,
  candidates: readonly Candidate[],
  limit: number,
): Promise<void> {
  let at = 0;
  for (let size = limit; at < candidates.length && !examiner.done; size *= 2) {
    await examiner.examine(candidates.slice(at, at + size));
    at = Math.min(candidates.length, at + size);
  }
  examiner.finish(candidates.slice(at));
}

/** The contents of tasks.json. */
function tasksFile(
  start: Start,
  history: number,
  walked: Walked,
  examiner: Examiner,
  ledger: Ledger,
  notes: { merged: string[]; failed: boolean; statementNote: string },
): TasksFile {
  return {
    version: RESULTS_VERSION,
    kind: "tasks",
    // When GitHub failed, the next run tries again instead of reusing this file.
    inputsKey: notes.failed ? `${start.key}-retry` : start.key,
    repository: {
      head: start.head,
      branch: start.branch,
      ...(start.branches.length > 1 ? { branches: start.branches } : {}),
      ...(notes.merged.length ? { merged: notes.merged } : {}),
    },
    examined: history,
    tasks: examiner.tasks,
    // Newest first, as history was walked.
    excluded: ledger.listed(walked.order),
    counts: ledger.sortedCounts(),
    leftOut: ledger.leftOut(walked.order),
    statementNote: notes.statementNote,
  };
}

/** The statement note, only when this run read statements or asked GitHub (a bout says it once). */
function noteOf(file: TasksFile, examiner: Examiner, client: GithubClient | undefined) {
  const asked = examiner.tasks.length > 0 || (client?.requests ?? 0) > 0;
  return asked && file.statementNote ? { note: file.statementNote } : {};
}

/**
 * Read `.bugbout/tasks.json`; throws with a hint when it has not been mined yet. The hint depends
 * on what the tasks are read `for`: a report needs a whole bout (`bugbout run`), since mining
 * alone would only lead to a report of zeros.
 */
export async function readTasks(
  project: Project,
  options: { for?: "tasks" | "report" } = {},
): Promise<TasksFile> {
  const file = await project.results.read(TASKS_FILE, tasksFileSchema, "mined tasks");
  if (!file) {
    const missing = `${project.results.display(TASKS_FILE)} does not exist`;
    throw options.for === "report"
      ? new BugboutError(`Nothing to report yet: no bout has run here (${missing}).`, {
        hint: "Run `bugbout run` to mine the tasks, race the agents and score them.",
      })
      : new BugboutError(`No tasks yet: ${missing}.`, {
        hint: "Run `bugbout tasks` to mine them, or `bugbout run` for a whole bout.",
      });
  }
  return file;
}

/**
 * The runner of the repository's default branch as it is now, its configuration read from git
 * (for `doctor`: the same reading mining does).
 */
export async function runnerAtHead(repo: string, language: Language): Promise<TestRunner> {
  const head = await revParse(repo, await defaultBranch(repo));
  return await runnerAt(languageOf(language), repo, head, new BlobReader(repo));
}
