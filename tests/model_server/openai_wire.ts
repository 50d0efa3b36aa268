/**
 * OpenAI wire shapes: the Responses API (what Codex speaks) and Chat Completions (qwen, opencode,
 * copilot, mini via litellm), streamed and plain.
 *
 * @module
 */

import type { Reply, Usage } from "./script.ts";
import { argumentPieces, frame, pieces, type SseFrame } from "./sse.ts";

/** What an encoder needs besides the reply. */
export interface WireContext {
  /** A per-request number used to build ids. */
  seq: number;
  /** The model name to echo. */
  model: string;
  /** Usage to report. */
  usage: Usage;
  /** Creation time, seconds since the epoch. */
  created: number;
}

/** Usage in the Responses API's fields. */
export function responsesUsage(u: Usage): Record<string, unknown> {
  return {
    input_tokens: u.input,
    input_tokens_details: { cached_tokens: u.cachedInput ?? 0 },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning ?? 0 },
    total_tokens: u.input + u.output,
  };
}

/** Usage in Chat Completions' fields. */
export function chatUsage(u: Usage): Record<string, unknown> {
  return {
    prompt_tokens: u.input,
    completion_tokens: u.output,
    total_tokens: u.input + u.output,
    prompt_tokens_details: { cached_tokens: u.cachedInput ?? 0 },
    completion_tokens_details: { reasoning_tokens: u.reasoning ?? 0 },
  };
}

function responsesItems(reply: Reply, ctx: WireContext): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = [];
  if (reply.text !== undefined) {
    items.push({
      id: `msg_${ctx.seq}`,
      type: "message",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: reply.text, annotations: [] }],
    });
  }
  if (reply.call) {
    const custom = reply.call.input !== undefined;
    items.push({
      id: `fc_${ctx.seq}`,
      type: custom ? "custom_tool_call" : "function_call",
      status: "completed",
      call_id: `call_${ctx.seq}`,
      name: reply.call.name,
      ...(custom ? { input: reply.call.input } : { arguments: JSON.stringify(reply.call.args) }),
    });
  }
  return items;
}

function responseObject(
  reply: Reply,
  ctx: WireContext,
  status: "in_progress" | "completed",
): Record<string, unknown> {
  const done = status === "completed";
  return {
    id: `resp_${ctx.seq}`,
    object: "response",
    created_at: ctx.created,
    status,
    model: ctx.model,
    output: done ? responsesItems(reply, ctx) : [],
    usage: done ? responsesUsage(ctx.usage) : null,
  };
}

/** A non-streamed Responses API body. */
export function responsesJson(reply: Reply, ctx: WireContext): unknown {
  return responseObject(reply, ctx, "completed");
}

/** The SSE events of a streamed Responses API answer. */
export function responsesFrames(reply: Reply, ctx: WireContext): SseFrame[] {
  let n = 0;
  const ev = (type: string, rest: Record<string, unknown>) =>
    frame({ type, sequence_number: n++, ...rest }, type);
  const out = [
    ev("response.created", { response: responseObject(reply, ctx, "in_progress") }),
    ev("response.in_progress", { response: responseObject(reply, ctx, "in_progress") }),
  ];
  responsesItems(reply, ctx).forEach((item, output_index) => {
    const item_id = item.id;
    if (item.type === "message") {
      const text = reply.text ?? "";
      const empty = { type: "output_text", text: "", annotations: [] };
      out.push(ev("response.output_item.added", {
        output_index,
        item: { ...item, status: "in_progress", content: [] },
      }));
      out.push(
        ev("response.content_part.added", { item_id, output_index, content_index: 0, part: empty }),
      );
      for (const delta of pieces(text)) {
        out.push(
          ev("response.output_text.delta", { item_id, output_index, content_index: 0, delta }),
        );
      }
      out.push(ev("response.output_text.done", { item_id, output_index, content_index: 0, text }));
      out.push(ev("response.content_part.done", {
        item_id,
        output_index,
        content_index: 0,
        part: { ...empty, text },
      }));
    } else if (item.type === "function_call") {
      const args = String(item.arguments);
      out.push(ev("response.output_item.added", {
        output_index,
        item: { ...item, status: "in_progress", arguments: "" },
      }));
      for (const delta of argumentPieces(args)) {
        out.push(ev("response.function_call_arguments.delta", { item_id, output_index, delta }));
      }
      out.push(
        ev("response.function_call_arguments.done", { item_id, output_index, arguments: args }),
      );
    } else {
      out.push(ev("response.output_item.added", { output_index, item: { ...item, input: "" } }));
      const input = String(item.input);
      out.push(
        ev("response.custom_tool_call_input.delta", { item_id, output_index, delta: input }),
      );
      out.push(ev("response.custom_tool_call_input.done", { item_id, output_index, input }));
    }
    out.push(ev("response.output_item.done", { output_index, item }));
  });
  out.push(ev("response.completed", { response: responseObject(reply, ctx, "completed") }));
  return out;
}

function chatToolCalls(reply: Reply, ctx: WireContext): Record<string, unknown>[] | undefined {
  if (!reply.call) return undefined;
  return [{
    id: `call_${ctx.seq}`,
    type: "function",
    function: { name: reply.call.name, arguments: JSON.stringify(reply.call.args) },
  }];
}

/** A non-streamed Chat Completions body. */
export function chatJson(reply: Reply, ctx: WireContext): unknown {
  const toolCalls = chatToolCalls(reply, ctx);
  return {
    id: `chatcmpl-${ctx.seq}`,
    object: "chat.completion",
    created: ctx.created,
    model: ctx.model,
    choices: [{
      index: 0,
      message: {
        role: "assistant",
        content: reply.text ?? null,
        ...(toolCalls ? { tool_calls: toolCalls } : {}),
      },
      finish_reason: toolCalls ? "tool_calls" : "stop",
    }],
    usage: chatUsage(ctx.usage),
  };
}

/** The SSE chunks of a streamed Chat Completions answer, usage in a last `choices: []` chunk. */
export function chatFrames(reply: Reply, ctx: WireContext): SseFrame[] {
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    frame({
      id: `chatcmpl-${ctx.seq}`,
      object: "chat.completion.chunk",
      created: ctx.created,
      model: ctx.model,
      choices,
      ...extra,
    });
  const delta = (d: Record<string, unknown>, finish: string | null = null) =>
    chunk([{ index: 0, delta: d, finish_reason: finish }]);
  const out = [delta({ role: "assistant", content: "" })];
  for (const text of pieces(reply.text ?? "")) if (text) out.push(delta({ content: text }));
  const call = chatToolCalls(reply, ctx)?.[0] as
    | { id: string; function: { name: string; arguments: string } }
    | undefined;
  if (call) {
    out.push(delta({
      tool_calls: [{
        index: 0,
        id: call.id,
        type: "function",
        function: { name: call.function.name, arguments: "" },
      }],
    }));
    for (const args of argumentPieces(call.function.arguments)) {
      out.push(delta({ tool_calls: [{ index: 0, function: { arguments: args } }] }));
    }
  }
  out.push(delta({}, call ? "tool_calls" : "stop"));
  out.push(chunk([], { usage: chatUsage(ctx.usage) }));
  out.push({ data: "[DONE]" });
  return out;
}
