/**
 * Reading each agent's own log into one transcript shape (`lib/transcript/types.ts`): its
 * messages, its tool calls with their arguments and results, and a command's exit code where the
 * log keeps one. Tokens and cost of the whole run come from the adapter's `parse`; these readers
 * keep what each model turn reported where the log has it.
 *
 * Logs are the agent's and so untrusted: anything that is not the expected shape is skipped, never
 * thrown on.
 *
 * Pure functions; no permissions needed.
 *
 * @module
 */

import { anthropicUsage, compactUsage, isObject, jsonLines, num, obj, str } from "./_common.ts";
import type { TranscriptStep, TranscriptToolCall } from "../lib/transcript/types.ts";

function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) {
    return value.map((v) => typeof v === "string" ? v : str(obj(v)?.text) ?? "").join("");
  }
  return value === undefined || value === null ? "" : JSON.stringify(value);
}

function args(value: unknown): Record<string, unknown> {
  if (isObject(value)) return value;
  if (typeof value === "string") {
    try {
      const parsed = JSON.parse(value);
      if (isObject(parsed)) return parsed;
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
    }
    return { input: value };
  }
  return {};
}

function isoOf(ms: unknown): string | undefined {
  const n = num(ms);
  if (n !== undefined) return new Date(n > 1e11 ? n : n * 1000).toISOString();
  return str(ms);
}

/** `codex exec --json`: `item.completed` events of agent messages, reasoning and commands. */
export function codexTranscript(stdout: string): TranscriptStep[] {
  const steps: TranscriptStep[] = [];
  for (const event of jsonLines(stdout)) {
    if (event.type !== "item.completed") continue;
    const item = obj(event.item);
    if (!item) continue;
    const id = str(item.id) ?? `item_${steps.length}`;
    switch (item.type) {
      case "agent_message":
        steps.push({ kind: "message", role: "agent", text: text(item.text) });
        break;
      case "reasoning":
        steps.push({ kind: "message", role: "agent", text: "", reasoning: text(item.text) });
        break;
      case "command_execution": {
        const code = item.exit_code;
        steps.push({
          kind: "tool",
          id,
          name: "command_execution",
          input: { command: text(item.command) },
          command: text(item.command),
          output: text(item.aggregated_output),
          exitCode: typeof code === "number" ? code : null,
          failed: item.status === "failed" || undefined,
        });
        break;
      }
      case "file_change":
      case "mcp_tool_call":
      case "web_search":
        steps.push({
          kind: "tool",
          id,
          name: String(item.type),
          input: { ...item, id: undefined, type: undefined },
          failed: item.status === "failed" || undefined,
        });
        break;
      case "error":
        steps.push({ kind: "message", role: "system", text: text(item.message) });
        break;
    }
  }
  return steps;
}

const EXIT_CODE = /\bExit code:? (\d+)/i;

/**
 * Claude Code's and Qwen Code's `stream-json`: `assistant` messages (one event per content block)
 * with `tool_use` blocks, `user` messages with `tool_result` blocks. `shellTools` names the tools
 * that run a command, whose exit code is 0 unless the result is an error that says otherwise.
 */
export function streamJsonTranscript(
  stdout: string,
  shellTools: readonly string[],
): TranscriptStep[] {
  const steps: TranscriptStep[] = [];
  const calls = new Map<string, TranscriptToolCall>();
  const seenUsage = new Set<string>();
  for (const event of jsonLines(stdout)) {
    const message = obj(event.message);
    const content = Array.isArray(message?.content) ? message.content.map(obj) : [];
    if (event.type === "assistant") {
      const id = str(message?.id);
      // The same message's usage repeats on every block: keep it on its first.
      const tokens = id && seenUsage.has(id) ? undefined : anthropicUsage(obj(message?.usage));
      if (id) seenUsage.add(id);
      for (const block of content) {
        if (block?.type === "text" || block?.type === "thinking") {
          const words = block.type === "text" ? text(block.text) : "";
          const reasoning = block.type === "thinking" ? text(block.thinking) : undefined;
          steps.push({
            kind: "message",
            role: "agent",
            text: words,
            ...(reasoning ? { reasoning } : {}),
            ...(tokens ? { tokens } : {}),
          });
        } else if (block?.type === "tool_use") {
          const name = str(block.name) ?? "tool";
          const input = args(block.input);
          const call: TranscriptToolCall = {
            kind: "tool",
            id: str(block.id) ?? `call_${calls.size}`,
            name,
            input,
            ...(shellTools.includes(name) && typeof input.command === "string"
              ? { command: input.command }
              : {}),
          };
          calls.set(call.id, call);
          steps.push(call);
        }
      }
    } else if (event.type === "user") {
      for (const block of content) {
        if (block?.type !== "tool_result") continue;
        const call = calls.get(str(block.tool_use_id) ?? "");
        if (!call) continue;
        const result = obj(event.tool_use_result);
        const out = result && typeof result.stdout === "string"
          ? [result.stdout, str(result.stderr)].filter(Boolean).join("\n")
          : text(block.content);
        call.output = out;
        if (block.is_error === true) call.failed = true;
        if (call.command !== undefined) {
          const code = block.is_error === true ? out.match(EXIT_CODE)?.[1] : "0";
          call.exitCode = code === undefined ? undefined : Number(code);
          if (result?.interrupted === true) call.exitCode = null;
        }
      }
    } else if (event.type === "system" && event.subtype === "init") {
      // nothing to show: the tools offered and the model are the configuration's
    }
  }
  return steps;
}

/** Gemini CLI's `stream-json`: message deltas, `tool_use` and `tool_result` events. */
export function geminiTranscript(stdout: string): TranscriptStep[] {
  const steps: TranscriptStep[] = [];
  const calls = new Map<string, TranscriptToolCall>();
  for (const event of jsonLines(stdout)) {
    const at = str(event.timestamp);
    if (event.type === "message") {
      const role = event.role === "user" ? "user" : "agent";
      const last = steps.at(-1);
      if (event.delta === true && last?.kind === "message" && last.role === role) {
        last.text += text(event.content);
      } else {
        steps.push({ kind: "message", role, text: text(event.content), ...(at ? { at } : {}) });
      }
    } else if (event.type === "tool_use") {
      const name = str(event.tool_name) ?? "tool";
      const input = args(event.parameters);
      const call: TranscriptToolCall = {
        kind: "tool",
        id: str(event.tool_id) ?? `call_${calls.size}`,
        name,
        input,
        ...(name === "run_shell_command" && typeof input.command === "string"
          ? { command: input.command }
          : {}),
        ...(at ? { at } : {}),
      };
      calls.set(call.id, call);
      steps.push(call);
    } else if (event.type === "tool_result") {
      const call = calls.get(str(event.tool_id) ?? "");
      if (!call) continue;
      call.output = text(event.output ?? obj(event.error)?.message);
      if (event.status !== "success") call.failed = true;
      if (call.command !== undefined) {
        const code = call.output.match(/\bExit Code: (\d+)/)?.[1];
        call.exitCode = event.status === "success" ? Number(code ?? 0) : code ? Number(code) : 1;
      }
    }
  }
  return steps;
}

/** mini-swe-agent's trajectory file: OpenAI-style messages with `bash` tool calls. */
export function miniSweTranscript(trajectory: unknown): TranscriptStep[] {
  const messages = Array.isArray(obj(trajectory)?.messages)
    ? (obj(trajectory)!.messages as unknown[])
    : [];
  const steps: TranscriptStep[] = [];
  const calls = new Map<string, TranscriptToolCall>();
  for (const raw of messages) {
    const m = obj(raw);
    if (!m) continue;
    const extra = obj(m.extra);
    const at = isoOf(extra?.timestamp);
    if (m.role === "system" || m.role === "user") {
      steps.push({ kind: "message", role: m.role, text: text(m.content) });
    } else if (m.role === "assistant") {
      const usage = obj(obj(extra?.response)?.usage);
      const tokens = usage
        ? compactUsage({
          input: num(usage.prompt_tokens),
          output: num(usage.completion_tokens),
          cachedInput: num(obj(usage.prompt_tokens_details)?.cached_tokens),
        })
        : undefined;
      steps.push({
        kind: "message",
        role: "agent",
        text: text(m.content),
        ...(tokens ? { tokens } : {}),
      });
      for (const c of Array.isArray(m.tool_calls) ? m.tool_calls.map(obj) : []) {
        const fn = obj(c?.function);
        const input = args(fn?.arguments);
        const call: TranscriptToolCall = {
          kind: "tool",
          id: str(c?.id) ?? `call_${calls.size}`,
          name: str(fn?.name) ?? "bash",
          input,
          ...(typeof input.command === "string" ? { command: input.command } : {}),
        };
        calls.set(call.id, call);
        steps.push(call);
      }
    } else if (m.role === "tool") {
      const call = calls.get(str(m.tool_call_id) ?? "");
      if (!call) continue;
      call.output = str(extra?.raw_output) ?? text(m.content);
      const code = num(extra?.returncode);
      if (code !== undefined) call.exitCode = code;
      if (at) call.at = at;
    } else if (m.role === "exit") {
      steps.push({ kind: "message", role: "agent", text: text(m.content) });
    }
  }
  return steps;
}

/** OpenCode's `run --format json` events: `text` parts and `tool_use` parts with their state. */
export function opencodeTranscript(stdout: string): TranscriptStep[] {
  const steps: TranscriptStep[] = [];
  for (const event of jsonLines(stdout)) {
    const part = obj(event.part);
    const at = isoOf(event.timestamp);
    if (event.type === "text") {
      steps.push({ kind: "message", role: "agent", text: text(part?.text), ...(at ? { at } : {}) });
    } else if (event.type === "tool_use") {
      const state = obj(part?.state);
      const name = str(part?.tool) ?? "tool";
      const input = args(state?.input);
      const exit = num(obj(state?.metadata)?.exit);
      steps.push({
        kind: "tool",
        id: str(part?.callID) ?? `call_${steps.length}`,
        name,
        input,
        ...(name === "bash" && typeof input.command === "string" ? { command: input.command } : {}),
        output: text(state?.output ?? state?.error),
        ...(name === "bash" ? { exitCode: exit ?? null } : {}),
        ...(state?.status === "error" ? { failed: true } : {}),
        ...(at ? { at } : {}),
      });
    } else if (event.type === "step_finish") {
      const tokens = obj(part?.tokens);
      const last = steps.findLast((s) => s.kind === "message");
      if (tokens && last?.kind === "message" && !last.tokens) {
        const cache = obj(tokens.cache);
        last.tokens = compactUsage({
          input: (num(tokens.input) ?? 0) + (num(cache?.read) ?? 0) + (num(cache?.write) ?? 0),
          cachedInput: num(cache?.read),
          output: num(tokens.output),
          reasoning: num(tokens.reasoning),
        });
      }
    }
  }
  return steps;
}

/** Copilot CLI's `--output-format json` events: `assistant.message` and `tool.execution_*`. */
export function copilotTranscript(stdout: string): TranscriptStep[] {
  const steps: TranscriptStep[] = [];
  const calls = new Map<string, TranscriptToolCall>();
  for (const event of jsonLines(stdout)) {
    const data = obj(event.data);
    const at = str(event.timestamp);
    if (event.type === "user.message") {
      steps.push({
        kind: "message",
        role: "user",
        text: text(data?.content),
        ...(at ? { at } : {}),
      });
    } else if (event.type === "assistant.message") {
      steps.push({
        kind: "message",
        role: "agent",
        text: text(data?.content),
        ...(at ? { at } : {}),
      });
    } else if (event.type === "tool.execution_start") {
      const name = str(data?.toolName) ?? "tool";
      const input = args(data?.arguments);
      const call: TranscriptToolCall = {
        kind: "tool",
        id: str(data?.toolCallId) ?? `call_${calls.size}`,
        name,
        input,
        ...(name === "bash" && typeof input.command === "string" ? { command: input.command } : {}),
        ...(at ? { at } : {}),
      };
      calls.set(call.id, call);
      steps.push(call);
    } else if (event.type === "tool.execution_complete") {
      const call = calls.get(str(data?.toolCallId) ?? "");
      if (!call) continue;
      call.output = text(obj(data?.result)?.content ?? obj(data?.error)?.message);
      if (data?.success === false) call.failed = true;
      const code = num(obj(data?.shellExecution)?.exitCode);
      if (code !== undefined) call.exitCode = code;
    }
  }
  return steps;
}
