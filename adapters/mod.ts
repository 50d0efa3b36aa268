/**
 * The built-in agent adapters, by type name.
 *
 * @module
 */

import type { AdapterDefinition } from "./agent.ts";
import { claudeCode } from "./claude_code.ts";
import { codex } from "./codex.ts";
import { command } from "./command.ts";
import { copilot } from "./copilot.ts";
import { geminiCli } from "./gemini_cli.ts";
import { miniSweAgent } from "./mini_swe_agent.ts";
import { opencode } from "./opencode.ts";
import { qwenCode } from "./qwen_code.ts";

export { claudeCode, codex, command, copilot, geminiCli, miniSweAgent, opencode, qwenCode };

/** Every adapter bugbout ships, keyed by the `agent = "..."` name. */
export const builtinAdapters: Record<string, AdapterDefinition> = Object.fromEntries(
  [codex, claudeCode, geminiCli, miniSweAgent, opencode, qwenCode, copilot, command].map((
    d,
  ) => [d.type, d as AdapterDefinition]),
);
