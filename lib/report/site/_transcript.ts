/**
 * An attempt's transcript on its page, read from the ATIF trajectory the race saved: each step in
 * order — the task given, the agent's words and reasoning, each tool call with its arguments, the
 * command it ran with its exit code, and what came back — then the run's totals.
 *
 * Pure functions; no permissions needed.
 *
 * @module
 */

import type { Atif } from "../../transcript/atif.ts";
import { esc, preHtml } from "./_page.ts";

/** Characters of one tool result shown. */
const OUTPUT_CAP = 20_000;

function exitBadge(code: unknown): string {
  if (code === undefined) return "";
  if (code === null) return `<span class="exit bad">did not finish</span>`;
  return `<span class="exit ${code === 0 ? "ok" : "bad"}">exit ${esc(String(code))}</span>`;
}

/** The transcript, every step; a note when the agent's log gave none. */
export function transcriptHtml(t: Atif | undefined, type: string): string {
  if (!t) {
    return `<p class="muted">${
      esc(
        `No transcript: the ${type} adapter reads none from its agent's log, or this attempt ` +
          `left no log to read.`,
      )
    }</p>`;
  }
  const m = t.final_metrics;
  const totals = [
    m?.total_prompt_tokens !== undefined ? `${m.total_prompt_tokens} input tokens` : "",
    m?.total_cached_tokens !== undefined ? `${m.total_cached_tokens} of them cached` : "",
    m?.total_completion_tokens !== undefined ? `${m.total_completion_tokens} output tokens` : "",
    m?.total_cost_usd !== undefined ? `$${m.total_cost_usd.toFixed(4)}` : "",
  ].filter(Boolean).join(" · ");
  const steps = t.steps.map((step) => {
    const exits = (step.extra?.exit_codes ?? {}) as Record<string, unknown>;
    const commands = (step.extra?.commands ?? {}) as Record<string, unknown>;
    const results = new Map(
      (step.observation?.results ?? []).map((r) => [r.source_call_id ?? "", r.content ?? ""]),
    );
    const parts = [
      `<div class="who">${esc(step.source)} · step ${step.step_id}${
        step.timestamp ? ` · ${esc(step.timestamp)}` : ""
      }</div>`,
      step.reasoning_content ? preHtml(step.reasoning_content, "reasoning") : "",
      step.message ? preHtml(step.message) : "",
      ...(step.tool_calls ?? []).map((call) => {
        const id = call.tool_call_id;
        const command = typeof commands[id] === "string" ? commands[id] as string : undefined;
        const output = results.get(id) ?? "";
        return `<div class="step tool" data-call="${esc(id)}"><div class="who">tool ${
          esc(call.function_name)
        }${exitBadge(exits[id])}</div>${
          command !== undefined
            ? `<pre class="command">$ ${esc(command)}</pre>`
            : preHtml(JSON.stringify(call.arguments, null, 2))
        }${
          output
            ? preHtml(output, `output (${output.length} characters)`, OUTPUT_CAP)
            : `<p class="muted">no output</p>`
        }</div>`;
      }),
    ];
    return `<div class="step ${esc(step.source)}">${parts.join("")}</div>`;
  });
  return `<p class="muted">${
    esc(
      `${t.agent.name} ${t.agent.version}${t.agent.model_name ? `, ${t.agent.model_name}` : ""}` +
        ` · ${t.steps.length} steps${totals ? ` · ${totals}` : ""} · ${t.schema_version}`,
    )
  }</p>${steps.join("\n")}`;
}
