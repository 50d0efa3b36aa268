/**
 * What mining needs of JavaScript/TypeScript beside its runner: which of a change's new tests are
 * always skipped (`it.skip`, `test.todo`, `xit`, inside a `describe.skip`) or check types only
 * (`expectTypeOf`, `assertType`: a run checks nothing), which packages a `package.json` change
 * adds, and that a change to declaration files only (`.d.ts`) is typing only.
 *
 * Pure; no permissions needed.
 *
 * @module
 */

import type { RunnerCode, TestMarks } from "../mining.ts";

const SKIPPING = /(?:^x(?:it|test|describe)$|\.(?:skip|todo)$)/;

function quoted(name: string): string {
  const text = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return String.raw`(?:'${text}'|"${text}"|\`${text}\`)`;
}

/** The call that declares `name`, and where it starts, if the text has one. */
function declaration(text: string, name: string): { callee: string; at: number } | undefined {
  const m = new RegExp(String.raw`([A-Za-z_$][\w$.]*)\s*\(\s*${quoted(name)}`).exec(text);
  return m ? { callee: m[1], at: m.index } : undefined;
}

/**
 * Of a test file's tests (`file > describe > name`), those always skipped and those only typed,
 * when every one is either (else none).
 */
export function nodeMarks(_path: string, text: string, ids: readonly string[]): TestMarks {
  const skipped: string[] = [];
  const typeOnly: string[] = [];
  const none = { skipped: [], typeOnly: [] };
  for (const id of ids) {
    const [, ...names] = id.split(" > ");
    const calls = names.map((n) => declaration(text, n));
    if (calls.some((c) => c && SKIPPING.test(c.callee))) {
      skipped.push(id);
      continue;
    }
    const own = calls.at(-1);
    if (!own) return none;
    // The test's own text: up to the next test or suite declared after it.
    const rest = text.slice(own.at + own.callee.length);
    const next = rest.slice(1).search(/\b(?:it|test|describe|suite)(?:\.\w+)*\s*\(/);
    const body = next < 0 ? rest : rest.slice(0, next + 1);
    if (!/\b(?:expectTypeOf|assertType)\b/.test(body) || /\b(?:expect|assert)\s*\(/.test(body)) {
      return none;
    }
    typeOnly.push(id);
  }
  return { skipped, typeOnly };
}

const DEPENDENCY_SECTIONS = [
  "dependencies",
  "devDependencies",
  "peerDependencies",
  "optionalDependencies",
];

function dependencies(text: string | null): Set<string> {
  if (text === null) return new Set();
  try {
    const data = JSON.parse(text) as Record<string, unknown>;
    return new Set(
      DEPENDENCY_SECTIONS.flatMap((section) => {
        const entries = data[section];
        return entries && typeof entries === "object" ? Object.keys(entries) : [];
      }),
    );
  } catch {
    return new Set(); // unparsable: it tells nothing of what the change adds
  }
}

/** The packages `after` depends on that `before` did not. */
export function packageJsonAdded(before: string | null, after: string): string[] {
  const old = dependencies(before);
  return [...dependencies(after)].filter((name) => !old.has(name)).sort();
}

/** What mining counts as JavaScript/TypeScript source and test code, and reads of tests. */
export const NODE_MINING: RunnerCode = {
  source: /\.([cm]?[jt]sx?|vue|svelte|astro)$/,
  tests: /\.[cm]?[jt]sx?$/,
  marks: nodeMarks,
  dependencies: { file: /(^|\/)package\.json$/, added: packageJsonAdded },
  typingOnly: (path) => /\.d\.[cm]?ts$/.test(path),
};
