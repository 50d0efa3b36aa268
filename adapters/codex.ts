/**
 * `codex`: OpenAI's Codex CLI, run as `codex exec`.
 *
 * The agent's config home (`CODEX_HOME`) is the attempt's empty state directory with only
 * `auth.json` copied in; user config, rules, project `AGENTS.md`, web search, plugins, apps and
 * analytics are off. Codex's own sandbox is bypassed: the whole process already runs in
 * bugbout's.
 *
 * @module
 */

import { join } from "node:path";
import { z } from "../lib/deps.ts";
import { codexTranscript } from "./_transcripts.ts";
import type { TranscriptInput, TranscriptStep } from "../lib/transcript/types.ts";
import type {
  AdapterDefinition,
  AgentReport,
  CodingAgent,
  Invocation,
  RunOutput,
  Session,
} from "./agent.ts";
import {
  AgentBase,
  COMMON_QUOTA,
  compactUsage,
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
import { readTextIfExists } from "../lib/fs.ts";

const options = z.strictObject({
  "reasoning-effort": z.enum(["minimal", "low", "medium", "high", "xhigh"]).optional(),
  "local-provider": z.enum(["ollama", "lmstudio"]).optional(),
  "base-url": z.url().optional(),
  executable: z.string().min(1).optional(),
});

/** The `codex` adapter's options. */
export type CodexOptions = z.infer<typeof options>;

/** The provider id bugbout defines for a custom base URL. */
const PROVIDER = "bugbout";
/** Request and stream retries against a custom provider: enough for a blip, short for a quota. */
const RETRIES = 2;
/** Where the closing message is written, inside the log directory. */
const LAST_MESSAGE = "last_message.txt";

const OPENAI_HOSTS = ["api.openai.com:443", "chatgpt.com:443", "auth.openai.com:443"];
const LOCAL_PORTS = { ollama: 11434, lmstudio: 1234 } as const;

/** Usage-limit messages of codex 0.171 (the apostrophe is U+2019 there, ASCII in older builds). */
const QUOTA = [
  /You[’']ve hit your usage limit/,
  /Quota exceeded\./,
  /out of credits/,
  /spend cap/,
  /exceeded retry limit, last status: 429/,
  /usage_limit_reached/,
  ...COMMON_QUOTA,
];

function localHosts(provider: keyof typeof LOCAL_PORTS): string[] {
  const port = LOCAL_PORTS[provider];
  return [`localhost:${port}`, `127.0.0.1:${port}`];
}

/** The `-c model_providers.<id>=...` inline table for a custom Responses endpoint. */
function providerTable(baseUrl: string, envKey: string | undefined): string {
  const fields = [
    `name=${JSON.stringify(PROVIDER)}`,
    `base_url=${JSON.stringify(baseUrl)}`,
    ...(envKey ? [`env_key=${JSON.stringify(envKey)}`] : []),
    `wire_api="responses"`,
    `request_max_retries=${RETRIES}`,
    `stream_max_retries=${RETRIES}`,
  ];
  return `model_providers.${PROVIDER}={${fields.join(",")}}`;
}

class Codex extends AgentBase<CodexOptions> implements CodingAgent {
  modelHosts(): string[] {
    const base = this.options["base-url"];
    if (base) return [hostPort(base)];
    const local = this.options["local-provider"];
    return local ? localHosts(local) : [...OPENAI_HOSTS];
  }

  invocation(session: Session): Invocation {
    const o = this.options;
    const env: Record<string, string> = { CODEX_HOME: session.stateDir };
    const argv = [
      this.executable,
      "exec",
      "--json",
      "--ephemeral",
      "--ignore-user-config",
      "--ignore-rules",
      "--skip-git-repo-check",
      "--color",
      "never",
      "--dangerously-bypass-approvals-and-sandbox",
      "--cd",
      session.workdir,
      "--output-last-message",
      join(session.logdir, LAST_MESSAGE),
      "-c",
      "project_doc_max_bytes=0",
      "-c",
      "web_search=disabled",
      // Without this codex sends OTLP metrics to ab.chatgpt.com even with a custom provider.
      "-c",
      "analytics.enabled=false",
      // A login shell sources /etc/profile, which on Debian and Ubuntu resets PATH: `python` would
      // no longer be the test environment's.
      "-c",
      "allow_login_shell=false",
      "--disable",
      "plugins",
      "--disable",
      "apps",
    ];
    if (this.model) argv.push("--model", this.model);
    if (o["reasoning-effort"]) argv.push("-c", `model_reasoning_effort="${o["reasoning-effort"]}"`);

    let hosts: string[];
    const copy: Invocation["copy"] = [];
    const local = o["local-provider"];
    const baseUrl = o["base-url"] ?? (local ? undefined : session.hostEnv.OPENAI_BASE_URL);
    if (local) {
      argv.push("--oss", "--local-provider", local);
      if (baseUrl) env.CODEX_OSS_BASE_URL = baseUrl;
      hosts = baseUrl ? [hostPort(baseUrl)] : localHosts(local);
    } else if (baseUrl) {
      const key = session.hostEnv.OPENAI_API_KEY ? "OPENAI_API_KEY" : undefined;
      argv.push("-c", `model_provider=${PROVIDER}`, "-c", providerTable(baseUrl, key));
      Object.assign(env, pickEnv(session.hostEnv, ["OPENAI_API_KEY"]));
      hosts = [hostPort(baseUrl)];
    } else {
      Object.assign(env, pickEnv(session.hostEnv, ["CODEX_API_KEY", "OPENAI_API_KEY"]));
      const home = hostConfigDir(session.hostEnv, "CODEX_HOME", ".codex");
      copy.push({ from: join(home, "auth.json"), to: join(session.stateDir, "auth.json") });
      hosts = [...OPENAI_HOSTS];
    }
    argv.push("--", session.prompt);
    return { argv, env, copy, modelHosts: hosts };
  }

  transcript(input: TranscriptInput): TranscriptStep[] {
    return codexTranscript(input.stdout);
  }

  async parse(output: RunOutput): Promise<AgentReport> {
    const events = jsonLines(output.stdout);
    let summary: string | undefined;
    let completed = false;
    const usages = [];
    const failures: string[] = [];
    const errors: string[] = [];
    for (const event of events) {
      const item = obj(event.item);
      if (event.type === "item.completed" && item?.type === "agent_message") {
        summary = str(item.text) ?? summary;
      } else if (event.type === "turn.completed") {
        completed = true;
        usages.push(usageOf(obj(event.usage)));
      } else if (event.type === "turn.failed") {
        const message = str(obj(event.error)?.message);
        if (message) failures.push(message);
      } else if (event.type === "error") {
        const message = str(event.message);
        if (message) errors.push(message);
      }
    }
    summary ??= (await readTextIfExists(join(output.logdir, LAST_MESSAGE)))?.trim() || undefined;
    const succeeded = completed && failures.length === 0 && output.exitCode === 0;
    const error = succeeded ? undefined : failures.at(-1) ?? errors.at(-1);
    const quota = !succeeded && matchesAny([...failures, ...errors, output.stderr], QUOTA);
    return { summary, tokens: sumUsage(usages), quota, ...(error ? { error } : {}) };
  }
}

/** Token usage from a `turn.completed.usage` object (cached and reasoning are subsets). */
function usageOf(usage: Json | undefined) {
  if (!usage) return undefined;
  return compactUsage({
    input: num(usage.input_tokens),
    cachedInput: num(usage.cached_input_tokens),
    cacheWrite: num(usage.cache_write_input_tokens),
    output: num(usage.output_tokens),
    reasoning: num(usage.reasoning_output_tokens),
  });
}

/** The `codex` adapter. */
export const codex: AdapterDefinition<z.infer<typeof options>> = {
  type: "codex",
  description: "OpenAI's Codex CLI (codex exec)",
  executable: "codex",
  defaultVendor: "openai",
  options,
  create(spec) {
    return new Codex(spec, codex);
  },
};
