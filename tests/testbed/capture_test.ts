import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { PythonRunner } from "../../lib/lang/python/mod.ts";
import { capturePatch, MAX_CAPTURED_FILE_BYTES, takeSnapshot } from "../../lib/testbed/capture.ts";

const rules = { packageDir: "src/pkg", runner: new PythonRunner({ testsDir: "tests" }) };

async function setup() {
  const root = await Deno.makeTempDir({ prefix: "bugbout-patch-" });
  const work = join(root, "work");
  const files: Record<string, string> = {
    "src/pkg/__init__.py": "",
    "src/pkg/core.py": "def f():\n    return 1\n",
    "src/pkg/old_name.py": "X = 1\n" + "# padding line\n".repeat(20),
    "src/pkg/tool.sh": "#!/bin/sh\necho hi\n",
    "tests/test_core.py": "from pkg.core import f\n\ndef test_f():\n    assert f() == 1\n",
    "README.md": "# pkg\n",
  };
  for (const [path, content] of Object.entries(files)) {
    await Deno.mkdir(join(work, path, ".."), { recursive: true });
    await Deno.writeTextFile(join(work, path), content);
  }
  const snapshot = await takeSnapshot(work, join(root, "snap.git"));
  return {
    root,
    work,
    snapshot,
    async [Symbol.asyncDispose]() {
      await Deno.remove(root, { recursive: true });
    },
  };
}

Deno.test("capturePatch records additions, deletions, renames, mode changes, binaries and links", async () => {
  await using t = await setup();
  const w = (p: string) => join(t.work, p);
  await Deno.writeTextFile(w("src/pkg/core.py"), "def f():\n    return 2\n");
  await Deno.remove(w("README.md"));
  await Deno.rename(w("src/pkg/old_name.py"), w("src/pkg/new_name.py"));
  await Deno.chmod(w("src/pkg/tool.sh"), 0o755);
  await Deno.writeFile(w("src/pkg/blob.bin"), new Uint8Array([0, 1, 2, 0, 255, 0]));
  await Deno.symlink("/root/.ssh/id_rsa", w("tests/leak.txt"));
  await Deno.writeTextFile(w("tests/test_new.py"), "def test_new():\n    assert True\n");
  await Deno.writeTextFile(w("tests/conftest.py"), "import pytest\n");
  const patch = await capturePatch(t.snapshot, rules);
  const byPath = Object.fromEntries(patch.files.map((f) => [f.path, f]));
  equal(byPath["src/pkg/core.py"].change, "modified");
  equal(byPath["src/pkg/core.py"].kind, "source");
  equal(byPath["README.md"].change, "deleted");
  equal(byPath["README.md"].kind, "other");
  equal(byPath["src/pkg/new_name.py"].change, "renamed");
  equal(byPath["src/pkg/new_name.py"].oldPath, "src/pkg/old_name.py");
  equal(byPath["src/pkg/tool.sh"].change, "mode");
  equal(byPath["src/pkg/blob.bin"].binary, true);
  equal(byPath["tests/leak.txt"].symlink, true);
  equal(byPath["tests/test_new.py"].kind, "test");
  equal(byPath["tests/conftest.py"].kind, "config");
  // The link is recorded as a link: its target path, never the target's content.
  match(patch.testPatch, /new file mode 120000/);
  match(patch.testPatch, /\+\/root\/\.ssh\/id_rsa/);
  match(patch.sourcePatch, /GIT binary patch/);
  match(patch.sourcePatch, /- {4}return 1\n\+ {4}return 2/);
  ok(!patch.sourcePatch.includes("test_new"));
  ok(!patch.testPatch.includes("return 2"));
});

Deno.test("capturePatch ignores the agent's own .git and .gitignore tricks on tracked files", async () => {
  await using t = await setup();
  const w = (p: string) => join(t.work, p);
  await Deno.mkdir(w(".git"));
  await Deno.writeTextFile(w(".git/HEAD"), "ref: refs/heads/main\n");
  await Deno.writeTextFile(w(".gitignore"), "src/\n");
  await Deno.writeTextFile(w("src/pkg/core.py"), "def f():\n    return 3\n");
  const patch = await capturePatch(t.snapshot, rules);
  deepEqual(patch.files.map((f) => f.path).sort(), [".gitignore", "src/pkg/core.py"]);
});

Deno.test("capturePatch sees a deleted checkout as every file deleted", async () => {
  await using t = await setup();
  await Deno.remove(t.work, { recursive: true });
  const patch = await capturePatch(t.snapshot, rules);
  equal(patch.files.length, 6);
  ok(patch.files.every((f) => f.change === "deleted"));
});

Deno.test("capturePatch leaves out files over the size cap and lists them", async () => {
  await using t = await setup();
  await Deno.writeFile(join(t.work, "huge.dat"), new Uint8Array(MAX_CAPTURED_FILE_BYTES + 1));
  await Deno.writeTextFile(join(t.work, "src/pkg/core.py"), "def f():\n    return 4\n");
  const patch = await capturePatch(t.snapshot, rules);
  deepEqual(patch.skipped, ["huge.dat"]);
  deepEqual(patch.files.map((f) => f.path), ["src/pkg/core.py"]);
});

Deno.test("capturePatch of an untouched checkout is empty", async () => {
  await using t = await setup();
  const patch = await capturePatch(t.snapshot, rules);
  deepEqual(patch.files, []);
  equal(patch.fullPatch, "");
});

Deno.test("capturePatch leaves out Python byproducts such as __pycache__", async () => {
  await using t = await setup();
  await Deno.mkdir(join(t.work, "src/pkg/__pycache__"));
  await Deno.writeFile(
    join(t.work, "src/pkg/__pycache__/core.cpython-311.pyc"),
    new Uint8Array([1]),
  );
  await Deno.mkdir(join(t.work, ".pytest_cache"));
  await Deno.writeTextFile(join(t.work, ".pytest_cache/README.md"), "x");
  const patch = await capturePatch(t.snapshot, rules);
  deepEqual(patch.files, []);
});
