import { deepEqual, equal, ok } from "node:assert/strict";
import {
  besideId,
  besidePath,
  besideSource,
  fileOf,
  fromBesideId,
  goChangedTests,
  goRunner,
  isConfig,
  isTestFile,
  isTestName,
  parseId,
  patchFlags,
  rewriteSubtestName,
  runPattern,
} from "../../lib/lang/go/mod.ts";
import { SOURCES } from "../fixtures/go_project.ts";
import { runTree, tempDir, writeModule } from "./_shared.ts";

Deno.test("ids name the package directory, then the test and its subtests", () => {
  deepEqual(parseId("pkg/sub/TestX/case_1"), { dir: "pkg/sub", path: ["TestX", "case_1"] });
  deepEqual(parseId("./TestX"), { dir: ".", path: ["TestX"] });
  deepEqual(parseId("TestX"), { dir: ".", path: ["TestX"] });
  equal(parseId("pkg/sub"), undefined);
  equal(fileOf("pkg/sub/TestX/case_1"), "pkg/sub");
  equal(fileOf("./TestX"), ".");
  equal(fileOf("pkg/a_test.go"), "pkg");
  equal(fileOf("a_test.go"), ".");
  equal(fileOf("pkg/"), "pkg");
  equal(goRunner().fileOf("units/TestConvertCases/km_to_m"), "units");
});

Deno.test("isTestName() follows go test: TestMain and Testify are not tests", () => {
  for (const name of ["Test", "TestX", "Test_x", "Test1", "FuzzParse", "Example", "ExampleF_x"]) {
    ok(isTestName(name), name);
  }
  for (const name of ["TestMain", "Testify", "Examplex", "testX", "Benchmark"]) {
    ok(!isTestName(name), name);
  }
});

Deno.test("test files are *_test.go and anything under testdata/; config is go.mod, go.sum, go.work*", () => {
  ok(isTestFile("a_test.go"));
  ok(isTestFile("pkg/a_test.go"));
  ok(isTestFile("pkg/testdata/input.txt"));
  ok(isTestFile("testdata/x/y.go"));
  ok(!isTestFile("pkg/a.go"));
  ok(!isTestFile("pkg/testdata"));
  for (const p of ["go.mod", "go.sum", "go.work", "go.work.sum", "tools/go.mod"]) {
    ok(isConfig(p), p);
  }
  ok(!isConfig("main.go"));
  ok(!isConfig("a_test.go"));
});

Deno.test("runPattern() anchors every element and escapes metacharacters", () => {
  equal(runPattern([["TestA"]]), "^TestA$");
  equal(runPattern([["TestA"], ["TestB", "case_1"]]), "^TestA$|^TestB$/^case_1$");
  // A whole test covers its subtests.
  equal(runPattern([["TestA", "x"], ["TestA"]]), "^TestA$");
  equal(runPattern([["TestA", "a.b(c)|d*"]]), "^TestA$/^a\\.b\\(c\\)\\|d\\*$");
  // A subtest named with a slash is two levels, as Go matches it.
  equal(runPattern([["TestA", "x/y"]]), "^TestA$/^x$/^y$");
  equal(runPattern([]), undefined);
});

Deno.test("rewriteSubtestName() turns spaces into _ and quotes unprintables, as Go does", () => {
  equal(rewriteSubtestName("km to m"), "km_to_m");
  equal(rewriteSubtestName("tab\there"), "tab_here");
  equal(rewriteSubtestName("bell\x07"), "bell\\x07");
  equal(rewriteSubtestName("ünïcode ok"), "ünïcode_ok");
});

Deno.test("goChangedTests() names a new file's tests and its literal subtests", () => {
  const after = SOURCES.unitsTest + `
func TestCases(t *testing.T) {
	t.Run("km to m", func(t *testing.T) {
		t.Run("inner", func(t *testing.T) {})
	})
	t.Run("same", func(t *testing.T) {})
	t.Run("same", func(t *testing.T) {})
	cmd.Run()
}

func helper(t *testing.T) {}

func FuzzX(f *testing.F) {}

func ExampleConvert() {
	// Output: 2.5
}

func ExampleNoOutput() {}

func TestMain(m *testing.M) {}
`;
  const result = goChangedTests("units/units_test.go", null, after);
  const expected = [
    "units/TestConvert",
    "units/TestCases",
    "units/TestCases/km_to_m",
    "units/TestCases/km_to_m/inner",
    "units/TestCases/same",
    "units/TestCases/same#01",
    "units/FuzzX",
    "units/ExampleConvert",
  ];
  deepEqual(result, { tests: expected, changed: expected });
});

Deno.test("goChangedTests() keeps what the change left alone out, layout and comments aside", () => {
  const before = SOURCES.parseTest;
  const after = SOURCES.parseTestFixed.replace(
    "func TestQuantity(t *testing.T) {",
    "// TestQuantity reads a number.\nfunc TestQuantity(t *testing.T)  {",
  );
  deepEqual(goChangedTests("parse/parse_test.go", before, after), {
    tests: ["parse/TestQuantity", "parse/TestQuantityEmpty"],
    changed: ["parse/TestQuantityEmpty"],
  });
});

Deno.test("goChangedTests() on the fixture's table-driven fix names the changed subtests", () => {
  const before = SOURCES.unitsTestWithRound;
  const after = SOURCES.unitsTestWithCases;
  const result = goChangedTests("units/units_test.go", before, after);
  ok("tests" in result);
  deepEqual(result.changed, [
    "units/TestConvertCases",
    "units/TestConvertCases/km_to_m",
    "units/TestConvertCases/m_to_cm",
    "units/TestConvertCases/mm_to_m",
  ]);
  // TestRound's subtests are named by its table at run time, but the change left TestRound alone:
  // that is no uncertainty of this change.
  equal(result.unsure, undefined);
  // A change to TestRound's table is.
  const edited = goChangedTests(
    "units/units_test.go",
    after,
    after.replace(`{"whole", 2.5, 0, 3},`, `{"whole", 2.5, 0, 3},\n\t\t{"half", 0.5, 0, 1},`),
  );
  ok("tests" in edited);
  deepEqual(edited.changed, ["units/TestRound"]);
  ok(edited.unsure?.startsWith("TestRound names its subtests at run time"), edited.unsure);
});

/** A file of `n` table-driven tests named T0, T1, ..., each with computed subtest names. */
function tableTests(n: number, change?: number): string {
  const tests = Array.from({ length: n }, (_, i) => `
func T${i}Test(t *testing.T) {}

func TestTable${i}(t *testing.T) {
	for _, name := range []string{"a", "b"${i === change ? `, "c"` : ""}} {
		t.Run(name, func(t *testing.T) {})
	}
}
`);
  return `package p\n\nimport "testing"\n${tests.join("")}`;
}

Deno.test("goChangedTests(): the unsure reason names only the tests the change touched, at most five", () => {
  const before = tableTests(8);
  const one = goChangedTests("p/t_test.go", before, tableTests(8, 3));
  ok("tests" in one);
  deepEqual(one.changed, ["p/TestTable3"]);
  equal(
    one.unsure,
    "TestTable3 names its subtests at run time (t.Run with a computed name): running the package decides.",
  );
  // A change that touches none of them is sure.
  const none = goChangedTests("p/t_test.go", before, before + "\nfunc TestNew(t *testing.T) {}\n");
  ok("tests" in none);
  deepEqual(none.changed, ["p/TestNew"]);
  equal(none.unsure, undefined);
  // A new file touches every test: the list stops at five.
  const all = goChangedTests("p/t_test.go", null, before);
  ok("tests" in all);
  ok(
    all.unsure?.startsWith(
      "TestTable0, TestTable1, TestTable2, TestTable3, TestTable4 and 3 more name their subtests",
    ),
    all.unsure,
  );
});

const LOOPED = `package p

import "testing"

type row struct{ n int }

func TestLoop(t *testing.T) {
	for _, r := range []row{{1}, {2}, {3}} {
		t.Run("same", func(t *testing.T) {
			if r.n < 0 {
				t.Fail()
			}
		})
	}
}

func TestStructTable(t *testing.T) {
	for i, c := range []struct{ in string }{{"x"}, {"y"}} {
		_ = i
		t.Run("", func(t *testing.T) { _ = c })
	}
}

func TestNested(t *testing.T) {
	t.Run("outer", func(t *testing.T) {
		for i := 0; i < 2; i++ {
			t.Run("inner", func(t *testing.T) {})
		}
	})
}

func TestAfterLoop(t *testing.T) {
	for _, r := range []row{{1}} {
		_ = r
	}
	if true {
		t.Run("once", func(t *testing.T) {})
	}
}

func TestPlain(t *testing.T) {
	t.Run("a", func(t *testing.T) {})
	t.Run("a", func(t *testing.T) {})
}
`;

Deno.test("goChangedTests() is unsure of a literal subtest started in a loop, and names it", () => {
  const result = goChangedTests("p/loop_test.go", null, LOOPED);
  ok("tests" in result);
  deepEqual(result.tests, [
    "p/TestLoop",
    "p/TestLoop/same",
    "p/TestStructTable",
    "p/TestStructTable/#00",
    "p/TestNested",
    "p/TestNested/outer",
    "p/TestNested/outer/inner",
    "p/TestAfterLoop",
    "p/TestAfterLoop/once",
    "p/TestPlain",
    "p/TestPlain/a",
    "p/TestPlain/a#01",
  ]);
  equal(
    result.unsure,
    'TestLoop ("same"), TestStructTable ("#00"), TestNested ("outer/inner") start literal ' +
      "subtests inside a loop, which go test runs once per pass as name, name#01, name#02, ...: " +
      "running the package decides.",
  );
  // A change to the loop-free tests only is sure; one to a looped test is not.
  const plain = goChangedTests(
    "p/loop_test.go",
    LOOPED,
    LOOPED.replace(`t.Run("once"`, `t.Run("twice"`),
  );
  ok("tests" in plain);
  deepEqual(plain.changed, ["p/TestAfterLoop", "p/TestAfterLoop/twice"]);
  equal(plain.unsure, undefined);
  const looped = goChangedTests("p/loop_test.go", LOOPED, LOOPED.replace("{3}}", "{3}, {4}}"));
  ok("tests" in looped);
  ok(looped.unsure?.startsWith('TestLoop ("same") starts literal subtests inside a loop'));
});

Deno.test("go test names the runs of a looped literal subtest as the unsure reason says", async () => {
  await using tmp = await tempDir();
  const tree = await writeModule(tmp.path, { "p/loop_test.go": LOOPED });
  const run = await runTree(tree, [["p"]]);
  equal(run.status, "ok", run.message);
  const ran = Object.keys(run.outcomes).filter((id) => id !== "p").sort();
  const read = goChangedTests("p/loop_test.go", null, LOOPED);
  ok("tests" in read);
  // What static reading names, go runs ...
  for (const id of read.tests) equal(run.outcomes[id], "passed", id);
  // ... and what it cannot name are the further runs of the looped subtests, nothing else.
  deepEqual(ran.filter((id) => !read.tests.includes(id)), [
    "p/TestLoop/same#01",
    "p/TestLoop/same#02",
    "p/TestNested/outer/inner#01",
    "p/TestStructTable/#01",
  ]);
});

Deno.test("goChangedTests() counts a test whose package-level table or helper changed", () => {
  const file = (rows: string, helper: string) =>
    `package p

import "testing"

var rows = []int{${rows}}

func check(t *testing.T, n int) { ${helper} }

func TestRows(t *testing.T) {
	for _, r := range rows {
		_ = r
	}
}

func TestHelper(t *testing.T) { check(t, 1) }

func TestAlone(t *testing.T) {}
`;
  deepEqual(goChangedTests("p/p_test.go", file("1, 2", "_ = n"), file("1, 2, 3", "_ = n")), {
    tests: ["p/TestRows", "p/TestHelper", "p/TestAlone"],
    changed: ["p/TestRows"],
  });
  deepEqual(goChangedTests("p/p_test.go", file("1", "_ = n"), file("1", "t.Log(n)")), {
    tests: ["p/TestRows", "p/TestHelper", "p/TestAlone"],
    changed: ["p/TestHelper"],
  });
});

Deno.test("goChangedTests() says unsure for a build-constrained file, and cannot read broken ones", () => {
  const tagged = `//go:build integration

package p

import "testing"

func TestSlow(t *testing.T) {}
`;
  const result = goChangedTests("p/slow_test.go", null, tagged);
  ok("tests" in result);
  deepEqual(result.tests, ["p/TestSlow"]);
  ok(result.unsure?.includes("//go:build integration"), result.unsure);
  const broken = goChangedTests(
    "p/b_test.go",
    null,
    'package p\n\nfunc TestX(t *testing.T) { s := "\n}\n',
  );
  ok("error" in broken && broken.error.startsWith("Cannot read p/b_test.go"));
});

Deno.test("besidePath() puts the author's copy in the same package, keeping GOOS/GOARCH tails", () => {
  equal(besidePath("pkg/foo_test.go", "codex"), "pkg/foo_bugbout_codex_test.go");
  equal(besidePath("foo_test.go", "claude-code#2"), "foo_bugbout_claudecode2_test.go");
  equal(besidePath("pkg/foo_linux_test.go", "a"), "pkg/foo_bugbout_a_linux_test.go");
  equal(besidePath("pkg/foo_linux_amd64_test.go", "a"), "pkg/foo_bugbout_a_linux_amd64_test.go");
  // An author named like an OS must not constrain the copy to it.
  equal(besidePath("pkg/foo_test.go", "windows"), "pkg/foo_bugbout_windows_by_test.go");
});

Deno.test("besideSource() renames what the copy declares and besideId() maps ids both ways", () => {
  const source = `package p

import "testing"

type fixture struct{ n int }

var cases = []fixture{{n: 1}}

func (f fixture) Value() int { return f.n }

func helper() int { return cases[0].Value() }

func TestX(t *testing.T) {
	t.Run("a", func(t *testing.T) { _ = helper() })
}

func TestMain(m *testing.M) {}

func init() {}
`;
  const out = besideSource(source, "codex");
  ok(out.includes("type fixture_bugbout_codex struct{ n int }"), out);
  ok(out.includes("var cases_bugbout_codex = []fixture_bugbout_codex{{n: 1}}"), out);
  ok(out.includes("func (f fixture_bugbout_codex) Value() int"), out);
  ok(out.includes("return cases_bugbout_codex[0].Value()"), out);
  ok(out.includes("func TestX_bugbout_codex(t *testing.T)"), out);
  ok(out.includes("_ = helper_bugbout_codex()"), out);
  ok(out.includes("func bugboutcodexTestMain(m *testing.M)"), out);
  ok(out.includes("func init() {}"), out);
  equal(besideId("pkg/TestX/a", "codex"), "pkg/TestX_bugbout_codex/a");
  deepEqual(fromBesideId("pkg/TestX_bugbout_codex/a"), { id: "pkg/TestX/a", author: "codex" });
  equal(fromBesideId("pkg/TestX/a"), undefined);
});

Deno.test("patchFlags() flags a new or changed TestMain and a replace pointing outside", () => {
  const plain = 'package p\n\nimport "testing"\n\nfunc TestX(t *testing.T) {}\n';
  const withMain = plain + "\nfunc TestMain(m *testing.M) { m.Run() }\n";
  const otherMain = plain + "\nfunc TestMain(m *testing.M) {}\n";
  deepEqual(
    patchFlags([
      { path: "p/a_test.go", before: plain, after: withMain },
      { path: "p/b_test.go", before: withMain, after: otherMain },
      { path: "p/c_test.go", before: withMain, after: withMain.replace("{ m", "{\n\tm") },
      { path: "p/d_test.go", before: null, after: withMain },
      { path: "p/e_test.go", before: withMain, after: plain },
      { path: "p/f_test.go", before: plain, after: plain + "\nfunc TestY(t *testing.T) {}\n" },
    ]).map((f) => `${f.path}: ${f.what}`),
    [
      "p/a_test.go: adds a TestMain to an existing test file",
      "p/b_test.go: changes the maintainers' TestMain",
      "p/d_test.go: adds a TestMain in a new test file",
      "p/e_test.go: removes the maintainers' TestMain",
    ],
  );
  const mod = "module m\n\ngo 1.22\n";
  deepEqual(
    patchFlags([{
      path: "go.mod",
      before: mod + "replace a.com/x => ./x\n",
      after: mod +
        "replace a.com/x => ./x\nreplace (\n\tb.com/y => ../y\n\tc.com/z => c.com/z v1.0.0\n)\nreplace d.com/w v1 => /opt/w\n",
    }]).map((f) => f.what),
    [
      "replaces b.com/y with ../y, a directory outside the module",
      "replaces d.com/w v1 with /opt/w, a directory outside the module",
    ],
  );
});
