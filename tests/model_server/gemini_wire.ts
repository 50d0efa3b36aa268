/**
 * The Gemini `generateContent` wire shape (gemini-cli): `functionCall` parts, streamed as
 * `:streamGenerateContent?alt=sse` frames or answered as one JSON object.
 *
 * @module
 */

import type { WireContext } from "./openai_wire.ts";
import type { Reply, Usage } from "./script.ts";
import { frame, pieces, type SseFrame } from "./sse.ts";

/** Usage in Gemini's `usageMetadata` fields; `candidatesTokenCount` excludes thoughts. */
export function geminiUsage(u: Usage): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    promptTokenCount: u.input,
    candidatesTokenCount: u.output - (u.reasoning ?? 0),
    totalTokenCount: u.input + u.output,
  };
  if (u.cachedInput) meta.cachedContentTokenCount = u.cachedInput;
  if (u.reasoning) meta.thoughtsTokenCount = u.reasoning;
  return meta;
}

function chunk(
  parts: unknown[],
  ctx: WireContext,
  final: boolean,
): Record<string, unknown> {
  return {
    candidates: [{
      content: { parts, role: "model" },
      index: 0,
      ...(final ? { finishReason: "STOP" } : {}),
    }],
    ...(final ? { usageMetadata: geminiUsage(ctx.usage) } : {}),
    modelVersion: ctx.model,
    responseId: `resp_${ctx.seq}`,
  };
}

function callPart(reply: Reply, ctx: WireContext): Record<string, unknown> | undefined {
  if (!reply.call) return undefined;
  return { functionCall: { id: `call_${ctx.seq}`, name: reply.call.name, args: reply.call.args } };
}

/** A non-streamed `generateContent` body. */
export function geminiJson(reply: Reply, ctx: WireContext): unknown {
  const parts: unknown[] = [];
  if (reply.text !== undefined) parts.push({ text: reply.text });
  const call = callPart(reply, ctx);
  if (call) parts.push(call);
  return chunk(parts, ctx, true);
}

/** The SSE frames of a streamed answer; the last one carries `finishReason` and usage. */
export function geminiFrames(reply: Reply, ctx: WireContext): SseFrame[] {
  const texts = reply.text ? pieces(reply.text) : [];
  const call = callPart(reply, ctx);
  const out: SseFrame[] = [];
  texts.forEach((text, i) => {
    const last = i === texts.length - 1 && !call;
    out.push(frame(chunk([{ text }], ctx, last)));
  });
  if (call) out.push(frame(chunk([call], ctx, true)));
  if (out.length === 0) out.push(frame(chunk([{ text: "" }], ctx, true)));
  return out;
}
