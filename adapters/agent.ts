/**
 * The `CodingAgent` interface: one small shape over every agent CLI. An adapter says how to start
 * the agent headlessly and how to read its logs; bugbout does the rest (checkouts, sandbox,
 * timeouts, patches, scoring).
 *
 * @module
 */

import type { Validator } from "../lib/validator.ts";
import type { Sandbox } from "../lib/sandbox/types.ts";
import type { TokenUsage, TranscriptInput, TranscriptStep } from "../lib/transcript/types.ts";

/** Token usage of one attempt, as the agent reported it (defined with the transcript types). */
export type { TokenUsage };

/** Everything an adapter needs to build one attempt's command line. */
export interface Session {
  /** The task being attempted. */
  readonly task: string;
  /** The full prompt. */
  readonly prompt: string;
  /** A file holding the prompt, readable inside the sandbox. */
  readonly promptFile: string;
  /** The history-free checkout the agent works in; also its working directory. */
  readonly workdir: string;
  /** A writable directory for the agent's own logs and output files. */
  readonly logdir: string;
  /**
   * A writable, per-attempt directory for the agent's state (its config home). It starts empty
   * apart from what the invocation asks to copy in (auth files only).
   */
  readonly stateDir: string;
  /** `HOME` inside the sandbox: a private scratch directory. */
  readonly home: string;
  /** The configured model, if any. */
  readonly model?: string;
  /** Seconds the attempt may take before bugbout kills it. */
  readonly timeoutSeconds: number;
  /** `contestant` fixes the bug; `examiner` only writes tests. */
  readonly role: "contestant" | "examiner";
  /** The environment bugbout itself was started with; adapters pick credentials from it. */
  readonly hostEnv: Readonly<Record<string, string>>;
  /** The sandbox the attempt runs in, for adapters that wrap commands of their own. */
  readonly sandbox: Sandbox;
}

/** How to start one attempt. */
export interface Invocation {
  /** The command line; `argv[0]` is the executable (resolved on PATH). */
  argv: string[];
  /** Environment variables for the agent, on top of bugbout's minimal base (PATH, HOME, TMPDIR). */
  env?: Record<string, string>;
  /** Text for standard input; without it stdin is `/dev/null`. */
  stdin?: string;
  /** Files to write before the start (absolute paths under `stateDir`, `home` or `logdir`). */
  files?: Record<string, string>;
  /**
   * Files to copy from the host before the start, such as an auth file: `from` may start with `~`.
   * A missing source is skipped.
   */
  copy?: { from: string; to: string }[];
  /** Extra host paths the agent must read (its install directory, a model cache). */
  readable?: string[];
  /** Extra host paths the agent must write (`state-dirs` of a `command` agent). */
  writable?: string[];
  /** `true` to run outside bugbout's sandbox (only for agents that confine themselves). */
  unconfined?: boolean;
  /**
   * The `host:port` pairs this attempt may reach, when the adapter knows them better than
   * {@linkcode CodingAgent.modelHosts} can (a base URL taken from `Session.hostEnv`). When given,
   * it replaces `modelHosts()` for this attempt.
   */
  modelHosts?: string[];
}

/** What an adapter read from the agent's output after the run. */
export interface AgentReport {
  /** The agent's closing summary. */
  summary?: string;
  /** Token usage. */
  tokens?: TokenUsage;
  /** Cost in US dollars, where the agent reports it. */
  costUsd?: number;
  /** True when the run ended on a usage or rate limit. */
  quota?: boolean;
  /** The agent's own error message, when it failed. */
  error?: string;
}

/** The raw facts of a finished run, handed to {@linkcode CodingAgent.parse}. */
export interface RunOutput {
  /** The log directory of the attempt (`Session.logdir`). */
  logdir: string;
  /** The tail of standard output. */
  stdout: string;
  /** The tail of standard error. */
  stderr: string;
  /** The exit code (128+n after signal n). */
  exitCode: number;
  /** True when bugbout's timeout ended the run. */
  timedOut: boolean;
}

/** One agent with one model: what races, or examines. */
export interface CodingAgent {
  /** The adapter type, e.g. `codex`. */
  readonly type: string;
  /** How the agent appears in reports; unique within a bout. */
  readonly name: string;
  /** The model, when one was configured. */
  readonly model?: string;
  /** Who made the model (openai, anthropic, google, ...). */
  readonly vendor: string;
  /** The rate limit this agent shares with others. */
  readonly quota: string;
  /** The executable `bugbout doctor` looks for. */
  readonly executable: string;
  /** `host:port` pairs the agent process may reach through bugbout's proxy. */
  modelHosts(): string[];
  /** Build the command line for one attempt. */
  invocation(session: Session): Invocation | Promise<Invocation>;
  /** Read the summary, token usage and quota signals from the run's output. */
  parse?(output: RunOutput): AgentReport | Promise<AgentReport>;
  /** The executable's version, for doctor and the report. Must not spend quota. */
  version?(): Promise<string | undefined>;
  /**
   * Read the run's transcript from the agent's own log: its messages, tool calls, commands and
   * their exit codes, in order. Absent for an agent whose log has no such record.
   */
  transcript?(input: TranscriptInput): TranscriptStep[] | Promise<TranscriptStep[]>;
}

/** The settings of one `[[contestants]]` or `[[examiners]]` entry, after validation. */
export interface AgentSpec<Options = Record<string, unknown>> {
  /** The adapter type (`codex`, ...) or a module specifier. */
  type: string;
  /** Report name, unique. */
  name: string;
  /** Model, if configured. */
  model?: string;
  /** Vendor of the model. */
  vendor: string;
  /** Quota lane. */
  quota: string;
  /** The adapter's own options, validated by its schema (keys as written, with dashes). */
  options: Options;
}

/** A built-in or third-party adapter: its options and how to make an agent from a spec. */
export interface AdapterDefinition<Options = Record<string, unknown>> {
  /** The type name used in `agent = "..."`. */
  type: string;
  /** One line for help and docs. */
  description: string;
  /** The executable it runs by default. */
  executable: string;
  /** Vendor when the model name does not tell. */
  defaultVendor?: string;
  /** True when `model` must be given. */
  requiresModel?: boolean;
  /** True when `name` must be given (no agent type to name it after). */
  requiresName?: boolean;
  /**
   * Each entry of this type has a rate limit of its own (its name) unless `quota` says otherwise:
   * for agents that share no vendor account, such as any command.
   */
  ownQuota?: boolean;
  /**
   * The adapter's own options: a validator for the keys of its `[[contestants]]` table other
   * than the common ones (a strict zod object schema, keys with dashes, is the usual choice; its
   * keys are then listed in error messages).
   */
  options: Validator<Options>;
  /** Make the agent. */
  create(spec: AgentSpec<Options>): CodingAgent;
}
