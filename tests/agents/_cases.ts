/**
 * The agent configurations the end-to-end agent tests race: how each pinned CLI is pointed at the
 * scripted model server (a `bugbout.toml` entry plus the variables a user would export), which
 * token fields it reports, and which scenarios it runs.
 *
 * @module
 */

import type { TokenUsage } from "../../adapters/agent.ts";

/** The scenarios one agent case can run (see `_scenario.ts`). */
export type ScenarioName = "success" | "quota" | "hang";

/** One agent, configured as a user would, against the scripted model server. */
export interface AgentCase {
  /** Case id, also the agent's name in `bugbout.toml`. */
  id: string;
  /** The pinned agent type (adapter type and install cache entry). */
  type: string;
  /** `model` in `bugbout.toml`. */
  model: string;
  /** The model id the server lists (for Ollama's `/api/tags` and model lists). */
  serverModel: string;
  /** Adapter options in `bugbout.toml`, given the server's base URL. */
  options: (url: string) => Record<string, string>;
  /** Variables exported in bugbout's environment: credentials and, for some, the endpoint. */
  env: (url: string) => Record<string, string>;
  /** The token fields this agent reports; the rest are not compared. */
  fields: (keyof TokenUsage)[];
  /** Cache-write tokens per turn (only the Anthropic API reports them). */
  cacheWrite?: number;
  /**
   * `[run] timeout` of the quota scenario, for agents that retry a 429 for longer than a test
   * should wait: bugbout's timeout then ends the run and the adapter must still call it quota.
   */
  quotaTimeoutS?: number;
  /** Non-model requests (`METHOD /path`) the agent must make, such as Ollama's. */
  meta?: string[];
  /** Scenarios to run. */
  scenarios: ScenarioName[];
  /** What the case shows beyond the plain run, for the docs and the test names. */
  note?: string;
}

const KEY = "sk-bugbout-agent-test";
const v1 = (url: string) => `${url}/v1`;
const ALL: ScenarioName[] = ["success", "quota", "hang"];

/** Every case, by id. */
export const CASES: Readonly<Record<string, AgentCase>> = {
  codex: {
    id: "codex",
    type: "codex",
    model: "fake-model",
    serverModel: "fake-model",
    options: (url) => ({ "base-url": v1(url) }),
    env: () => ({ OPENAI_API_KEY: KEY }),
    fields: ["input", "cachedInput", "output", "reasoning"],
    scenarios: ALL,
  },
  "codex-ollama": {
    id: "codex-ollama",
    type: "codex",
    model: "gpt-oss:20b",
    serverModel: "gpt-oss:20b",
    options: (url) => ({ "local-provider": "ollama", "base-url": v1(url) }),
    env: () => ({}),
    fields: ["input", "cachedInput", "output", "reasoning"],
    meta: ["GET /api/version", "GET /api/tags"],
    scenarios: ["success"],
    note: "local model: codex --oss --local-provider ollama against the server's Ollama API",
  },
  "claude-code": {
    id: "claude-code",
    type: "claude-code",
    model: "claude-sonnet-4-5",
    serverModel: "claude-sonnet-4-5",
    options: () => ({}),
    env: (url) => ({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: url }),
    fields: ["input", "cachedInput", "cacheWrite", "output"],
    cacheWrite: 50,
    scenarios: ALL,
  },
  "gemini-cli": {
    id: "gemini-cli",
    type: "gemini-cli",
    model: "gemini-2.5-pro",
    serverModel: "gemini-2.5-pro",
    options: (url) => ({ "base-url": url }),
    env: () => ({ GEMINI_API_KEY: KEY }),
    fields: ["input", "cachedInput", "output", "reasoning"],
    scenarios: ALL,
  },
  opencode: {
    id: "opencode",
    type: "opencode",
    model: "fake-model",
    serverModel: "fake-model",
    options: (url) => ({ "base-url": v1(url) }),
    env: () => ({ OPENAI_API_KEY: KEY }),
    fields: ["input", "cachedInput", "cacheWrite", "output", "reasoning"],
    scenarios: ALL,
  },
  "qwen-code": {
    id: "qwen-code",
    type: "qwen-code",
    model: "fake-model",
    serverModel: "fake-model",
    options: (url) => ({ "base-url": v1(url) }),
    env: () => ({ OPENAI_API_KEY: KEY }),
    fields: ["input", "cachedInput", "output"],
    // It retries a persistent 429 for over a minute even with maxRetries 0.
    quotaTimeoutS: 30,
    scenarios: ALL,
  },
  copilot: {
    id: "copilot",
    type: "copilot",
    model: "fake-model",
    serverModel: "fake-model",
    options: (url) => ({ "base-url": v1(url) }),
    env: () => ({ OPENAI_API_KEY: KEY }),
    fields: ["input", "cachedInput", "cacheWrite", "output", "reasoning"],
    scenarios: ALL,
  },
  "mini-swe-agent": {
    id: "mini-swe-agent",
    type: "mini-swe-agent",
    model: "openai/fake-model",
    serverModel: "fake-model",
    options: () => ({}),
    env: (url) => ({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: v1(url) }),
    fields: ["input", "cachedInput", "output", "reasoning"],
    scenarios: ALL,
  },
  "mini-swe-agent-local": {
    id: "mini-swe-agent-local",
    type: "mini-swe-agent",
    model: "openai/fake-model",
    serverModel: "fake-model",
    options: (url) => ({ "base-url": v1(url) }),
    env: () => ({ OPENAI_API_KEY: "ollama" }),
    fields: ["input", "cachedInput", "output", "reasoning"],
    scenarios: ["success"],
    note: "local model: mini-swe-agent with base-url set to an OpenAI-compatible local server",
  },
};
