import { deepEqual, equal, ok } from "node:assert/strict";
import { type BinaryEnd, judgeBinary, MARKER, readOutput } from "../../lib/lang/go/mod.ts";

/** Output as a Go 1.26 test binary writes it in `-test.v=test2json` mode (`|` is the marker). */
const framed = (text: string) => text.replaceAll("|", MARKER);
const end = (over: Partial<BinaryEnd> = {}): BinaryEnd => ({
  code: 0,
  timedOut: false,
  outOfMemory: false,
  trusted: false,
  where: "pkg",
  ...over,
});
const judge = (text: string, over: Partial<BinaryEnd> = {}) =>
  judgeBinary(readOutput(framed(text), "pkg"), end(over));
const outcomes = (v: ReturnType<typeof judge>) => Object.fromEntries(v.outcomes);

// Recorded from go1.26.8 (see tests/go/run_test.ts for the same through the real binary).
const PASSING = `|=== RUN   TestAdd
|=== RUN   TestAdd/a_b
    p_test.go:8: nope
|--- SKIP: TestAdd/a_b (0.00s)
|=== NAME  TestAdd
|--- PASS: TestAdd (0.01s)
|=== NAME  
|PASS
`;

const FAILING = `|=== RUN   TestOK
|--- PASS: TestOK (0.00s)
|=== NAME  
|=== RUN   TestFail
    p_test.go:10: boom
        second
|--- FAIL: TestFail (1.50s)
|=== NAME  
|FAIL
`;

Deno.test("judgeBinary() reads a passing run: outcomes, durations, complete", () => {
  const v = judge(PASSING);
  equal(v.status, "ok");
  ok(v.complete);
  deepEqual(outcomes(v), { "TestAdd/a_b": "skipped", TestAdd: "passed" });
  equal(v.durations.get("TestAdd"), 10);
  deepEqual(v.tamper, []);
});

Deno.test("judgeBinary() reads a failing run with the failure's first line", () => {
  const v = judge(FAILING, { code: 1 });
  equal(v.status, "ok");
  ok(v.complete);
  deepEqual(outcomes(v), { TestOK: "passed", TestFail: "failed" });
  equal(v.failures.get("TestFail"), "p_test.go:10: boom");
  equal(v.durations.get("TestFail"), 1500);
});

Deno.test("judgeBinary() fails the test a panic killed, and keeps earlier passes only when trusted", () => {
  const text = `|=== RUN   TestOK
|--- PASS: TestOK (0.00s)
|=== RUN   TestPanic
panic: boom
`;
  const untrusted = judge(text, { code: 2 });
  deepEqual(outcomes(untrusted), { TestOK: "not-run", TestPanic: "failed" });
  equal(untrusted.failures.get("TestPanic"), "panic: boom");
  ok(!untrusted.complete);
  const trusted = judge(text, { code: 2, trusted: true });
  deepEqual(outcomes(trusted), { TestOK: "passed", TestPanic: "failed" });
});

Deno.test("judgeBinary() calls Go's own timeout a timeout, the running test not-run", () => {
  const text = `|=== RUN   TestOK
|--- PASS: TestOK (0.00s)
|=== RUN   TestSleep
panic: test timed out after 2s
	running tests:
		TestSleep (2s)
`;
  const v = judge(text, { code: 2 });
  equal(v.status, "timeout");
  ok(!v.complete);
  deepEqual(outcomes(v), { TestOK: "not-run", TestSleep: "not-run" });
  ok(v.message?.includes("TestSleep"));
  deepEqual(outcomes(judge(text, { code: 2, trusted: true })), {
    TestOK: "passed",
    TestSleep: "not-run",
  });
  equal(judge(PASSING.replace("|PASS\n", ""), { code: 137, timedOut: true }).status, "timeout");
});

Deno.test("judgeBinary() calls a forged result for a test that never started tampering", () => {
  const v = judge(`|=== RUN   TestA\n|--- PASS: TestB (0.00s)\n|--- PASS: TestA (0.00s)\n|PASS\n`);
  equal(v.status, "tampered");
  deepEqual(outcomes(v), {});
  equal(v.tamper[0].what, "reported a result for a test that never started");
});

Deno.test("judgeBinary() calls a test reported twice tampering", () => {
  const v = judge(
    `|=== RUN   TestA\n|--- PASS: TestA (0.00s)\n|--- FAIL: TestA (0.00s)\n|FAIL\n`,
    { code: 1 },
  );
  equal(v.status, "tampered");
  equal(v.tamper[0].detail, "TestA: passed, then failed");
});

Deno.test("judgeBinary() calls a parent passing over a failed subtest, or after it, tampering", () => {
  const over = judge(
    `|=== RUN   TestA\n|=== RUN   TestA/x\n|--- FAIL: TestA/x (0.00s)\n|--- PASS: TestA (0.00s)\n|PASS\n`,
  );
  equal(over.status, "tampered");
  const after = judge(
    `|=== RUN   TestA\n|=== RUN   TestA/x\n|--- PASS: TestA (0.00s)\n|--- PASS: TestA/x (0.00s)\n|PASS\n`,
  );
  equal(after.status, "tampered");
  equal(after.tamper[0].what, "reported a subtest after its parent");
});

Deno.test("judgeBinary() weighs the exit status against the report", () => {
  // Exit 0 while a test runs: syscall.Exit(0) in the code under test.
  const exited = judge(`|=== RUN   TestA\n`, { code: 0 });
  equal(exited.status, "tampered");
  // Every test passed, yet the process failed.
  const failed = judge(PASSING, { code: 1 });
  equal(failed.status, "tampered");
  ok(failed.tamper[0].what.includes("although every test it reported passed"));
  // The maintainers' TestMain may fail a run after its tests (a leak check): a suspicion then.
  const trusted = judge(PASSING, { code: 1, trusted: true });
  equal(trusted.status, "ok");
  equal(trusted.outcomes.get("TestAdd"), "passed");
  ok(trusted.suspect.length > 0);
  // Exit 0 without the testing package's summary.
  equal(judge(PASSING.replace("|PASS\n", ""), { code: 0 }).status, "tampered");
  // Exit 0 before any test: nothing passes, worth a look.
  const early = judge("", { code: 0 });
  equal(early.status, "ok");
  deepEqual(outcomes(early), {});
  ok(early.suspect.length > 0);
});

Deno.test("judgeBinary() finds result-shaped output and stray framing bytes worth a look", () => {
  const v = judge(
    `|=== RUN   TestA\n--- PASS: TestA (0.00s)\nsome|thing\n|--- FAIL: TestA (0.00s)\n|FAIL\n`,
    { code: 1 },
  );
  equal(v.status, "ok");
  equal(v.outcomes.get("TestA"), "failed");
  deepEqual(v.suspect.map((e) => e.what), [
    "printed a line shaped like a test result",
    "printed the framing byte 0x16 inside a line",
  ]);
});

Deno.test("judgeBinary() says out-of-memory for the runtime's own message and the sandbox's limit", () => {
  equal(
    judge(`|=== RUN   TestA\nfatal error: runtime: out of memory\n`, { code: 2 }).status,
    "out-of-memory",
  );
  equal(judge(`|=== RUN   TestA\n`, { code: 137, outOfMemory: true }).status, "out-of-memory");
});
