/**
 * `bugbout evidence` in a Go module and a TypeScript project, for real: a clone of the fixture
 * checked out at a fix's parent, a change made in its working tree, the change's tests replayed in
 * the bubblewrap sandbox on a history-free copy of the base (and of the reference fix).
 *
 * @module
 */

import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { changeAuthor, checkEvidence, workingChange } from "../../lib/evidence/mod.ts";
import { cachedTree } from "../../lib/checkout.ts";
import { git } from "../../lib/git.ts";
import { openRunner } from "../../lib/lang/mod.ts";
import { runBugbout } from "../_helpers.ts";
import { buildGoProject, SOURCES } from "../fixtures/go_project.ts";
import { buildTallyProject } from "../fixtures/node_project.ts";
import { goTestCache } from "../go/_shared.ts";
import { ENVS, LOCKS } from "../node/_shared.ts";
import { sandbox, tempDir } from "../python/_shared.ts";

/** A clone of `origin` checked out (detached) at `commit`. */
async function clone(origin: string, commit: string, work: string): Promise<string> {
  await git(["clone", "--quiet", "--", origin, work]);
  await git(["checkout", "--quiet", "--detach", commit], { cwd: work });
  return work;
}

async function edit(path: string, from: string, to: string) {
  const text = await Deno.readTextFile(path);
  if (!text.includes(from)) throw new Error(`cannot find ${from} in ${path}`);
  await Deno.writeTextFile(path, text.replace(from, to));
}

// ---------------------------------------------------------------------------------------------
// Go: fix #3 of the shelf module (Quantity panics on an empty string).

const goTest = (name: string, body: string) => `func ${name}(t *testing.T) {\n${body}}\n`;
const EMPTY_IS_ERROR = goTest(
  "TestEmptyIsError",
  '\tif _, err := Quantity(""); err == nil {\n\t\tt.Fatal("no error")\n\t}\n',
);
const THREE = goTest(
  "TestThree",
  '\tif n, err := Quantity("3"); err != nil || n != 3 {\n\t\tt.Fatal(n, err)\n\t}\n',
);
const BLANK_IS_ERROR = goTest(
  "TestBlankIsError",
  '\tif _, err := Quantity("  "); err == nil {\n\t\tt.Fatal("no error")\n\t}\n',
);
const GO_HEADER = 'package parse\n\nimport "testing"\n\n';

/** The shelf module at fix #3's parent, with the real fix and tests in its working tree. */
async function goChange(root: string) {
  const shelf = await buildGoProject(join(root, "origin"));
  const fix = shelf.fixes.find((f) => f.key === "empty-quantity")!;
  const work = await clone(shelf.dir, fix.parent, join(root, "work"));
  await Deno.writeTextFile(join(work, "parse/parse.go"), SOURCES.parseFixed);
  // A new file: one test reproduces the bug (it panics on the base), one passes there too.
  await Deno.writeTextFile(
    join(work, "parse/empty_test.go"),
    GO_HEADER + EMPTY_IS_ERROR + "\n" + THREE,
  );
  // An existing file with one test added: only that test is the change's.
  const tests = join(work, "parse/parse_test.go");
  await Deno.writeTextFile(tests, (await Deno.readTextFile(tests)) + "\n" + BLANK_IS_ERROR);
  return { work, fix };
}

Deno.test("checkEvidence() in a Go module: the change's tests by go test's ids, on the base, the change and the reference fix", async () => {
  await using dir = await tempDir("bugbout-evidence-go-");
  const { work, fix } = await goChange(dir.path);
  const report = await checkEvidence({
    dir: work,
    against: fix.commit,
    home: join(dir.path, "home"),
    runnerCache: goTestCache(),
    sandbox: await sandbox("bubblewrap"),
  });
  match(
    report.notes.join("\n"),
    /^No bugbout\.toml: found go test: go\.mod \(module example\.com\/shelf/,
  );
  deepEqual(report.globs, ["go test's test files"]);
  deepEqual(report.testFiles, ["parse/empty_test.go", "parse/parse_test.go"]);
  deepEqual(report.sourceFiles, ["parse/parse.go"]);
  deepEqual(
    report.tests.map((t) => [t.test, t.base, t.change, t.reference, t.discriminating, t.role]),
    [
      [
        "parse/TestEmptyIsError",
        ["failed", "failed"],
        ["passed"],
        ["passed", "passed"],
        true,
        "gold-aligned",
      ],
      // Run in a process of its own: the panic of the test before it does not hide it.
      [
        "parse/TestThree",
        ["passed", "passed"],
        ["passed"],
        ["passed", "passed"],
        false,
        "regression-only",
      ],
      [
        "parse/TestBlankIsError",
        ["failed", "failed"],
        ["passed"],
        ["passed", "passed"],
        true,
        "gold-aligned",
      ],
    ],
  );
  equal(report.discriminating, 2);
  equal(report.inadequateClosure, false);
  deepEqual(report.runs.map((r) => `${r.tree}/${r.index}`), [
    "base/0",
    "base/1",
    "change/0",
    "reference/0",
    "reference/1",
  ]);
  // The working tree is only read.
  const status = await git(["status", "--porcelain"], { cwd: work });
  deepEqual(status.split("\n").sort(), [
    " M parse/parse.go",
    " M parse/parse_test.go",
    "?? parse/empty_test.go",
  ]);
});

Deno.test("bugbout evidence in a Go module exits 0 when a test discriminates the bug and 1 when none does; the change's go.mod never reaches the base", async () => {
  await using dir = await tempDir("bugbout-evidence-go-cli-");
  const { work } = await goChange(dir.path);
  // The runners' environments live under BUGBOUT_HOME: one kept across test runs.
  const env = { BUGBOUT_HOME: join(goTestCache(), "evidence-home") };
  const found = await runBugbout(["evidence", work], { env });
  equal(found.code, 0, found.stderr);
  match(found.stdout, /No bugbout\.toml: found go test: go\.mod/);
  match(
    found.stdout,
    /parse\/TestEmptyIsError\n {4}base: {6}failed ×2\n {4}change: {4}passed\n {4}→ discriminates the bug \(fails on the base\)/,
  );
  match(
    found.stdout,
    /parse\/TestThree\n {4}base: {6}passed ×2\n {4}change: {4}passed\n {4}→ no evidence about the bug \(passes on the base\)/,
  );
  match(found.stdout, /2 of 3 test\(s\) discriminate the bug\./);

  // Only the test that passes on the base is left, and a go.mod that no go on this machine can
  // build (had it reached the base, the base could not have run): the tests run with the base's.
  await Deno.remove(join(work, "parse/empty_test.go"));
  await git(["checkout", "--quiet", "--", "parse/parse_test.go"], { cwd: work });
  await Deno.writeTextFile(join(work, "parse/three_test.go"), GO_HEADER + THREE);
  await edit(join(work, "go.mod"), "go 1.22", "go 1.99");
  const none = await runBugbout(["evidence", "--json", work], { env });
  equal(none.code, 1, none.stderr);
  const report = JSON.parse(none.stdout);
  deepEqual(
    report.tests.map((t: { test: string; base: string[] }) => [t.test, t.base]),
    [["parse/TestThree", ["passed", "passed"]]],
  );
  equal(report.discriminating, 0);
  equal(report.inadequateClosure, true);
  deepEqual(report.sourceFiles, ["go.mod", "parse/parse.go"]);
  const notes = report.notes.join("\n");
  match(notes, /go test configuration \(go\.mod\) runs only with the whole change/);
  match(notes, /The change as it is could not be prepared, .*go\.mod asks for go 1\.99/);
  deepEqual(report.tests[0].change, ["not-run"]);
});

// ---------------------------------------------------------------------------------------------
// TypeScript (vitest): fix #3 of tally (half cents of debts rounded toward zero).

const ROUND_B = "return Math.round(amount);";
const ROUND_FIX = "return Math.sign(amount) * Math.round(Math.abs(amount));";
const TS_TESTS = `import { describe, expect, it } from "vitest";
import { roundCents } from "./money";

describe("debts", () => {
  it("round half cents away from zero", () => {
    expect(roundCents(-2.5)).toBe(-3);
  });

  it("keep small fractions", () => {
    expect(roundCents(-2.2)).toBe(-2);
  });
});
`;

/** Every test file that imports it fails before any test runs. */
const THROWING_SETUP = 'throw new Error("the setup fails everything");\n';

Deno.test("checkEvidence() in a TypeScript project: vitest's ids; the change's configuration runs only with the whole change", async () => {
  await using dir = await tempDir("bugbout-evidence-ts-");
  const tally = await buildTallyProject(join(dir.path, "origin"), LOCKS);
  const fix = tally.fixes.find((f) => f.key === "round-debts")!;
  const work = await clone(tally.dir, fix.b, join(dir.path, "work"));
  await edit(join(work, "src/money.ts"), ROUND_B, ROUND_FIX);
  await Deno.writeTextFile(join(work, "src/debts.test.ts"), TS_TESTS);
  const home = join(dir.path, "home");
  const shared = { home, runnerCache: ENVS, sandbox: await sandbox("bubblewrap") };
  const report = await checkEvidence({ dir: work, against: fix.g, ...shared });
  match(report.notes.join("\n"), /^No bugbout\.toml: found vitest: package\.json/);
  deepEqual(report.testFiles, ["src/debts.test.ts"]);
  deepEqual(
    report.tests.map((t) => [t.test, t.base, t.change, t.reference, t.role]),
    [
      [
        "src/debts.test.ts > debts > round half cents away from zero",
        ["failed", "failed"],
        ["passed"],
        ["passed", "passed"],
        "gold-aligned",
      ],
      [
        "src/debts.test.ts > debts > keep small fractions",
        ["passed", "passed"],
        ["passed"],
        ["passed", "passed"],
        "regression-only",
      ],
    ],
  );
  equal(report.discriminating, 1);
  equal(report.inadequateClosure, false);

  // The attack: a setup file, and vitest's configuration running it, that fail every test file
  // — a test that passes on the base would seem to discriminate if they reached the base.
  await edit(join(work, "src/money.ts"), ROUND_FIX, ROUND_B);
  await Deno.writeTextFile(join(work, "src/debts.test.ts"), TS_TESTS.replace("-3", "-2"));
  await Deno.writeTextFile(join(work, "vitest.setup.ts"), THROWING_SETUP);
  await edit(
    join(work, "vitest.config.ts"),
    'include: ["src/**/*.test.ts", "tests/**/*.test.ts"],',
    'include: ["src/**/*.test.ts", "tests/**/*.test.ts"],\n    setupFiles: ["./vitest.setup.ts"],',
  );
  const cheat = await checkEvidence({ dir: work, ...shared });
  deepEqual(cheat.sourceFiles.sort(), ["vitest.config.ts", "vitest.setup.ts"]);
  deepEqual(
    cheat.tests.map((t) => [t.test, t.onBase, t.onChange]),
    [
      ["src/debts.test.ts > debts > round half cents away from zero", "passes", "fails"],
      ["src/debts.test.ts > debts > keep small fractions", "passes", "fails"],
    ],
  );
  equal(cheat.discriminating, 0);
  equal(cheat.inadequateClosure, true);
  ok(cheat.notes.some((n) => n.includes("vitest configuration")), cheat.notes.join("\n"));
});

Deno.test("changeAuthor(): a changed file's new tests only; helpers, data and configuration are no rows", async () => {
  await using dir = await tempDir("bugbout-evidence-go-read-");
  const shelf = await buildGoProject(join(dir.path, "origin"));
  const fix = shelf.fixes.find((f) => f.key === "empty-quantity")!;
  const work = await clone(shelf.dir, fix.parent, join(dir.path, "work"));
  const tests = join(work, "parse/parse_test.go");
  await Deno.writeTextFile(tests, (await Deno.readTextFile(tests)) + "\n" + BLANK_IS_ERROR);
  await Deno.writeTextFile(
    join(work, "parse/helpers_test.go"),
    'package parse\n\nvar blank = "  "\n',
  );
  await Deno.mkdir(join(work, "parse/testdata"));
  await Deno.writeTextFile(join(work, "parse/testdata/cases.txt"), "3 kg\n");
  await Deno.writeTextFile(join(work, "go.sum"), "");
  const runner = await openRunner("go", work);
  const scratch = join(dir.path, "scratch");
  await Deno.mkdir(scratch);
  const base = await cachedTree(work, fix.parent, { home: join(dir.path, "home") });
  const real = await workingChange(work, base, {
    globs: [],
    scratch,
    isTest: (p) => runner.isTestFile(p) && !runner.isConfig(p),
  });
  deepEqual(real.files.map((f) => `${f.path}:${f.part}`).sort(), [
    "go.sum:source",
    "parse/helpers_test.go:test",
    "parse/parse_test.go:test",
    "parse/testdata/cases.txt:test",
  ]);
  const env = { key: "", readable: [], env: {}, describe: "" };
  const author = await changeAuthor(real, { runner, env });
  deepEqual(author.tests.map((f) => [f.path, f.ids, f.whole]), [
    ["parse/parse_test.go", ["parse/TestBlankIsError"], false],
  ]);
});
