/**
 * One transcript shape for every agent: what the agent said, which tools it called with what, what
 * came back (a command's exit code where there is one), and what it spent. Each adapter reads its
 * agent's own log into this shape (`CodingAgent.transcript`); {@linkcode toAtif} (atif.ts) writes
 * it out as an ATIF trajectory.
 *
 * Pure types; no permissions needed.
 *
 * @module
 */

/**
 * Token counts as an agent reported them (the same fields as the adapters' `TokenUsage`, kept here
 * so that this floor needs nothing above it). Missing fields were not reported.
 */
export interface TokenUsage {
  /** Prompt tokens, cached ones included. */
  input?: number;
  /** Of the input, tokens served from a cache. */
  cachedInput?: number;
  /** Tokens written to a prompt cache. */
  cacheWrite?: number;
  /** Completion tokens, reasoning included. */
  output?: number;
  /** Of the output, reasoning tokens. */
  reasoning?: number;
  /** The agent's own total, when it gives one. */
  total?: number;
}

/** A message of the conversation: the task given, the agent's words, a system prompt. */
export interface TranscriptMessage {
  /** A message. */
  kind: "message";
  /** Who wrote it. */
  role: "system" | "user" | "agent";
  /** The text (possibly empty). */
  text: string;
  /** The agent's reasoning shown with it, where its log keeps one. */
  reasoning?: string;
  /** ISO 8601, where the log says when. */
  at?: string;
  /** What this model turn spent, where the log reports it per turn. */
  tokens?: TokenUsage;
}

/** A tool the agent called, and what came back. */
export interface TranscriptToolCall {
  /** A tool call. */
  kind: "tool";
  /** The call's id in the agent's log (made up in order when the log has none). */
  id: string;
  /** The tool's name as the agent calls it (`Bash`, `run_shell_command`, `command_execution`). */
  name: string;
  /** Its arguments, as a JSON object. */
  input: Record<string, unknown>;
  /** The shell command line, when the tool ran one. */
  command?: string;
  /** What came back (a command's output), when the log keeps it. */
  output?: string;
  /** A command's exit code; null when it did not finish; absent when the log does not say. */
  exitCode?: number | null;
  /** True when the agent's log marks the call as failed. */
  failed?: boolean;
  /** ISO 8601, where the log says when. */
  at?: string;
}

/** One entry of a transcript, in the order it happened. */
export type TranscriptStep = TranscriptMessage | TranscriptToolCall;

/** An attempt's transcript, read from the agent's own log. */
export interface Transcript {
  /** The adapter type (`codex`), as ATIF's agent name. */
  agent: string;
  /** The agent CLI's version, when known. */
  version?: string;
  /** The model, when the log or the configuration names it. */
  model?: string;
  /** The agent's own session id, when it gives one. */
  sessionId?: string;
  /** Which log it was read from, in words (`stdout.log: codex exec --json events`). */
  source: string;
  /** Everything, in order. */
  steps: TranscriptStep[];
  /** The whole run's tokens, as the agent reported them. */
  tokens?: TokenUsage;
  /** The whole run's cost in US dollars, where the agent reports it. */
  costUsd?: number;
}

/** The log files of one finished run, handed to `CodingAgent.transcript`. */
export interface TranscriptInput {
  /** The attempt's log directory (the agent's own files are in it). */
  logdir: string;
  /** The whole standard output as logged (up to the log cap), not only its tail. */
  stdout: string;
  /** The whole standard error as logged. */
  stderr: string;
  /** The configured model, if any. */
  model?: string;
}
