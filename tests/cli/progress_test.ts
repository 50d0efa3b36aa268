import { deepEqual, equal, match, ok } from "node:assert/strict";
import type { Io } from "../../lib/cli/io.ts";
import { progressPrinter } from "../../lib/cli/progress.ts";
import type { BoutEvent } from "../../lib/bout.ts";
import type { TaskProgress } from "../../lib/testbed/mod.ts";

function capture(interactive: boolean) {
  const lines: string[] = [];
  const raw: string[] = [];
  const io: Io = {
    out: (t) => lines.push(t),
    err: (t) => lines.push(t),
    errRaw: (t) => raw.push(t),
    color: false,
    interactive,
  };
  return { io, lines, raw };
}

Deno.test("progress prints timestamped lines when stderr is not a terminal", () => {
  const { io, lines, raw } = capture(false);
  const p = progressPrinter(io);
  p.onEvent({ kind: "stage-start", stage: "race" });
  p.onEvent({
    kind: "race",
    event: { kind: "start", task: "issue-3", agent: "codex", at: Date.now() },
  });
  p.onEvent({
    kind: "race",
    event: { kind: "end", task: "issue-3", agent: "codex", status: "patch", durationMs: 1500 },
  });
  p.onEvent({ kind: "stage-end", stage: "race", summary: "1 attempt(s) ran", ms: 1600 });
  p.stop();
  equal(lines.length, 3);
  match(lines[0], /^\[\d\d:\d\d:\d\d\] race +codex started on issue-3$/);
  match(lines[1], /^\[\d\d:\d\d:\d\d\] race +codex on issue-3: patch \(1\.5s\)$/);
  match(lines[2], /^\[\d\d:\d\d:\d\d\] race +1 attempt\(s\) ran \(1\.6s\)$/);
  equal(raw.length, 0);
});

Deno.test("progress keeps one redrawn line per running lane on a terminal", () => {
  const { io, lines, raw } = capture(true);
  const p = progressPrinter(io);
  const at = Date.now();
  p.onEvent({ kind: "race", event: { kind: "start", task: "issue-3", agent: "codex", at } });
  p.onEvent({ kind: "race", event: { kind: "start", task: "issue-5", agent: "claude", at } });
  // Two lanes drawn, the first redrawn under the second.
  ok(lines.some((l) => /▸ codex on issue-3/.test(l)));
  ok(lines.some((l) => /▸ claude on issue-5/.test(l)));
  p.onEvent({
    kind: "race",
    event: { kind: "end", task: "issue-3", agent: "codex", status: "timeout", durationMs: 9000 },
  });
  // Before the finished line, the two lane lines are erased (cursor up 2, clear).
  ok(raw.includes("\x1b[2A\x1b[J"));
  ok(lines.some((l) => /codex on issue-3: timeout/.test(l)));
  p.stop();
  // Only the remaining lane is erased at the end.
  equal(raw.at(-1), "\x1b[1A\x1b[J");
});

/** A clock that moves only when told, and the ticks a printer asked for. */
function fakeTime() {
  let t = Date.parse("2026-01-01T10:00:00Z");
  let tick: (() => void) | undefined;
  return {
    now: () => t,
    every: (_ms: number, fn: () => void) => {
      tick = fn;
      return () => (tick = undefined);
    },
    /** Move the clock on by `ms`, ticking every second on the way. */
    advance(ms: number) {
      for (let left = ms; left > 0; left -= 1000) {
        t += Math.min(1000, left);
        tick?.();
      }
    },
  };
}

/** A task stage's event (a session's summary holds only what the printer reads). */
const task = (e: Record<string, unknown>, stage: "examine" | "score" = "examine"): BoutEvent => ({
  kind: "tasks",
  stage,
  event: e as TaskProgress<unknown>,
});

Deno.test("off a terminal, a stage that runs tests says what runs, and on which tree, at least every 10 s", () => {
  const { io, lines } = capture(false);
  const clock = fakeTime();
  const p = progressPrinter(io, { now: clock.now, every: clock.every });
  p.onEvent({ kind: "stage-start", stage: "examine" });
  p.onEvent(task({ event: "plan", run: 3, cached: 1, skipped: 0 }));
  p.onEvent(task({ event: "start", task: "issue-3" }));
  p.onEvent(task({ event: "start", task: "issue-5" }));
  p.onEvent(task({ event: "session", task: "issue-3", tree: "B" }));
  clock.advance(9_000);
  equal(lines.length, 0);
  clock.advance(1_000);
  equal(lines.length, 1);
  equal(
    lines[0],
    "[10:00:10] examine  0/3 tasks done, 0 test sessions; running issue-3 on B (10s); " +
      "issue-5 (10s)",
  );
  p.onEvent(task({ event: "run", task: "issue-3", run: { tree: "B" } }));
  p.onEvent(task({ event: "session", task: "issue-3", tree: "fixer" }));
  clock.advance(4_000);
  p.onEvent(task({ event: "done", task: "issue-5" }));
  equal(lines.at(-1), "[10:00:14] examine  issue-5 done, 0 test sessions (14s) · 1/3 tasks");
  // Ten seconds after the last line, the next one.
  clock.advance(9_000);
  equal(lines.length, 2);
  clock.advance(1_000);
  equal(
    lines.at(-1),
    "[10:00:24] examine  1/3 tasks done, 1 test session; running issue-3 on fixer (14s) · 1 done",
  );
  // Once two tasks are done, an estimate of the time left: 12 s a task so far, one task left.
  p.onEvent(task({ event: "done", task: "issue-3" }));
  equal(
    lines.at(-1),
    "[10:00:24] examine  issue-3 done, 1 test session (24s) · 2/3 tasks · about 12s left",
  );
  p.onEvent({ kind: "stage-end", stage: "examine", summary: "3 matrices", ms: 30_000 });
  clock.advance(30_000);
  equal(lines.length, 5);
  p.stop();
});

Deno.test("on a terminal, a stage that runs tests redraws its counts and each task's tree", () => {
  const { io, lines, raw } = capture(true);
  const clock = fakeTime();
  const p = progressPrinter(io, { now: clock.now, every: clock.every });
  p.onEvent({ kind: "stage-start", stage: "score" });
  p.onEvent(task({ event: "plan", run: 2, cached: 0, skipped: 0 }, "score"));
  p.onEvent(task({ event: "start", task: "issue-8" }, "score"));
  p.onEvent(task({ event: "session", task: "issue-8", tree: "gold" }, "score"));
  clock.advance(3_000);
  deepEqual(lines.slice(-2), [
    "  score 0/2 tasks done, 0 test sessions",
    "  ▸ issue-8 on gold (3.0s)",
  ]);
  ok(raw.includes("\x1b[2A\x1b[J"));
  p.stop();
  equal(raw.at(-1), "\x1b[2A\x1b[J");
});

Deno.test("--quiet prints no progress at all", () => {
  const { io, lines, raw } = capture(false);
  const clock = fakeTime();
  const p = progressPrinter(io, { quiet: true, now: clock.now, every: clock.every });
  p.onEvent({ kind: "stage-start", stage: "examine" });
  p.onEvent(task({ event: "start", task: "issue-3" }));
  clock.advance(60_000);
  p.onEvent({ kind: "stage-end", stage: "examine", summary: "1 matrix", ms: 60_000 });
  p.onEvent({ kind: "note", text: "a note" });
  p.stop();
  deepEqual([lines, raw], [[], []]);
});

Deno.test("the time left is estimated from finished tasks only and counts down while waiting", () => {
  const { io, lines } = capture(false);
  const clock = fakeTime();
  const p = progressPrinter(io, { now: clock.now, every: clock.every });
  p.onEvent({ kind: "stage-start", stage: "examine" });
  p.onEvent(task({ event: "plan", run: 6, cached: 0, skipped: 0 }));
  for (const id of ["issue-1", "issue-2", "issue-3"]) p.onEvent(task({ event: "start", task: id }));
  clock.advance(5_000);
  p.onEvent(task({ event: "done", task: "issue-1" }));
  clock.advance(5_000);
  p.onEvent(task({ event: "done", task: "issue-2" }));
  // 5 s a task so far, four tasks left.
  match(lines.at(-1)!, /2\/6 tasks · about 20s left$/);
  // Ten seconds of waiting on issue-3 take ten seconds off; they add none.
  clock.advance(10_000);
  match(lines.at(-1)!, /^\[10:00:20\] examine {2}2\/6 tasks done, .*about 10s left/);
  p.stop();
});
