import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import {
  authorEntries,
  authorFromChanges,
  type AuthorLayout,
  authorRows,
  type AuthorTests,
} from "../../lib/testbed/authors.ts";
import { assembleCells, lookupOutcome, rowIds } from "../../lib/testbed/cells.ts";
import { changedTests, testOfNode } from "../../lib/lang/python/changed_tests.ts";
import { REPOSITORY } from "../../lib/records.ts";
import {
  type GroupResult,
  type RowOwner,
  runOwners,
  type RunSettings,
  suiteOwner,
} from "../../lib/testbed/owners.ts";
import { applyPatch, type FileState, patchedFiles } from "../../lib/testbed/patched.ts";
import { Slots } from "../../lib/testbed/slots.ts";
import { DEFAULT_RULES } from "../../lib/lang/python/pytest_rules.ts";
import { ensureTestEnv } from "../../lib/lang/python/env.ts";
import { python } from "../../lib/lang/python/language.ts";
import {
  besideModulePath,
  PythonRunner,
  pythonRunnerEnv,
  targetFile,
} from "../../lib/lang/python/mod.ts";
import { copyTree } from "../../lib/checkout.ts";
import type { Outcome } from "../../lib/records.ts";
import { git } from "../../lib/git.ts";
import { ENVS_DIR, sandbox, tempDir, writeFiles } from "../python/_shared.ts";
import { RepoBuilder } from "../../lib/demo/repo.ts";

const PYTHON = "python3";

const fileOf = targetFile;

Deno.test("Python's author tags make a Python identifier of every agent name, numbered on collision", () => {
  const tags = python.authorTags(["codex/gpt-5.1", "Claude Code", "codex-gpt-5-1", "..."]);
  const runner = new PythonRunner();
  deepEqual([...tags.values()].map((tag) => runner.besidePath("test_x.py", tag).split("/")[0]), [
    "_bugbout_codex_gpt_5_1",
    "_bugbout_claude_code",
    "_bugbout_codex_gpt_5_1_2",
    "_bugbout_agent",
  ]);
  equal(besideModulePath("tests/unit/test_x.py", "_bugbout_a"), "tests/unit/_bugbout_a/test_x.py");
  equal(besideModulePath("test_x.py", "_bugbout_a"), "_bugbout_a/test_x.py");
});

/** An author of the given test files, as the Python runner reads them. */
function author(name: string, tests: AuthorTests["tests"]): AuthorTests {
  return {
    agent: name,
    role: "contestant",
    tag: name,
    files: new Map(),
    tests,
    helpers: [],
    ignored: [],
    shareable: true,
    key: name,
  };
}

Deno.test("changedTests() finds the tests a change added or changed, decorators included", async () => {
  const before = `import pytest

def helper():
    return 1

def test_same():
    assert helper() == 1

def test_body():
    assert 1 == 1

def test_marked():
    assert True

class TestK:
    def test_in_class(self):
        assert True

class TestHeader:
    value = 1
    def test_uses_value(self):
        assert self.value
`;
  const after = before
    .replace("def helper():\n    return 1", "def helper():\n    return 2")
    .replace("assert 1 == 1", "assert 2 == 2")
    .replace("def test_marked", "@pytest.mark.xfail(run=False)\ndef test_marked")
    .replace("    value = 1", "    value = 2")
    .replace(
      "class TestK:",
      "class TestK:\n    def test_new_method(self):\n        assert True\n",
    ) +
    "\n\ndef test_added():\n    assert True\n";
  const answers = await changedTests(PYTHON, [
    { before, after },
    { before: null, after: "def test_one():\n    pass\n" },
    { before, after: "def test_broken(:\n" },
    {
      before: "pytestmark = []\n\ndef test_a():\n    pass\n",
      after: "import pytest\npytestmark = [pytest.mark.skip]\n\ndef test_a():\n    pass\n",
    },
    {
      before: "def check_x():\n    pass\n",
      after: "def check_x():\n    pass\n\ndef check_y():\n    pass\n\ndef test_z():\n    pass\n",
    },
  ], DEFAULT_RULES);
  // In source order; `helper` changed, but it is not a test.
  deepEqual(answers[0], {
    tests: [
      "test_same",
      "test_body",
      "test_marked",
      "TestK::test_new_method",
      "TestK::test_in_class",
      "TestHeader::test_uses_value",
      "test_added",
    ],
    changed: [
      "test_body",
      "test_marked",
      "TestK::test_new_method",
      "TestHeader::test_uses_value",
      "test_added",
    ],
  });
  deepEqual(answers[1], { tests: ["test_one"], changed: ["test_one"] });
  ok("error" in answers[2]);
  deepEqual(answers[3], { tests: ["test_a"], changed: ["test_a"] });
  // The default rules: `check_*` functions are not tests.
  deepEqual(answers[4], { tests: ["test_z"], changed: ["test_z"] });
  const custom = await changedTests(
    PYTHON,
    [{
      before: "def check_x():\n    pass\n",
      after: "def check_x():\n    pass\n\ndef check_y():\n    pass\n",
    }],
    { functions: ["check"], classes: ["Test"] },
  );
  deepEqual(custom[0], { tests: ["check_x", "check_y"], changed: ["check_y"] });
  equal(testOfNode("t/a.py::TestK::test_m[1-::x]", "t/a.py"), "TestK::test_m");
  equal(testOfNode("t/a.py", "t/a.py"), undefined);
});

Deno.test("readTests() keeps new modules whole and modified ones to their changed tests", async () => {
  const file = (text: string): FileState => ({
    kind: "file",
    data: new TextEncoder().encode(text),
    executable: false,
  });
  const absent: FileState = { kind: "absent" };
  const env = pythonRunnerEnv({
    key: "",
    kind: "interpreter",
    python: PYTHON,
    version: "",
    prefix: "",
    readable: [],
    pytestVersion: "",
    pytestImports: [],
    dependencies: null,
  });
  const read = await authorFromChanges(
    author("codex", []),
    new Map([
      ["tests/test_new.py", { before: absent, after: file("def test_a():\n    pass\n") }],
      ["tests/test_old.py", {
        before: file("def test_a():\n    pass\n"),
        after: file("def test_a():\n    pass\n\ndef test_b():\n    pass\n"),
      }],
      ["tests/test_same.py", {
        before: file("def test_a():\n    pass\n"),
        after: file("import os\n\ndef test_a():\n    pass\n"),
      }],
      ["tests/helpers.py", { before: absent, after: file("X = 1\n") }],
      ["tests/conftest.py", { before: absent, after: file("import pytest\n") }],
      ["tests/test_gone.py", { before: file("def test_a():\n    pass\n"), after: absent }],
    ]),
    { runner: new PythonRunner({ rules: DEFAULT_RULES }), env },
  );
  const modules = read.tests.map((f) => ({
    path: f.path,
    whole: f.whole,
    tests: f.ids.map((id) => id.slice(f.path.length + 2)),
  }));
  deepEqual(modules, [
    { path: "tests/test_new.py", whole: true, tests: [] },
    { path: "tests/test_old.py", whole: false, tests: ["test_b"] },
  ]);
});

Deno.test("authorRows() names an author's tests the same whether installed beside or in place", () => {
  const runner = new PythonRunner({ rules: DEFAULT_RULES });
  const codex = author("codex", [
    { path: "tests/test_new.py", beside: "tests/_bugbout_codex/test_new.py", ids: [], whole: true },
    {
      path: "tests/test_lists.py",
      beside: "tests/_bugbout_codex/test_lists.py",
      ids: ["tests/test_lists.py::test_added", "tests/test_lists.py::TestK::test_m"],
      whole: false,
    },
  ]);
  const idOf = (layout: AuthorLayout, id: string) =>
    [...authorRows(codex, runner, { [id]: "error" }, layout).keys()][0];
  deepEqual(authorEntries(codex, runner, "beside"), [
    "tests/_bugbout_codex/test_new.py",
    "tests/_bugbout_codex/test_lists.py",
  ]);
  equal(
    idOf("beside", "tests/_bugbout_codex/test_new.py::test_x[1]"),
    "tests/_bugbout_codex/test_new.py::test_x[1]",
  );
  equal(
    idOf("beside", "tests/_bugbout_codex/test_lists.py::test_added[a]"),
    "tests/_bugbout_codex/test_lists.py::test_added[a]",
  );
  equal(
    idOf("beside", "tests/_bugbout_codex/test_lists.py::TestK::test_m"),
    "tests/_bugbout_codex/test_lists.py::TestK::test_m",
  );
  // The repository's tests in the author's copy of a module are not the author's.
  equal(idOf("beside", "tests/_bugbout_codex/test_lists.py::test_chunk_even"), undefined);
  equal(idOf("beside", "tests/test_lists.py::test_added"), undefined);
  // A module that failed to collect is known by its path.
  equal(
    idOf("beside", "tests/_bugbout_codex/test_lists.py"),
    "tests/_bugbout_codex/test_lists.py",
  );

  deepEqual(authorEntries(codex, runner, "own"), ["tests/test_new.py", "tests/test_lists.py"]);
  equal(
    idOf("own", "tests/test_lists.py::test_added"),
    "tests/_bugbout_codex/test_lists.py::test_added",
  );
  equal(idOf("own", "tests/test_new.py"), "tests/_bugbout_codex/test_new.py");
  equal(idOf("own", "tests/test_lists.py::test_flatten"), undefined);

  equal(idOf("as-is", "tests/test_lists.py::test_added"), "tests/test_lists.py::test_added");
  const suite = suiteOwner(["tests/test_a.py"], "suite", runner);
  equal(suite.name, REPOSITORY);
  deepEqual(
    [
      ...suite.rows(
        { "tests/test_a.py::test_x": "passed", "tests/test_b.py::test_x": "passed" },
        "beside",
      ).keys(),
    ],
    ["tests/test_a.py::test_x"],
  );
});

Deno.test("lookupOutcome() gives a module's collection error to each of its tests, and back", () => {
  const broken = new Map<string, Outcome>([["t/a.py", "error"]]);
  equal(lookupOutcome(broken, "t/a.py::test_x", fileOf), "error");
  equal(lookupOutcome(broken, "t/b.py::test_x", fileOf), "not-run");
  const collected = new Map<string, Outcome>([["t/a.py::x", "passed"], ["t/a.py::y", "failed"]]);
  equal(lookupOutcome(collected, "t/a.py", fileOf), "failed");
  equal(lookupOutcome(new Map([["t/a.py::x", "passed"]]), "t/a.py", fileOf), "passed");
  deepEqual(rowIds([broken, collected, new Map([["t/c.py", "error" as const]])], fileOf), [
    "t/a.py::x",
    "t/a.py::y",
    "t/c.py",
  ]);
});

Deno.test("assembleCells() lays out rows by author and marks tests whose B repeats disagree", () => {
  const group = (owner: string, status: GroupResult["status"], entries: [string, Outcome][]) => ({
    owner,
    status,
    outcomes: new Map(entries),
    tamper: [],
    suspect: [],
  });
  const result = assembleCells(
    [{ name: "a", role: "contestant" }, { name: REPOSITORY, role: "repository" }],
    [
      {
        tree: { id: "B", kind: "base", status: "ok" },
        groups: [
          group("a", "ok", [["t/_a/test_x.py", "error"]]),
          group(REPOSITORY, "ok", [["t/test_r.py::r", "passed"], ["t/test_r.py::flaky", "passed"]]),
        ],
      },
      {
        tree: { id: "B#2", kind: "base", status: "ok" },
        groups: [
          group("a", "ok", [["t/_a/test_x.py", "error"]]),
          group(REPOSITORY, "ok", [["t/test_r.py::r", "passed"], ["t/test_r.py::flaky", "failed"]]),
        ],
      },
      {
        tree: { id: "fix", kind: "patch", agent: "fix", status: "ok" },
        groups: [
          group("a", "ok", [["t/_a/test_x.py::one", "passed"], ["t/_a/test_x.py::two", "failed"]]),
          group(REPOSITORY, "infra-error", []),
        ],
      },
      { tree: { id: "bad", kind: "patch", agent: "bad", status: "patch-failed" }, groups: [] },
    ],
    fileOf,
  );
  deepEqual(result.tests, [
    { id: "t/_a/test_x.py::one", author: "a", authorRole: "contestant" },
    { id: "t/_a/test_x.py::two", author: "a", authorRole: "contestant" },
    { id: "t/test_r.py::r", author: REPOSITORY, authorRole: "repository" },
    { id: "t/test_r.py::flaky", author: REPOSITORY, authorRole: "repository" },
  ]);
  deepEqual(result.cells, {
    "t/_a/test_x.py::one": { B: "error", "B#2": "error", fix: "passed", bad: "not-run" },
    "t/_a/test_x.py::two": { B: "error", "B#2": "error", fix: "failed", bad: "not-run" },
    "t/test_r.py::r": { B: "passed", "B#2": "passed", fix: "not-run", bad: "not-run" },
    "t/test_r.py::flaky": { B: "passed", "B#2": "failed", fix: "not-run", bad: "not-run" },
  });
  deepEqual(result.unstableOnB, ["t/test_r.py::flaky"]);
});

Deno.test("applyPatch() applies only the paths it is told to, and says why a patch does not apply", async () => {
  await using dir = await tempDir();
  const repo = new RepoBuilder();
  repo.commit({ message: "one", files: { "pkg/a.py": "A = 1\n", "tests/test_a.py": "T = 1\n" } });
  repo.commit({ message: "two", files: { "pkg/a.py": "A = 2\n", "tests/test_a.py": "T = 2\n" } });
  await repo.build(join(dir.path, "repo"));
  const patch = await git(["diff", "--binary", "HEAD~1", "HEAD"], { cwd: join(dir.path, "repo") }) +
    "\n";
  await writeFiles(join(dir.path, "tree"), { "pkg/a.py": "A = 1\n", "tests/test_a.py": "T = 1\n" });
  deepEqual(await applyPatch(join(dir.path, "tree"), patch, { include: ["pkg/a.py"] }), {
    ok: true,
  });
  equal(await Deno.readTextFile(join(dir.path, "tree", "pkg/a.py")), "A = 2\n");
  equal(await Deno.readTextFile(join(dir.path, "tree", "tests/test_a.py")), "T = 1\n");
  const again = await applyPatch(join(dir.path, "tree"), patch);
  equal(again.ok, false);
  if (!again.ok) match(again.message, /does not apply/);
  // The tree is left as it was.
  equal(await Deno.readTextFile(join(dir.path, "tree", "tests/test_a.py")), "T = 1\n");

  await writeFiles(join(dir.path, "base"), { "pkg/a.py": "A = 1\n", "tests/test_a.py": "T = 1\n" });
  const changes = await patchedFiles(join(dir.path, "base"), patch, [{ path: "tests/test_a.py" }, {
    path: "pkg/a.py",
  }], {
    scratch: join(dir.path, "scratch"),
  });
  const text = (s: FileState) => (s.kind === "file" ? new TextDecoder().decode(s.data) : s.kind);
  equal(text(changes.get("tests/test_a.py")!.before), "T = 1\n");
  equal(text(changes.get("tests/test_a.py")!.after), "T = 2\n");
  // The base is only read.
  equal(await Deno.readTextFile(join(dir.path, "base", "pkg/a.py")), "A = 1\n");
});

Deno.test("runGroups() runs each group in a process of its own under its own time limit, and reruns alone the groups a killed session never reached", async () => {
  await using dir = await tempDir();
  // The environment reads packaging files from a repository: a tiny one without any.
  const repo = new RepoBuilder();
  repo.commit({ message: "init", files: { "README": "x\n" } });
  await repo.build(join(dir.path, "repo"));
  const testEnv = await ensureTestEnv({
    home: join(dir.path, "home"),
    repository: join(dir.path, "repo"),
    source: ".",
    testDependencies: ["pytest"],
    installProject: false,
    envsDir: ENVS_DIR,
  });
  const tree = join(dir.path, "tree");
  await writeFiles(tree, {
    "tests/test_ok.py": "def test_ok():\n    assert True\n",
    "tests/_bugbout_crash/__init__.py": "",
    "tests/_bugbout_crash/test_crash.py": "import os\nos._exit(3)\n",
    "tests/_bugbout_hang/__init__.py": "",
    "tests/_bugbout_hang/test_hang.py": "def test_hang():\n    while True:\n        pass\n",
    "tests/_bugbout_killer/__init__.py": "",
    "tests/_bugbout_killer/test_kill.py":
      "import os, signal\n\n\ndef test_kill():\n    os.kill(os.getppid(), signal.SIGKILL)\n",
    "tests/_bugbout_good/__init__.py": "",
    "tests/_bugbout_good/test_good.py": "def test_good():\n    assert False\n",
  });
  const settings = (timeoutMs: number): RunSettings => ({
    sandbox: undefined as never,
    extraEnv: {},
    timeoutMs,
    memoryMb: 1024,
    deny: [],
    scratch: join(dir.path, "runs"),
    slots: new Slots(1),
  });
  const runner = new PythonRunner({ rules: DEFAULT_RULES });
  const env = pythonRunnerEnv(testEnv);
  /** An owner of one whole module, at its own path. */
  const whole = (owner: string, path: string): RowOwner => ({
    name: owner,
    key: owner,
    shareable: true,
    statically: [],
    install: () => Promise.resolve(),
    entries: () => [path],
    rows: (reported) => new Map(Object.entries(reported).filter(([id]) => targetFile(id) === path)),
  });
  const suite = suiteOwner(["tests/test_ok.py"], "suite", runner);
  const sb = await sandbox("bubblewrap");
  let runs = 0;
  const runGroups = async (
    _tree: string,
    owners: RowOwner[],
    s: RunSettings,
    onSession: (run: unknown, owners?: string[]) => void,
  ) => {
    const result = await runOwners({
      dir: join(dir.path, `copy-${runs++}`),
      build: async (copy) => {
        await copyTree(tree, copy);
        return { ok: true };
      },
      owners,
      runner,
      env,
      settings: s,
      onSession,
    });
    if ("failed" in result) throw new Error(result.failed);
    return result;
  };

  const sessions: string[][] = [];
  const crashed = await runGroups(
    tree,
    [
      suite,
      whole("crash", "tests/_bugbout_crash/test_crash.py"),
      whole("good", "tests/_bugbout_good/test_good.py"),
    ],
    { ...settings(60_000), sandbox: sb },
    (_run, owners) => sessions.push(owners ?? []),
  );
  // One group's crash is its own: the others ran in processes of their own and need no rerun.
  deepEqual(sessions, [[REPOSITORY, "crash", "good"]]);
  deepEqual(crashed.map((g) => [g.owner, g.status, Object.fromEntries(g.outcomes)]), [
    [REPOSITORY, "ok", { "tests/test_ok.py::test_ok": "passed" }],
    ["crash", "infra-error", {}],
    ["good", "ok", { "tests/_bugbout_good/test_good.py::test_good": "failed" }],
  ]);

  sessions.length = 0;
  const hung = await runGroups(
    tree,
    [
      suite,
      whole("hang", "tests/_bugbout_hang/test_hang.py"),
      whole("good", "tests/_bugbout_good/test_good.py"),
    ],
    { ...settings(4_000), sandbox: sb },
    (_run, owners) => sessions.push(owners ?? []),
  );
  // Each group has its own time limit: the hang is stopped and the session goes on.
  deepEqual(sessions, [[REPOSITORY, "hang", "good"]]);
  deepEqual(hung.map((g) => [g.owner, g.status, Object.fromEntries(g.outcomes)]), [
    [REPOSITORY, "ok", { "tests/test_ok.py::test_ok": "passed" }],
    ["hang", "timeout", { "tests/_bugbout_hang/test_hang.py::test_hang": "not-run" }],
    ["good", "ok", { "tests/_bugbout_good/test_good.py::test_good": "failed" }],
  ]);

  // A group that kills the session itself tampered with the grading; the group the session never
  // reached runs again alone.
  sessions.length = 0;
  const killed = await runGroups(
    tree,
    [
      suite,
      whole("killer", "tests/_bugbout_killer/test_kill.py"),
      whole("good", "tests/_bugbout_good/test_good.py"),
    ],
    { ...settings(60_000), sandbox: sb },
    (_run, owners) => sessions.push(owners ?? []),
  );
  deepEqual(sessions, [[REPOSITORY, "killer", "good"], ["good"]]);
  deepEqual(killed.map((g) => [g.owner, g.status, Object.fromEntries(g.outcomes)]), [
    [REPOSITORY, "ok", { "tests/test_ok.py::test_ok": "passed" }],
    ["killer", "tampered", {}],
    ["good", "ok", { "tests/_bugbout_good/test_good.py::test_good": "failed" }],
  ]);
  match(
    killed[1].message!,
    /killed its own test session \(tests\/_bugbout_killer\/test_kill\.py:5/,
  );
});
