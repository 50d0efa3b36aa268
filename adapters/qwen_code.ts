/**
 * `qwen-code`: Alibaba's Qwen Code, run as `qwen PROMPT --output-format stream-json`.
 *
 * `QWEN_HOME` is the attempt's empty state directory holding only the settings bugbout writes
 * (no QWEN.md/AGENTS.md, no auto-memory, no usage statistics, no SDK-level retries); web tools
 * are excluded. Qwen's own sandbox is not used: the whole process runs in bugbout's. `--bare`
 * would also isolate, but it ignores the settings and then retries a 429 for over five minutes.
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
  COMMON_QUOTA,
  compactUsage,
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
import { readTextIfExists } from "../lib/fs.ts";

const options = z.strictObject({
  "base-url": z.url().optional(),
  executable: z.string().min(1).optional(),
});

/** The `qwen-code` adapter's options. */
export type QwenCodeOptions = z.infer<typeof options>;

const OPENAI_HOST = "api.openai.com:443";
/** Runtime output (debug logs, session data), inside the log directory. */
export const RUNTIME_DIR = "qwen-runtime";
/** A context file name no checkout has, so no QWEN.md or AGENTS.md is sent. */
const NO_CONTEXT_FILE = "BUGBOUT-NO-CONTEXT-FILE.md";

/** Qwen exits 0 on a quota error; the result text starts with the API error. */
const QUOTA = [
  /^\[API Error: 429/,
  /Possible quota limitations in place/,
  /OpenAI API Error: 429/,
  /failed with status 429/,
  ...COMMON_QUOTA,
];

/** The settings bugbout writes for every attempt. */
export function qwenSettings(): Json {
  return {
    model: { generationConfig: { maxRetries: 0 } },
    privacy: { usageStatisticsEnabled: false },
    memory: { enableManagedAutoMemory: false },
    context: { fileName: [NO_CONTEXT_FILE] },
    general: { enableAutoUpdate: false },
  };
}

class QwenCode extends AgentBase<QwenCodeOptions> implements CodingAgent {
  modelHosts(): string[] {
    const base = this.options["base-url"];
    return [base ? hostPort(base) : OPENAI_HOST];
  }

  invocation(session: Session): Invocation {
    const baseUrl = this.options["base-url"] ?? session.hostEnv.OPENAI_BASE_URL;
    const env: Record<string, string> = {
      QWEN_HOME: session.stateDir,
      QWEN_RUNTIME_DIR: join(session.logdir, RUNTIME_DIR),
      QWEN_DISABLE_AUTO_TITLE: "1",
      ...pickEnv(session.hostEnv, ["OPENAI_API_KEY"]),
    };
    if (baseUrl) env.OPENAI_BASE_URL = baseUrl;
    const argv = [
      this.executable,
      "--approval-mode",
      "yolo",
      "--output-format",
      "stream-json",
      // An array option: it takes every word up to the next option, so it must not come last.
      "--exclude-tools",
      "web_fetch",
      "web_search",
      "--auth-type",
      "openai",
    ];
    if (this.model) argv.push("--model", this.model);
    argv.push(session.prompt);
    return {
      argv,
      env,
      files: {
        [join(session.stateDir, "settings.json")]: JSON.stringify(qwenSettings(), null, 2) + "\n",
      },
      modelHosts: [baseUrl ? hostPort(baseUrl) : OPENAI_HOST],
    };
  }

  transcript(input: TranscriptInput): TranscriptStep[] {
    return streamJsonTranscript(input.stdout, ["run_shell_command"]);
  }

  async parse(output: RunOutput): Promise<AgentReport> {
    const events = jsonLines(output.stdout);
    const result = events.findLast((e) => e.type === "result");
    if (result) {
      const text = str(result.result);
      const failed = result.is_error === true || result.subtype !== "success" ||
        output.exitCode !== 0 || /^\[API Error/.test(text ?? "");
      const report: AgentReport = {
        tokens: usageOf(obj(result.usage)),
        quota: failed && matchesAny([text, output.stderr], QUOTA),
      };
      if (failed) report.error = text || str(result.subtype) || `exit code ${output.exitCode}`;
      else report.summary = text;
      return report;
    }
    // No result (killed while it retried, which takes minutes on a 429): the stream and the debug
    // logs tell what happened so far.
    const byMessage = new Map<string, TokenUsage | undefined>();
    for (const event of events) {
      if (event.type !== "assistant") continue;
      const message = obj(event.message);
      byMessage.set(str(message?.id) ?? String(byMessage.size), usageOf(obj(message?.usage)));
    }
    const logs = await debugLogs(join(output.logdir, RUNTIME_DIR, "debug"));
    return {
      tokens: sumUsage([...byMessage.values()]),
      quota: matchesAny([output.stderr, ...logs], QUOTA),
      error: `no result (exit code ${output.exitCode}${output.timedOut ? ", timed out" : ""})`,
    };
  }
}

/** Qwen's usage follows OpenAI: `input_tokens` already includes cache reads. */
function usageOf(usage: Json | undefined): TokenUsage | undefined {
  if (!usage) return undefined;
  return compactUsage({
    input: num(usage.input_tokens),
    cachedInput: num(usage.cache_read_input_tokens),
    output: num(usage.output_tokens),
    total: num(usage.total_tokens),
  });
}

/** The text of every debug log Qwen wrote (the last 64 KiB of each). */
async function debugLogs(dir: string): Promise<string[]> {
  const out: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.isFile) continue;
      const text = await readTextIfExists(join(dir, entry.name));
      if (text) out.push(text.slice(-64 * 1024));
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return out;
}

/** The `qwen-code` adapter. */
export const qwenCode: AdapterDefinition<z.infer<typeof options>> = {
  type: "qwen-code",
  description: "Qwen Code (qwen, OpenAI-compatible endpoints)",
  executable: "qwen",
  defaultVendor: "alibaba",
  options,
  create(spec) {
    return new QwenCode(spec, qwenCode);
  },
};
