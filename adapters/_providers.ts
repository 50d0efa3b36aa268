/**
 * Model providers of the multi-vendor agents (mini-swe-agent through LiteLLM, opencode through the
 * AI SDK): which hosts each reaches by default, which credentials it reads, and which variable
 * moves its endpoint.
 *
 * @module
 */

import { firstEnv, hostPort, pickEnv } from "./_common.ts";

/** One provider: default hosts, credential variables, base-URL variables (first set wins). */
export interface Provider {
  /** `host:port` pairs it reaches without a custom endpoint. */
  hosts: readonly string[];
  /** Variables holding its credentials (all that are set are passed). */
  keys: readonly string[];
  /** Variables that move its endpoint, in the order the client reads them. */
  bases: readonly string[];
}

const openai: Provider = {
  hosts: ["api.openai.com:443"],
  keys: ["OPENAI_API_KEY", "OPENAI_ORGANIZATION"],
  bases: ["OPENAI_BASE_URL", "OPENAI_API_BASE"],
};
const anthropic: Provider = {
  hosts: ["api.anthropic.com:443"],
  keys: ["ANTHROPIC_API_KEY"],
  bases: ["ANTHROPIC_BASE_URL", "ANTHROPIC_API_BASE"],
};
const ollama: Provider = {
  hosts: ["localhost:11434", "127.0.0.1:11434"],
  keys: [],
  bases: ["OLLAMA_API_BASE"],
};

/** Providers by LiteLLM prefix (`openai/gpt-5`, `ollama/qwen3-coder:30b`, ...). */
export const LITELLM_PROVIDERS: Readonly<Record<string, Provider>> = {
  openai,
  anthropic,
  gemini: {
    hosts: ["generativelanguage.googleapis.com:443"],
    keys: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
    bases: ["GEMINI_API_BASE"],
  },
  openrouter: { hosts: ["openrouter.ai:443"], keys: ["OPENROUTER_API_KEY"], bases: [] },
  deepseek: { hosts: ["api.deepseek.com:443"], keys: ["DEEPSEEK_API_KEY"], bases: [] },
  xai: { hosts: ["api.x.ai:443"], keys: ["XAI_API_KEY"], bases: [] },
  groq: { hosts: ["api.groq.com:443"], keys: ["GROQ_API_KEY"], bases: [] },
  mistral: { hosts: ["api.mistral.ai:443"], keys: ["MISTRAL_API_KEY"], bases: [] },
  together_ai: {
    hosts: ["api.together.xyz:443"],
    keys: ["TOGETHERAI_API_KEY", "TOGETHER_API_KEY"],
    bases: [],
  },
  ollama,
  ollama_chat: ollama,
  lm_studio: {
    hosts: ["localhost:1234", "127.0.0.1:1234"],
    keys: ["LM_STUDIO_API_KEY"],
    bases: ["LM_STUDIO_API_BASE"],
  },
  hosted_vllm: { hosts: [], keys: ["HOSTED_VLLM_API_KEY"], bases: ["HOSTED_VLLM_API_BASE"] },
};

/** Providers by opencode id (`anthropic/claude-sonnet-4-5`, `openai/gpt-5`, ...). */
export const OPENCODE_PROVIDERS: Readonly<Record<string, Provider>> = {
  openai: { ...openai, bases: ["OPENAI_BASE_URL"] },
  anthropic: { ...anthropic, bases: ["ANTHROPIC_BASE_URL"] },
  google: {
    hosts: ["generativelanguage.googleapis.com:443"],
    keys: ["GOOGLE_GENERATIVE_AI_API_KEY", "GEMINI_API_KEY"],
    bases: [],
  },
  openrouter: { hosts: ["openrouter.ai:443"], keys: ["OPENROUTER_API_KEY"], bases: [] },
  deepseek: { hosts: ["api.deepseek.com:443"], keys: ["DEEPSEEK_API_KEY"], bases: [] },
  xai: { hosts: ["api.x.ai:443"], keys: ["XAI_API_KEY"], bases: [] },
  groq: { hosts: ["api.groq.com:443"], keys: ["GROQ_API_KEY"], bases: [] },
  mistral: { hosts: ["api.mistral.ai:443"], keys: ["MISTRAL_API_KEY"], bases: [] },
  opencode: { hosts: ["opencode.ai:443"], keys: ["OPENCODE_API_KEY"], bases: [] },
};

/** What one attempt passes to a provider: credentials, the endpoint variable and the hosts. */
export interface ProviderAccess {
  /** Credential and endpoint variables taken from the host environment. */
  env: Record<string, string>;
  /** The endpoint from the host environment, when one is set. */
  baseUrl?: string;
  /** `host:port` pairs the attempt may reach. */
  hosts: string[];
}

/** The credentials, endpoint and hosts of `provider` under the host environment `hostEnv`. */
export function providerAccess(
  provider: Provider | undefined,
  hostEnv: Readonly<Record<string, string>>,
): ProviderAccess {
  if (!provider) return { env: {}, hosts: [] };
  const base = firstEnv(hostEnv, provider.bases);
  const env = pickEnv(hostEnv, provider.keys);
  if (base) env[base[0]] = base[1];
  return {
    env,
    baseUrl: base?.[1],
    hosts: base ? [hostPort(base[1])] : [...provider.hosts],
  };
}
