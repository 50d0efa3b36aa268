/**
 * bugbout: which coding agent actually fixes bugs in your codebase?
 *
 * This module is both the command-line tool and the library. As a library it exports the
 * configuration loader, the project, and the adapter contract for writing your own agents. As a
 * program (`deno run -A main.ts <command>`) it runs the CLI.
 *
 * @example
 * ```ts
 * import { Project } from "@bugbout/cli";
 * const project = await Project.load(".");
 * console.log(project.config.contestants.map((c) => c.name));
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
export type { Confinement, Sandbox, SandboxKind } from "./lib/sandbox/types.ts";
export { type Config, loadConfig, parseConfig } from "./lib/config.ts";
export { Project } from "./lib/project.ts";
export { BugboutError, ConfigError, StoreError, UsageError } from "./lib/errors.ts";
export { VERSION } from "./lib/version.ts";
export { runCli } from "./lib/cli/main.ts";

import { runCli } from "./lib/cli/main.ts";

if (import.meta.main) {
  Deno.exit(await runCli(Deno.args));
}
