import { deepEqual } from "node:assert/strict";
import { goRunner } from "../../lib/go/mod.ts";
import { classifyPath } from "../../lib/testbed/mod.ts";

Deno.test("classifyPath() asks a Go or JavaScript runner what is test code and configuration", () => {
  const rules = { packageDir: ".", testsDir: "tests", runner: goRunner() };
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
  deepEqual(classifyPath("tests/conftest.py", { packageDir: "pkg", testsDir: "tests" }), "config");
});
