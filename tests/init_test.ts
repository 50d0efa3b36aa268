/**
 * `bugbout init` on layouts that lost tasks on real projects: a thin public package over the real
 * one, and test dependencies declared in every usual place.
 *
 * @module
 */

import { deepEqual, equal, match } from "node:assert/strict";
import { initProject } from "../lib/init.ts";
import { declaredTestDependencies, detectLayout } from "../lib/layout.ts";
import { tempDir, writeFiles } from "./python/_shared.ts";

const CODE = Array.from({ length: 40 }, (_, i) => `def f${i}(x):\n    return x + ${i}\n`).join(
  "\n",
);

Deno.test("init chooses the package the fixes land in, not a thin façade that re-exports it", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, {
    "pyproject.toml": '[project]\nname = "shop"\n',
    "src/shop/__init__.py": "from _shop.cart import f1 as total\n\n__all__ = ['total']\n",
    "src/_shop/__init__.py": "",
    "src/_shop/cart.py": CODE,
    "src/_shop/tax.py": CODE,
    // The tests import the public name far more often than the private package.
    "tests/test_a.py": "import shop\nfrom _shop.cart import f2\n",
    "tests/test_b.py": "import shop\n",
    "tests/test_c.py": "import shop\n",
  });
  const result = await initProject(dir.path, { path: "/nonexistent" });
  equal(result.layout.source, "src/_shop");
  match(result.text, /^source = "src\/_shop"$/m);
  match(result.layout.sourceReason!, /src\/shop only re-exports src\/_shop/);
  match(result.notes.join("\n"), /Package: src\/_shop \(src\/shop only re-exports/);
});

Deno.test("init fills test-dependencies from what the project declares", async () => {
  const cases: [string, Record<string, string>, string[], RegExp][] = [
    [
      "dependency groups, with an included group",
      {
        "pyproject.toml": '[project]\nname = "shop"\n\n[dependency-groups]\n' +
          'test = ["pretend", { include-group = "base" }]\nbase = ["pytest>=7"]\n',
      },
      ["pretend", "pytest>=7"],
      /\[dependency-groups\] test in pyproject\.toml/,
    ],
    [
      "a test extra naming the project's own extras",
      {
        "pyproject.toml": '[project]\nname = "shop"\n\n[project.optional-dependencies]\n' +
          'tests = ["shop[fast]", "hypothesis"]\nfast = ["ujson"]\n',
      },
      ["pytest", "ujson", "hypothesis"],
      /\[project\.optional-dependencies\] tests/,
    ],
    [
      "a requirements file for tests, following -r",
      {
        "requirements-test.txt": "-r requirements-base.txt\npretend==1.0  # mocks\n-e .\n",
        "requirements-base.txt": "pytest\n",
      },
      ["pytest", "pretend==1.0"],
      /requirements-test\.txt/,
    ],
    [
      "tox's deps",
      {
        "tox.ini":
          "[tox]\nenvlist = py3\n\n[testenv]\ndeps =\n    pytest\n    freezegun\ncommands = pytest\n",
      },
      ["pytest", "freezegun"],
      /tox\.ini \[testenv\] deps/,
    ],
    [
      "a nox session",
      {
        "noxfile.py": "import nox\n\n\n@nox.session\ndef tests(session):\n" +
          '    session.install("pytest", "pretend")\n    session.install("-e", ".")\n' +
          '    session.run("pytest")\n',
      },
      ["pytest", "pretend"],
      /noxfile\.py/,
    ],
  ];
  for (const [name, files, requirements, from] of cases) {
    await using dir = await tempDir();
    await writeFiles(dir.path, files);
    const found = await declaredTestDependencies(dir.path);
    deepEqual(found?.requirements, requirements, name);
    match(found!.from, from, name);
  }
  await using dir = await tempDir();
  await writeFiles(dir.path, {
    "pyproject.toml": '[project]\nname = "shop"\n\n[dependency-groups]\ntest = ["pretend"]\n',
    "shop/__init__.py": "",
    "tests/test_shop.py": "import pretend\nimport shop\n",
  });
  const result = await initProject(dir.path, { path: "/nonexistent" });
  match(result.text, /^test-dependencies = \["pytest", "pretend"\]$/m);
  equal(
    (await detectLayout(dir.path)).testDependencies?.from,
    "[dependency-groups] test in pyproject.toml",
  );
});

Deno.test("doctor's check of test-dependencies says when uv cannot install them", async () => {
  const { checkTestDependencies } = await import("../lib/python/mod.ts");
  const { resolvePython } = await import("../lib/python/mod.ts");
  await using dir = await tempDir();
  const python = await resolvePython(dir.path, {});
  const bad = await checkTestDependencies(python.path, ["pytest>>=1"]);
  equal(bad.ok, false);
  match(bad.detail, /^uv cannot install them: /);
  deepEqual(await checkTestDependencies(python.path, []), { ok: true, detail: "none" });
});

Deno.test("init in a Go module or a JavaScript project says what it found and why no bout runs there yet", async () => {
  const cases: [Record<string, string>, RegExp][] = [
    [
      { "go.mod": "module example.com/calc\n\ngo 1.22\n", "calc.go": "package calc\n" },
      /is a Go module tested with go test \(go\.mod \(module example\.com\/calc, go 1\.22\)/,
    ],
    [
      {
        "package.json": '{"name": "calc", "scripts": {"test": "vitest run"}, ' +
          '"devDependencies": {"vitest": "^3.2.0"}}',
        "src/calc.ts": "export const add = (a: number, b: number) => a + b;\n",
      },
      /is a JavaScript project tested with vitest/,
    ],
  ];
  for (const [files, found] of cases) {
    await using dir = await tempDir();
    await writeFiles(dir.path, files);
    const error = await initProject(dir.path, { path: "/nonexistent" }).then(
      () => undefined,
      (e: Error) => e,
    );
    match(error?.message ?? "", found);
    match(error!.message, /not wired through every stage yet/);
  }
});
