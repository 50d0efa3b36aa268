import { equal, match, ok } from "node:assert/strict";
import type { Io } from "../../lib/cli/io.ts";
import { progressPrinter } from "../../lib/cli/progress.ts";

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
