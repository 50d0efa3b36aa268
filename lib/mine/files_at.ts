/**
 * Read a few files at a revision in one `git cat-file --batch` process, and the project's pytest
 * discovery rules from its configuration files.
 *
 * Requires `--allow-run=git`.
 *
 * @module
 */

import { gitRun } from "../git.ts";
import { CONFIG_FILES, type PytestRules, pytestRules } from "../python/mod.ts";

/** The text of each of `paths` at `rev`; absent paths (or non-files) are left out. */
export async function readFilesAt(
  repo: string,
  rev: string,
  paths: readonly string[],
): Promise<Record<string, string>> {
  if (paths.length === 0) return {};
  const result = await gitRun(["cat-file", "--batch"], {
    cwd: repo,
    stdin: paths.map((p) => `${rev}:${p}`).join("\n") + "\n",
    maxOutputBytes: 256 * 1024 * 1024,
  });
  const bytes = new TextEncoder().encode(result.stdout);
  const decoder = new TextDecoder();
  const files: Record<string, string> = {};
  let at = 0;
  for (const path of paths) {
    const eol = bytes.indexOf(10, at);
    if (eol < 0) break;
    const header = decoder.decode(bytes.subarray(at, eol));
    at = eol + 1;
    const match = header.match(/^[0-9a-f]+ (\w+) (\d+)$/);
    if (!match) continue; // "<name> missing" or "ambiguous"
    const size = Number(match[2]);
    if (match[1] === "blob") files[path] = decoder.decode(bytes.subarray(at, at + size));
    at += size + 1;
  }
  return files;
}

/** The project's pytest discovery rules, read from its configuration files at `rev`. */
export async function readPytestRules(repo: string, rev: string): Promise<PytestRules> {
  return pytestRules(await readFilesAt(repo, rev, CONFIG_FILES));
}
