/**
 * What one libtest binary printed under `cargo test`: a line per test
 * (`test m::t ... ok | FAILED | ignored`), the failures' panic messages, and the summary line
 * (`test result: FAILED. 3 passed; 1 failed; 0 ignored; ...`). libtest's stable output is read
 * because JUnit and JSON output need nightly options (`-Z unstable-options`) or cargo-nextest,
 * which a machine rarely has; the summary and the exit status are the cross-checks.
 *
 * Pure; no permissions.
 *
 * @module
 */

import type { Outcome } from "../../records.ts";

/** What a binary's output says. */
export interface LibtestOutput {
  /** Each test's outcome, by its path in the crate, as the lines say. */
  outcomes: Map<string, Outcome>;
  /** Paths printed more than once. */
  repeated: string[];
  /** The summary's counts, when a summary was printed (the last one). */
  summary?: { ok: boolean; passed: number; failed: number; ignored: number; filtered: number };
  /** Whether a `running N tests` line was printed (the binary started). */
  started: boolean;
  /** A failure's first message line, by path. */
  failures: Map<string, string>;
}

/** Read libtest's output. */
export function readLibtest(stdout: string): LibtestOutput {
  const out: LibtestOutput = {
    outcomes: new Map(),
    repeated: [],
    started: false,
    failures: new Map(),
  };
  const lines = stdout.split("\n");
  let section: string | undefined;
  for (const line of lines) {
    if (/^running \d+ tests?$/.test(line)) out.started = true;
    const t = line.match(/^test (\S+) \.\.\. (ok|FAILED|ignored)\b/);
    if (t) {
      if (out.outcomes.has(t[1])) out.repeated.push(t[1]);
      out.outcomes.set(t[1], t[2] === "ok" ? "passed" : t[2] === "FAILED" ? "failed" : "skipped");
      continue;
    }
    const s = line.match(
      /^test result: (ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored; \d+ measured; (\d+) filtered out/,
    );
    if (s) {
      out.summary = {
        ok: s[1] === "ok",
        passed: Number(s[2]),
        failed: Number(s[3]),
        ignored: Number(s[4]),
        filtered: Number(s[5]),
      };
      continue;
    }
    const head = line.match(/^---- (\S+) stdout ----$/);
    if (head) {
      section = head[1];
      continue;
    }
    if (section && !out.failures.has(section) && line.trim() && !/panicked at/.test(line)) {
      out.failures.set(section, line.trim().slice(0, 300));
    }
  }
  return out;
}

/** Why the output cannot be trusted (lines and summary disagree), or undefined. */
export function libtestMismatch(out: LibtestOutput, exitCode: number): string | undefined {
  if (out.repeated.length) return `printed the result of ${out.repeated[0]} twice`;
  if (!out.summary) return undefined;
  const counts = { passed: 0, failed: 0, skipped: 0 } as Record<string, number>;
  for (const o of out.outcomes.values()) counts[o] = (counts[o] ?? 0) + 1;
  const s = out.summary;
  if (counts.passed !== s.passed || counts.failed !== s.failed || counts.skipped !== s.ignored) {
    return `printed ${counts.passed} passing and ${counts.failed} failing tests, but its ` +
      `summary says ${s.passed} and ${s.failed}`;
  }
  if ((s.failed > 0) !== (exitCode !== 0) || s.ok !== (s.failed === 0)) {
    return `exited ${exitCode} with a summary of ${s.failed} failing tests`;
  }
  return undefined;
}
