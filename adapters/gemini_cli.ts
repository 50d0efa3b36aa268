/**
 * `gemini-cli`: Google's Gemini CLI, run as `gemini --prompt`.
 *
 * `GEMINI_CLI_HOME` is the attempt's empty state directory; bugbout writes its
 * `.gemini/settings.json` (auth type, web tools excluded, no skills or hooks, few retries, no
 * update checks or usage statistics) and copies in only the OAuth credentials when no API key is
 * set. The checkout's own GEMINI.md is still read: 0.61 always adds it to `context.fileName`.
 * Gemini's own sandbox is not used: the whole process runs in bugbout's.
 *
 * @module
 */

import { join } from "node:path";
import { z } from "../lib/deps.ts";
import { geminiTranscript } from "./_transcripts.ts";
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
  hostConfigDir,
  hostPort,
  type Json,
  jsonLines,
  matchesAny,
  num,
  obj,
  str,
} from "./_common.ts";

const options = z.strictObject({
  "base-url": z.url().optional(),
  executable: z.string().min(1).optional(),
});

/** The `gemini-cli` adapter's options. */
export type GeminiCliOptions = z.infer<typeof options>;

const API_HOST = "generativelanguage.googleapis.com:443";
/** Code Assist and the OAuth token endpoint, for a personal Google login. */
const OAUTH_HOSTS = ["cloudcode-pa.googleapis.com:443", "oauth2.googleapis.com:443"];
/** Attempts per model request (Gemini's default and maximum is 10). */
const MAX_ATTEMPTS = 3;
/** The exit code of an HTTP 429: Gemini exits with the status & 0xFF. */
const EXIT_429 = 429 & 0xff;

const QUOTA = [
  /exhausted your (?:daily )?quota/i,
  /TerminalQuotaError/,
  /Resource has been exhausted/,
  /"code":\s*429/,
  /status 429/,
  /\[API Error: [^\]]*429/,
  ...COMMON_QUOTA,
];

/** The settings bugbout writes for every attempt. */
export function geminiSettings(authType: "gemini-api-key" | "oauth-personal"): Json {
  return {
    security: { auth: { selectedType: authType } },
    general: {
      enableAutoUpdate: false,
      enableAutoUpdateNotification: false,
      maxAttempts: MAX_ATTEMPTS,
    },
    privacy: { usageStatisticsEnabled: false },
    tools: { exclude: ["google_web_search", "web_fetch"] },
    skills: { enabled: false },
    hooksConfig: { enabled: false },
  };
}

class GeminiCli extends AgentBase<GeminiCliOptions> implements CodingAgent {
  modelHosts(): string[] {
    const base = this.options["base-url"];
    return base ? [hostPort(base)] : [API_HOST, ...OAUTH_HOSTS];
  }

  invocation(session: Session): Invocation {
    const baseUrl = this.options["base-url"] ?? session.hostEnv.GOOGLE_GEMINI_BASE_URL;
    const key = firstEnv(session.hostEnv, ["GEMINI_API_KEY", "GOOGLE_API_KEY"]);
    const env: Record<string, string> = { GEMINI_CLI_HOME: session.stateDir };
    if (key) env[key[0]] = key[1];
    if (baseUrl) env.GOOGLE_GEMINI_BASE_URL = baseUrl;
    const dotGemini = join(session.stateDir, ".gemini");
    const useKey = key !== undefined || baseUrl !== undefined;
    const copy: Invocation["copy"] = [];
    if (!useKey) {
      const home = hostConfigDir(session.hostEnv, "GEMINI_CLI_HOME", "");
      for (const file of ["oauth_creds.json", "google_accounts.json"]) {
        copy.push({ from: join(home, ".gemini", file), to: join(dotGemini, file) });
      }
    }
    const argv = [
      this.executable,
      "--prompt",
      session.prompt,
      "--approval-mode",
      "yolo",
      "--skip-trust",
      "--output-format",
      "stream-json",
    ];
    if (this.model) argv.push("--model", this.model);
    argv.push("--extensions", "none");
    const settings = geminiSettings(useKey ? "gemini-api-key" : "oauth-personal");
    return {
      argv,
      env,
      files: { [join(dotGemini, "settings.json")]: JSON.stringify(settings, null, 2) + "\n" },
      copy,
      modelHosts: baseUrl ? [hostPort(baseUrl)] : useKey ? [API_HOST] : [API_HOST, ...OAUTH_HOSTS],
    };
  }

  transcript(input: TranscriptInput): TranscriptStep[] {
    return geminiTranscript(input.stdout);
  }

  parse(output: RunOutput): AgentReport {
    let result: Json | undefined;
    let reply: string[] = [];
    const errors: string[] = [];
    for (const event of jsonLines(output.stdout)) {
      if (event.type === "message" && event.role === "assistant") {
        reply.push(str(event.content) ?? "");
      } else if (event.type === "tool_use" || event.type === "tool_result") {
        reply = [];
      } else if (event.type === "error") {
        const message = str(event.message) ?? str(obj(event.error)?.message);
        if (message) errors.push(message);
      } else if (event.type === "result") {
        result = event;
      }
    }
    const summary = reply.join("").trim() || undefined;
    const failed = result?.status !== "success" || output.exitCode !== 0;
    const resultError = str(obj(result?.error)?.message);
    const quota = failed &&
      (output.exitCode === EXIT_429 || matchesAny([resultError, ...errors, output.stderr], QUOTA));
    const report: AgentReport = { tokens: usageOf(obj(result?.stats)), quota };
    if (failed) {
      report.error = resultError ?? errors.at(-1) ?? stderrError(output.stderr) ??
        `exit code ${output.exitCode}`;
    } else {
      report.summary = summary;
    }
    return report;
  }
}

/**
 * Usage from `result.stats`: `output_tokens` counts candidates only, and the total also holds the
 * thinking tokens, so those are what the total has beyond input and candidates.
 */
function usageOf(stats: Json | undefined): TokenUsage | undefined {
  if (!stats) return undefined;
  const input = num(stats.input_tokens);
  const candidates = num(stats.output_tokens);
  const total = num(stats.total_tokens);
  const thoughts = input !== undefined && candidates !== undefined && total !== undefined
    ? Math.max(0, total - input - candidates)
    : undefined;
  return compactUsage({
    input,
    cachedInput: num(stats.cached),
    output: candidates === undefined ? undefined : candidates + (thoughts ?? 0),
    reasoning: thoughts,
    total,
  });
}

/** The message of the JSON error object Gemini prints on stderr when it fails. */
function stderrError(stderr: string): string | undefined {
  for (const event of jsonLines(stderr).reverse()) {
    const message = str(obj(event.error)?.message) ?? str(event.message);
    if (message) return message;
  }
  return undefined;
}

/** The `gemini-cli` adapter. */
export const geminiCli: AdapterDefinition<z.infer<typeof options>> = {
  type: "gemini-cli",
  description: "Google's Gemini CLI (gemini --prompt)",
  executable: "gemini",
  defaultVendor: "google",
  options,
  create(spec) {
    return new GeminiCli(spec, geminiCli);
  },
};
