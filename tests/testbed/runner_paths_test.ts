import { deepEqual, equal, match } from "node:assert/strict";
import { goRunner } from "../../lib/lang/go/mod.ts";
import { openRunner } from "../../lib/lang/mod.ts";
import { PythonRunner } from "../../lib/lang/python/mod.ts";
import { classifyPath } from "../../lib/testbed/mod.ts";
import { tempDir, writeFiles } from "../python/_shared.ts";

Deno.test("classifyPath() asks a Go or JavaScript runner what is test code and configuration", () => {
  const rules = { packageDir: ".", runner: goRunner() };
  const kinds = Object.fromEntries(
    ["calc/add.go", "calc/add_test.go", "calc/testdata/in.txt", "go.mod", "go.sum", "README.md"]
      .map((path) => [path, classifyPath(path, rules)]),
  );
  deepEqual(kinds, {
    "calc/add.go": "source",
    "calc/add_test.go": "test",
    "calc/testdata/in.txt": "test",
    "go.mod": "config",
    "go.sum": "config",
    "README.md": "source",
  });
  // Python's rules are untouched by a runner's absence: a conftest is configuration, as before.
  const python = { packageDir: "pkg", runner: new PythonRunner({ testsDir: "tests" }) };
  deepEqual(classifyPath("tests/conftest.py", python), "config");
});

Deno.test("each runner says how an author's copy is named, written and addressed, and what a patch may not do", async () => {
  const go = goRunner();
  equal(go.besidePath("calc/add_test.go", "codex"), "calc/add_bugbout_codex_test.go");
  match(
    go.besideSource("calc/add_test.go", "package calc\nfunc TestAdd(t *testing.T) {}\n", "codex"),
    /func TestAdd_bugbout_codex\(/,
  );
  equal(go.besideId("calc/TestAdd/two", "codex"), "calc/TestAdd_bugbout_codex/two");
  deepEqual(
    go.patchFlags([{
      path: "go.mod",
      before: "module m\n",
      after: "module m\nreplace example.com/x => ../x\n",
    }]).length,
    1,
  );

  await using dir = await tempDir();
  await writeFiles(dir.path, {
    "package.json": '{"scripts": {"test": "vitest run"}, "devDependencies": {"vitest": "3.2.4"}}',
  });
  const node = await openRunner("node", dir.path);
  equal(
    node.besideId("src/a.test.ts > sums > adds", "codex"),
    "src/a.bugbout-codex.test.ts > sums > adds",
  );
  equal(node.besideSource("src/a.test.ts", "test('x', () => {})", "codex"), "test('x', () => {})");
  const before = '{"scripts": {"test": "vitest run"}, "version": "1.0.0"}';
  deepEqual(
    node.patchFlags([{ path: "package.json", before, after: before.replace("1.0.0", "1.0.1") }]),
    [],
  );
  equal(
    node.patchFlags([{ path: "package.json", before, after: before.replace("vitest run", "true") }])
      .length,
    1,
  );
});
