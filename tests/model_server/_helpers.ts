/**
 * Request builders and a small HTTP helper shared by the model server's own tests. The bodies
 * mimic what the real clients send (tool lists as recorded from the pinned CLIs).
 *
 * @module
 */

import type { ModelServer } from "./server.ts";

/** A fully read response. */
export interface Got {
  /** HTTP status. */
  status: number;
  /** Response headers. */
  headers: Headers;
  /** The whole body as text. */
  text: string;
}

/** POST JSON to the server and read the whole answer. */
export async function post(
  server: ModelServer,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Got> {
  const response = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** GET (or HEAD) a path and read the whole answer. */
export async function get(server: ModelServer, path: string, method = "GET"): Promise<Got> {
  const response = await fetch(`${server.url}${path}`, { method });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const object = (properties: Record<string, unknown>, required: string[]) => ({
  type: "object",
  properties,
  required,
});
const str = { type: "string" };

/** A Codex-like Responses request (`exec_command` plus a web-search server tool). */
export function responsesBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: "fake-model",
    instructions: "You are Codex.",
    input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "Fix it." }] }],
    tools: [
      {
        type: "function",
        name: "exec_command",
        parameters: object({ cmd: str, justification: str }, ["cmd"]),
      },
      { type: "web_search" },
    ],
    stream: true,
    ...extra,
  };
}

/** A chat tool definition. */
export function chatTool(name: string, properties: Record<string, unknown>, required: string[]) {
  return { type: "function", function: { name, parameters: object(properties, required) } };
}

/** mini-swe-agent's request: one `bash` tool, non-streaming, its submit sentinel in the prompt. */
export function miniBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: "fake-model",
    messages: [
      {
        role: "system",
        content: "Finish with `echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`.",
      },
      { role: "user", content: "Fix it." },
    ],
    tools: [chatTool("bash", { command: str }, ["command"])],
    ...extra,
  };
}

/** opencode's tool set (camelCase file tools) on a streamed chat request. */
export function opencodeBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: "fake-model",
    stream: true,
    messages: [{ role: "user", content: "Fix it." }],
    tools: [
      chatTool("bash", { command: str, timeout: { type: "number" }, workdir: str }, ["command"]),
      chatTool("write", { filePath: str, content: str }, ["filePath", "content"]),
      chatTool("edit", { filePath: str, oldString: str, newString: str }, [
        "filePath",
        "oldString",
        "newString",
      ]),
      chatTool("read", { filePath: str }, ["filePath"]),
    ],
    ...extra,
  };
}

/** A Claude Code-like Messages request (Bash, Read, Write, Edit and a web-search server tool). */
export function anthropicBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: "claude-sonnet-4-5",
    max_tokens: 32000,
    stream: true,
    system: [{ type: "text", text: "You are Claude Code." }],
    messages: [{ role: "user", content: [{ type: "text", text: "Fix it." }] }],
    tools: [
      { name: "Bash", input_schema: object({ command: str, description: str }, ["command"]) },
      { name: "Read", input_schema: object({ file_path: str }, ["file_path"]) },
      {
        name: "Write",
        input_schema: object({ file_path: str, content: str }, ["file_path", "content"]),
      },
      {
        name: "Edit",
        input_schema: object(
          { file_path: str, old_string: str, new_string: str, replace_all: { type: "boolean" } },
          ["file_path", "old_string", "new_string"],
        ),
      },
      { type: "web_search_20250305", name: "web_search" },
    ],
    ...extra,
  };
}

/** A gemini-cli-like request (upper-case schema types, as the SDK sends them). */
export function geminiBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const up = (props: Record<string, unknown>, required: string[]) => ({
    type: "OBJECT",
    properties: Object.fromEntries(Object.keys(props).map((k) => [k, { type: "STRING" }])),
    required,
  });
  return {
    systemInstruction: { role: "user", parts: [{ text: "You are Gemini CLI." }] },
    contents: [{ role: "user", parts: [{ text: "Fix it." }] }],
    tools: [{
      functionDeclarations: [
        { name: "run_shell_command", parameters: up({ command: 1, description: 1 }, ["command"]) },
        { name: "read_file", parametersJsonSchema: object({ file_path: str }, ["file_path"]) },
        {
          name: "write_file",
          parameters: up({ file_path: 1, content: 1 }, ["file_path", "content"]),
        },
        {
          name: "replace",
          parameters: up({ file_path: 1, old_string: 1, new_string: 1, instruction: 1 }, [
            "file_path",
            "old_string",
            "new_string",
            "instruction",
          ]),
        },
      ],
    }],
    ...extra,
  };
}

/** Join the streamed `tool_calls` deltas of the first call into a name and argument text. */
export function chatToolCall(
  chunks: Record<string, unknown>[],
): { name: string; arguments: string } {
  let name = "";
  let args = "";
  for (const chunk of chunks) {
    for (const choice of (chunk.choices ?? []) as { delta: Record<string, unknown> }[]) {
      const calls = (choice.delta.tool_calls ?? []) as {
        index: number;
        function?: { name?: string; arguments?: string };
      }[];
      for (const call of calls) {
        if (call.index !== 0) continue;
        name ||= call.function?.name ?? "";
        args += call.function?.arguments ?? "";
      }
    }
  }
  return { name, arguments: args };
}

/** A qwen-code-like streamed chat request. */
export function chatBodyTools(): Record<string, unknown> {
  return {
    model: "fake-model",
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: "user", content: "Fix it." }],
    tools: [
      chatTool("run_shell_command", { command: { type: "string" } }, ["command"]),
      chatTool("read_file", { file_path: { type: "string" } }, ["file_path"]),
    ],
  };
}
