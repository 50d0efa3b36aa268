/**
 * `claude-code`: Anthropic's Claude Code, run as `claude --print`.
 *
 * `CLAUDE_CONFIG_DIR` is the attempt's empty state directory with only `.credentials.json` copied
 * in; safe mode and empty setting sources leave out CLAUDE.md, skills, plugins, hooks and MCP
 * servers; web tools are disallowed. Claude Code's own sandbox stays off and permissions are
 * bypassed (as root that needs `IS_SANDBOX=1`): the whole process runs in bugbout's sandbox.
 *
 * @module
 */

import { join } from "node:path";
import { z } from "../lib/deps.ts";
import { streamJsonTranscript } from "./_transcripts.ts";
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
  anthropicUsage,
  hostConfigDir,
  hostPort,
  type Json,
  jsonLines,
  matchesAny,
  num,
  obj,
  pickEnv,
  str,
  sumUsage,
} from "./_common.ts";

const options = z.strictObject({
  effort: z.enum(["low", "medium", "high", "xhigh", "max"]).optional(),
  "base-url": z.url().optional(),
  executable: z.string().min(1).optional(),
});

/** The `claude-code` adapter's options. */
export type ClaudeCodeOptions = z.infer<typeof options>;

/** The API, and the OAuth token endpoint that refreshes a subscription login. */
const ANTHROPIC_HOSTS = ["api.anthropic.com:443", "platform.claude.com:443"];
/** Retries of a failed request (Claude Code's default is 10). */
const RETRIES = 2;

/** Usage-limit wording of Claude Code 2.1 (API 429s and subscription limits). */
const QUOTA = [
  /^API Error: (?:Request rejected \(429\)|429)/m,
  /You[’']ve hit your .*limit/,
  /You[’']re out of (?:extra )?usage credits/,
  /Credit balance is too low/,
  /rate_limit_error/,
];

class ClaudeCode extends AgentBase<ClaudeCodeOptions> implements CodingAgent {
  modelHosts(): string[] {
    const base = this.options["base-url"];
    return base ? [hostPort(base)] : [...ANTHROPIC_HOSTS];
  }

  invocation(session: Session): Invocation {
    const baseUrl = this.options["base-url"] ?? session.hostEnv.ANTHROPIC_BASE_URL;
    const env: Record<string, string> = {
      CLAUDE_CONFIG_DIR: session.stateDir,
      IS_SANDBOX: "1",
      CLAUDE_CODE_MAX_RETRIES: String(RETRIES),
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
      ...pickEnv(session.hostEnv, [
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "CLAUDE_CODE_OAUTH_TOKEN",
      ]),
    };
    if (baseUrl) env.ANTHROPIC_BASE_URL = baseUrl;
    const argv = [
      this.executable,
      "--print",
      "--output-format",
      "stream-json",
      "--verbose",
      "--permission-mode",
      "bypassPermissions",
      "--safe-mode",
      "--setting-sources=",
      "--strict-mcp-config",
      "--disallowedTools",
      "WebSearch",
      "WebFetch",
    ];
    if (this.model) argv.push("--model", this.model);
    if (this.options.effort) argv.push("--effort", this.options.effort);
    argv.push("--", session.prompt);
    const config = hostConfigDir(session.hostEnv, "CLAUDE_CONFIG_DIR", ".claude");
    return {
      argv,
      env,
      copy: [{
        from: join(config, ".credentials.json"),
        to: join(session.stateDir, ".credentials.json"),
      }],
      modelHosts: baseUrl ? [hostPort(baseUrl)] : [...ANTHROPIC_HOSTS],
    };
  }

  transcript(input: TranscriptInput): TranscriptStep[] {
    return streamJsonTranscript(input.stdout, ["Bash"]);
  }

  parse(output: RunOutput): AgentReport {
    const events = jsonLines(output.stdout);
    const result = events.findLast((e) => e.type === "result");
    if (result) return fromResult(result, output);
    // No result line (killed by the timeout): add up the prompts the assistant messages report.
    // Each message repeats per content block and carries the usage of `message_start`, whose
    // output count is a placeholder, so output is left out.
    const byMessage = new Map<string, TokenUsage | undefined>();
    let summary: string | undefined;
    for (const event of events) {
      if (event.type !== "assistant") continue;
      const message = obj(event.message);
      const id = str(message?.id) ?? String(byMessage.size);
      const usage = anthropicUsage(obj(message?.usage));
      if (usage) delete usage.output;
      byMessage.set(id, usage);
      const text = textOf(message);
      if (text) summary = text;
    }
    const retries = events.filter((e) => e.type === "system" && e.subtype === "api_retry");
    const quota = matchesAny([output.stderr], QUOTA) ||
      (retries.length > 0 && retries.every((e) => e.error_status === 429));
    return { summary, tokens: sumUsage([...byMessage.values()]), quota };
  }
}

function fromResult(result: Json, output: RunOutput): AgentReport {
  const text = str(result.result);
  const failed = result.is_error === true || result.subtype !== "success" || output.exitCode !== 0;
  const quota = failed &&
    (result.api_error_status === 429 || matchesAny([text, output.stderr], QUOTA));
  const report: AgentReport = {
    tokens: anthropicUsage(obj(result.usage)),
    costUsd: num(result.total_cost_usd),
    quota,
  };
  if (failed) report.error = text || str(result.subtype) || `exit code ${output.exitCode}`;
  else report.summary = text;
  return report;
}

function textOf(message: Json | undefined): string | undefined {
  const content = Array.isArray(message?.content) ? message.content : [];
  const texts = content.map(obj).filter((c) => c?.type === "text").map((c) => str(c?.text) ?? "");
  return texts.join("").trim() || undefined;
}

/** The `claude-code` adapter. */
export const claudeCode: AdapterDefinition<z.infer<typeof options>> = {
  type: "claude-code",
  description: "Anthropic's Claude Code (claude --print)",
  executable: "claude",
  defaultVendor: "anthropic",
  options,
  create(spec) {
    return new ClaudeCode(spec, claudeCode);
  },
};
