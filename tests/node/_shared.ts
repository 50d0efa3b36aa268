/**
 * Shared pieces of the JS/TS runner tests: a persistent test cache (npm's cache, the lockfiles
 * the fixtures ask npm for, installed environments), so that only a machine's first run installs
 * anything, and trees checked out of fixture repositories.
 *
 * @module
 */

import { join } from "node:path";
import { extractCommit } from "../../lib/checkout.ts";

export { sandbox, tempDir, writeFiles } from "../python/_shared.ts";

/** A directory under the persistent test cache (`~/.cache/bugbout-test/node`). */
export function nodeTestCache(...parts: string[]): string {
  const base = Deno.env.get("BUGBOUT_TEST_CACHE") ||
    join(
      Deno.env.get("XDG_CACHE_HOME") || join(Deno.env.get("HOME") || "/tmp", ".cache"),
      "bugbout-test",
    );
  return join(base, "node", ...parts);
}

/** Where prepared environments live across runs. */
export const ENVS = nodeTestCache("envs");
/** Where the fixtures' lockfiles are kept. */
export const LOCKS = nodeTestCache("locks");

// npm's download cache is kept too (install.ts passes npm_config_cache through).
if (!Deno.env.get("npm_config_cache")) Deno.env.set("npm_config_cache", nodeTestCache("npm"));

/** Check `commit` of `repo` out into `dest` (no history). */
export async function checkoutTo(repo: string, commit: string, dest: string): Promise<string> {
  await extractCommit(repo, commit, dest);
  return await Deno.realPath(dest);
}
