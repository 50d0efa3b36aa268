/**
 * `BUGBOUT_HOME`: heavy, disposable state (test environments, checkouts, agents' working copies).
 * Defaults to `$XDG_CACHE_HOME/bugbout`, else `~/.cache/bugbout`.
 *
 * Requires `--allow-env`.
 *
 * @module
 */

import { join, resolve } from "node:path";
import { BugboutError } from "./errors.ts";

/** Resolve the bugbout home directory from the environment (does not create it). */
export function bugboutHome(env: { get(key: string): string | undefined } = Deno.env): string {
  const explicit = env.get("BUGBOUT_HOME");
  if (explicit) return resolve(explicit);
  const xdg = env.get("XDG_CACHE_HOME");
  if (xdg) return resolve(xdg, "bugbout");
  const home = env.get("HOME");
  if (!home) {
    throw new BugboutError("Cannot find a cache directory: neither BUGBOUT_HOME nor HOME is set.", {
      hint: "Set BUGBOUT_HOME to a directory bugbout may use for environments and checkouts.",
    });
  }
  return join(home, ".cache", "bugbout");
}
