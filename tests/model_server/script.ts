/**
 * The vocabulary of a model-server script: abstract turns, token usage and failure modes. A test
 * writes turns in terms of what the agent should do (`run`, `write`, `edit`, `finish`); the server
 * maps each turn onto whatever tool the client offered in its request.
 *
 * @module
 */

/** Token usage the server reports for one model response, in API-neutral terms. */
export interface Usage {
  /** Prompt tokens, cached ones included (OpenAI convention). */
  input: number;
  /** Completion tokens, reasoning included. */
  output: number;
  /** Of `input`, tokens read from a prompt cache. */
  cachedInput?: number;
  /** Of `input`, tokens written to a prompt cache (reported by Anthropic only). */
  cacheWrite?: number;
  /** Of `output`, reasoning tokens. */
  reasoning?: number;
}

/** The usage a turn reports when neither the turn nor the server sets one. */
export const DEFAULT_USAGE: Readonly<Usage> = { input: 100, output: 23 };

/** The usage an auxiliary (tool-less) request reports by default. */
export const DEFAULT_AUX_USAGE: Readonly<Usage> = { input: 10, output: 2 };

/** Fields every turn except `fail` may carry. */
export interface TurnBase {
  /** Usage to report for this response (default: the server's `usage`). */
  usage?: Usage;
  /** Text the model "says" before its tool call (ignored for `finish`). */
  say?: string;
}

/** Run a shell command with the agent's shell tool. */
export interface RunTurn extends TurnBase {
  /** The command line, as one shell string. */
  run: string;
}

/** Read a file with the agent's read tool (some agents refuse to edit unread files), or `cat`. */
export interface ReadTurn extends TurnBase {
  /** The file; relative paths are resolved against the script's `cwd`. */
  read: string;
}

/** Write a whole file, with the agent's write tool or a shell heredoc. */
export interface WriteTurn extends TurnBase {
  /** The file (relative paths are resolved against the script's `cwd`) and its content. */
  write: { path: string; content: string };
}

/** Replace text in a file, with the agent's edit tool or a shell one-liner. */
export interface EditTurn extends TurnBase {
  /** The file, the exact text to replace (first occurrence) and its replacement. */
  edit: { path: string; old: string; new: string };
}

/** End the conversation with a plain text answer (mini-swe-agent: its submit command). */
export interface FinishTurn extends TurnBase {
  /** The closing summary. */
  finish: string;
}

/** Answer this one request with a failure instead of a model response. */
export interface FailTurn {
  /** The failure. */
  fail: Failure;
}

/** One scripted model response. */
export type Turn = RunTurn | ReadTurn | WriteTurn | EditTurn | FinishTurn | FailTurn;

/** Quota bodies the server can send; `auto` picks the vendor's usual one for the API hit. */
export type QuotaFlavor =
  /** OpenAI `insufficient_quota` (Responses and Chat Completions). */
  | "insufficient_quota"
  /** Codex/ChatGPT plan limit: `error.type = usage_limit_reached`. */
  | "usage_limit_reached"
  /** Anthropic `rate_limit_error`. */
  | "rate_limit_error"
  /** Gemini `RESOURCE_EXHAUSTED` with a per-day QuotaFailure: gemini-cli treats it as terminal. */
  | "daily"
  /** Gemini `RESOURCE_EXHAUSTED` with a per-minute QuotaFailure and a retry delay: retryable. */
  | "per_minute"
  /** The vendor default for the API: OpenAI insufficient_quota, Anthropic, Gemini daily. */
  | "auto";

/** A way for the server to misbehave. */
export type Failure =
  /** HTTP 429 with the vendor's quota body. */
  | { kind: "quota"; flavor?: QuotaFlavor; retryAfterSeconds?: number }
  /** An HTTP error with the vendor's error body (default 500; 400 is a bad request). */
  | { kind: "status"; status: number; message?: string }
  /** A normal response whose stream events (or JSON body) each arrive after `delayMs`. */
  | { kind: "slow"; delayMs: number }
  /** The stream stops half-way; `abort` resets the connection instead of ending the body. */
  | { kind: "truncate"; abort?: boolean }
  /** Headers and the first event, then nothing more until the client or the server gives up. */
  | { kind: "hang" };

/** What the server decided to answer with, once a turn met a concrete request. */
export interface Reply {
  /** Assistant text. */
  text?: string;
  /** A tool call in the client's own tool vocabulary. */
  call?: ToolCall;
}

/** A call of one offered tool. */
export interface ToolCall {
  /** The tool's name exactly as the client offered it. */
  name: string;
  /** Arguments for a function tool. */
  args: Record<string, unknown>;
  /** Free-form input for a custom (grammar) tool, when the tool is one. */
  input?: string;
}

/** The abstract action inside a turn, or undefined for `finish`/`fail`. */
export type Action =
  | { kind: "run"; command: string }
  | { kind: "read"; path: string }
  | { kind: "write"; path: string; content: string }
  | { kind: "edit"; path: string; old: string; new: string };

/** The action a turn asks for (undefined for `finish` and `fail`). */
export function actionOf(turn: Turn): Action | undefined {
  if ("run" in turn) return { kind: "run", command: turn.run };
  if ("read" in turn) return { kind: "read", path: turn.read };
  if ("write" in turn) return { kind: "write", ...turn.write };
  if ("edit" in turn) return { kind: "edit", ...turn.edit };
  return undefined;
}

/** A short label of a turn for request records: `run`, `read`, `write`, `edit`, `finish`, `fail`. */
export function turnKind(turn: Turn): "run" | "read" | "write" | "edit" | "finish" | "fail" {
  if ("run" in turn) return "run";
  if ("read" in turn) return "read";
  if ("write" in turn) return "write";
  if ("edit" in turn) return "edit";
  if ("finish" in turn) return "finish";
  return "fail";
}
