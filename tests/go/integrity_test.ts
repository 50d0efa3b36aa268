/**
 * Attacks on the grading by the code under test, each a package whose code (not its test) tries
 * to turn a failing test into a pass, run for real in the sandbox. The last one is the forgery
 * Go does not let anyone catch, kept here so that the limit stays written down and true.
 */

import { deepEqual, equal, ok } from "node:assert/strict";
import type { RunnerRun } from "../../lib/lang/types.ts";
import { runTree, tempDir, writeModule } from "./_shared.ts";

/** A package whose `Check` is the attack and whose one test wants `Check()` to be true. */
function attack(name: string, imports: string[], body: string): Record<string, string> {
  const test = `Test${name[0].toUpperCase()}${name.slice(1)}`;
  return {
    [`${name}/${name}.go`]: `package ${name}

import (
${imports.map((i) => `\t"${i}"`).join("\n")}
)

// Check is the code under test: it should return true, and does not.
func Check() bool {
${body.replaceAll("TEST", test)}
	return false
}
`,
    [`${name}/${name}_test.go`]: `package ${name}

import "testing"

func ${test}(t *testing.T) {
	if !Check() {
		t.Fatal("Check() is false")
	}
}
`,
  };
}

const ATTACKS = {
  // A forged framed pass; the real testing package then reports the failure too.
  forged: attack("forged", ["fmt"], '\tfmt.Print("\\x16--- PASS: TEST (0.00s)\\n")'),
  // os.Exit(0) in the middle of a test: -test.paniconexit0 turns it into a panic.
  exitzero: attack("exitzero", ["os"], "\tos.Exit(0)"),
  // syscall.Exit(0) gets round paniconexit0: the process ends 0 with the test still running.
  sysexit: attack("sysexit", ["syscall"], "\tsyscall.Exit(0)"),
  // A pass for a test that never started.
  never: attack("never", ["fmt"], '\tfmt.Print("\\x16--- PASS: TestOther (0.00s)\\n")'),
  // An unframed result line: only what the framing says counts.
  plain: attack("plain", ["fmt"], '\tfmt.Print("--- PASS: TEST (0.00s)\\nok\\n")'),
  // A forged pass and summary, then a failing exit.
  exitone: attack(
    "exitone",
    ["fmt", "os"],
    '\tfmt.Print("\\x16--- PASS: TEST (0.00s)\\n\\x16PASS\\n")\n\tos.Exit(1)',
  ),
  // The framing byte in the middle of a line.
  midline: attack("midline", ["fmt"], '\tfmt.Print("look: \\x16--- PASS: TEST (0.00s)\\n")'),
  // The consistent forgery: pass, summary, syscall.Exit(0) before the real report.
  perfect: attack(
    "perfect",
    ["fmt", "syscall"],
    '\tfmt.Print("\\x16--- PASS: TEST (0.00s)\\n\\x16PASS\\n")\n\tsyscall.Exit(0)',
  ),
};

const NAMES = Object.keys(ATTACKS) as (keyof typeof ATTACKS)[];
const idOf = (name: string) => `${name}/Test${name[0].toUpperCase()}${name.slice(1)}`;

let ran: Promise<RunnerRun> | undefined;
let dir: string | undefined;
/** Every attack, one group each, in one run. */
function attacks(): Promise<RunnerRun> {
  ran ??= (async () => {
    const tmp = await tempDir();
    dir = tmp.path;
    const files = Object.assign({}, ...Object.values(ATTACKS));
    const tree = await writeModule(tmp.path, files);
    return await runTree(tree, NAMES.map((n) => [idOf(n)]));
  })();
  return ran;
}
globalThis.addEventListener("unload", () => {
  if (dir) Deno.removeSync(dir, { recursive: true });
});

const group = async (name: keyof typeof ATTACKS) => (await attacks()).groups[NAMES.indexOf(name)];

Deno.test("a forged framed pass followed by the real failure is tampering: no outcome kept", async () => {
  const g = await group("forged");
  equal(g.status, "tampered");
  deepEqual(g.outcomes, {});
  equal(g.tamper[0].what, "reported a test twice");
});

Deno.test("os.Exit(0) in the middle of a test panics (paniconexit0): the test fails", async () => {
  const g = await group("exitzero");
  equal(g.status, "ok", g.message);
  equal(g.outcomes[idOf("exitzero")], "failed");
  ok(g.failures?.[idOf("exitzero")]?.includes("os.Exit(0)"), g.failures?.[idOf("exitzero")]);
});

Deno.test("syscall.Exit(0) in the middle of a test is tampering", async () => {
  const g = await group("sysexit");
  equal(g.status, "tampered");
  ok(g.tamper[0].what.startsWith("exited with status 0 while a test was running"));
});

Deno.test("a pass for a test that never started is tampering", async () => {
  const g = await group("never");
  equal(g.status, "tampered");
  equal(g.tamper[0].what, "reported a result for a test that never started");
  equal(g.tamper[0].detail, "TestOther");
});

Deno.test("an unframed result line counts for nothing and is worth a look", async () => {
  const g = await group("plain");
  equal(g.status, "ok");
  equal(g.outcomes[idOf("plain")], "failed");
  ok(g.suspect.some((e) => e.what === "printed a line shaped like a test result"));
});

Deno.test("a forged pass and summary, then a failing exit status, is tampering", async () => {
  const g = await group("exitone");
  equal(g.status, "tampered");
  deepEqual(g.outcomes, {});
});

Deno.test("the framing byte inside a line is worth a look; the real failure stands", async () => {
  const g = await group("midline");
  equal(g.status, "ok");
  equal(g.outcomes[idOf("midline")], "failed");
  ok(g.suspect.some((e) => e.what === "printed the framing byte 0x16 inside a line"));
});

Deno.test("known limit: a consistent forgery ended by syscall.Exit(0) reads as a pass", async () => {
  const g = await group("perfect");
  // Nothing Go offers tells this from a real run; docs/languages.md says so.
  equal(g.status, "ok");
  equal(g.outcomes[idOf("perfect")], "passed");
});
