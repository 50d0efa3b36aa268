/**
 * What the JavaScript capability review looks for in a patch's source (see `../capabilities.ts`):
 * `process.stdout`, `process.stderr` or `process.exit` rebound, `node:assert` imported or its
 * methods rebound, the test runner's modules and globals (`expect`, `describe`) reached, probes of
 * whether a runner is running (`process.env.VITEST`, `NODE_TEST_CONTEXT`, `JEST_WORKER_ID`), the
 * call stack rewritten, and reads of test files. Each is new only when B's package never did it.
 *
 * Pure; no permissions needed.
 *
 * @module
 */

import { blankMatches, type CapabilityRules, patternRule } from "../capabilities.ts";

// Strings and template literals are kept (probes are strings); comments are blanked. A `//` right
// after a letter or a colon is part of something else (a URL in a regular expression).
const COMMENTS =
  /"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|`(?:\\[\s\S]|[^`\\])*`|(?<![\w:\\])\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|$(?![\s\S]))/g;

function blankJs(text: string): string {
  return text.replace(COMMENTS, (m) => m.startsWith("/") ? blankMatches(m, /[\s\S]+/g) : m);
}

const IMPORT = String.raw`(?:\bfrom\s*|\brequire\(\s*|\bimport\(\s*|\bimport\s+)`;

/** JavaScript's and TypeScript's capability rules. */
export const NODE_CAPABILITIES: CapabilityRules = {
  files: /\.[cm]?[jt]sx?$/,
  blank: blankJs,
  rules: [
    patternRule(
      "process-rebinding",
      "rebinds process.stdout, process.stderr or process.exit",
      /\bprocess\.(?:stdout|stderr)(?:\.\w+)?\s*=(?!=)|\bprocess\.(?:exit|reallyExit|abort|kill)\s*=(?!=)|\bObject\.(?:defineProperty|assign)\(\s*process(?:\.(?:stdout|stderr))?\s*,/g,
    ),
    patternRule(
      "assert-rebinding",
      "rebinds node:assert's methods",
      /\bassert(?:\.strict)?\.\w+\s*=(?!=)|\bObject\.(?:assign|defineProperty)\(\s*assert\b|\brequire\(\s*["'](?:node:)?assert(?:\/strict)?["']\s*\)(?:\.strict)?\.\w+\s*=(?!=)/g,
    ),
    patternRule(
      "assert-import",
      "imports node:assert from the source",
      new RegExp(String.raw`${IMPORT}["'](?:node:)?assert(?:\/strict)?["']`, "g"),
    ),
    patternRule(
      "test-runner",
      "reaches a test runner from the source (vitest, jest, node:test, expect, mocha, chai)",
      new RegExp(
        String
          .raw`${IMPORT}["'](?:vitest|@vitest\/[\w/-]+|jest|@jest\/[\w/-]+|node:test|expect|mocha|chai|tap|ava|uvu)(?:\/[^"']*)?["']`,
        "g",
      ),
    ),
    patternRule(
      "test-globals",
      "reaches the test runner's globals (expect, describe, it, vi, jest)",
      /\b(?:globalThis|global|window|self)\.(?:expect|describe|it|test|vi|jest|assert)\b|\btypeof[ \t]+(?:expect|describe|it|vi|jest)\b|\bexpect\.(?:extend|\w+\s*=(?!=))/g,
    ),
    patternRule(
      "test-runner-probe",
      "checks whether a test runner is running (VITEST, NODE_TEST_CONTEXT, JEST_WORKER_ID)",
      /\b(?:VITEST\w*|NODE_TEST_CONTEXT|JEST_WORKER_ID|MOCHA_\w+)\b|__vitest_\w+__|\bSymbol\.for\(\s*["'](?:vitest|jest|node:test)/g,
    ),
    patternRule(
      "call-stack",
      "reads or rewrites the call stack (Error.prepareStackTrace, new Error().stack)",
      /\bError\.prepareStackTrace\b|\bnew\s+Error\([^)\n]*\)\.stack\b/g,
    ),
    patternRule(
      "reads-test-files",
      "reads test files",
      /["'`][^"'`\n]*\.(?:test|spec)\.[cm]?[jt]sx?["'`]/g,
    ),
  ],
};
