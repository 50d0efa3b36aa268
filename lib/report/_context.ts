/**
 * The stage files a report is built from, indexed once for the section builders.
 *
 * @module
 */

import {
  type Attempt,
  attemptName,
  type Matrix,
  nameOf,
  type OraclesFile,
  type Resolution,
  type ResolutionOutcome,
  type TasksFile,
  type Verdict,
} from "../records.ts";
import type { TaskAttempts } from "./stats_repeats.ts";

/** An agent of the bout, as the configuration names it. */
export interface ReportAgent {
  /** The agent's name in results files. */
  name: string;
  /** The adapter: `codex`, `claude-code`, `command`, ... */
  type: string;
  /** The model, when configured. */
  model?: string;
  /** Who makes the model. */
  vendor: string;
  /** Contestants fix; examiners only write tests. */
  role: "contestant" | "examiner";
  /**
   * The model's training cutoff, `YYYY-MM` or `YYYY-MM-DD` (`[[contestants]] cutoff`): its figures
   * are split between tasks fixed up to it and tasks fixed after it.
   */
  cutoff?: string;
}

/** Everything {@linkcode buildReport} reads: the stage files of `.bugbout/` and the config. */
export interface ReportInput {
  /** The project and how the bout ran. */
  project: {
    name: string;
    repository: string;
    policy: string;
  };
  /** `tasks.json`. */
  tasks: TasksFile;
  /** `oracles.json`. */
  oracles: OraclesFile;
  /** Every `attempts/<task>/<attempt>.json`. */
  attempts: readonly Attempt[];
  /** Every `matrices/<task>.json`. */
  matrices: readonly Matrix[];
  /** `verdicts.json`'s verdicts, by task. */
  verdicts: Readonly<Record<string, Verdict>>;
  /** `resolutions.json`'s resolutions, by task. */
  resolutions: Readonly<Record<string, Resolution>>;
  /** The configured agents, in configuration order. */
  agents: readonly ReportAgent[];
  /**
   * `[run] repeats`: attempts per agent and task. Attempts past it are left out (the setting was
   * lowered since). Without it, the most repeats any attempt recorded.
   */
  repeats?: number;
  /** When the report is built, ISO 8601 (passed in so that building stays pure). */
  generatedAt: string;
}

/** The input, indexed. */
export interface Context {
  input: ReportInput;
  contestants: readonly ReportAgent[];
  examiners: readonly ReportAgent[];
  /** Attempts per agent and task (`[run] repeats`). */
  repeats: number;
  /** Attempts by task, then attempt name (`codex`, `codex#2`, ...). */
  attempts: ReadonlyMap<string, ReadonlyMap<string, Attempt>>;
  matrices: ReadonlyMap<string, Matrix>;
  /** Every task id, in task order. */
  taskIds: readonly string[];
  /** Task ids whose resolution is scored, in task order. */
  scored: readonly string[];
}

/** Index the input. */
export function contextOf(input: ReportInput): Context {
  const taskIds = input.tasks.tasks.map((t) => t.id);
  const known = new Set(taskIds);
  const repeats = input.repeats ??
    Math.max(1, ...input.attempts.map((a) => a.repeat ?? 1));
  const attempts = new Map<string, Map<string, Attempt>>();
  for (const attempt of input.attempts) {
    if (!known.has(attempt.task) || (attempt.repeat ?? 1) > repeats) continue;
    const byName = attempts.get(attempt.task) ?? new Map<string, Attempt>();
    byName.set(nameOf(attempt), attempt);
    attempts.set(attempt.task, byName);
  }
  return {
    input,
    contestants: input.agents.filter((a) => a.role === "contestant"),
    examiners: input.agents.filter((a) => a.role === "examiner"),
    repeats,
    attempts,
    matrices: new Map(input.matrices.map((m) => [m.task, m])),
    taskIds,
    scored: taskIds.filter((id) => input.resolutions[id]?.scored === true),
  };
}

/** Every attempt name an agent can have: `codex`, `codex#2`, ... up to `[run] repeats`. */
export function attemptNamesOf(ctx: Context, agent: string): string[] {
  return Array.from({ length: ctx.repeats }, (_, i) => attemptName(agent, i + 1));
}

/** The attempt of that name at a task, if any. */
export function attemptOf(ctx: Context, task: string, name: string): Attempt | undefined {
  return ctx.attempts.get(task)?.get(name);
}

/** An agent's attempts at a task, in repeat order, with their names. */
export function attemptsOf(
  ctx: Context,
  task: string,
  agent: string,
): { name: string; attempt: Attempt }[] {
  return attemptNamesOf(ctx, agent).flatMap((name) => {
    const attempt = attemptOf(ctx, task, name);
    return attempt ? [{ name, attempt }] : [];
  });
}

/**
 * Whether the attempt of that name counts for scoring: it exists and is not an infrastructure
 * error (those are the harness's failures, not the agent's).
 */
export function attempted(ctx: Context, task: string, name: string): boolean {
  const attempt = attemptOf(ctx, task, name);
  return attempt !== undefined && attempt.status !== "infra-error";
}

/** The outcome of an attempt's patch on a task; `no-fix` when the scorer has no patch of its. */
export function outcomeOf(ctx: Context, task: string, name: string): ResolutionOutcome {
  return ctx.input.resolutions[task]?.patches[name]?.outcome ?? "no-fix";
}

/** The names of an agent's attempts at a task that count (see {@linkcode attempted}). */
export function countedNames(ctx: Context, task: string, agent: string): string[] {
  return attemptNamesOf(ctx, agent).filter((name) => attempted(ctx, task, name));
}

/**
 * Per scored task the agent attempted (one of `tasks`, all scored tasks by default): its attempts
 * that count and how many of them resolved the task.
 */
export function attemptCounts(
  ctx: Context,
  agent: string,
  tasks: readonly string[] = ctx.scored,
): Record<string, TaskAttempts> {
  const counts: Record<string, TaskAttempts> = {};
  for (const task of tasks) {
    const names = countedNames(ctx, task, agent);
    if (names.length === 0) continue;
    const c = names.filter((name) => outcomeOf(ctx, task, name) === "resolved").length;
    counts[task] = { n: names.length, c };
  }
  return counts;
}

/**
 * Per scored task the agent attempted, the share of its attempts that resolved it: with one
 * attempt per task 1 or 0, the shape `pairedComparison` (as booleans) and `randomAgent` take.
 */
export function resolveShares(ctx: Context, agent: string): Record<string, number> {
  return Object.fromEntries(
    Object.entries(attemptCounts(ctx, agent)).map(([task, { n, c }]) => [task, c / n]),
  );
}
