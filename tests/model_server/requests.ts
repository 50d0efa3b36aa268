/**
 * Reads what matters out of a model request in each API's own shape: the model, whether it wants
 * a stream, the tools offered, the text of every message and the tool results fed back.
 *
 * @module
 */

import { type OfferedTool, offeredTool } from "./tools.ts";

/** The model APIs the server speaks. */
export type Api = "responses" | "chat" | "anthropic" | "gemini";

/** The parts of a model request the server and the tests look at. */
export interface ParsedRequest {
  /** The API the request came in on. */
  api: Api;
  /** The model the client asked for. */
  model?: string;
  /** True when the client wants a server-sent-event stream. */
  stream: boolean;
  /** The tools offered, normalised. */
  tools: OfferedTool[];
  /** The text of the instructions and every message, joined by newlines. */
  text: string;
  /** The outputs of tool calls the client sent back, oldest first. */
  toolResults: string[];
}

type Json = Record<string, unknown>;

const SKIP_KEYS = new Set([
  "type",
  "role",
  "id",
  "call_id",
  "tool_use_id",
  "tool_call_id",
  "signature",
  "thoughtSignature",
  "thought_signature",
  "cache_control",
  "status",
  "encrypted_content",
]);

/** Every string value under `value`, depth first, skipping bookkeeping keys. */
function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) { for (const v of value) strings(v, out); }
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) if (!SKIP_KEYS.has(k)) strings(v, out);
  }
  return out;
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  return strings(content).join("\n");
}

function responsesTools(body: Json): OfferedTool[] {
  return asArray(body.tools).map((raw) => {
    const t = raw as Json;
    if (t.type === "function") return offeredTool(String(t.name), "function", t.parameters);
    if (t.type === "custom") return offeredTool(String(t.name), "custom", undefined);
    return offeredTool(String(t.name ?? t.type), "builtin", undefined);
  });
}

function chatTools(body: Json): OfferedTool[] {
  return asArray(body.tools).map((raw) => {
    const t = raw as Json;
    const fn = (t.function ?? {}) as Json;
    if (t.type === "function" || fn.name) {
      return offeredTool(String(fn.name), "function", fn.parameters);
    }
    return offeredTool(String(t.name ?? t.type), "builtin", undefined);
  });
}

function anthropicTools(body: Json): OfferedTool[] {
  return asArray(body.tools).map((raw) => {
    const t = raw as Json;
    if (t.input_schema) return offeredTool(String(t.name), "function", t.input_schema);
    return offeredTool(String(t.name ?? t.type), "builtin", undefined);
  });
}

function geminiTools(body: Json): OfferedTool[] {
  const out: OfferedTool[] = [];
  for (const raw of asArray(body.tools)) {
    const group = raw as Json;
    for (const d of asArray(group.functionDeclarations)) {
      const decl = d as Json;
      out.push(
        offeredTool(String(decl.name), "function", decl.parametersJsonSchema ?? decl.parameters),
      );
    }
    for (const k of Object.keys(group)) {
      if (k !== "functionDeclarations") out.push(offeredTool(k, "builtin", undefined));
    }
  }
  return out;
}

function responsesResults(body: Json): string[] {
  const input = asArray(body.input) as Json[];
  return input.filter((i) =>
    i.type === "function_call_output" || i.type === "custom_tool_call_output"
  )
    .map((i) => contentText(i.output));
}

function chatResults(body: Json): string[] {
  return (asArray(body.messages) as Json[]).filter((m) => m.role === "tool")
    .map((m) => contentText(m.content));
}

function anthropicResults(body: Json): string[] {
  const out: string[] = [];
  for (const m of asArray(body.messages) as Json[]) {
    for (const block of asArray(m.content) as Json[]) {
      if (block.type === "tool_result") out.push(contentText(block.content));
    }
  }
  return out;
}

function geminiResults(body: Json): string[] {
  const out: string[] = [];
  for (const c of asArray(body.contents) as Json[]) {
    for (const part of asArray(c.parts) as Json[]) {
      const fr = part.functionResponse as Json | undefined;
      if (!fr) continue;
      const response = (fr.response ?? {}) as Json;
      const output = response.output ?? response.content ?? response.result;
      out.push(typeof output === "string" ? output : JSON.stringify(response));
    }
  }
  return out;
}

/**
 * Parse a model request body. `path` is only used for Gemini, which puts the model and the
 * streaming choice in the URL.
 */
export function parseRequest(api: Api, body: unknown, path: string): ParsedRequest {
  const b = (body && typeof body === "object" ? body : {}) as Json;
  switch (api) {
    case "responses":
      return {
        api,
        model: b.model as string | undefined,
        stream: b.stream === true,
        tools: responsesTools(b),
        text: strings([b.instructions, b.input]).join("\n"),
        toolResults: responsesResults(b),
      };
    case "chat":
      return {
        api,
        model: b.model as string | undefined,
        stream: b.stream === true,
        tools: chatTools(b),
        text: strings(b.messages).join("\n"),
        toolResults: chatResults(b),
      };
    case "anthropic":
      return {
        api,
        model: b.model as string | undefined,
        stream: b.stream === true,
        tools: anthropicTools(b),
        text: strings([b.system, b.messages]).join("\n"),
        toolResults: anthropicResults(b),
      };
    case "gemini": {
      const match = path.match(/models\/([^/:]+):(\w+)/);
      return {
        api,
        model: match?.[1] ? decodeURIComponent(match[1]) : undefined,
        stream: match?.[2] === "streamGenerateContent",
        tools: geminiTools(b),
        text: strings([b.systemInstruction, b.contents]).join("\n"),
        toolResults: geminiResults(b),
      };
    }
  }
}

/** Which API a POST to `path` is, or undefined when the path is no model endpoint. */
export function apiOf(path: string): Api | undefined {
  if (/\/responses$/.test(path)) return "responses";
  if (/\/chat\/completions$/.test(path)) return "chat";
  if (/\/messages$/.test(path)) return "anthropic";
  if (/\/models\/[^/]+:(stream)?[gG]enerateContent$/.test(path)) return "gemini";
  return undefined;
}
