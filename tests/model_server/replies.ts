/**
 * Turns an abstract script turn plus a concrete request into a reply in the client's tool
 * vocabulary, and encodes replies on each API's wire.
 *
 * @module
 */

import { anthropicFrames, anthropicJson } from "./anthropic_wire.ts";
import { geminiFrames, geminiJson } from "./gemini_wire.ts";
import {
  chatFrames,
  chatJson,
  responsesFrames,
  responsesJson,
  type WireContext,
} from "./openai_wire.ts";
import type { Api, ParsedRequest } from "./requests.ts";
import { actionOf, type Reply, type Turn } from "./script.ts";
import { encodeFrame } from "./sse.ts";
import { callFor, MINI_SUBMIT, shellCall, shellQuote } from "./tools.ts";

/** A reply, or why the turn could not be played against this request. */
export interface Planned {
  /** What to send. */
  reply: Reply;
  /** Set when the client offered no tool able to do the turn; the reply then is plain text. */
  problem?: string;
}

/**
 * The reply that plays `turn` against `request`. `finish` is plain text, except for
 * mini-swe-agent (recognised by its submit sentinel in the prompt), which finishes by running
 * its submit command.
 */
export function planReply(turn: Turn, request: ParsedRequest, cwd?: string): Planned {
  if ("fail" in turn) {
    // Only reachable when a slow/truncate/hang fail turn is followed by another fail turn.
    const problem = "a fail turn follows a fail turn that delivers the next reply";
    return { reply: { text: `[scripted server] ${problem}` }, problem };
  }
  if ("finish" in turn) {
    if (request.text.includes(MINI_SUBMIT)) {
      const call = shellCall(
        request.tools,
        `echo ${MINI_SUBMIT} && printf '%s\\n' ${shellQuote(turn.finish)}`,
      );
      if (call) return { reply: { call } };
    }
    return { reply: { text: turn.finish } };
  }
  const action = actionOf(turn)!;
  const call = callFor(action, request.tools, cwd);
  if (!call) {
    const offered = request.tools.map((t) => t.name).join(", ") || "none";
    const problem = `no offered tool can do a ${action.kind} (tools: ${offered})`;
    return { reply: { text: `[scripted server] ${problem}` }, problem };
  }
  return { reply: { text: turn.say, call } };
}

/** A ready-to-send body: content type and the chunks to write. */
export interface Encoded {
  /** `text/event-stream` or `application/json`. */
  contentType: string;
  /** The body in pieces; failure modes send a prefix of them. */
  chunks: string[];
}

const JSON_ENCODERS: Record<Api, (reply: Reply, ctx: WireContext) => unknown> = {
  responses: responsesJson,
  chat: chatJson,
  anthropic: anthropicJson,
  gemini: geminiJson,
};

const SSE_ENCODERS = {
  responses: responsesFrames,
  chat: chatFrames,
  anthropic: anthropicFrames,
  gemini: geminiFrames,
};

/**
 * Encode a reply for the request's API. A streamed Gemini request without `alt=sse` gets the
 * JSON-array stream that API sends then.
 */
export function encodeReply(
  request: ParsedRequest,
  reply: Reply,
  ctx: WireContext,
  query: URLSearchParams,
): Encoded {
  if (!request.stream) {
    const text = JSON.stringify(JSON_ENCODERS[request.api](reply, ctx));
    const half = Math.floor(text.length / 2);
    return { contentType: "application/json", chunks: [text.slice(0, half), text.slice(half)] };
  }
  const frames = SSE_ENCODERS[request.api](reply, ctx);
  if (request.api === "gemini" && query.get("alt") !== "sse") {
    const parts = frames.map((f, i) => `${i === 0 ? "[" : ",\n"}${f.data}`);
    return { contentType: "application/json", chunks: [...parts, "]"] };
  }
  return { contentType: "text/event-stream", chunks: frames.map(encodeFrame) };
}
