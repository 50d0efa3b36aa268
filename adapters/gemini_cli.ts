/**
 * `gemini-cli`: Google's Gemini CLI, run as `gemini --prompt`.
 *
 * @module
 */

import { z } from "zod";
import type { AdapterDefinition } from "./agent.ts";

const options = z.strictObject({
  "base-url": z.url().optional(),
  executable: z.string().min(1).optional(),
});

/** The `gemini-cli` adapter. */
export const geminiCli: AdapterDefinition<typeof options> = {
  type: "gemini-cli",
  description: "Google's Gemini CLI (gemini --prompt)",
  executable: "gemini",
  defaultVendor: "google",
  options,
  create() {
    throw new Error("gemini-cli adapter: invocation not built yet");
  },
};
