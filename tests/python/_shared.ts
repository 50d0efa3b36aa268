/**
 * Shared pieces of the Python and oracle tests: a persistent test cache (uv's cache and built
 * environments, so the suite stays fast across runs), the sandboxes to test with, and temporary
 * directories that dispose themselves.
 *
 * @module
 */

import { join } from "node:path";
import { openSandbox } from "../../lib/sandbox/mod.ts";
import type { Sandbox } from "../../lib/sandbox/types.ts";
import type { ProjectTools, ToolsProject } from "../../lib/lang/mod.ts";
import { python, pythonTools, type TestEnv } from "../../lib/lang/python/mod.ts";

/** A directory under the persistent test cache (`~/.cache/bugbout-test/python`). */
export function testCache(...parts: string[]): string {
  // An empty variable counts as unset, as the XDG specification says.
  const base = Deno.env.get("BUGBOUT_TEST_CACHE") ||
    join(
      Deno.env.get("XDG_CACHE_HOME") || join(Deno.env.get("HOME") || "/tmp", ".cache"),
      "bugbout-test",
    );
  return join(base, "python", ...parts);
}

/** Where the tests' environments are built once and reused. */
export const ENVS_DIR = testCache("envs");

// uv's cache lives in the test cache too (uvEnv passes UV_CACHE_DIR through); never downloads
// a Python (uvEnv always sets UV_PYTHON_DOWNLOADS=never).
if (!Deno.env.get("UV_CACHE_DIR")) Deno.env.set("UV_CACHE_DIR", testCache("uv"));
Deno.env.set("UV_PYTHON_DOWNLOADS", "never");

/** The sandboxes every runner test runs under: `BUGBOUT_TEST_SANDBOXES`, default both. */
export const SANDBOX_KINDS = (Deno.env.get("BUGBOUT_TEST_SANDBOXES") ?? "bubblewrap,none")
  .split(",").map((k) => k.trim()).filter((k) => k) as ("bubblewrap" | "none")[];

const opened = new Map<string, Promise<Sandbox>>();

/** The real sandbox of a kind, opened (and probed) once per test file. */
export function sandbox(kind: "bubblewrap" | "none"): Promise<Sandbox> {
  let found = opened.get(kind);
  if (!found) {
    found = openSandbox(kind);
    opened.set(kind, found);
  }
  return found;
}

/** A temporary directory (real path) removed when disposed. */
export async function tempDir(prefix = "bugbout-test-"): Promise<
  AsyncDisposable & { path: string }
> {
  const path = await Deno.realPath(await Deno.makeTempDir({ prefix }));
  return {
    path,
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }).catch(() => {}),
  };
}

/** Write files (relative path → content) under `root`. */
export async function writeFiles(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const full = join(root, path);
    await Deno.mkdir(join(full, ".."), { recursive: true });
    await Deno.writeTextFile(full, content);
  }
}

/** Python's tools for `project`, with a test environment the test built already. */
export function toolsWith(project: ToolsProject, env: TestEnv): ProjectTools {
  return pythonTools(python, project, { env });
}
