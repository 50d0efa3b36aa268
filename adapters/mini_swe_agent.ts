/**
 * `mini-swe-agent`: the SWE-bench team's minimal agent, for any LiteLLM model.
 *
 * Its global config directory (`MSWEA_GLOBAL_CONFIG_DIR`, where its `.env` lives) is the
 * attempt's empty state directory. It has no web tools, plugins or house rules; every shell
 * command it runs inherits bugbout's sandbox. The trajectory goes to the log directory.
 *
 * @module
 */

import { join } from "node:path";
import { z } from "../lib/deps.ts";
import { miniSweTranscript } from "./_transcripts.ts";
import type { TranscriptInput, TranscriptStep } from "../lib/transcript/types.ts";
import type {
  AdapterDefinition,
  AgentReport,
  CodingAgent,
  Invocation,
  RunOutput,
  Session,
  TokenUsage,
} from "./agent.ts";
import {
  AgentBase,
  COMMON_QUOTA,
  compactUsage,
  hostPort,
  type Json,
  matchesAny,
  num,
  obj,
  probeVersion,
  readJsonIfValid,
  realDir,
  str,
  sumUsage,
  tail,
} from "./_common.ts";
import { LITELLM_PROVIDERS, type Provider, providerAccess } from "./_providers.ts";
import { which } from "../lib/proc.ts";

const options = z.strictObject({
  "text-actions": z.boolean().default(false),
  "step-limit": z.int().positive().default(75),
  "model-kwargs": z.record(z.string(), z.unknown()).default({}),
  "base-url": z.url().optional(),
  executable: z.string().min(1).optional(),
});

/** The `mini-swe-agent` adapter's options. */
export type MiniSweAgentOptions = z.infer<typeof options>;

/** The trajectory file, inside the log directory. */
export const TRAJECTORY = "trajectory.json";
/** Attempts per model call (mini's default is 10, with waits of up to a minute). */
const ATTEMPTS = 3;

/**
 * The instance template for examiners. mini's own (in `mini.yaml`) tells the model to edit the
 * source code and fix the issue; an examiner's prompt asks for tests only, so it gets the same
 * rules without the fixing workflow.
 */
export const EXAMINER_TEMPLATE = `{{task}}

You can execute bash commands and edit files in the repository to carry out the task above.

## Command Execution Rules

You are operating in an environment where

1. You issue at least one command
2. The system executes the command(s) in a subshell
3. You see the result(s)
4. You write your next command(s)

- Each response must run a command: with the bash tool when you have one, otherwise in the
  format the system message describes.
- Directory or environment variable changes are not persistent. Every action is executed in a
  new subshell.
- When you are done, finish your work by issuing the following command:
  \`echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\`.
  Do not combine it with any other command. After this command, you cannot continue working on
  this task.

<system_information>
{{system}} {{release}} {{version}} {{machine}}
</system_information>
`;

/** The LiteLLM provider of a model name: its prefix, or a guess for bare OpenAI/Anthropic names. */
export function litellmProvider(model: string): string | undefined {
  const slash = model.indexOf("/");
  if (slash > 0) return model.slice(0, slash);
  if (/^(?:gpt-|o\d|chatgpt-)/.test(model)) return "openai";
  if (/^claude-/.test(model)) return "anthropic";
  return undefined;
}

/** A `-c key=value` value: strings as written (mini reads them as JSON or text), others as JSON. */
function configValue(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

class MiniSweAgent extends AgentBase<MiniSweAgentOptions> implements CodingAgent {
  #provider(): Provider | undefined {
    return LITELLM_PROVIDERS[litellmProvider(this.model ?? "") ?? ""];
  }

  /** The endpoint set in the options: `base-url`, else `model-kwargs.api_base`. */
  #baseUrl(): string | undefined {
    return this.options["base-url"] ?? str(this.options["model-kwargs"].api_base);
  }

  modelHosts(): string[] {
    const base = this.#baseUrl();
    return base ? [hostPort(base)] : [...(this.#provider()?.hosts ?? [])];
  }

  invocation(session: Session): Invocation {
    const o = this.options;
    const access = providerAccess(this.#provider(), session.hostEnv);
    const argv = [
      this.executable,
      "-t",
      session.prompt,
      "-y",
      "--exit-immediately",
      "-m",
      this.model ?? "",
      "-c",
      o["text-actions"] ? "mini_textbased.yaml" : "mini.yaml",
    ];
    const files: Record<string, string> = {};
    if (session.role === "examiner") {
      const path = join(session.stateDir, "examiner.yaml");
      // JSON is YAML, and spares a YAML writer.
      files[path] = JSON.stringify({ agent: { instance_template: EXAMINER_TEMPLATE } }) + "\n";
      argv.push("-c", path);
    }
    argv.push("-c", `agent.step_limit=${o["step-limit"]}`);
    for (const [key, value] of Object.entries(o["model-kwargs"])) {
      argv.push("-c", `model.model_kwargs.${key}=${configValue(value)}`);
    }
    if (o["base-url"]) argv.push("-c", `model.model_kwargs.api_base=${o["base-url"]}`);
    if (o["text-actions"]) argv.push("--model-class", "litellm_textbased");
    argv.push("-o", join(session.logdir, TRAJECTORY));
    const base = this.#baseUrl();
    return {
      argv,
      env: {
        MSWEA_CONFIGURED: "true",
        MSWEA_GLOBAL_CONFIG_DIR: session.stateDir,
        MSWEA_COST_TRACKING: "ignore_errors",
        MSWEA_SILENT_STARTUP: "1",
        MSWEA_MODEL_RETRY_STOP_AFTER_ATTEMPT: String(ATTEMPTS),
        LITELLM_LOCAL_MODEL_COST_MAP: "True",
        ...access.env,
      },
      files,
      modelHosts: base ? [hostPort(base)] : access.hosts,
    };
  }

  async transcript(input: TranscriptInput): Promise<TranscriptStep[]> {
    return miniSweTranscript(await readJsonIfValid(join(input.logdir, TRAJECTORY)));
  }

  async parse(output: RunOutput): Promise<AgentReport> {
    const trajectory = obj(await readJsonIfValid(join(output.logdir, TRAJECTORY)));
    const info = obj(trajectory?.info);
    const messages = (Array.isArray(trajectory?.messages) ? trajectory.messages : []).map(obj);
    const usages = messages.map((m) => usageOf(obj(obj(obj(m?.extra)?.response)?.usage)));
    const exitStatus = str(info?.exit_status);
    const exit = messages.findLast((m) => m?.role === "exit");
    const exception = str(obj(exit?.extra)?.exception_str);
    const failed = exitStatus !== "Submitted" || output.exitCode !== 0;
    const quota = failed &&
      (exitStatus === "RateLimitError" ||
        matchesAny([exception, tail(output.stderr)], COMMON_QUOTA));
    const cost = num(obj(info?.model_stats)?.instance_cost);
    const report: AgentReport = { tokens: sumUsage(usages), quota };
    if (cost) report.costUsd = cost;
    if (failed) {
      report.error = exception ?? (exitStatus || lastLine(output.stderr)) ??
        `exit code ${output.exitCode}`;
    } else {
      const reply = messages.findLast((m) => m?.role === "assistant" && str(m.content));
      report.summary = str(info?.submission)?.trim() || str(reply?.content)?.trim();
    }
    return report;
  }

  /** mini has no `--version`: ask the Python next to it for the package version. */
  override async version(): Promise<string | undefined> {
    const path = await which(this.executable);
    if (!path) return undefined;
    const python = join(await realDir(path), "python");
    return probeVersion([python, "-c", "import minisweagent; print(minisweagent.__version__)"]);
  }
}

/** OpenAI-style usage as LiteLLM stores it in the trajectory. */
function usageOf(usage: Json | undefined): TokenUsage | undefined {
  if (!usage) return undefined;
  return compactUsage({
    input: num(usage.prompt_tokens),
    cachedInput: num(obj(usage.prompt_tokens_details)?.cached_tokens),
    output: num(usage.completion_tokens),
    reasoning: num(obj(usage.completion_tokens_details)?.reasoning_tokens),
    total: num(usage.total_tokens),
  });
}

function lastLine(text: string): string | undefined {
  return text.trim().split("\n").at(-1) || undefined;
}

/** The `mini-swe-agent` adapter. */
export const miniSweAgent: AdapterDefinition<z.infer<typeof options>> = {
  type: "mini-swe-agent",
  description: "mini-swe-agent with any LiteLLM model (mini)",
  executable: "mini",
  requiresModel: true,
  options,
  create(spec) {
    return new MiniSweAgent(spec, miniSweAgent);
  },
};
