import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { checkEvidence, matchesGlobs } from "../../lib/evidence/mod.ts";
import { pythonTestGlobs as defaultTestGlobs } from "../../lib/lang/python/mod.ts";
import { git } from "../../lib/git.ts";
import { ensureTestEnv } from "../../lib/lang/python/env.ts";
import { buildDemo, fixByKey, type FixtureFix } from "../fixtures/projects.ts";
import { runBugbout } from "../_helpers.ts";
import { ENVS_DIR, sandbox, tempDir, toolsWith } from "../python/_shared.ts";

/** A clone of the demo project checked out at the chunk fix's parent, and the fix. */
async function workingCopy(root: string): Promise<{ work: string; fix: FixtureFix }> {
  const demo = await buildDemo(join(root, "origin"));
  const fix = fixByKey(demo, "chunk-partial");
  const work = join(root, "work");
  await git(["clone", "--quiet", "--", join(root, "origin"), work]);
  await git(["checkout", "--quiet", "--detach", fix.parent], { cwd: work });
  return { work, fix };
}

async function edit(path: string, from: string, to: string) {
  const text = await Deno.readTextFile(path);
  if (!text.includes(from)) throw new Error(`cannot find ${from} in ${path}`);
  await Deno.writeTextFile(path, text.replace(from, to));
}

const FIX = ["count = len(items) // size", "count = -(-len(items) // size)"] as const;
const NEW_TESTS = "from textkit.lists import chunk\n\n\n" +
  "def test_remainder_is_kept():\n    assert chunk([1, 2, 3], 2) == [[1, 2], [3]]\n\n\n" +
  "def test_even_split():\n    assert chunk([1, 2, 3, 4], 2) == [[1, 2], [3, 4]]\n";

Deno.test("the default test globs take the tests directory, conftest.py, test_*.py and *_test.py", () => {
  const globs = defaultTestGlobs("tests");
  ok(matchesGlobs("tests/data/input.json", globs));
  ok(matchesGlobs("src/pkg/conftest.py", globs));
  ok(matchesGlobs("src/pkg/test_inside.py", globs));
  ok(matchesGlobs("tools/parser_test.py", globs));
  ok(!matchesGlobs("src/pkg/core.py", globs));
  ok(!matchesGlobs("testsuite/x.py", globs));
  ok(matchesGlobs("checks/deep/x.py", ["checks/**"]));
  ok(matchesGlobs("a/b/c_check.py", ["a/**/*_check.py"]));
});

Deno.test("checkEvidence() replays the change's tests on the base, the change and a reference fix", async () => {
  await using dir = await tempDir();
  const { work, fix } = await workingCopy(dir.path);
  await edit(join(work, "textkit/lists.py"), ...FIX);
  await Deno.writeTextFile(join(work, "tests/test_new.py"), NEW_TESTS);
  // An existing module with one test added: only that test is the change's.
  await Deno.writeTextFile(
    join(work, "tests/test_lists.py"),
    (await Deno.readTextFile(join(work, "tests/test_lists.py"))) +
      "\n\ndef test_seven_in_threes():\n    assert chunk(list(range(7)), 3)[-1] == [6]\n",
  );
  const home = join(dir.path, "home");
  const env = await ensureTestEnv({
    home,
    repository: work,
    source: "textkit",
    testDependencies: ["pytest"],
    installProject: true,
    envsDir: ENVS_DIR,
  });
  const project = {
    repository: work,
    home,
    config: {
      root: work,
      project: {
        source: "textkit",
        tests: "tests",
        testDependencies: ["pytest"],
        installProject: true,
        pytestArgs: [],
        env: {},
      },
    },
  };
  const report = await checkEvidence({
    dir: work,
    against: fix.commit,
    home,
    tools: toolsWith(project, env),
    sandbox: await sandbox("bubblewrap"),
  });
  deepEqual(report.testFiles, ["tests/test_lists.py", "tests/test_new.py"]);
  deepEqual(report.sourceFiles, ["textkit/lists.py"]);
  deepEqual(
    report.tests.map((t) => [t.test, t.base, t.change, t.reference, t.discriminating, t.role]),
    [
      [
        "tests/test_lists.py::test_seven_in_threes",
        ["failed", "failed"],
        ["passed"],
        ["passed", "passed"],
        true,
        "gold-aligned",
      ],
      [
        "tests/test_new.py::test_remainder_is_kept",
        ["failed", "failed"],
        ["passed"],
        ["passed", "passed"],
        true,
        "gold-aligned",
      ],
      [
        "tests/test_new.py::test_even_split",
        ["passed", "passed"],
        ["passed"],
        ["passed", "passed"],
        false,
        "regression-only",
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
  // The working tree is only read: nothing was added to it, and git sees the same change.
  const status = await git(["status", "--porcelain"], { cwd: work });
  deepEqual(status.split("\n").sort(), [
    " M tests/test_lists.py",
    " M textkit/lists.py",
    "?? tests/test_new.py",
  ]);
});

Deno.test("bugbout evidence exits 0 when a test discriminates the bug and 1 when none does", async () => {
  await using dir = await tempDir();
  const { work } = await workingCopy(dir.path);
  const env: Record<string, string> = { BUGBOUT_HOME: join(dir.path, "home") };
  // uv builds the environment in the subprocess: it needs the cache and this machine's CAs.
  for (const key of ["UV_CACHE_DIR", "SSL_CERT_FILE", "UV_INDEX_URL", "PIP_INDEX_URL"]) {
    const value = Deno.env.get(key);
    if (value !== undefined) env[key] = value;
  }
  await edit(join(work, "textkit/lists.py"), ...FIX);
  await Deno.writeTextFile(join(work, "tests/test_new.py"), NEW_TESTS);

  const found = await runBugbout(["evidence", work], { env });
  equal(found.code, 0, found.stderr);
  match(found.stdout, /No bugbout\.toml: detected the package textkit and the tests in tests\./);
  match(
    found.stdout,
    /tests\/test_new\.py::test_remainder_is_kept\n {4}base: {6}failed ×2\n {4}change: {4}passed\n {4}→ discriminates the bug \(fails on the base\)/,
  );
  match(
    found.stdout,
    /tests\/test_new\.py::test_even_split\n {4}base: {6}passed ×2\n {4}change: {4}passed\n {4}→ no evidence about the bug \(passes on the base\)/,
  );
  match(found.stdout, /1 of 2 test\(s\) discriminate the bug\./);

  const json = await runBugbout(["evidence", "--json", work], { env });
  equal(json.code, 0, json.stderr);
  const report = JSON.parse(json.stdout);
  deepEqual(
    report.tests.map((t: { test: string; onBase: string }) => [t.test, t.onBase]),
    [["tests/test_new.py::test_remainder_is_kept", "fails"], [
      "tests/test_new.py::test_even_split",
      "passes",
    ]],
  );

  // Only the regression-only test left: nothing discriminates, and the closure is inadequate.
  await Deno.writeTextFile(
    join(work, "tests/test_new.py"),
    "from textkit.lists import chunk\n\n\ndef test_even_split():\n    assert chunk([1, 2], 2) == [[1, 2]]\n",
  );
  const none = await runBugbout(["evidence", work], { env });
  equal(none.code, 1, none.stderr);
  match(none.stdout, /No test discriminates the bug/);
  match(
    none.stdout,
    /Evidence-inadequate closure: no test both fails on the base and passes on the change\./,
  );

  // Globs that match no changed file: the change holds no test.
  const globbed = await runBugbout(["evidence", "--tests", "nothing/**", work], { env });
  equal(globbed.code, 1, globbed.stderr);
  match(globbed.stdout, /The change adds or changes no test \(test files: nothing\/\*\*;/);

  const outside = await runBugbout(["evidence", join(dir.path, "home")], { env });
  equal(outside.code, 1);
  match(outside.stderr, /is not inside a git repository/);
});
