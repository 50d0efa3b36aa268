/**
 * The stage files a report is built from, indexed once for the section builders.
 *
 * @module
 */

import type {
  Attempt,
  Matrix,
  OraclesFile,
  Resolution,
  ResolutionOutcome,
  TasksFile,
  Verdict,
} from "../records.ts";

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
  /** Every `attempts/<task>/<agent>.json`. */
  attempts: readonly Attempt[];
  /** Every `matrices/<task>.json`. */
  matrices: readonly Matrix[];
  /** `verdicts.json`'s verdicts, by task. */
  verdicts: Readonly<Record<string, Verdict>>;
  /** `resolutions.json`'s resolutions, by task. */
  resolutions: Readonly<Record<string, Resolution>>;
  /** The configured agents, in configuration order. */
  agents: readonly ReportAgent[];
  /** When the report is built, ISO 8601 (passed in so that building stays pure). */
  generatedAt: string;
}

/** The input, indexed. */
export interface Context {
  input: ReportInput;
  contestants: readonly ReportAgent[];
  examiners: readonly ReportAgent[];
  /** Attempts by task, then agent. */
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
  const attempts = new Map<string, Map<string, Attempt>>();
  for (const attempt of input.attempts) {
    if (!known.has(attempt.task)) continue;
    const byAgent = attempts.get(attempt.task) ?? new Map<string, Attempt>();
    byAgent.set(attempt.agent, attempt);
    attempts.set(attempt.task, byAgent);
  }
  return {
    input,
    contestants: input.agents.filter((a) => a.role === "contestant"),
    examiners: input.agents.filter((a) => a.role === "examiner"),
    attempts,
    matrices: new Map(input.matrices.map((m) => [m.task, m])),
    taskIds,
    scored: taskIds.filter((id) => input.resolutions[id]?.scored === true),
  };
}

/** The agent's attempt at a task, if any. */
export function attemptOf(ctx: Context, task: string, agent: string): Attempt | undefined {
  return ctx.attempts.get(task)?.get(agent);
}

/**
 * Whether the agent attempted the task for scoring purposes: it has an attempt that is not an
 * infrastructure error (those are the harness's failures, not the agent's).
 */
export function attempted(ctx: Context, task: string, agent: string): boolean {
  const attempt = attemptOf(ctx, task, agent);
  return attempt !== undefined && attempt.status !== "infra-error";
}

/** The outcome of the agent's patch on a task; `no-fix` when the scorer has no patch of its. */
export function outcomeOf(ctx: Context, task: string, agent: string): ResolutionOutcome {
  return ctx.input.resolutions[task]?.patches[agent]?.outcome ?? "no-fix";
}

/**
 * Per scored task the agent attempted, whether it resolved it: the shape `pairedComparison` and
 * `randomAgent` take.
 */
export function resolvedMap(ctx: Context, agent: string): Record<string, boolean> {
  const resolved: Record<string, boolean> = {};
  for (const task of ctx.scored) {
    if (attempted(ctx, task, agent)) resolved[task] = outcomeOf(ctx, task, agent) === "resolved";
  }
  return resolved;
}
