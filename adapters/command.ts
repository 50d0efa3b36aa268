/**
 * `command`: any agent with a command line, configured in `bugbout.toml`.
 *
 * @module
 */

import { z } from "zod";
import type { AdapterDefinition } from "./agent.ts";

const options = z.strictObject({
  command: z.array(z.string()).min(1, "must name at least the program"),
  env: z.record(z.string(), z.string()).default({}),
  "state-dirs": z.array(z.string()).default([]),
  sandboxed: z.boolean().default(true),
  "model-hosts": z.array(z.string()).default([]),
});

/** The `command` adapter. */
export const command: AdapterDefinition<typeof options> = {
  type: "command",
  description: "any agent with a command line (configured with command = [...])",
  executable: "",
  requiresName: true,
  options,
  create() {
    throw new Error("command adapter: invocation not built yet");
  },
};
