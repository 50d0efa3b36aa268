/**
 * Mining a Go module: `mineAll` on the Go fixture finds exactly its fixes, with the runner's ids,
 * and leaves out what is not a fix of Go source with a test, each for its reason.
 *
 * @module
 */

import { deepEqual, equal, match } from "node:assert/strict";
import { join } from "node:path";
import { mineAll } from "../../lib/mine/mod.ts";
import { tasksFileSchema } from "../../lib/records.ts";
import { buildGoProject, SOURCES } from "../fixtures/go_project.ts";
import { tempDir } from "../python/_shared.ts";
import { commitOnTop, loadAs } from "./_runner.ts";
import { NO_TOKENS } from "./_setup.ts";

Deno.test("mining a Go module finds exactly its fixes, with go test's ids", async () => {
  await using tmp = await tempDir("bugbout-mine-go-");
  const go = await buildGoProject(join(tmp.path, "repo"));
  const project = await loadAs(go.dir, join(tmp.path, "home"), "go");
  const { file } = await mineAll(project, { env: NO_TOKENS });
  tasksFileSchema.parse(file);
  deepEqual(file.tasks.map((t) => t.id), ["issue-7", "issue-5", "issue-3"]);
  const byIssue = new Map(go.fixes.map((f) => [f.issue, f]));
  for (const task of file.tasks) {
    const fix = byIssue.get(task.ref.number)!;
    deepEqual(
      [
        task.commit,
        task.parent,
        task.sourceFiles,
        task.testFiles,
        task.packageDir,
        task.pythonPath,
      ],
      [fix.commit, fix.parent, fix.sourceFiles, fix.testFiles, ".", "."],
      fix.key,
    );
    // Every test that fails on B, and every flaky one the fix added, is a new test.
    for (const id of [...fix.failToPass, ...fix.flaky]) {
      match(task.newTests.join("\n"), new RegExp(`^${id}$`, "m"));
    }
    equal(task.supportFiles, undefined);
    equal(task.statementSource, "commit");
  }
  deepEqual(file.tasks[0].newTests, ["./TestTotalNegative", "./TestFlaky"]);
  deepEqual(file.tasks[2].newTests, ["parse/TestQuantityEmpty"]);
  // TestConvertCases and its subtests are the fix's; TestRound's computed subtest names were
  // there before it and are no uncertainty of this change.
  deepEqual(file.tasks[1].newTests, [
    "units/TestConvertCases",
    "units/TestConvertCases/km_to_m",
    "units/TestConvertCases/m_to_cm",
    "units/TestConvertCases/mm_to_m",
  ]);
  equal(file.tasks[1].unsureTests, undefined);
  // The initial commit, the feature (units.Round) and the go.mod change are no fixes.
  deepEqual(file.counts, { "not-a-fix": 3 });
  equal(file.examined, 6);
});

Deno.test("mining a Go module leaves out fixes without Go source or a test, each for its reason", async () => {
  await using tmp = await tempDir("bugbout-mine-go-");
  const go = await buildGoProject(join(tmp.path, "repo"));
  const c = {
    goMod: await commitOnTop(go.dir, "Fix #9: require Go 1.23 for min", {
      "go.mod": "module example.com/shelf\n\ngo 1.24\n",
    }),
    readme: await commitOnTop(go.dir, "Fix #10: the README's example", {
      "README.md": "# shelf\n\nQuantities of things, fixed.\n",
      "shelf_test.go": SOURCES.parseTest.replace("package parse", "package shelf")
        .replace("Quantity(", "Total([]int{3}) + 0*len(").replace("TestQuantity", "TestReadme"),
    }),
    untested: await commitOnTop(go.dir, "Fix #11: Total of nothing", {
      "shelf.go": SOURCES.shelfFixed + "\n// Empty is a total of nothing.\nconst Empty = 0\n",
    }),
    helperOnly: await commitOnTop(go.dir, "Fix #12: Total of one", {
      "shelf.go": SOURCES.shelfFixed + "\n// One is a total of one.\nconst One = 1\n",
      "export_test.go": "package shelf\n\nvar TotalForTest = Total\n",
    }),
    tooMany: await commitOnTop(go.dir, "Fix #13: units everywhere", {
      "shelf.go": SOURCES.shelfFixed + "\nconst Two = 2\n",
      "parse/parse.go": SOURCES.parseFixed + "\nconst Three = 3\n",
      "units/units.go": "package units\n\nconst Four = 4\n",
      "parse/parse_test.go": SOURCES.parseTestFixed +
        "\nfunc TestThree(t *testing.T) {\n\tif Three != 3 {\n\t\tt.Fatal(Three)\n\t}\n}\n",
    }),
    withData: await commitOnTop(go.dir, "Fix #14: quantities from a file", {
      "parse/parse.go": SOURCES.parseFixed + "\n// Five is five.\nconst Five = 5\n",
      "parse/testdata/five.txt": "5 kg\n",
      // Test data outside testdata/, as a shared suite keeps it.
      "internal/suite/tests/valid/five.json": '{"five": 5}\n',
      "vendor/example.org/dep/dep.go": "package dep\n",
      "CHANGELOG.md": "# Changes\n\n- Quantities from a file.\n",
      "parse/parse_test.go": SOURCES.parseTestFixed +
        "\nfunc TestFive(t *testing.T) {\n\tif Five != 5 {\n\t\tt.Fatal(Five)\n\t}\n}\n",
    }),
    // The fix is in a file Go embeds: source too, though no Go code.
    template: await commitOnTop(go.dir, "Fix #15: the report's header", {
      "report/header.tmpl": "Total: {{.}}\n",
      ".github/workflows/test.yml": "on: push\n",
      "parse/parse_test.go": SOURCES.parseTestFixed +
        "\nfunc TestHeader(t *testing.T) {}\n",
    }),
  };
  const project = await loadAs(go.dir, join(tmp.path, "home"), "go");
  const { file } = await mineAll(project, { env: NO_TOKENS });
  deepEqual(file.tasks.map((t) => t.id), ["issue-15", "issue-14", "issue-7", "issue-5", "issue-3"]);
  deepEqual(file.tasks[0].sourceFiles, ["report/header.tmpl"]);
  file.tasks.shift();
  // Test data is a support file (in testdata/ or another test directory); vendored code, docs
  // and changelogs are not source.
  deepEqual(
    [file.tasks[0].sourceFiles, file.tasks[0].testFiles, file.tasks[0].newTests],
    [["parse/parse.go"], ["parse/parse_test.go"], ["parse/TestFive"]],
  );
  deepEqual(file.tasks[0].supportFiles, [
    "internal/suite/tests/valid/five.json",
    "parse/testdata/five.txt",
  ]);
  const reasons = file.excluded.map((e) => [e.commit, e.reason]);
  deepEqual(reasons, [
    [c.tooMany, "too-many-source-files"],
    [c.helperOnly, "no-test-added"],
    [c.untested, "no-test-added"],
    [c.readme, "no-source-change"],
    [c.goMod, "no-source-change"],
  ]);
  const detail = new Map(file.excluded.map((e) => [e.commit, e.detail ?? ""]));
  match(detail.get(c.tooMany)!, /changes 3 source files \(max-source-files = 2\)/);
  match(detail.get(c.helperOnly)!, /export_test\.go but adds or changes no test/);
  match(detail.get(c.untested)!, /changes no test file go test runs/);
  match(detail.get(c.goMod)!, /changes no Go source file/);
});
