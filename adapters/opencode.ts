/**
 * `opencode`: sst's opencode, run as `opencode run --format json`.
 *
 * All four XDG directories point into the attempt's empty state directory, with only opencode's
 * `auth.json` copied in; the whole configuration comes from `OPENCODE_CONFIG_CONTENT`, project
 * config, CLAUDE.md, external skills and default plugins are off, and web fetch and search are
 * denied. opencode has no sandbox of its own; permissions are auto-approved inside bugbout's.
 *
 * @module
 */

import { join } from "node:path";
import { z } from "../lib/deps.ts";
import { opencodeTranscript } from "./_transcripts.ts";
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
  hostConfigDir,
  hostPort,
  type Json,
  jsonLines,
  matchesAny,
  num,
  obj,
  str,
  sumUsage,
} from "./_common.ts";
import { OPENCODE_PROVIDERS, providerAccess } from "./_providers.ts";
import { ConfigError } from "../lib/errors.ts";

const options = z.strictObject({
  "base-url": z.url().optional(),
  variant: z.string().min(1).optional(),
  executable: z.string().min(1).optional(),
});

/** The `opencode` adapter's options. */
export type OpencodeOptions = z.infer<typeof options>;

/** The provider id bugbout defines for a custom (OpenAI-compatible) base URL. */
const PROVIDER = "bugbout";

/** Switches that keep the user's and the project's opencode set-up out. */
const ISOLATION = {
  OPENCODE_DISABLE_PROJECT_CONFIG: "1",
  OPENCODE_DISABLE_CLAUDE_CODE: "1",
  OPENCODE_DISABLE_EXTERNAL_SKILLS: "1",
  OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
  OPENCODE_DISABLE_AUTOUPDATE: "1",
  OPENCODE_DISABLE_MODELS_FETCH: "1",
  OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
  OPENCODE_DISABLE_SHARE: "1",
  // Even with --pure it installs @opencode-ai/plugin from the npm registry at start-up.
  npm_config_offline: "true",
} as const;

const QUOTA = [/"statusCode":\s*429/, ...COMMON_QUOTA];

class Opencode extends AgentBase<OpencodeOptions> implements CodingAgent {
  /** The model as opencode names it: `provider/model`. */
  #model(): string {
    const model = this.model ?? "";
    return this.options["base-url"] ? `${PROVIDER}/${model}` : model;
  }

  modelHosts(): string[] {
    const base = this.options["base-url"];
    if (base) return [hostPort(base)];
    const provider = OPENCODE_PROVIDERS[this.#model().split("/")[0]];
    return [...(provider?.hosts ?? [])];
  }

  invocation(session: Session): Invocation {
    const model = this.#model();
    const providerId = model.split("/")[0];
    const config: Json = {
      $schema: "https://opencode.ai/config.json",
      model,
      small_model: model,
      autoupdate: false,
      share: "disabled",
      permission: { edit: "allow", bash: "allow", webfetch: "deny", websearch: "deny" },
    };
    let env: Record<string, string>;
    let hosts: string[];
    const copy: Invocation["copy"] = [];
    const base = this.options["base-url"];
    if (base) {
      const apiKey = session.hostEnv.OPENAI_API_KEY;
      config.provider = {
        [PROVIDER]: {
          npm: "@ai-sdk/openai-compatible",
          options: { baseURL: base, ...(apiKey ? { apiKey } : {}) },
          models: { [this.model ?? ""]: {} },
        },
      };
      env = {};
      hosts = [hostPort(base)];
    } else {
      const access = providerAccess(OPENCODE_PROVIDERS[providerId], session.hostEnv);
      if (access.baseUrl) {
        config.provider = { [providerId]: { options: { baseURL: access.baseUrl } } };
      }
      env = access.env;
      hosts = access.hosts;
      const data = hostConfigDir(session.hostEnv, "XDG_DATA_HOME", ".local/share");
      copy.push({
        from: join(data, "opencode", "auth.json"),
        to: join(session.stateDir, "data", "opencode", "auth.json"),
      });
    }
    const argv = [
      this.executable,
      "run",
      "--format",
      "json",
      "--pure",
      "--auto",
      "--dir",
      session.workdir,
      "--model",
      model,
      "--title",
      session.task,
    ];
    if (this.options.variant) argv.push("--variant", this.options.variant);
    argv.push(session.prompt);
    return {
      argv,
      env: {
        XDG_CONFIG_HOME: join(session.stateDir, "config"),
        XDG_DATA_HOME: join(session.stateDir, "data"),
        XDG_STATE_HOME: join(session.stateDir, "state"),
        XDG_CACHE_HOME: join(session.stateDir, "cache"),
        OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
        ...ISOLATION,
        ...env,
      },
      copy,
      modelHosts: hosts,
    };
  }

  transcript(input: TranscriptInput): TranscriptStep[] {
    return opencodeTranscript(input.stdout);
  }

  parse(output: RunOutput): AgentReport {
    let summary: string | undefined;
    let cost = 0;
    const usages: (TokenUsage | undefined)[] = [];
    const errors: string[] = [];
    const rawErrors: string[] = [];
    for (const event of jsonLines(output.stdout)) {
      const part = obj(event.part);
      if (event.type === "text") {
        summary = str(part?.text)?.trim() || summary;
      } else if (event.type === "step_finish") {
        usages.push(usageOf(obj(part?.tokens)));
        cost += num(part?.cost) ?? 0;
      } else if (event.type === "error") {
        const error = obj(event.error);
        const data = obj(error?.data);
        errors.push(str(data?.message) ?? str(error?.name) ?? "error");
        rawErrors.push(JSON.stringify(event.error));
      }
    }
    const failed = errors.length > 0 || output.exitCode !== 0;
    const quota = failed && matchesAny([...rawErrors, output.stderr], QUOTA);
    const report: AgentReport = { tokens: sumUsage(usages), quota };
    if (cost > 0) report.costUsd = cost;
    if (failed) report.error = errors.at(-1) ?? `exit code ${output.exitCode}`;
    else report.summary = summary;
    return report;
  }
}

/**
 * opencode's step tokens: it reports `input` without cache reads and writes and `output` without
 * reasoning, so both are added back.
 */
function usageOf(tokens: Json | undefined): TokenUsage | undefined {
  if (!tokens) return undefined;
  const cache = obj(tokens.cache);
  const read = num(cache?.read);
  const write = num(cache?.write);
  const input = num(tokens.input);
  const output = num(tokens.output);
  const reasoning = num(tokens.reasoning);
  return compactUsage({
    input: input === undefined ? undefined : input + (read ?? 0) + (write ?? 0),
    cachedInput: read,
    cacheWrite: write,
    output: output === undefined ? undefined : output + (reasoning ?? 0),
    reasoning,
    total: num(tokens.total),
  });
}

/** The `opencode` adapter. */
export const opencode: AdapterDefinition<z.infer<typeof options>> = {
  type: "opencode",
  description: "opencode (opencode run)",
  executable: "opencode",
  requiresModel: true,
  options,
  create(spec) {
    if (!spec.options["base-url"] && spec.model && !spec.model.includes("/")) {
      throw new ConfigError(
        `Cannot run opencode agent ${spec.name}: model ${spec.model} names no provider.`,
        {
          hint: 'Write it as provider/model, e.g. "anthropic/claude-sonnet-4-5", or set base-url.',
        },
      );
    }
    return new Opencode(spec, opencode);
  },
};
