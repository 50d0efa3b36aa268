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
import { checkRepository, defaultBranch, firstParentCount, revParse } from "../git.ts";
import { inputsKey } from "../hash.ts";
import type { Project } from "../project.ts";
import { type Exclusion, RESULTS_VERSION, type TasksFile, tasksFileSchema } from "../records.ts";
import type { PytestRules } from "../lang/python/mod.ts";
import { accessNote, clientFor, githubSetup } from "./access.ts";
import { TestReader } from "./added_tests.ts";
import { BlobReader } from "./blobs.ts";
import {
  type Candidate,
  classifyFiles,
  COUNTED_ONLY,
  EXCLUSION_REASONS,
  type ExclusionReason,
  screenChange,
  type Screened,
} from "./classify.ts";
import { Examiner } from "./examine.ts";
import type { EnvLike } from "./github.ts";
import { firstParentBatches, pickFiles } from "./history.ts";
import { PackageTracker } from "./package.ts";
import { isConfigFile, mayBeConfigLine, RulesHistory } from "./rules_at.ts";
import {
  classifyRunnerFiles,
  type MiningRunner,
  runnerAt,
  RunnerTestReader,
} from "./runner_files.ts";

export { taskId } from "./examine.ts";

/** Bumped when mining rules change, so an old tasks.json is mined again. */
export const MINER_VERSION = 3;

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

interface Walked {
  /** Commits walked. */
  walked: number;
  /** Every commit walked, newest first. */
  order: string[];
  excluded: Exclusion[];
  counts: Record<string, number>;
}

/** A screened change, its place in the walk and the key of the discovery rules in force at it. */
interface Survivor {
  screened: Screened;
  rules: string;
  index: number;
}

function tally(counts: Record<string, number>, reason: string, n = 1) {
  if (n) counts[reason] = (counts[reason] ?? 0) + n;
}

/**
 * Walk history once, newest first, applying the rules that need only messages and file names,
 * and hand each change that passes them to `onSurvivor` as soon as it is read.
 */
async function walk(
  project: Project,
  head: string,
  rulesAt: RulesHistory | undefined,
  slug: string | undefined,
  onSurvivor: (survivor: Survivor) => void,
  options: MineOptions,
): Promise<Walked> {
  const tracker = new PackageTracker(project.config.project.source ?? ".");
  const since = project.config.tasks.since;
  const walked: Walked = { walked: 0, order: [], excluded: [], counts: {} };
  for await (
    const batch of firstParentBatches(project.repository, head, { signal: options.signal, since })
  ) {
    for (const change of batch) {
      walked.walked++;
      walked.order.push(change.commit);
      if (walked.walked % 5000 === 0) {
        options.onProgress?.({ stage: "walk", examined: walked.walked });
      }
      // Only a change that touches the package's __init__.py can move it; only one that touches
      // a configuration file at the root can change the discovery rules. (A Go or JavaScript
      // project has neither: its runner reads every change.)
      let where = { atG: ".", atB: "." };
      let rules = "";
      if (rulesAt) {
        const init = `${tracker.current}/__init__.py`;
        const moved = pickFiles(change, (p) => p === init, (l) => l.endsWith("__init__.py"));
        where = tracker.step(moved.length ? change.files : []);
        rules = rulesAt.step(pickFiles(change, isConfigFile, mayBeConfigLine), change.parents[0]);
      }
      if (since && change.time * 1000 < since.getTime()) {
        tally(walked.counts, "before-since");
        continue;
      }
      const result = screenChange(change, where, { slug });
      if (result.kind === "candidate") {
        onSurvivor({ screened: result.candidate, rules, index: walked.walked });
        continue;
      }
      tally(walked.counts, result.reason);
      if (!COUNTED_ONLY.includes(result.reason)) {
        walked.excluded.push(exclusion(change.commit, result.title, result.reason, result.detail));
      }
    }
  }
  return walked;
}

function exclusion(commit: string, title: string, reason: string, detail?: string): Exclusion {
  return { commit, title, reason, ...(detail ? { detail } : {}) };
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
  // Not a repository, no commits, or a shallow clone: say so before reading any history. (The
  // git calls of the set-up run side by side: each process costs a few milliseconds to start.)
  const [checked, found] = await Promise.allSettled([checkRepository(repo), defaultBranch(repo)]);
  if (checked.status === "rejected") throw checked.reason;
  if (found.status === "rejected") throw found.reason;
  const branch = found.value;
  const language = config.project.language;
  const [head, setup, pythonRules] = await Promise.all([
    revParse(repo, branch),
    githubSetup(project, { env: options.env }),
    language === "python" ? RulesHistory.at(repo, branch) : undefined,
  ]);
  const key = inputsKey({
    miner: MINER_VERSION,
    language,
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

  // With `since`, the walk stops early; the commits it did not read are counted by git.
  const total = config.tasks.since ? firstParentCount(repo, head) : undefined;
  const excluded: Exclusion[] = [];
  const counts: Record<string, number> = {};
  const exclude = (
    c: { commit: string; title: string },
    reason: ExclusionReason,
    detail?: string,
  ) => {
    tally(counts, reason);
    if (!COUNTED_ONLY.includes(reason)) excluded.push(exclusion(c.commit, c.title, reason, detail));
  };
  const blobs = new BlobReader(repo, options.signal);
  // A Go or JavaScript project's runner, with its configuration at HEAD, sorts every change's
  // files and reads its tests; Python's rules come from pytest's configuration at each commit.
  const runner = language === "python" ? undefined : await runnerAt(repo, head, language, blobs);
  const client = clientFor(project, setup, {
    refresh: options.refresh,
    signal: options.signal,
    ...options.github,
  });
  const examiner = new Examiner({
    limit: config.tasks.limit,
    reader: runner ? new RunnerTestReader(blobs, runner) : new TestReader(blobs),
    client,
    site: setup.repository ? { api: setup.api, repository: setup.repository } : undefined,
    onTask: (done) =>
      options.onProgress?.({ stage: "statements", done, total: config.tasks.limit }),
    exclude,
    signal: options.signal,
  });
  const candidates: { index: number; candidate: Candidate }[] = [];
  // Python: the rules on each survivor's files, with the discovery rules in force at it: right
  // away during the walk when those are known already (most are those at HEAD), else after it,
  // with one read for all the configuration files still unread.
  const walkPython = async (rulesAt: RulesHistory): Promise<Walked> => {
    const classifyOne = (survivor: Survivor, rules: PytestRules) => {
      const { screened, index } = survivor;
      const result = classifyFiles(screened, rules, {
        maxSourceFiles: config.tasks.maxSourceFiles,
        tests: config.project.tests,
      });
      if (result.kind === "candidate") candidates.push({ index, candidate: result.candidate });
      else {
        exclude(
          { commit: screened.change.commit, title: result.title },
          result.reason,
          result.detail,
        );
      }
    };
    // The configuration at HEAD, read while the walk starts.
    const ahead = rulesAt.rules(rulesAt.key, blobs);
    ahead.catch(() => {}); // awaited below; this only keeps an early failure from going unhandled
    // The first batch is the `limit` newest candidates; it is settled once no survivor newer than
    // the last of them waits for its configuration. Until then, such
    // survivors are classified a few dozen at a time (each read is a process); then the first
    // batch's test modules are read while the walk goes on.
    const limit = config.tasks.limit;
    let pending: Survivor[] = [];
    let inflight: Survivor[] = [];
    let prefetched = false;
    let flushing: Promise<void> | undefined;
    const startFirstBatch = () => {
      if (prefetched || candidates.length < limit) return;
      candidates.sort((a, b) => a.index - b.index);
      const last = candidates[limit - 1].index;
      const waiting = [...inflight, ...pending].some((s) => s.index < last);
      if (waiting) return;
      prefetched = true;
      examiner.prefetch(candidates.slice(0, limit).map((c) => c.candidate));
    };
    const flush = () => {
      inflight = pending;
      pending = [];
      flushing = (async () => {
        await blobs.read(inflight.flatMap((s) => rulesAt.blobsOf(s.rules)));
        for (const survivor of inflight) {
          classifyOne(survivor, await rulesAt.rules(survivor.rules, blobs));
        }
      })().finally(() => {
        inflight = [];
        flushing = undefined;
        startFirstBatch();
        if (!prefetched && pending.length) flush();
      });
      flushing.catch(() => {}); // awaited after the walk
    };
    const walked = await walk(project, head, rulesAt, setup.repository, (survivor) => {
      const rules = rulesAt.known(survivor.rules, blobs);
      if (rules) classifyOne(survivor, rules);
      else pending.push(survivor);
      startFirstBatch();
      if (!prefetched && !flushing && pending.length >= 32) flush();
    }, options);
    await ahead;
    while (flushing) await flushing;
    await blobs.read(pending.flatMap((s) => rulesAt.blobsOf(s.rules)));
    for (const survivor of pending) {
      classifyOne(survivor, await rulesAt.rules(survivor.rules, blobs));
    }
    return walked;
  };
  // Go and JavaScript: the runner sorts each survivor's files as soon as it is read; the first
  // `limit` candidates' test files are read while the walk goes on.
  const walkRunner = (runner: MiningRunner): Promise<Walked> => {
    let prefetched = false;
    return walk(project, head, undefined, setup.repository, (survivor) => {
      const result = classifyRunnerFiles(survivor.screened, runner, {
        maxSourceFiles: config.tasks.maxSourceFiles,
      });
      if (result.kind === "excluded") {
        const { change } = survivor.screened;
        exclude({ commit: change.commit, title: result.title }, result.reason, result.detail);
        return;
      }
      candidates.push({ index: survivor.index, candidate: result.candidate });
      if (!prefetched && candidates.length >= config.tasks.limit) {
        prefetched = true;
        examiner.prefetch(candidates.map((c) => c.candidate));
      }
    }, options);
  };
  const walked = runner ? await walkRunner(runner) : await walkPython(pythonRules!);
  const ordered = candidates.sort((a, b) => a.index - b.index).map((c) => c.candidate);
  options.onProgress?.({ stage: "tests", candidates: ordered.length });

  // Candidates newest first, in batches, until `limit` tasks are found: each batch is one diff and
  // one read of their test modules (and changelogs).
  let at = 0;
  for (let size = config.tasks.limit; at < ordered.length && !examiner.done; size *= 2) {
    await examiner.examine(ordered.slice(at, at + size));
    at = Math.min(ordered.length, at + size);
  }
  examiner.finish(ordered.slice(at));
  for (const e of walked.excluded) excluded.push(e);
  for (const [reason, n] of Object.entries(walked.counts)) tally(counts, reason, n);
  const history = total === undefined ? walked.walked : await total;
  tally(counts, "before-since", history - walked.walked);

  // Newest first, as history was walked.
  const position = new Map(walked.order.map((commit, i) => [commit, i]));
  excluded.sort((a, b) => (position.get(a.commit) ?? 0) - (position.get(b.commit) ?? 0));
  const order = new Map(EXCLUSION_REASONS.map((r, i) => [r as string, i]));
  const file: TasksFile = {
    version: RESULTS_VERSION,
    kind: "tasks",
    // When GitHub failed, the next run tries again instead of reusing this file.
    inputsKey: client?.failed ? `${key}-retry` : key,
    repository: { head, branch },
    examined: history,
    tasks: examiner.tasks,
    excluded,
    counts: Object.fromEntries(
      Object.entries(counts).sort((a, b) => (order.get(a[0]) ?? 99) - (order.get(b[0]) ?? 99)),
    ),
    statementNote: accessNote(setup, client, examiner.tasks),
  };
  if (options.signal?.aborted) throw new InterruptedError();
  await project.results.ensure();
  await project.results.write(TASKS_FILE, file);
  const asked = examiner.tasks.length > 0 || (client?.requests ?? 0) > 0;
  return {
    file,
    cached: false,
    path,
    ...(asked && file.statementNote ? { note: file.statementNote } : {}),
    stats: {
      walked: walked.walked,
      candidates: ordered.length,
      examined: examiner.examined,
      blobsRead: blobs.blobsRead,
      readers: blobs.processes,
    },
  };
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
