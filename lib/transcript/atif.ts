/**
 * A transcript as an ATIF trajectory: Harbor's Agent Trajectory Interchange Format, version 1.4
 * (`ATIF-v1.4`). A user or system message is a step of its own; an agent's message and the tool
 * calls that follow it are one agent step, the calls' results its observation. What ATIF has no
 * field for goes in its `extra` objects: a command's exit code (`step.extra.exit_codes`, by call
 * id), the command line (`step.extra.commands`), failed calls, where the transcript was read from.
 *
 * {@linkcode atifSchema} is ATIF 1.4's shape written from the RFC, strict where the RFC lists every
 * field, so that what bugbout writes and reads back is checked against it.
 *
 * Pure functions; no permissions needed.
 *
 * @module
 */

import { z } from "../deps.ts";
import type { TokenUsage, Transcript, TranscriptToolCall } from "./types.ts";

/** The ATIF version written. */
export const ATIF_VERSION = "ATIF-v1.4";

const extra = z.record(z.string(), z.unknown()).optional();
const int = z.int().nonnegative();

const metricsSchema = z.strictObject({
  prompt_tokens: int.optional(),
  completion_tokens: int.optional(),
  cached_tokens: int.optional(),
  cost_usd: z.number().optional(),
  prompt_token_ids: z.array(z.int()).optional(),
  completion_token_ids: z.array(z.int()).optional(),
  logprobs: z.array(z.number()).optional(),
  extra,
});

const toolCallSchema = z.strictObject({
  tool_call_id: z.string(),
  function_name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
});

const observationSchema = z.strictObject({
  results: z.array(z.strictObject({
    source_call_id: z.string().nullable().optional(),
    content: z.string().nullable().optional(),
    subagent_trajectory_ref: z.array(z.strictObject({
      session_id: z.string(),
      trajectory_path: z.string().nullable().optional(),
      extra,
    })).nullable().optional(),
  })),
});

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

const stepSchema = z.strictObject({
  step_id: z.int().min(1),
  timestamp: z.string().regex(ISO).optional(),
  source: z.enum(["system", "user", "agent"]),
  model_name: z.string().optional(),
  reasoning_effort: z.union([z.string(), z.number()]).optional(),
  message: z.string(),
  reasoning_content: z.string().optional(),
  tool_calls: z.array(toolCallSchema).optional(),
  observation: observationSchema.optional(),
  metrics: metricsSchema.optional(),
  extra,
});

/** ATIF 1.4's trajectory, as the RFC describes it; step ids run 1, 2, ... and results name calls. */
export const atifSchema = z.strictObject({
  schema_version: z.string().regex(/^ATIF-v1\.\d+$/),
  session_id: z.string(),
  agent: z.strictObject({
    name: z.string(),
    version: z.string(),
    model_name: z.string().optional(),
    extra,
  }),
  steps: z.array(stepSchema),
  notes: z.string().optional(),
  final_metrics: z.strictObject({
    total_prompt_tokens: int.optional(),
    total_completion_tokens: int.optional(),
    total_cached_tokens: int.optional(),
    total_cost_usd: z.number().optional(),
    total_steps: int.optional(),
    extra,
  }).optional(),
  extra,
}).superRefine((t, ctx) => {
  t.steps.forEach((step, i) => {
    if (step.step_id !== i + 1) {
      ctx.addIssue({ code: "custom", message: `step ${i + 1} has step_id ${step.step_id}` });
    }
    const agentOnly = ["model_name", "reasoning_content", "tool_calls", "metrics"] as const;
    if (step.source !== "agent" && agentOnly.some((k) => step[k] !== undefined)) {
      ctx.addIssue({
        code: "custom",
        message: `step ${step.step_id}: agent fields on a non-agent step`,
      });
    }
    const calls = new Set((step.tool_calls ?? []).map((c) => c.tool_call_id));
    for (const r of step.observation?.results ?? []) {
      if (r.source_call_id && !calls.has(r.source_call_id)) {
        ctx.addIssue({
          code: "custom",
          message: `step ${step.step_id}: result for unknown call ${r.source_call_id}`,
        });
      }
    }
  });
});

/** An ATIF trajectory. */
export type Atif = z.infer<typeof atifSchema>;
/** One step of an ATIF trajectory. */
export type AtifStep = Atif["steps"][number];

function metricsOf(tokens: TokenUsage | undefined): AtifStep["metrics"] {
  if (!tokens) return undefined;
  const more: Record<string, number> = {};
  if (tokens.reasoning !== undefined) more.reasoning_tokens = tokens.reasoning;
  if (tokens.cacheWrite !== undefined) more.cache_creation_input_tokens = tokens.cacheWrite;
  const m: NonNullable<AtifStep["metrics"]> = {
    ...(tokens.input !== undefined ? { prompt_tokens: tokens.input } : {}),
    ...(tokens.output !== undefined ? { completion_tokens: tokens.output } : {}),
    ...(tokens.cachedInput !== undefined ? { cached_tokens: tokens.cachedInput } : {}),
    ...(Object.keys(more).length ? { extra: more } : {}),
  };
  return Object.keys(m).length ? m : undefined;
}

function isoOrUndefined(at: string | undefined): string | undefined {
  return at && ISO.test(at) ? at : undefined;
}

/** What an agent step gathers before it is written. */
interface Open {
  message: string;
  reasoning?: string;
  at?: string;
  tokens?: TokenUsage;
  calls: TranscriptToolCall[];
}

/**
 * Write a transcript as an ATIF 1.4 trajectory. `sessionId` is used when the agent gave none
 * (bugbout passes `<task>/<attempt>`).
 */
export function toAtif(t: Transcript, sessionId: string): Atif {
  const steps: AtifStep[] = [];
  let open: Open | undefined;
  const close = () => {
    if (!open) return;
    const o = open;
    open = undefined;
    const exitCodes: Record<string, number | null> = {};
    const commands: Record<string, string> = {};
    const failed: string[] = [];
    for (const c of o.calls) {
      if (c.exitCode !== undefined) exitCodes[c.id] = c.exitCode;
      if (c.command !== undefined) commands[c.id] = c.command;
      if (c.failed) failed.push(c.id);
    }
    const more = {
      ...(Object.keys(exitCodes).length ? { exit_codes: exitCodes } : {}),
      ...(Object.keys(commands).length ? { commands } : {}),
      ...(failed.length ? { failed_calls: failed } : {}),
    };
    const metrics = metricsOf(o.tokens);
    const at = isoOrUndefined(o.at ?? o.calls[0]?.at);
    steps.push({
      step_id: steps.length + 1,
      ...(at ? { timestamp: at } : {}),
      source: "agent",
      ...(t.model ? { model_name: t.model } : {}),
      message: o.message,
      ...(o.reasoning ? { reasoning_content: o.reasoning } : {}),
      ...(o.calls.length
        ? {
          tool_calls: o.calls.map((c) => ({
            tool_call_id: c.id,
            function_name: c.name,
            arguments: c.input,
          })),
          observation: {
            results: o.calls.map((c) => ({ source_call_id: c.id, content: c.output ?? "" })),
          },
        }
        : {}),
      ...(metrics ? { metrics } : {}),
      ...(Object.keys(more).length ? { extra: more } : {}),
    });
  };
  for (const step of t.steps) {
    if (step.kind === "tool") {
      open ??= { message: "", calls: [] };
      open.calls.push(step);
      continue;
    }
    close();
    if (step.role === "agent") {
      open = {
        message: step.text,
        reasoning: step.reasoning,
        at: step.at,
        tokens: step.tokens,
        calls: [],
      };
      continue;
    }
    const at = isoOrUndefined(step.at);
    steps.push({
      step_id: steps.length + 1,
      ...(at ? { timestamp: at } : {}),
      source: step.role,
      message: step.text,
    });
  }
  close();
  const totals = metricsOf(t.tokens);
  const finalExtra: Record<string, number> = { ...(totals?.extra as Record<string, number>) };
  if (t.tokens?.total !== undefined) finalExtra.total_tokens = t.tokens.total;
  return {
    schema_version: ATIF_VERSION,
    session_id: t.sessionId ?? sessionId,
    agent: {
      name: t.agent,
      version: t.version ?? "unknown",
      ...(t.model ? { model_name: t.model } : {}),
    },
    steps,
    notes: "Written by bugbout from the agent's own log; exit codes and command lines of tool " +
      "calls are in each step's extra (exit_codes, commands, by tool_call_id).",
    final_metrics: {
      ...(totals?.prompt_tokens !== undefined ? { total_prompt_tokens: totals.prompt_tokens } : {}),
      ...(totals?.completion_tokens !== undefined
        ? { total_completion_tokens: totals.completion_tokens }
        : {}),
      ...(totals?.cached_tokens !== undefined ? { total_cached_tokens: totals.cached_tokens } : {}),
      ...(t.costUsd !== undefined ? { total_cost_usd: t.costUsd } : {}),
      total_steps: steps.length,
      ...(Object.keys(finalExtra).length ? { extra: finalExtra } : {}),
    },
    extra: { source: t.source },
  };
}
