/**
 * The Anthropic Messages API wire shape (Claude Code): `tool_use` blocks, streamed as
 * `message_start` … `message_stop`, or as one message object.
 *
 * @module
 */

import type { WireContext } from "./openai_wire.ts";
import type { Reply, Usage } from "./script.ts";
import { argumentPieces, frame, pieces, type SseFrame } from "./sse.ts";

/**
 * Usage in the Messages API's fields. Anthropic's `input_tokens` excludes cache reads and writes,
 * so it gets `input - cachedInput - cacheWrite`.
 */
export function anthropicUsage(u: Usage): Record<string, unknown> {
  return {
    input_tokens: u.input - (u.cachedInput ?? 0) - (u.cacheWrite ?? 0),
    cache_creation_input_tokens: u.cacheWrite ?? 0,
    cache_read_input_tokens: u.cachedInput ?? 0,
    output_tokens: u.output,
    service_tier: "standard",
  };
}

function blocks(reply: Reply, ctx: WireContext): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  if (reply.text !== undefined) out.push({ type: "text", text: reply.text });
  if (reply.call) {
    out.push({
      type: "tool_use",
      id: `toolu_${ctx.seq}`,
      name: reply.call.name,
      input: reply.call.args,
    });
  }
  return out;
}

function message(reply: Reply, ctx: WireContext, done: boolean): Record<string, unknown> {
  const usage = anthropicUsage(ctx.usage);
  return {
    id: `msg_${ctx.seq}`,
    type: "message",
    role: "assistant",
    model: ctx.model,
    content: done ? blocks(reply, ctx) : [],
    stop_reason: done ? (reply.call ? "tool_use" : "end_turn") : null,
    stop_sequence: null,
    usage: done ? usage : { ...usage, output_tokens: 1 },
  };
}

/** A non-streamed Messages body. */
export function anthropicJson(reply: Reply, ctx: WireContext): unknown {
  return message(reply, ctx, true);
}

/** The SSE events of a streamed Messages answer. */
export function anthropicFrames(reply: Reply, ctx: WireContext): SseFrame[] {
  const ev = (type: string, rest: Record<string, unknown> = {}) => frame({ type, ...rest }, type);
  const out = [ev("message_start", { message: message(reply, ctx, false) }), ev("ping")];
  blocks(reply, ctx).forEach((block, index) => {
    if (block.type === "text") {
      out.push(ev("content_block_start", { index, content_block: { type: "text", text: "" } }));
      for (const text of pieces(String(block.text))) {
        out.push(ev("content_block_delta", { index, delta: { type: "text_delta", text } }));
      }
    } else {
      out.push(ev("content_block_start", { index, content_block: { ...block, input: {} } }));
      for (const partial_json of argumentPieces(JSON.stringify(block.input))) {
        out.push(
          ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json } }),
        );
      }
    }
    out.push(ev("content_block_stop", { index }));
  });
  out.push(ev("message_delta", {
    delta: { stop_reason: reply.call ? "tool_use" : "end_turn", stop_sequence: null },
    usage: { output_tokens: ctx.usage.output },
  }));
  out.push(ev("message_stop"));
  return out;
}
