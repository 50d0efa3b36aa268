import { deepEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { besideId, besidePath, besideSource, fromBesideId } from "../../lib/lang/go/mod.ts";
import { buildGoProject, checkoutTree, type GoProject } from "../fixtures/go_project.ts";
import { runTree, tempDir, writeModule } from "./_shared.ts";

let built: Promise<{ project: GoProject; root: string }> | undefined;
let root: string | undefined;
/** The fixture's repository, built once for this file. */
function project() {
  built ??= (async () => {
    root = await Deno.realPath(await Deno.makeTempDir({ prefix: "bugbout-go-fixture-" }));
    return { project: await buildGoProject(join(root, "repo")), root };
  })();
  return built;
}
globalThis.addEventListener("unload", () => {
  if (root) Deno.removeSync(root, { recursive: true });
});

for (const key of ["empty-quantity", "km-factor", "negative-total"]) {
  Deno.test(`run() fails the fail-to-pass tests of fix ${key} on B and passes them on G`, async () => {
    const { project: p } = await project();
    const fix = p.fixes.find((f) => f.key === key)!;
    await using tmp = await tempDir();
    const b = await checkoutTree(p.dir, fix.parent, join(tmp.path, "b"), {
      testsFrom: fix.commit,
      testFiles: fix.testFiles,
    });
    const g = await checkoutTree(p.dir, fix.commit, join(tmp.path, "g"));
    const ids = [...fix.failToPass, ...fix.passToPass];
    const onB = await runTree(b, [ids], { trustPartial: true });
    const onG = await runTree(g, [ids]);
    equal(onG.status, "ok", onG.message);
    for (const id of ids) equal(onG.outcomes[id], "passed", `${id} on G`);
    ok(onG.groups[0].complete);
    for (const id of fix.failToPass) equal(onB.outcomes[id], "failed", `${id} on B`);
    for (const id of fix.passToPass) equal(onB.outcomes[id], "passed", `${id} on B`);
    for (const id of fix.failToPass) ok(onB.failures?.[id], `a failure line for ${id}`);
  });
}

Deno.test("run() reads a flaky test as it falls, run after run", async () => {
  const { project: p } = await project();
  const fix = p.fixes.find((f) => f.key === "negative-total")!;
  await using tmp = await tempDir();
  const g = await checkoutTree(p.dir, fix.commit, join(tmp.path, "g"));
  const extraEnv = { SHELF_FLAKY_STATE: join(g, "flaky-state") };
  const seen: string[] = [];
  for (let i = 0; i < 2; i++) {
    const run = await runTree(g, [fix.flaky], { extraEnv });
    seen.push(run.outcomes["./TestFlaky"]);
  }
  deepEqual(seen, ["failed", "passed"]);
});

Deno.test("run() takes package directories and test files as well as ids, one process per group", async () => {
  const { project: p } = await project();
  await using tmp = await tempDir();
  const tree = await checkoutTree(p.dir, p.commits.fixConvert, join(tmp.path, "t"));
  const run = await runTree(tree, [["units"], ["parse/parse_test.go"], ["./TestNoSuchTest"]]);
  equal(run.status, "ok", run.message);
  equal(run.groups.length, 3);
  deepEqual(run.groups[0].outcomes, {
    "units/TestConvert": "passed",
    "units/TestRound": "passed",
    "units/TestRound/down": "passed",
    "units/TestRound/up": "passed",
    "units/TestRound/whole": "passed",
    "units/TestConvertCases": "passed",
    "units/TestConvertCases/km_to_m": "passed",
    "units/TestConvertCases/m_to_cm": "passed",
    "units/TestConvertCases/mm_to_m": "passed",
  });
  deepEqual(run.groups[1].outcomes, {
    "parse/TestQuantity": "passed",
    "parse/TestQuantityEmpty": "passed",
  });
  deepEqual(run.groups[2].outcomes, { "./TestNoSuchTest": "not-run" });
});

Deno.test("run() gives each requested test of a package that does not build an error, with the compiler's line", async () => {
  await using tmp = await tempDir();
  const tree = await writeModule(tmp.path, {
    "p/p.go": "package p\n\nfunc F() int { return undefinedThing }\n",
    "p/p_test.go": 'package p\n\nimport "testing"\n\nfunc TestF(t *testing.T) { F() }\n',
    "q/q_test.go": 'package q\n\nimport "testing"\n\nfunc TestQ(t *testing.T) {}\n',
  });
  const run = await runTree(tree, [["p/TestF", "q/TestQ"]]);
  equal(run.status, "ok");
  deepEqual(run.outcomes, { "p": "error", "p/TestF": "error", "q/TestQ": "passed" });
  ok(run.failures?.["p"]?.includes("undefined: undefinedThing"), run.failures?.["p"]);
  equal(run.failures?.["p/TestF"], run.failures?.["p"]);
});

Deno.test("run() stops a group at its time limit: timeout, incomplete, passes only when trusted", async () => {
  await using tmp = await tempDir();
  const tree = await writeModule(tmp.path, {
    "s/s_test.go": `package s

import (
	"testing"
	"time"
)

func TestFirst(t *testing.T) {}

func TestSleep(t *testing.T) { time.Sleep(10 * time.Minute) }
`,
  });
  const ids = ["s/TestFirst", "s/TestSleep"];
  const run = await runTree(tree, [ids], { timeoutMs: 4_000 });
  equal(run.status, "timeout");
  ok(!run.groups[0].complete);
  deepEqual(run.outcomes, { "s/TestFirst": "not-run", "s/TestSleep": "not-run" });
  ok(run.message?.includes("TestSleep"), run.message);
  const trusted = await runTree(tree, [ids], { timeoutMs: 4_000, trustPartial: true });
  deepEqual(trusted.outcomes, { "s/TestFirst": "passed", "s/TestSleep": "not-run" });
});

Deno.test("run() runs an author's copy beside the project's file: both compile, ids map back", async () => {
  await using tmp = await tempDir();
  const original = `package p

import "testing"

var cases = []int{1, 2}

func sum() int {
	total := 0
	for _, c := range cases {
		total += c
	}
	return total
}

func TestSum(t *testing.T) {
	t.Run("three", func(t *testing.T) {
		if sum() != 3 {
			t.Fatal(sum())
		}
	})
}
`;
  // The author changed the table: their TestSum/three fails, the project's still passes.
  const theirs = original.replace("[]int{1, 2}", "[]int{1, 2, 3}");
  const copy = besidePath("p/p_test.go", "codex");
  const tree = await writeModule(tmp.path, {
    "p/p.go": "package p\n",
    "p/p_test.go": original,
    [copy]: besideSource(theirs, "codex"),
  });
  const mine = "p/TestSum/three";
  const run = await runTree(tree, [[mine, besideId(mine, "codex")]]);
  equal(run.status, "ok", run.message);
  equal(run.outcomes[mine], "passed");
  equal(run.outcomes["p/TestSum_bugbout_codex/three"], "failed");
  deepEqual(fromBesideId("p/TestSum_bugbout_codex/three"), { id: mine, author: "codex" });
  // Without the rewrite, the two files do not compile together.
  const clash = await writeModule(tmp.path, {
    "p/p.go": "package p\n",
    "p/p_test.go": original,
    [copy]: theirs,
  }, "clash");
  const broken = await runTree(clash, [[mine]]);
  equal(broken.outcomes[mine], "error");
  ok(broken.failures?.[mine]?.includes("redeclared"), broken.failures?.[mine]);
});
