/**
 * Helpers for tests that run the real CLI as a subprocess and compare its output with golden files.
 *
 * @module
 */

import { equal } from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));

/** What a CLI run printed. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run `deno run -A main.ts ...args` in `cwd` with a controlled environment. */
export async function runBugbout(
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; stdin?: string } = {},
): Promise<CliRun> {
  // The machine's own settings (TLS certificates for uv, caches) pass through; what changes the
  // output (colour) or could reach a real service (a GitHub token) does not.
  const env: Record<string, string> = {
    ...Deno.env.toObject(),
    NO_COLOR: "1",
    UV_PYTHON_DOWNLOADS: "never",
    DENO_NO_UPDATE_CHECK: "1",
    ...options.env,
  };
  for (const key of ["GITHUB_TOKEN", "GH_TOKEN", "FORCE_COLOR"]) {
    if (!(options.env && key in options.env)) delete env[key];
  }
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", join(ROOT, "main.ts"), ...args],
    cwd: options.cwd,
    env,
    clearEnv: true,
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.stdin));
    await writer.close();
  }
  const out = await child.output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

/** Replace machine-specific parts (paths, versions, timings) with placeholders. */
export function normalize(text: string, replacements: Record<string, string> = {}): string {
  let out = text;
  const pairs = Object.entries(replacements).sort((a, b) => b[0].length - a[0].length);
  for (const [from, to] of pairs) out = out.split(from).join(to);
  return out
    .replace(/\b\d+\.\d+(\.\d+)?(s|ms)\b/g, "<time>")
    .replace(/uv \d+\.\d+\.\d+/g, "uv <version>")
    .replace(/Python 3\.\d+\.\d+/g, "Python <version>")
    .replace(/bubblewrap \d+\.\d+(\.\d+)?/g, "bubblewrap <version>");
}

/** Compare `actual` with `tests/golden/<name>`; `UPDATE_GOLDEN=1` rewrites the file instead. */
export async function assertGolden(name: string, actual: string): Promise<void> {
  const file = join(ROOT, "tests", "golden", name);
  if (Deno.env.get("UPDATE_GOLDEN") === "1") {
    await Deno.writeTextFile(file, actual);
    return;
  }
  let expected: string;
  try {
    expected = await Deno.readTextFile(file);
  } catch {
    throw new Error(`Golden file ${file} is missing; run with UPDATE_GOLDEN=1 to create it.`);
  }
  equal(actual, expected, `output differs from tests/golden/${name}`);
}

/** A temporary directory removed at the end of the scope (`await using`). */
export async function tempDir(prefix = "bugbout-test-") {
  const path = await Deno.makeTempDir({ prefix });
  return {
    path,
    async [Symbol.asyncDispose]() {
      await Deno.remove(path, { recursive: true }).catch(() => {});
    },
  };
}

/**
 * `path` without `deno`: each directory on it that holds a `deno` is replaced by a directory under
 * `scratch` of links to everything else in it, so every other program is found as before. For
 * children that must not find Deno (bugbout re-runs itself, never a `deno` on PATH).
 */
export async function pathWithoutDeno(
  scratch: string,
  path = Deno.env.get("PATH") ?? "",
): Promise<string> {
  const dirs: string[] = [];
  for (const [i, dir] of path.split(":").filter(Boolean).entries()) {
    const hasDeno = await Deno.lstat(join(dir, "deno")).then(() => true, () => false);
    if (!hasDeno) {
      dirs.push(dir);
      continue;
    }
    const shadow = join(scratch, String(i));
    await Deno.mkdir(shadow, { recursive: true });
    for await (const entry of Deno.readDir(dir)) {
      if (entry.name !== "deno") {
        await Deno.symlink(join(dir, entry.name), join(shadow, entry.name));
      }
    }
    dirs.push(shadow);
  }
  return dirs.join(":");
}
