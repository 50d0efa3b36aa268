/**
 * `mini-swe-agent`: the SWE-bench team's minimal agent, for any LiteLLM model.
 *
 * @module
 */

import { z } from "zod";
import type { AdapterDefinition } from "./agent.ts";

const options = z.strictObject({
  "text-actions": z.boolean().default(false),
  "step-limit": z.int().positive().default(75),
  "model-kwargs": z.record(z.string(), z.unknown()).default({}),
  "base-url": z.url().optional(),
  executable: z.string().min(1).optional(),
});

/** The `mini-swe-agent` adapter. */
export const miniSweAgent: AdapterDefinition<typeof options> = {
  type: "mini-swe-agent",
  description: "mini-swe-agent with any LiteLLM model (mini)",
  executable: "mini",
  requiresModel: true,
  options,
  create() {
    throw new Error("mini-swe-agent adapter: invocation not built yet");
  },
};
