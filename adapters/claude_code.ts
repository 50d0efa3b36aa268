/**
 * `claude-code`: Anthropic's Claude Code, run as `claude --print`.
 *
 * @module
 */

import { z } from "zod";
import type { AdapterDefinition } from "./agent.ts";

const options = z.strictObject({
  effort: z.enum(["low", "medium", "high", "xhigh", "max"]).optional(),
  "base-url": z.url().optional(),
  executable: z.string().min(1).optional(),
});

/** The `claude-code` adapter. */
export const claudeCode: AdapterDefinition<typeof options> = {
  type: "claude-code",
  description: "Anthropic's Claude Code (claude --print)",
  executable: "claude",
  defaultVendor: "anthropic",
  options,
  create() {
    throw new Error("claude-code adapter: invocation not built yet");
  },
};
