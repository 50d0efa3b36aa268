/**
 * What Go's capability review looks for in a patch's non-test source (see `../capabilities.ts`):
 * the process ended from `init()` (before any test runs), stdout or stderr rebound, `testing`
 * imported from a file that is not a test, probes of whether the binary is a test binary
 * (`flag.Lookup("test.v")`, `os.Args[0]` ending in `.test`) and reads of test files. Each is new
 * only when B's module never did it.
 *
 * Pure; no permissions needed.
 *
 * @module
 */

import {
  blankMatches,
  type CapabilityRule,
  type CapabilityRules,
  patternRule,
} from "../capabilities.ts";

// Strings are kept (probes are strings); comments are blanked.
const COMMENTS =
  /"(?:\\.|[^"\\\n])*"|`[^`]*`|'(?:\\.|[^'\\\n])*'|\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|$(?![\s\S]))/g;

function blankGo(text: string): string {
  return text.replace(COMMENTS, (m) => m.startsWith("/") ? blankMatches(m, /[\s\S]+/g) : m);
}

const EXIT = /\b(?:os|syscall|unix)\.Exit\s*\(|\bruntime\.Goexit\s*\(/g;

/** `os.Exit` and its kind inside the body of a `func init()`, found by matching braces. */
const exitFromInit: CapabilityRule = {
  id: "exit-from-init",
  reason: "ends the process from init(), before any test runs (os.Exit, syscall.Exit)",
  find(text) {
    const found: number[] = [];
    for (const m of text.matchAll(/^func[ \t]+init[ \t]*\([ \t]*\)[ \t]*\{/gm)) {
      let depth = 1;
      let i = m.index + m[0].length;
      for (; i < text.length && depth > 0; i++) {
        if (text[i] === "{") depth++;
        else if (text[i] === "}") depth--;
      }
      const body = text.slice(m.index, i);
      for (const e of body.matchAll(EXIT)) found.push(m.index + e.index);
    }
    return found;
  },
};

/** Go's capability rules (test files are never source, so every file here is not a test). */
export const GO_CAPABILITIES: CapabilityRules = {
  files: /\.go$/,
  blank: blankGo,
  rules: [
    exitFromInit,
    patternRule(
      "stdout-rebinding",
      "rebinds the process's stdout or stderr (os.Stdout =, Dup2)",
      /\bos\.(?:Stdout|Stderr)\s*=(?!=)|\b(?:syscall|unix)\.Dup[23]?\s*\(/g,
    ),
    patternRule(
      "testing-import",
      "imports testing from a file that is not a test",
      /^[ \t]*(?:import[ \t]+)?(?:[\w.]+[ \t]+)?"testing(?:\/[\w/]+)?"[ \t]*$/gm,
    ),
    patternRule(
      "test-binary-probe",
      'checks whether it runs under go test (flag.Lookup("test.…"), os.Args[0] ending in .test)',
      /\bflag\.Lookup\(\s*"test\.|"-test\.\w*|\bos\.Args\[0\][^\n]*"\.test"|\btesting\.Testing\(\)/g,
    ),
    patternRule(
      "reads-test-files",
      "reads test files",
      /"[^"\n]*_test\.go"/g,
    ),
  ],
};
