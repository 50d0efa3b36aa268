/**
 * The race stage: every contestant and examiner on every scorable task, queued per quota, each
 * attempt saved the moment it ends. Running it again skips finished attempts; `retryFailed` runs
 * quota and infrastructure failures again; an agent added later runs alone.
 *
 * @module
 */

import type { CodingAgent } from "../../adapters/agent.ts";
import { type AgentEntry, agentOf } from "../config.ts";
import { InterruptedError } from "../errors.ts";
import { inputsKey } from "../hash.ts";
import { readOracles } from "../oracle/mod.ts";
import type { Project } from "../project.ts";
import type { ProjectTools } from "../lang/mod.ts";
import { attemptName, type AttemptStatus, type BoutAttempt, type Task } from "../records.ts";
import { NotInstalledError } from "../proc.ts";
import { findProjectClones, toolchainMounts } from "../sandbox/mod.ts";
import type { Sandbox } from "../sandbox/types.ts";
import { attemptNames } from "../testbed/mod.ts";
import { tally } from "../words.ts";
import {
  loadAllAttempts,
  loadAttempt,
  loadPatches,
  loadTaskAttempts,
  needsRun,
} from "./attempts.ts";
import { runAttempt, saveUnstarted, sweepAttempts } from "./attempt.ts";
import { Spending } from "./budget.ts";
import { runLanes } from "./lanes.ts";

export {
  attemptPaths,
  loadAttempt,
  loadPatches,
  loadTaskAttempts,
  loadTrajectory,
} from "./attempts.ts";

/** Bumped when the prompt or the working copy changes in a way that makes old attempts stale. */
const RACE_FORMAT = 1;

/** One racer: an agent and its role. */
export interface Racer {
  agent: CodingAgent;
  role: "contestant" | "reproduce" | "specify";
  /** What identifies its configuration (type, model, options), for resuming. */
  settings: unknown;
}

/** Progress of the race, for the CLI. */
export type RaceProgress =
  | { kind: "start"; task: string; agent: string; at: number }
  | { kind: "end"; task: string; agent: string; status: AttemptStatus; durationMs: number }
  | { kind: "skip"; task: string; agent: string; status: AttemptStatus };

/** Options of {@linkcode raceAll}. */
export interface RaceOptions {
  /** The sandbox agents run in. */
  sandbox: Sandbox;
  /** How the project's tests run (each attempt's tree is given the environment it needs). */
  tools: ProjectTools;
  /** The agents; by default the configured ones ({@linkcode racersFromConfig}). */
  racers?: Racer[];
  /** Stop: attempts in flight are killed and not saved, then it throws. */
  signal?: AbortSignal;
  /** Run attempts that ended on a quota or an infrastructure error again. */
  retryFailed?: boolean;
  /** Called as attempts start, end or are skipped. */
  onProgress?: (event: RaceProgress) => void;
  /** Called with each warning before the race starts (another copy of the project in sight). */
  onWarning?: (text: string) => void;
  /**
   * Only the attempts this accepts, by task and attempt name (`codex#2`): a shard's share of the
   * race. The others are neither run nor counted.
   */
  only?: (task: Task, name: string) => boolean;
}

/** What the race did. */
export interface RaceSummary {
  /** Attempts that ran. */
  ran: number;
  /** Attempts already done. */
  skipped: number;
  /** Attempts that ran, by how they ended. */
  byStatus: Record<string, number>;
  /** Attempts that could not even be attempted (a bug or an environment problem), with why. */
  failures: string[];
  /** What a person should know before trusting the race (another copy of the project). */
  warnings: string[];
  /** One line for a person. */
  summary: string;
}

/**
 * The saved attempts of configured agents at a task, in configuration order, each agent's repeats
 * after its first attempt (attempts of agents no longer in `bugbout.toml`, and repeats beyond
 * `[run] repeats`, are left out), with their patches.
 */
export async function readAttempts(project: Project, task: string): Promise<BoutAttempt[]> {
  const saved = await loadTaskAttempts(project.results, task);
  const found: BoutAttempt[] = [];
  for (const name of attemptNames(project)) {
    const attempt = saved.get(name);
    if (!attempt) continue;
    found.push({ attempt, patches: await loadPatches(project.results, task, name) });
  }
  return found;
}

/** Racers from the configuration. */
export function racersFromConfig(project: Project): Racer[] {
  const make = (entry: AgentEntry): Racer => ({
    agent: agentOf(entry),
    role: entry.role === "contestant" ? "contestant" : entry.assignment ?? "reproduce",
    settings: { type: entry.type, model: entry.model, options: entry.options, role: entry.role },
  });
  return project.agents.map(make);
}

/** The inputs that make an attempt what it is: if any changes, it runs again. */
export function attemptKey(task: Task, racer: Racer, repeat = 1): string {
  return inputsKey({
    format: RACE_FORMAT,
    task: task.id,
    commit: task.commit,
    parent: task.parent,
    statement: task.statement,
    role: racer.role,
    settings: racer.settings,
    // The first attempt's key is what it was before repeats existed: saved races stay valid.
    ...(repeat > 1 ? { repeat } : {}),
  });
}

/**
 * A warning for each other copy of the project (a git repository with its root commit) that the
 * agents' sandbox shows: the system's directories, the test environment, the agents' toolchains.
 */
async function clonesInSight(
  project: Project,
  racers: readonly Racer[],
  options: RaceOptions,
): Promise<string[]> {
  if (options.sandbox.kind === "none") return [];
  // What every tree's environment shows, and the agents' toolchains.
  const view = await options.tools.sharedView(options.signal);
  const path = [...view.path, Deno.env.get("PATH") ?? "/usr/bin:/bin"].join(":");
  const readable = [...view.readable];
  for (const { agent } of racers) {
    if (!agent.executable) continue;
    try {
      readable.push(...(await toolchainMounts(agent.executable, { path })).readable);
    } catch (error) {
      // The attempt itself will say that the agent is missing.
      if (!(error instanceof NotInstalledError)) throw error;
    }
  }
  const clones = await findProjectClones({
    repository: project.repository,
    readable,
    deny: [project.repository, project.home, project.results.path],
    signal: options.signal,
  });
  return clones.map((dir) =>
    `Agents can read ${dir}, another copy of the project that may hold the fixes: move it ` +
    "out of the system's directories and the agents' install directories."
  );
}

/** Race the agents on `tasks` whose ground truth is scorable. */
export async function raceAll(
  project: Project,
  tasks: readonly Task[],
  options: RaceOptions,
): Promise<RaceSummary> {
  const summary: RaceSummary = {
    ran: 0,
    skipped: 0,
    byStatus: {},
    failures: [],
    warnings: [],
    summary: "",
  };
  const oracles = (await readOracles(project)).oracles;
  const racers = options.racers ?? racersFromConfig(project);
  // What every agent spent in earlier runs counts against its budget.
  const spending = new Spending(project.config.run.budget);
  for (const attempt of await loadAllAttempts(project.results)) spending.add(attempt);
  await sweepAttempts(project);
  for (const warning of await clonesInSight(project, racers, options)) {
    summary.warnings.push(warning);
    options.onWarning?.(warning);
  }
  const jobs = [];
  for (const task of tasks) {
    if (oracles[task.id]?.status !== "scorable") continue;
    for (const racer of racers) {
      for (let repeat = 1; repeat <= project.config.run.repeats; repeat++) {
        const name = attemptName(racer.agent.name, repeat);
        if (options.only && !options.only(task, name)) continue;
        const key = attemptKey(task, racer, repeat);
        const saved = await loadAttempt(project.results, task.id, name);
        if (!needsRun(saved, key, options.retryFailed ?? false)) {
          summary.skipped++;
          options.onProgress?.({ kind: "skip", task: task.id, agent: name, status: saved!.status });
          continue;
        }
        jobs.push({
          quota: racer.agent.quota,
          run: async () => {
            const context = {
              project,
              sandbox: options.sandbox,
              tools: options.tools,
              role: racer.role,
              inputsKey: key,
              repeat,
              signal: options.signal,
            };
            const spent = spending.spent(racer.agent.name);
            if (spent) {
              const attempt = await saveUnstarted(task, racer.agent, context, spent);
              options.onProgress?.({ kind: "skip", task: task.id, agent: name, status: "budget" });
              return attempt;
            }
            options.onProgress?.({ kind: "start", task: task.id, agent: name, at: Date.now() });
            const attempt = await runAttempt(task, racer.agent, context);
            spending.add(attempt);
            options.onProgress?.({
              kind: "end",
              task: task.id,
              agent: name,
              status: attempt.status,
              durationMs: attempt.durationMs,
            });
            return attempt;
          },
        });
      }
    }
  }
  const results = await runLanes(jobs, {
    limits: project.config.run.quotas,
    signal: options.signal,
  });
  let unstarted = 0;
  for (const result of results) {
    if (result?.status === "done" && result.value.status === "budget") {
      unstarted++;
    } else if (result?.status === "done") {
      summary.ran++;
      summary.byStatus[result.value.status] = (summary.byStatus[result.value.status] ?? 0) + 1;
    } else if (result?.status === "failed" && !(result.error instanceof InterruptedError)) {
      summary.failures.push(String((result.error as Error)?.stack ?? result.error));
    }
  }
  if (options.signal?.aborted) throw new InterruptedError();
  const statuses = Object.entries(summary.byStatus).flatMap(([k, n]) => Array(n).fill(k));
  summary.summary = `${summary.ran} attempt(s) ran, ${summary.skipped} already done` +
    (summary.ran ? `: ${tally(statuses)}` : "") +
    (unstarted ? `; ${unstarted} not started: their agents' budgets are spent` : "");
  return summary;
}
