/**
 * `copilot`: GitHub's Copilot CLI, run as `copilot -p`.
 *
 * `COPILOT_HOME` is the attempt's empty state directory; custom instructions (AGENTS.md and the
 * like), built-in MCP servers, the ask-user tool, web tools, telemetry and auto-update are off.
 * With a base URL it runs offline against that endpoint (BYOK). Its own path checks are off:
 * the whole process runs in bugbout's sandbox. The unpacked JS package (~235 MB) is cached under
 * bugbout's home and shared by all attempts.
 *
 * @module
 */

import { join } from "node:path";
import { z } from "../lib/deps.ts";
import { copilotTranscript } from "./_transcripts.ts";
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
  firstEnv,
  hostPort,
  type Json,
  jsonLines,
  matchesAny,
  num,
  obj,
  readJsonIfValid,
  str,
  sumUsage,
} from "./_common.ts";
import { BugboutError } from "../lib/errors.ts";
import { bugboutHome } from "../lib/home.ts";

const options = z.strictObject({
  "base-url": z.url().optional(),
  "provider-type": z.enum(["openai", "azure", "anthropic"]).optional(),
  "reasoning-effort": z.enum(["none", "minimal", "low", "medium", "high", "xhigh", "max"])
    .optional(),
  executable: z.string().min(1).optional(),
});

/** The `copilot` adapter's options. */
export type CopilotOptions = z.infer<typeof options>;

/** The usage statistics file, inside the log directory. */
export const USAGE_FILE = "usage.json";
/** GitHub's API (token exchange) and Copilot's model endpoints. */
const GITHUB_HOSTS = [
  "api.github.com:443",
  "api.githubcopilot.com:443",
  "api.individual.githubcopilot.com:443",
  "api.business.githubcopilot.com:443",
  "api.enterprise.githubcopilot.com:443",
];

const QUOTA = [
  /You[’']ve hit (?:your|the) (?:session )?rate limit/,
  /You[’']ve reached your (?:weekly )?rate limit/,
  /No remaining quota for premium requests/,
  /\b(?:free_|session_)?quota_exceeded\b/,
  /\boverage_limit_reached\b/,
  /\bagent_mode_limit_exceeded\b/,
  ...COMMON_QUOTA,
];

class Copilot extends AgentBase<CopilotOptions> implements CodingAgent {
  modelHosts(): string[] {
    const base = this.options["base-url"];
    return base ? [hostPort(base)] : [...GITHUB_HOSTS];
  }

  invocation(session: Session): Invocation {
    const o = this.options;
    const cache = join(bugboutHome({ get: (k) => session.hostEnv[k] }), "agent-cache", "copilot");
    const env: Record<string, string> = {
      COPILOT_HOME: session.stateDir,
      COPILOT_PKG_CACHE_HOME: cache,
      COPILOT_AUTO_UPDATE: "false",
    };
    const baseUrl = o["base-url"] ?? session.hostEnv.COPILOT_PROVIDER_BASE_URL;
    if (baseUrl) {
      if (!this.model) {
        throw new BugboutError(`Cannot run copilot agent ${this.name}: a base URL needs a model.`, {
          hint: "Set model for this agent in bugbout.toml.",
        });
      }
      Object.assign(env, {
        COPILOT_OFFLINE: "true",
        COPILOT_PROVIDER_BASE_URL: baseUrl,
        COPILOT_PROVIDER_TYPE: o["provider-type"] ?? "openai",
        COPILOT_MODEL: this.model,
      });
      const key = firstEnv(session.hostEnv, ["COPILOT_PROVIDER_API_KEY", "OPENAI_API_KEY"]);
      if (key) env.COPILOT_PROVIDER_API_KEY = key[1];
    } else {
      const token = firstEnv(session.hostEnv, ["COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"]);
      if (token) env[token[0]] = token[1];
    }
    const argv = [
      this.executable,
      "--allow-all-tools",
      "--allow-all-paths",
      "--no-ask-user",
      "--no-custom-instructions",
      "--disable-builtin-mcps",
      "--no-auto-update",
      "--disable-client-telemetry",
      "--output-format",
      "json",
      "--usage-output-file",
      join(session.logdir, USAGE_FILE),
    ];
    if (this.model) argv.push("--model", this.model);
    if (o["reasoning-effort"]) argv.push("--reasoning-effort", o["reasoning-effort"]);
    // A variadic option: it takes every word up to the next option, so `-p` follows it.
    argv.push("--excluded-tools", "web_fetch", "web_search", "-p", session.prompt);
    return {
      argv,
      env,
      writable: [cache],
      modelHosts: baseUrl ? [hostPort(baseUrl)] : [...GITHUB_HOSTS],
    };
  }

  transcript(input: TranscriptInput): TranscriptStep[] {
    return copilotTranscript(input.stdout);
  }

  async parse(output: RunOutput): Promise<AgentReport> {
    let summary: string | undefined;
    let exitCode: number | undefined;
    const errors: Json[] = [];
    for (const event of jsonLines(output.stdout)) {
      const data = obj(event.data);
      if (event.type === "assistant.message") {
        summary = str(data?.content)?.trim() || summary;
      } else if (event.type === "session.error" && data) {
        errors.push(data);
      } else if (event.type === "result") {
        exitCode = num(event.exitCode) ?? num(data?.exitCode);
      }
    }
    const usage = obj(await readJsonIfValid(join(output.logdir, USAGE_FILE)));
    const metrics = Object.values(obj(usage?.modelMetrics) ?? {}).map(obj);
    const tokens = sumUsage(metrics.map((m) => usageOf(obj(m?.usage))));
    const failed = errors.length > 0 || output.exitCode !== 0 || (exitCode ?? 0) !== 0;
    const quota = failed &&
      (errors.some((e) =>
        ["rate_limit", "quota"].includes(str(e.errorType) ?? "") ||
        e.statusCode === 429
      ) ||
        matchesAny([...errors.map((e) => str(e.message)), output.stderr], QUOTA));
    const report: AgentReport = { tokens, quota };
    if (failed) {
      report.error = str(errors.at(-1)?.message) ?? `exit code ${exitCode ?? output.exitCode}`;
    } else {
      report.summary = summary;
    }
    return report;
  }
}

/** Copilot's usage file follows OpenAI: `inputTokens` already includes cache reads. */
function usageOf(usage: Json | undefined): TokenUsage | undefined {
  if (!usage) return undefined;
  return compactUsage({
    input: num(usage.inputTokens),
    cachedInput: num(usage.cacheReadTokens),
    cacheWrite: num(usage.cacheWriteTokens),
    output: num(usage.outputTokens),
    reasoning: num(usage.reasoningTokens),
  });
}

/** The `copilot` adapter. */
export const copilot: AdapterDefinition<z.infer<typeof options>> = {
  type: "copilot",
  description: "GitHub Copilot CLI (copilot -p)",
  executable: "copilot",
  defaultVendor: "github",
  options,
  create(spec) {
    return new Copilot(spec, copilot);
  },
};
