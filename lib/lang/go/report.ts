/**
 * Read what one Go test binary said and did: its output in `-test.v=test2json` mode (framing lines
 * start with the byte 0x16, everything else is the tests' own output) and its exit status.
 *
 * The binary runs the code under test in its own process, so that code can write anything the
 * testing package writes, framing byte included. What is checked, because a forger who is not
 * careful gets it wrong (and the real testing package never does):
 *
 * - a result for a test that never started, a test started or reported twice, a subtest reported
 *   after its parent, a parent passing while a subtest failed, a result after the final summary;
 * - the exit status against the report: 0 only when every test passed and the summary said PASS
 *   (a process that exits 0 while a test runs — `syscall.Exit(0)`; `os.Exit(0)` already panics
 *   under `-test.paniconexit0` — or without the summary), non-zero only when something failed;
 * - result-shaped lines without the framing byte, and the framing byte in the middle of a line,
 *   are worth a look (`suspect`), not tampering by themselves;
 * - a process that dies before its summary (a panic, an exit) keeps its failures, and its passes
 *   only when the code is trusted (the maintainers', for the ground truth).
 *
 * What cannot be told apart: a consistent forgery (every requested test started and passed in
 * order, the summary, then `syscall.Exit(0)` before the real report) looks exactly like a run.
 *
 * Pure; no permissions.
 *
 * @module
 */

import type { GuardEvent } from "../../records.ts";
import type { Outcome, RunStatus } from "../../records.ts";

/** The framing byte of `-test.v=test2json` output. */
export const MARKER = "\x16";

/** What a binary's output says, before its exit status is weighed. */
export interface BinaryOutput {
  /** Result of every test that reported one, by name (`TestX/case`). */
  results: Map<string, { outcome: "passed" | "failed" | "skipped"; seconds: number }>;
  /** Tests that started, in order. */
  started: string[];
  /** The summary line (`PASS` or `FAIL`), if any. */
  summary?: "PASS" | "FAIL";
  /** The first line each test printed (its failure's first line when it failed). */
  firstLine: Map<string, string>;
  /** The first line of a panic (`panic: ...`, `fatal error: ...`). */
  panic?: string;
  /** The testing package's own timeout fired. */
  timedOut: boolean;
  /** The Go runtime ran out of memory. */
  outOfMemory: boolean;
  /** Evidence that the report was forged. */
  tamper: GuardEvent[];
  /** Things worth a look that are not tampering by themselves. */
  suspect: GuardEvent[];
}

const RESULT = /^--- (PASS|FAIL|SKIP): (.*) \((\d+(?:\.\d+)?)s\)$/;
const OUTCOME = { PASS: "passed", FAIL: "failed", SKIP: "skipped" } as const;

/** Read a binary's output. `where` names the package in events. */
export function readOutput(text: string, where: string): BinaryOutput {
  const out: BinaryOutput = {
    results: new Map(),
    started: [],
    firstLine: new Map(),
    timedOut: false,
    outOfMemory: false,
    tamper: [],
    suspect: [],
  };
  const started = new Set<string>();
  let current = "";
  const tamper = (what: string, detail?: string) =>
    out.tamper.push({ what, where, ...(detail ? { detail } : {}) });
  for (const line of text.split("\n")) {
    if (!line.startsWith(MARKER)) {
      if (line.includes(MARKER)) {
        out.suspect.push({ what: "printed the framing byte 0x16 inside a line", where });
      }
      if (/^\s*(--- (PASS|FAIL|SKIP):|=== RUN|ok\s|PASS$)/.test(line)) {
        out.suspect.push({ what: "printed a line shaped like a test result", where, detail: line });
      }
      if (!out.panic && /^(panic: |fatal error: )/.test(line)) out.panic = line;
      if (/^panic: test timed out after /.test(line)) out.timedOut = true;
      if (/^fatal error: (runtime: )?out of memory/.test(line)) out.outOfMemory = true;
      const said = line.trim();
      if (current && said && !out.firstLine.has(current)) out.firstLine.set(current, said);
      continue;
    }
    const frame = line.slice(1);
    if (frame === "PASS" || frame === "FAIL") {
      if (out.summary) tamper("reported the summary twice", frame);
      out.summary = frame;
      current = "";
      continue;
    }
    const event = /^=== (RUN|PAUSE|CONT|NAME) *(.*)$/.exec(frame);
    if (event) {
      const name = event[2];
      if (event[1] === "RUN") {
        if (out.summary) tamper("started a test after the summary", name);
        if (started.has(name)) tamper("started a test twice", name);
        started.add(name);
        out.started.push(name);
      }
      current = name;
      continue;
    }
    const result = RESULT.exec(frame);
    if (!result) {
      out.suspect.push({ what: "printed an unknown framing line", where, detail: frame });
      continue;
    }
    const [, word, name, seconds] = result;
    const outcome = OUTCOME[word as keyof typeof OUTCOME];
    if (out.summary) tamper("reported a result after the summary", name);
    if (!started.has(name)) tamper("reported a result for a test that never started", name);
    const before = out.results.get(name);
    if (before) {
      tamper("reported a test twice", `${name}: ${before.outcome}, then ${outcome}`);
      continue;
    }
    const parts = name.split("/");
    for (let n = 1; n < parts.length; n++) {
      const parent = parts.slice(0, n).join("/");
      if (out.results.has(parent)) tamper("reported a subtest after its parent", name);
    }
    if (outcome === "passed") {
      for (const [other, r] of out.results) {
        if (other.startsWith(`${name}/`) && r.outcome === "failed") {
          tamper("reported a test passing although its subtest failed", `${name} (${other})`);
        }
      }
    }
    out.results.set(name, { outcome, seconds: Number(seconds) });
    current = "";
  }
  return out;
}

/** How one binary's run is judged. */
export interface BinaryVerdict {
  /** `ok`, `timeout`, `out-of-memory` or `tampered`. */
  status: RunStatus;
  /** The run ended and reported so. */
  complete: boolean;
  /** Outcome by test name. */
  outcomes: Map<string, Outcome>;
  /** Seconds by test name. */
  durations: Map<string, number>;
  /** First line of each failure by test name. */
  failures: Map<string, string>;
  /** Why the run is not plainly ok, in words. */
  message?: string;
  /** Evidence that the report was forged (then no outcome is kept). */
  tamper: GuardEvent[];
  /** Things worth a look that are not tampering by themselves. */
  suspect: GuardEvent[];
}

/** What happened to the process besides its output. */
export interface BinaryEnd {
  /** Exit status (128+n when killed by signal n). */
  code: number;
  /** The sandbox's wall-clock limit stopped it. */
  timedOut: boolean;
  /** The sandbox's memory limit stopped it. */
  outOfMemory: boolean;
  /** The code run is the maintainers' (ground truth): a cut-short run keeps its passes, and a
   * disagreement between the exit status and the report is a suspicion, not tampering. */
  trusted: boolean;
  /** The package, for events. */
  where: string;
}

/** Weigh a binary's output against its exit status. Pure. */
export function judgeBinary(out: BinaryOutput, end: BinaryEnd): BinaryVerdict {
  const tamper = [...out.tamper];
  const suspect = [...out.suspect];
  const outcomes = new Map<string, Outcome>();
  const durations = new Map<string, number>();
  const failures = new Map<string, string>();
  for (const [name, r] of out.results) {
    outcomes.set(name, r.outcome);
    durations.set(name, Math.round(r.seconds * 1000));
    if (r.outcome === "failed") {
      // A parent that failed only through its subtests says nothing itself: theirs stands.
      const child = [...out.results.keys()].find((n) =>
        n.startsWith(`${name}/`) && out.results.get(n)?.outcome === "failed" &&
        out.firstLine.has(n)
      );
      const line = out.firstLine.get(name) ??
        (child ? `${child}: ${out.firstLine.get(child)}` : out.panic);
      if (line) failures.set(name, line);
    }
  }
  const running = out.started.filter((n) => !out.results.has(n));
  const disagree = (what: string, detail?: string) =>
    (end.trusted ? suspect : tamper).push({
      what,
      where: end.where,
      ...(detail ? { detail } : {}),
    });
  let status: RunStatus = "ok";
  let message: string | undefined;
  const cutShort = end.timedOut || out.timedOut || end.outOfMemory || out.outOfMemory;
  if (cutShort) {
    status = end.outOfMemory || out.outOfMemory ? "out-of-memory" : "timeout";
    for (const n of running) outcomes.set(n, "not-run");
    if (!end.trusted) {
      for (const [n, o] of outcomes) if (o === "passed") outcomes.set(n, "not-run");
    }
    const at = running.length ? ` while running ${running.at(-1)}` : "";
    message = status === "timeout"
      ? `the tests did not finish in time${at}`
      : `the tests ran out of memory${at}`;
  } else if (end.code === 0) {
    if (running.length) {
      disagree(
        "exited with status 0 while a test was running (syscall.Exit or a forged report)",
        running.join(", "),
      );
      for (const n of running) outcomes.set(n, "not-run");
    } else if (out.results.size > 0 && out.summary !== "PASS") {
      disagree("exited with status 0 without the testing package's final PASS");
    }
    if ([...outcomes.values()].includes("failed")) {
      suspect.push({ what: "exited with status 0 although a test failed", where: end.where });
    }
    if (out.results.size === 0 && out.started.length === 0) {
      message = out.summary
        ? "no test matched"
        : "the test binary exited with status 0 before any test ran";
      if (!out.summary) {
        suspect.push({ what: "exited with status 0 before any test ran", where: end.where });
      }
    }
  } else {
    const why = out.panic ?? `the test binary exited with status ${end.code}`;
    for (const n of running) {
      outcomes.set(n, "failed");
      failures.set(n, why);
    }
    const failed = [...outcomes.values()].includes("failed");
    if (!failed) {
      disagree(
        `exited with status ${end.code} although every test it reported passed`,
        out.panic,
      );
    } else if (out.summary === "PASS") {
      disagree(`exited with status ${end.code} after the summary said PASS`);
    }
    if (!failed || out.started.length === 0) message = why;
    if (out.summary === undefined) {
      // The process died before its report ended (a panic, an exit): what it said before may be
      // the code under test's, so its passes count only where that code is trusted.
      if (!end.trusted) {
        for (const [n, o] of outcomes) if (o === "passed") outcomes.set(n, "not-run");
      }
      message ??= `the test binary ended early: ${why}`;
    }
  }
  if (tamper.length) {
    return {
      status: "tampered",
      complete: false,
      outcomes: new Map(),
      durations: new Map(),
      failures: new Map(),
      message: `the code under test forged or broke the test report: ${tamper[0].what}` +
        (tamper[0].detail ? ` (${tamper[0].detail})` : ""),
      tamper,
      suspect,
    };
  }
  const complete = status === "ok" && running.length === 0 && out.summary !== undefined;
  return { status, complete, outcomes, durations, failures, message, tamper, suspect };
}
