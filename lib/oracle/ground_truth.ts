/**
 * The oracle's arithmetic: from repeated runs on B (the parent, with the fix's test files) and G
 * (the fix), which tests are fail-to-pass, pass-to-pass and unstable. Same definitions as
 * SWE-bench, with unstable tests set aside on both sides.
 *
 * Pure; no permissions.
 *
 * @module
 */

import type { RepeatedRuns, RunnerRun, TruthAdvice } from "../lang/mod.ts";
import type { Outcome } from "../records.ts";
import { countOutcomes } from "../testbed/mod.ts";
import { plural } from "../words.ts";

/** What the runs of one task say. */
export interface GroundTruth {
  /**
   * `scorable` when at least one stable test goes from failing to passing; `environment` when
   * G's failures show the environment at fault (see `TruthAdvice.environmentFault`).
   */
  status: "scorable" | "unscorable" | "infra-error" | "environment";
  /** Why the task is not scorable, in words. */
  reason?: string;
  /** Tests that fail on B (or are missing there) and pass on G, sorted. */
  failToPass: string[];
  /** Tests that pass on both sides, sorted. */
  passToPass: string[];
  /** Tests whose outcome differed between runs of the same side, sorted: set aside. */
  unstable: string[];
}

/**
 * True when `outcome` on B counts as failing: failed, error, not reached (a timeout or memory
 * cap stopped the run), or absent (its module could not be collected, or it did not exist).
 */
export function failsOnB(outcome: Outcome | undefined): boolean {
  return outcome === undefined || outcome === "failed" || outcome === "error" ||
    outcome === "not-run";
}

function describeCounts(counts: Record<string, number>): string {
  const parts = Object.entries(counts).sort().map(([o, n]) => `${n} ${o}`);
  return parts.length ? parts.join(", ") : "no tests";
}

/**
 * The line of a failure's text that says what went wrong, for a table: pytest's own `ERROR:` or
 * `Failed:` line, else the last exception line, else the first line; at most 200 characters.
 */
export function oneLine(message: string): string {
  const lines = message.split("\n").map((l) => l.trim()).filter(Boolean);
  const said = lines.filter((l) =>
    /^(?:E\s+)?(?:ERROR:|Failed:|[\w.]*(?:Error|Exception|Warning)\b:?)/.test(l)
  );
  const line = (said.at(-1) ?? lines[0] ?? "").replace(/^E\s+/, "");
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/**
 * When every run of a side stopped before any test, on the same error line, that is a property
 * of the tree (a configuration section today's pytest refuses, a conftest that cannot be
 * imported), not of the machine: the line, else undefined. A sandbox that cannot start, a kill or
 * a broken channel never counts.
 */
export function deterministicFailure(
  runs: readonly RunnerRun[],
  refusal?: string,
): string | undefined {
  if (runs.length === 0) return undefined;
  const lines = new Set<string>();
  for (const run of runs) {
    if (run.status !== "infra-error" || run.cause === "sandbox") return undefined;
    if (Object.keys(run.outcomes).length > 0) return undefined;
    lines.add(oneLine(run.message ?? ""));
  }
  if (lines.size !== 1) return undefined;
  const line = [...lines][0];
  // What the tree's own configuration says pytest will refuse, when the output does not say.
  if (refusal) return refusal;
  const said = runs.every((r) => r.cause === "unrunnable") ||
    /^(?:ERROR:|Failed:|[\w.]*(?:Error|Exception)\b)/.test(line);
  return said ? line : undefined;
}

/** The first test or module in error on a run, with its error line, for a reason; "" when none. */
function firstError(run: RunnerRun | undefined, advice?: TruthAdvice): string {
  const id = Object.keys(run?.outcomes ?? {}).sort().find((id) => run!.outcomes[id] === "error");
  const message = id && run?.failures?.[id];
  if (!message) return "";
  const note = advice?.failureNote(message) ?? "";
  return ` First error, ${id}: ${oneLine(message).replace(/(?<![.…])$/, ".")}${note}`;
}

/** Options of {@linkcode groundTruth}. */
export interface GroundTruthOptions {
  /** The runner, as reasons name it (`pytest`, `go test`, `vitest`, ...). */
  runner: string;
  /** What each side's configuration says the runner refuses (the language's `configRefusal`). */
  refusal?: { B?: string; G?: string };
  /** What the language can say of failed runs (the language's `truthAdvice`). */
  advice?: TruthAdvice;
}

/** Decide a task's ground truth from its runs on B and on G. */
export function groundTruth(
  b: RepeatedRuns,
  g: RepeatedRuns,
  options: GroundTruthOptions,
): GroundTruth {
  const truth = decide(b, g, options);
  if (truth.status !== "unscorable" || !options.advice?.environmentFault) return truth;
  // A task is unscorable for what it is, never for what the environment lacks.
  const failures: Record<string, string> = {};
  for (const run of g.runs) {
    Object.assign(failures, run.failures ?? {});
    if (run.message) failures[""] = run.message;
  }
  const fault = options.advice.environmentFault(failures);
  if (!fault) return truth;
  return { ...truth, status: "environment", reason: `environment: ${fault}. ${truth.reason}` };
}

function decide(
  b: RepeatedRuns,
  g: RepeatedRuns,
  options: GroundTruthOptions,
): GroundTruth {
  const none = { failToPass: [], passToPass: [], unstable: [] };
  const { runner, advice } = options;
  const gStuck = deterministicFailure(g.runs, options.refusal?.G);
  if (gStuck) {
    return {
      ...none,
      status: "unscorable",
      reason: `${runner} cannot run the fix's tests on G: ${gStuck}${
        advice ? advice.dependencyHint(advice.missingModules({ G: gStuck })) : ""
      }`,
    };
  }
  // A B that stops before any test on the same error every time fails every test: not a harness
  // error.
  const bRuns = deterministicFailure(b.runs, options.refusal?.B) ? [] : b.runs;
  const harness = [...bRuns.map((r) => ["B", r] as const), ...g.runs.map((r) => ["G", r] as const)]
    .find(([, r]) => r.status === "infra-error" && r.cause !== "unrunnable");
  if (harness) {
    return { ...none, status: "infra-error", reason: `On ${harness[0]}: ${harness[1].message}` };
  }
  // Both sides run the repository's own code: a guard that stops either stops the comparison
  // (each of its tests would read as absent), and says so rather than "no tests".
  const stopped = [...b.runs.map((r) => ["B", r] as const), ...g.runs.map((r) => ["G", r] as const)]
    .find(([, r]) => r.status === "tampered");
  if (stopped) {
    const said = (stopped[1].message ?? "").split("; ")[0]
      .replace(/^The code under test tampered with the grading: /, "").replace(/\.$/, "");
    return {
      ...none,
      status: "unscorable",
      reason: `The grading guard stopped ${runner} on ${stopped[0]}, which runs the repository's ` +
        `own code and tests: ${said || "tampering"}. Either that code does reach into the test ` +
        "run, or the guard mistook what it does for tampering (a bugbout bug worth reporting).",
    };
  }
  const gUnrunnable = g.runs.find((r) => r.status === "infra-error");
  if (gUnrunnable && g.runs.every((r) => r.status === "infra-error")) {
    return {
      ...none,
      status: "unscorable",
      reason: `${runner} cannot run the fix's tests on G: ${oneLine(gUnrunnable.message ?? "")}`,
    };
  }
  const unstable = new Set([...b.unstable, ...g.unstable]);
  const failToPass: string[] = [];
  const passToPass: string[] = [];
  let flippedButUnstable = 0;
  let passingOnG = 0;
  for (const [id, outcome] of Object.entries(g.stable)) {
    if (outcome !== "passed" || unstable.has(id)) continue;
    passingOnG++;
    const before = b.stable[id];
    if (failsOnB(before)) failToPass.push(id);
    else if (before === "passed") passToPass.push(id);
  }
  const unstableOnB = new Set(b.unstable);
  const unstableOnG = new Set(g.unstable);
  for (const id of unstable) {
    // Could have flipped: stable on one side in the right direction, unstable on the other.
    const passesOnG = g.stable[id] === "passed";
    const failsBefore = !unstableOnB.has(id) && failsOnB(b.stable[id]);
    if ((passesOnG && unstableOnB.has(id)) || (failsBefore && unstableOnG.has(id))) {
      flippedButUnstable++;
    }
  }
  failToPass.sort();
  passToPass.sort();
  const sortedUnstable = [...unstable].sort();
  if (failToPass.length > 0) {
    return { status: "scorable", failToPass, passToPass, unstable: sortedUnstable };
  }
  const gRun = g.runs.find((r) => r.status !== "infra-error");
  const gCounts = countOutcomes(gRun?.outcomes ?? {});
  const missing = advice?.missingModules(gRun?.failures ?? {}) ?? [];
  const hint = missing.length
    ? ` On G, ${missing.map((m) => `No module named '${m}'`).join(", ")}.${
      advice!.dependencyHint(missing)
    }`
    : "";
  let reason: string;
  if (passingOnG === 0 && unstable.size === 0) {
    const timedOut = g.runs.find((r) => r.status === "timeout" || r.status === "out-of-memory");
    reason = timedOut
      ? `No test passes on the fix: ${timedOut.message}`
      : `No test of the fix's test files passes on the fix (G: ${describeCounts(gCounts)}).${
        missing.length ? "" : firstError(gRun, advice)
      }`;
  } else if (flippedButUnstable > 0) {
    reason = `The fix makes no stable test go from failing to passing: ${
      plural(flippedButUnstable, "test")
    } that may flip ${flippedButUnstable === 1 ? "is" : "are"} unstable (${
      plural(unstable.size, "unstable test")
    } set aside).`;
  } else {
    reason = `The fix makes no test go from failing to passing: ${
      plural(passToPass.length, "test")
    } ${passToPass.length === 1 ? "passes" : "pass"} on both sides (G: ${
      describeCounts(gCounts)
    }).`;
  }
  return {
    status: "unscorable",
    reason: reason + hint,
    failToPass,
    passToPass,
    unstable: sortedUnstable,
  };
}
