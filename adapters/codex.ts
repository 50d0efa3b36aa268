/**
 * `codex`: OpenAI's Codex CLI, run as `codex exec`.
 *
 * @module
 */

import { z } from "zod";
import type { AdapterDefinition } from "./agent.ts";

const options = z.strictObject({
  "reasoning-effort": z.enum(["minimal", "low", "medium", "high", "xhigh"]).optional(),
  "local-provider": z.enum(["ollama", "lmstudio"]).optional(),
  "base-url": z.url().optional(),
  executable: z.string().min(1).optional(),
});

/** The `codex` adapter. */
export const codex: AdapterDefinition<typeof options> = {
  type: "codex",
  description: "OpenAI's Codex CLI (codex exec)",
  executable: "codex",
  defaultVendor: "openai",
  options,
  create() {
    throw new Error("codex adapter: invocation not built yet");
  },
};
