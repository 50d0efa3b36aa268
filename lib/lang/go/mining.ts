/**
 * What mining needs of Go beside `go test`'s runner: which of a change's new tests only skip
 * (`t.Skip()` first), and which modules a `go.mod` change requires anew (a test that needs one
 * cannot build on B, whose module cache lacks it).
 *
 * Pure; no permissions needed.
 *
 * @module
 */

import type { RunnerCode, TestMarks } from "../mining.ts";
import { parseId } from "./ids.ts";

/** The modules a `go.mod` requires (each `require` line or block entry). */
function required(text: string): Set<string> {
  const found = new Set<string>();
  let block = false;
  for (const raw of text.split("\n")) {
    const line = raw.replace(/\/\/.*$/, "").trim();
    if (/^require\s*\($/.test(line)) block = true;
    else if (block && line === ")") block = false;
    else {
      const m = block ? line.match(/^(\S+)\s+v\S+/) : line.match(/^require\s+(\S+)\s+v\S+/);
      if (m) found.add(m[1]);
    }
  }
  return found;
}

/** The modules `after` requires that `before` did not. */
export function goModAdded(before: string | null, after: string): string[] {
  const old = before === null ? new Set<string>() : required(before);
  return [...required(after)].filter((m) => !old.has(m)).sort();
}

/**
 * Of a test file's tests, those whose function skips before it checks anything, when all of them
 * do (else none).
 */
export function goMarks(_path: string, text: string, ids: readonly string[]): TestMarks {
  const none = { skipped: [], typeOnly: [] };
  for (const id of ids) {
    const parsed = parseId(id);
    if (!parsed) return none;
    const name = parsed.path[0].replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const skips = new RegExp(
      String
        .raw`^func\s+${name}\s*\(\s*\w+\s+\*testing\.[TB]\s*\)\s*\{\s*\n\s*\w+\.Skip(?:f|Now)?\(`,
      "m",
    );
    if (!skips.test(text)) return none;
  }
  return { skipped: [...ids], typeOnly: [] };
}

/** What mining counts as Go source and test code, and what it reads of a change's tests. */
export const GO_MINING: RunnerCode = {
  source: /\.(go|s|c|h|cc|cpp|hpp)$/,
  tests: /_test\.go$/,
  marks: goMarks,
  dependencies: { file: /(^|\/)go\.mod$/, added: goModAdded },
};
