import { deepEqual, equal } from "node:assert/strict";
import { findAddedTests } from "../../lib/lang/python/mod.ts";
import { firstParentHistory, parseLog, parseNameStatus, unquotePath } from "../../lib/history.ts";
import { DEFAULT_RULES } from "../../lib/lang/python/pytest_rules.ts";
import { RepoBuilder } from "../../lib/demo/repo.ts";

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

Deno.test("unquotePath undoes git's C-style quoting, octal UTF-8 included", () => {
  equal(unquotePath('"a\\"b.py"'), 'a"b.py');
  equal(unquotePath('"tab\\there.py"'), "tab\there.py");
  equal(unquotePath('"caf\\303\\251.py"'), "café.py");
  equal(unquotePath("plain name.py"), "plain name.py");
});

Deno.test("parseNameStatus reads additions, renames and copies", () => {
  deepEqual(parseNameStatus("M\tpkg/a.py"), { status: "M", path: "pkg/a.py" });
  deepEqual(parseNameStatus("R087\tpkg/a.py\tsrc/pkg/a.py"), {
    status: "R",
    path: "src/pkg/a.py",
    oldPath: "pkg/a.py",
  });
  equal(parseNameStatus(""), undefined);
  equal(parseNameStatus("Merge pull request"), undefined);
});

Deno.test("parseLog splits commits, multi-line messages, empty messages and file lists", async () => {
  const lines = [
    "\x1eaaa bbb ccc\x1f1700000000\x1fMerge pull request #3 from o/fix-x",
    "",
    "Fix the thing",
    "\x1d",
    "",
    "M\tpkg/a.py",
    "A\ttests/test_a.py",
    "\x1ebbb ddd\x1f1699990000\x1f\x1d",
    "",
    "D\told.py",
    "\x1eddd \x1f1699980000\x1fInitial\x1d",
  ];
  const changes = await collect(parseLog(lines));
  deepEqual(changes.map((c) => [c.commit, c.parents, c.time, c.message, c.files.length]), [
    ["aaa", ["bbb", "ccc"], 1700000000, "Merge pull request #3 from o/fix-x\n\nFix the thing", 2],
    ["bbb", ["ddd"], 1699990000, "", 1],
    ["ddd", [], 1699980000, "Initial", 0],
  ]);
});

Deno.test("firstParentHistory streams first-parent changes with merges judged against their first parent", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const repo = new RepoBuilder();
    repo.commit({
      message: "Initial",
      files: { "pkg/__init__.py": "x = 1\n", 'pkg/we"ird name.py': "y = 1\n" },
    });
    const merge = repo.merge({ number: 4, branch: "fix-it", title: "Fix it (#3)" }, [
      { message: "one", files: { "pkg/café.py": "z = 1\n" } },
      { message: "two", files: { "tests/test_z.py": "def test_z():\n    pass\n" } },
    ]);
    repo.commit({
      message: "Move\n\nwith a body\n",
      renames: [['pkg/we"ird name.py', "pkg/plain.py"]],
    });
    await repo.build(dir);
    const changes = await collect(firstParentHistory(dir, "main"));
    deepEqual(changes.map((c) => c.message.split("\n")[0]), [
      "Move",
      "Merge pull request #4 from octo/fix-it",
      "Initial",
    ]);
    // The walk does not look for renames (git's dearest work): a move is a deletion and an
    // addition, odd characters in paths and all.
    deepEqual(
      changes[0].files.map(({ status, path }) => ({ status, path })).sort((a, b) =>
        a.path.localeCompare(b.path)
      ),
      [{ status: "A", path: "pkg/plain.py" }, { status: "D", path: 'pkg/we"ird name.py' }],
    );
    equal(changes[1].commit, merge.sha);
    deepEqual(changes[1].files.map((f) => f.path).sort(), ["pkg/café.py", "tests/test_z.py"]);
    equal(changes[1].parents.length, 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("findAddedTests reads every candidate's test modules at once, merges and renamed test modules included", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const repo = new RepoBuilder();
    repo.commit({
      message: "Initial",
      files: { "tests/test_a.py": "def test_a():\n    pass\n", "pkg/a.py": "a = 1\n" },
    });
    const added = repo.commit({
      message: "Fix a (#1)",
      files: {
        "pkg/a.py": "a = 2\n",
        "tests/test_a.py": "def test_a():\n    pass\n\n\ndef test_b():\n    pass\n",
      },
    });
    const renamed = repo.commit({
      message: "Fix b (#2)",
      renames: [["tests/test_a.py", "tests/test_c.py"]],
    });
    const merge = repo.merge({ number: 5, branch: "fix-d", title: "Fix d" }, [
      {
        message: "d",
        files: { "tests/test_d.py": "class TestD:\n    def test_d(self):\n        pass\n" },
      },
    ]);
    const none = repo.commit({ message: "Fix docs (#6)", files: { "README.md": "hi\n" } });
    await repo.build(dir);
    const found = await findAddedTests(
      dir,
      [added.sha, renamed.sha, merge.sha, none.sha],
      DEFAULT_RULES,
    );
    const seen = (sha: string) => {
      const { testFiles, newTests } = found.get(sha)!;
      return { testFiles, newTests };
    };
    deepEqual(seen(added.sha), {
      testFiles: ["tests/test_a.py"],
      newTests: ["tests/test_a.py::test_b"],
    });
    deepEqual(seen(renamed.sha), { testFiles: ["tests/test_c.py"], newTests: [] });
    deepEqual(seen(merge.sha), {
      testFiles: ["tests/test_d.py"],
      newTests: ["tests/test_d.py::TestD::test_d"],
    });
    deepEqual(seen(none.sha), { testFiles: [], newTests: [] });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
