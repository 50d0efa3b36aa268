/**
 * Python as the test-runner interface's first implementation: on the fixture projects, the
 * runner's outcomes are `runPytest`'s, its changed tests the miner's, its beside copies where
 * cross-examination installs an author, its paths and flags what the testbed and scoring say.
 *
 * @module
 */

import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { join } from "node:path";
import { BugboutError } from "../../lib/errors.ts";
import { gitRun } from "../../lib/git.ts";
import { findAddedTests } from "../../lib/lang/python/mod.ts";
import {
  ensureTestEnv,
  type EnvRequest,
  pytestRulesIn,
  PythonRunner,
  pythonRunner,
  pythonRunnerEnv,
  runPytest,
} from "../../lib/lang/python/mod.ts";
import { openRunner } from "../../lib/lang/mod.ts";
import { reviewedPaths } from "../../lib/score/mod.ts";
import { kindByRunner } from "../../lib/lang/shared.ts";
import { besideModulePath, python, reviewPythonPatch } from "../../lib/lang/python/mod.ts";
import {
  authorRows,
  type AuthorTests,
  classifyPath,
  type FileChange,
  type FileState,
  installAuthor,
} from "../../lib/testbed/mod.ts";
import type { FixtureFix, FixtureProject } from "../../lib/demo/fixture.ts";
import { buildBugshop, buildDemo, expectedTasks, scorableFixes } from "../fixtures/projects.ts";
import { ENVS_DIR, sandbox, tempDir, writeFiles } from "./_shared.ts";

let root: string | undefined;
const built = new Map<string, Promise<FixtureProject>>();
/** A fixture project, built once for this file. */
function fixture(name: "demo" | "bugshop"): Promise<FixtureProject> {
  let p = built.get(name);
  if (!p) {
    p = (async () => {
      root ??= await Deno.realPath(await Deno.makeTempDir({ prefix: "bugbout-pyrunner-" }));
      return await (name === "demo" ? buildDemo : buildBugshop)(join(root, name));
    })();
    built.set(name, p);
  }
  return p;
}
globalThis.addEventListener("unload", () => {
  if (root) Deno.removeSync(root, { recursive: true });
});

/** A file at a revision, or null when it has none. */
async function show(repo: string, rev: string, path: string): Promise<string | null> {
  const r = await gitRun(["show", `${rev}:${path}`], { cwd: repo, okCodes: "any" });
  return r.code === 0 ? r.stdout : null;
}

/** The tree of `rev` written into `dir`, with `over` written on top. */
async function treeAt(
  repo: string,
  rev: string,
  dir: string,
  over: Record<string, string> = {},
): Promise<string> {
  await Deno.mkdir(dir, { recursive: true });
  const files = (await gitRun(["ls-tree", "-r", "--name-only", "-z", rev], { cwd: repo })).stdout
    .split("\0").filter((p) => p);
  const contents: Record<string, string> = {};
  for (const path of files) contents[path] = (await show(repo, rev, path))!;
  await writeFiles(dir, { ...contents, ...over });
  return dir;
}

/** The tests a fix changed, as the runner reads them from its test files at B and G. */
async function runnerNewTests(
  project: FixtureProject,
  fix: FixtureFix,
  runner: PythonRunner,
): Promise<string[]> {
  const found: string[] = [];
  for (const path of [...fix.testFiles].sort((a, b) => a.localeCompare(b))) {
    const after = (await show(project.dir, fix.commit, path))!;
    const before = await show(project.dir, fix.parent, path);
    const read = runner.changedTests(path, before, after);
    ok("tests" in read, path);
    found.push(...read.changed);
  }
  return found;
}

for (const name of ["demo", "bugshop"] as const) {
  Deno.test(`changedTests() names the tests the miner names, fix by fix (${name})`, async () => {
    const project = await fixture(name);
    await using tmp = await tempDir();
    const fixes = expectedTasks(project).filter((f) => f.testFiles.length);
    ok(fixes.length >= 3);
    for (const fix of fixes) {
      const g = await treeAt(project.dir, fix.commit, join(tmp.path, fix.key));
      const runner = await openRunner("python", g);
      ok(runner instanceof PythonRunner);
      for (const path of fix.testFiles) ok(runner.isTestFile(path), `${fix.key}: ${path}`);
      const mined = await findAddedTests(project.dir, [fix.commit], await pytestRulesIn(g));
      const read = await runnerNewTests(project, fix, runner);
      deepEqual(read, mined.get(fix.commit)!.newTests, fix.key);
      deepEqual(read, fix.newTests, fix.key);
    }
  });
}

Deno.test("the runner of a tree reads its pytest discovery rules: bugshop's check_*.py are tests", async () => {
  const project = await fixture("bugshop");
  await using tmp = await tempDir();
  const head = await treeAt(project.dir, project.head, join(tmp.path, "head"));
  const runner = await openRunner("python", head);
  ok(runner.isTestFile("tests/check_things.py"));
  ok(!(await openRunner("python", tmp.path)).isTestFile("tests/check_things.py"));
  const read = runner.changedTests(
    "tests/check_things.py",
    "def check_a():\n    pass\n",
    "def check_a():\n    pass\n\n\ndef check_b():\n    assert 1\n",
  );
  deepEqual(read, {
    tests: ["tests/check_things.py::check_a", "tests/check_things.py::check_b"],
    changed: ["tests/check_things.py::check_b"],
  });
});

Deno.test("test files, configuration and source: the runner's test files and configuration classify paths as its own rules do", () => {
  const runner = new PythonRunner({ testsDir: "tests" });
  const paths = [
    "tests/test_a.py",
    "tests/helpers.py",
    "tests/data/input.txt",
    "tests/conftest.py",
    "conftest.py",
    "pkg/conftest.py",
    "pkg/a_test.py",
    "pkg/core.py",
    "pkg/sub/util.py",
    "pyproject.toml",
    "setup.cfg",
    "tox.ini",
    "pytest.ini",
    "pkg/pytest.toml",
    "sitecustomize.py",
    "pkg/evil.pth",
    "pytest_plugin.py",
    "noxfile.py",
    "README.md",
  ];
  deepEqual(
    paths.map((p) => [p, kindByRunner(runner, p, ".")]),
    paths.map((p) => [p, classifyPath(p, { packageDir: ".", runner })]),
  );
  for (const p of ["conftest.py", "pkg/evil.pth", "pyproject.toml"]) ok(runner.isConfig(p), p);
  for (const p of ["pkg/core.py", "tests/test_a.py"]) ok(!runner.isConfig(p), p);
  equal(runner.fileOf("tests/test_a.py::TestK::test_m[1-2]"), "tests/test_a.py");
  equal(runner.fileOf("tests/test_a.py"), "tests/test_a.py");
});

function file(text: string | null): FileState {
  return text === null
    ? { kind: "absent" }
    : { kind: "file", data: new TextEncoder().encode(text), executable: false };
}

Deno.test("patchFlags() flags what scoring flags in source: an import of pytest, a pytest hook", () => {
  const runner = new PythonRunner({ testsDir: "tests" });
  const files = [
    { path: "pkg/a.py", before: "x = 1\n", after: "import pytest\nx = 1\n" },
    {
      path: "pkg/b.py",
      before: null,
      after: "def pytest_collection_modifyitems(items):\n    pass\n",
    },
    { path: "pkg/c.py", before: "import pytest\n", after: "import pytest\nx = 2\n" },
    { path: "pkg/d.py", before: "from _pytest import x\n", after: null },
    { path: "pkg/e.py", before: "", after: "m = __import__('pytest')\n" },
    { path: "tests/test_x.py", before: null, after: "import pytest\n" },
    { path: "conftest.py", before: null, after: "def pytest_configure(config):\n    pass\n" },
  ];
  const findings = runner.patchFlags(files);
  deepEqual(findings, [
    { path: "pkg/a.py", what: "imports pytest from the source: pkg/a.py" },
    { path: "pkg/b.py", what: "defines pytest hooks in the source: pkg/b.py" },
    { path: "pkg/e.py", what: "imports pytest from the source: pkg/e.py" },
  ]);
  // The same lines scoring's review writes for the same patch.
  const changes = new Map<string, FileChange>(
    files.map((f) => [f.path, { before: file(f.before), after: file(f.after) }]),
  );
  const rules = { packageDir: "pkg", runner };
  const review = reviewPythonPatch(reviewedPaths(
    files.map((f) => ({
      path: f.path,
      change: f.before === null ? "added" : f.after === null ? "deleted" : "modified",
      kind: classifyPath(f.path, rules),
      binary: false,
      symlink: false,
    })),
    changes,
    rules,
  ));
  deepEqual(
    review.flags.filter((f) => !f.includes("conftest")),
    findings.map((f) => f.what),
  );
});

Deno.test("besidePath() and besideId() are where cross-examination installs an author, and what it calls the tests", async () => {
  await using tmp = await tempDir();
  const runner = new PythonRunner();
  const agent = "Claude-Code";
  const tag = python.authorTags([agent]).get(agent)!;
  const dir = `_bugbout_${tag}`;
  const text = "def test_new():\n    assert True\n";
  const modules = ["tests/unit/test_split.py", "test_top.py"];
  const author: AuthorTests = {
    agent,
    role: "contestant",
    tag,
    files: new Map(modules.map((m) => [m, file(text)])),
    tests: modules.map((path) => ({
      path,
      beside: runner.besidePath(path, tag),
      ids: [],
      whole: true,
    })),
    helpers: [],
    ignored: [],
    shareable: true,
    key: "k",
  };
  await installAuthor(tmp.path, author, runner, { layout: "beside", alone: false });
  for (const module of modules) {
    const at = runner.besidePath(module, tag);
    equal(at, besideModulePath(module, dir));
    equal(
      await Deno.readTextFile(join(tmp.path, at)),
      runner.besideSource(module, text, tag),
    );
    const id = `${module}::test_new`;
    const rows = authorRows(author, runner, { [`${at}::test_new`]: "passed" }, "beside");
    equal([...rows.keys()][0], runner.besideId(id, tag));
    equal(runner.besideId(id, tag), `${at}::test_new`);
  }
  equal(runner.besidePath("tests/test_a.py", "codex"), "tests/_bugbout_codex/test_a.py");
  equal(
    runner.besideId("tests/test_a.py::TestK::test_m[1]", "codex"),
    "tests/_bugbout_codex/test_a.py::TestK::test_m[1]",
  );
});

Deno.test("openRunner('python') cannot prepare an environment without the project's request", async () => {
  await using tmp = await tempDir();
  const runner = await openRunner("python", tmp.path);
  await rejects(runner.prepare(tmp.path, tmp.path), BugboutError);
});

/** The demo's environment request, built into the tests' shared environments. */
function demoRequest(project: FixtureProject, home: string): EnvRequest {
  return {
    home,
    repository: project.dir,
    source: project.source,
    testDependencies: ["pytest"],
    installProject: true,
    envsDir: ENVS_DIR,
  };
}

Deno.test("run() gives runPytest's outcomes on B and G of the demo's fixes, group by group", async () => {
  const project = await fixture("demo");
  await using tmp = await tempDir();
  const request = demoRequest(project, join(tmp.path, "home"));
  const box = await sandbox("bubblewrap");
  for (const fix of scorableFixes(project).slice(0, 2)) {
    const g = await treeAt(project.dir, fix.commit, join(tmp.path, fix.key, "g"));
    const b = await treeAt(
      project.dir,
      fix.parent,
      join(tmp.path, fix.key, "b"),
      fix.hiddenTests,
    );
    const runner = await pythonRunner(g, { environment: request, pythonPath: [fix.pythonPath] });
    const env = await runner.prepare(g, join(tmp.path, "unused"));
    const testEnv = await ensureTestEnv(request);
    deepEqual(env, pythonRunnerEnv(testEnv));
    const groups = [fix.failToPass, fix.testFiles];
    for (const [side, tree] of [["B", b], ["G", g]] as const) {
      const ours = await runner.run({ sandbox: box, env, tree, groups, timeoutMs: 60_000 });
      const theirs = await runPytest({
        sandbox: box,
        env: testEnv,
        tree,
        targets: [],
        groups,
        pythonPath: [fix.pythonPath],
        timeoutMs: 60_000,
      });
      const what = `${fix.key} on ${side}`;
      equal(ours.status, theirs.status, what);
      deepEqual(ours.outcomes, theirs.outcomes, what);
      deepEqual(
        ours.groups.map((r) => [r.status, r.complete, r.outcomes]),
        theirs.groups.map((r) => [r.status, r.complete, r.outcomes]),
        what,
      );
      deepEqual(Object.keys(ours.durations).sort(), Object.keys(theirs.durations).sort(), what);
      for (const id of fix.failToPass) {
        equal(ours.outcomes[id], side === "B" ? "failed" : "passed", `${id} ${what}`);
      }
    }
  }
});

Deno.test("run() makes an author's beside directory a package, so both copies of a module run", async () => {
  const project = await fixture("demo");
  await using tmp = await tempDir();
  const request = demoRequest(project, join(tmp.path, "home"));
  const fix = scorableFixes(project)[0];
  const path = fix.testFiles[0];
  const g = await treeAt(project.dir, fix.commit, join(tmp.path, "g"));
  const runner = await pythonRunner(g, { environment: request, pythonPath: [fix.pythonPath] });
  const env = await runner.prepare(g, tmp.path);
  // The author's copy alone, as a stage that knows only the interface would install it.
  const copy = runner.besideSource(path, (await show(project.dir, fix.commit, path))!, "codex");
  await writeFiles(g, { [runner.besidePath(path, "codex")]: copy });
  const id = fix.failToPass[0];
  const mine = runner.besideId(id, "codex");
  const groups = [[id, mine]];
  // Without the package, pytest cannot import two modules of one name in one process.
  const bare = await runPytest({
    sandbox: await sandbox("bubblewrap"),
    env: await ensureTestEnv(request),
    tree: g,
    targets: [],
    groups,
    pythonPath: [fix.pythonPath],
    timeoutMs: 60_000,
  });
  equal(bare.status, "infra-error");
  ok(bare.message?.includes("import file mismatch"), bare.message);
  const run = await runner.run({
    sandbox: await sandbox("bubblewrap"),
    env,
    tree: g,
    groups,
    timeoutMs: 60_000,
  });
  equal(run.status, "ok", run.message);
  equal(run.outcomes[id], "passed");
  equal(run.outcomes[mine], "passed");
});
