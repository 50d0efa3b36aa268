/**
 * What `bugbout evidence` is asked and what it reports, in every language (`mod.ts` for Python,
 * `runner.ts` for Go and JavaScript). Pure; no permissions.
 *
 * @module
 */

import type { Config } from "../config.ts";
import type { ProjectTools } from "../lang/mod.ts";
import type { Language, Outcome, RunSummary } from "../records.ts";
import type { Sandbox } from "../sandbox/types.ts";
import { type EvidenceRole, evidenceRole, inadequateClosure, replayClass } from "../roles.ts";

/** Where a test stands on one side: every run failed, every run passed, they disagree, or none. */
export type Standing = "fails" | "passes" | "unstable" | "none";

/** Where a test stands on one side, from its outcomes there. */
export function standing(outcomes: readonly Outcome[]): Standing {
  const c = replayClass(outcomes);
  return c === "fail" ? "fails" : c === "pass" ? "passes" : c;
}

/** One test's check from its outcomes on the base, the change and the reference (if any). */
export function evidenceCheck(
  test: string,
  base: Outcome[],
  change: Outcome[],
  reference: Outcome[] | null,
): EvidenceCheck {
  return {
    test,
    base,
    change,
    reference,
    onBase: standing(base),
    onChange: standing(change),
    onReference: reference ? standing(reference) : null,
    discriminating: standing(base) === "fails",
    role: reference ? evidenceRole({ B: base, G: reference }) : null,
  };
}

/** Fill a report's counts from its checks: discriminating tests, and closure when source changed. */
export function closeReport(report: EvidenceReport, sourceChanged: boolean): void {
  report.discriminating = report.tests.filter((t) => t.discriminating).length;
  report.inadequateClosure = sourceChanged
    ? inadequateClosure({
      patch: true,
      tests: report.tests.map((t) => ({ B: t.base, S: t.change })),
    })
    : null;
}

/** Options for {@linkcode checkEvidence}. */
export interface EvidenceOptions {
  /** The working tree (any directory inside it). Default: the current directory. */
  dir?: string;
  /** The revision before the change. Default `HEAD`. */
  base?: string;
  /** A reference fix to replay the tests on too. */
  against?: string;
  /** What counts as a test file (globs); default: {@linkcode defaultTestGlobs}. */
  tests?: readonly string[];
  /** A `bugbout.toml` to use; by default the one at the repository's top, if any. */
  config?: string;
  /** `BUGBOUT_HOME`; by default from the environment. */
  home?: string;
  /** The sandbox; by default `[run] sandbox` (or `auto`), checked. */
  sandbox?: Sandbox;
  /** The tools to run the tests with; by default the project's language's, made for the check. */
  tools?: ProjectTools;
  /**
   * Where a Go or JavaScript project's test environments are kept (prepared once per dependency
   * set); by default under `BUGBOUT_HOME`, as the stages keep them.
   */
  runnerCache?: string;
  /** Called with a line of progress now and then. */
  onProgress?: (message: string) => void;
  /** Stop the runs. */
  signal?: AbortSignal;
}

/** One new or changed test of the change. */
export interface EvidenceCheck {
  /** Its id in the working tree (pytest's node id, or the Go or JavaScript runner's). */
  test: string;
  /** Its outcome in each run on the base (B). */
  base: Outcome[];
  /** Its outcome on the working tree as it is (S). */
  change: Outcome[];
  /** Its outcome in each run on the reference fix (G), or null without `--against`. */
  reference: Outcome[] | null;
  /** Where it stands on the base. */
  onBase: Standing;
  /** Where it stands on the change. */
  onChange: Standing;
  /** Where it stands on the reference, or null. */
  onReference: Standing | null;
  /** It fails on the base in every run: it discriminates the bug. */
  discriminating: boolean;
  /** Its BSG-VA role with a reference fix, else null. */
  role: EvidenceRole | null;
}

/** What `bugbout evidence` found. */
export interface EvidenceReport {
  /** The repository's top directory. */
  repository: string;
  /** The base revision as given, and its commit. */
  base: { rev: string; commit: string };
  /** The reference fix as given, and its commit, or null. */
  against: { rev: string; commit: string } | null;
  /** The test globs used. */
  globs: string[];
  /** Changed paths in the test-only part. */
  testFiles: string[];
  /** Changed paths in the rest of the change. */
  sourceFiles: string[];
  /** Every new or changed test. */
  tests: EvidenceCheck[];
  /** Tests that fail on the base. */
  discriminating: number;
  /**
   * With a source change: true when no test both fails on the base and passes on the change
   * (evidence-inadequate closure). Null when the change has no source part.
   */
  inadequateClosure: boolean | null;
  /** Every pytest session (every test run, for Go or JavaScript). */
  runs: RunSummary[];
  /** Things worth knowing about how the check ran. */
  notes: string[];
}

/** What a check is told by: the project's `bugbout.toml`, or what was found in the tree. */
export interface Settings {
  config?: Config;
  /** Python (the default), or a Go module or JavaScript project, checked by its test runner. */
  language: Language;
  source?: string;
  tests?: string;
  notes: string[];
}

/** The repository, its settings and the revisions a check compares. */
export interface Subject {
  root: string;
  home: string;
  settings: Settings;
  base: { rev: string; commit: string };
  against: { rev: string; commit: string } | null;
}
