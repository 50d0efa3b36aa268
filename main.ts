/**
 * bugbout: which coding agent actually fixes bugs in your codebase?
 *
 * This module is both the command-line tool and the library. As a program
 * (`deno run -A main.ts <command>`) it runs the CLI. As a library it exposes the pipeline
 * ({@linkcode Bout}), the project and its configuration, the report and its renderers, the
 * stand-alone evidence check, and the contract for writing agent adapters and sandboxes.
 *
 * Permissions: a bout reads and writes the repository's `.bugbout/` and `BUGBOUT_HOME`, runs git,
 * uv, pytest, bwrap and the agent CLIs, reads the environment, and reaches the GitHub API and the
 * agents' model APIs (through its own proxy). Run it with `-A`.
 *
 * @example Run a bout and print the Markdown report
 * ```ts
 * import { Bout, renderMarkdown } from "./main.ts";
 *
 * const bout = await Bout.load(".");
 * const report = await bout.run();
 * console.log(renderMarkdown(report));
 * ```
 *
 * @example Race agents given in code
 * ```ts
 * import { Bout, Project } from "./main.ts";
 * import type { CodingAgent } from "./main.ts";
 *
 * declare const myAgent: CodingAgent;
 * const bout = new Bout(await Project.load("."), { contestants: [myAgent] });
 * await bout.run();
 * ```
 *
 * @module
 */

export type {
  AdapterDefinition,
  AgentReport,
  AgentSpec,
  CodingAgent,
  Invocation,
  RunOutput,
  Session,
  TokenUsage,
} from "./adapters/agent.ts";
export { builtinAdapters } from "./adapters/mod.ts";
export {
  Bout,
  type BoutAgents,
  type BoutEvent,
  type BoutRunOptions,
  type ShardRun,
  type ShardRunOptions,
  type Stage,
  STAGES,
} from "./lib/bout.ts";
export { parseShard, type Shard } from "./lib/shard/mod.ts";
export {
  type AgentEntry,
  ASSIGNMENTS,
  type Budget,
  type Config,
  guessVendor,
  loadConfig,
  type LoadOptions,
  parseConfig,
  POLICIES,
  type Policy,
  SANDBOXES,
} from "./lib/config.ts";
export {
  BugboutError,
  ConfigError,
  InterruptedError,
  LockedError,
  StoreError,
  UsageError,
} from "./lib/errors.ts";
export {
  checkEvidence,
  type EvidenceCheck,
  type EvidenceOptions,
  type EvidenceReport,
  type Standing,
} from "./lib/evidence/mod.ts";
export type { LogSink, ProcResult } from "./lib/proc.ts";
export { Project } from "./lib/project.ts";
export {
  renderHtml,
  renderJson,
  renderMarkdown,
  renderReport,
  renderTerminal,
  REPORT_FORMATS,
  type ReportFormat,
  type TerminalOptions,
} from "./lib/report/mod.ts";
export type * from "./lib/report/types.ts";
export {
  openSandbox,
  type ProbeOptions,
  probeSandbox,
  type SandboxProbe,
  type SandboxSetting,
} from "./lib/sandbox/mod.ts";
export type {
  Confinement,
  LimitHit,
  Limits,
  Sandbox,
  SandboxKind,
  SandboxResult,
} from "./lib/sandbox/types.ts";
export { ResultsDir } from "./lib/store.ts";
export { VERSION } from "./lib/version.ts";
export { runCli } from "./lib/cli/main.ts";
export type { Io } from "./lib/cli/io.ts";
export type { RaceProgress, RaceSummary } from "./lib/race/mod.ts";
export { type Language, LANGUAGES } from "./lib/records.ts";
export type { TaskProgress } from "./lib/testbed/mod.ts";
export type {
  Transcript,
  TranscriptInput,
  TranscriptMessage,
  TranscriptStep,
  TranscriptToolCall,
} from "./lib/transcript/types.ts";
export type { Artifacts } from "./lib/report/mod.ts";
export {
  ATTEMPT_STATUSES,
  type AttemptStatus,
  RUN_STATUSES,
  type RunStatus,
  type RunSummary,
  type Task,
} from "./lib/records.ts";
export { languageOf, languages, registerLanguage } from "./lib/lang/mod.ts";
export type * from "./lib/lang/types.ts";
export type { CapabilityFinding, Coverage, Observation } from "./lib/records.ts";
export type { Change, PathChange } from "./lib/history.ts";
export type { TestEnv } from "./lib/lang/python/mod.ts";
export type { TestPython } from "./lib/lang/python/mod.ts";
export type { ValidationIssue, Validator } from "./lib/validator.ts";

import { runCli } from "./lib/cli/main.ts";

if (import.meta.main) {
  Deno.exit(await runCli(Deno.args));
}
