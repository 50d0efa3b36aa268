/**
 * `bugbout init` on layouts that lost tasks on real projects: a thin public package over the real
 * one, and test dependencies declared in every usual place.
 *
 * @module
 */

import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { loadConfig } from "../lib/config.ts";
import { initProject } from "../lib/init.ts";
import { declaredTestDependencies, detectLayout } from "../lib/lang/python/layout.ts";
import { tempDir, writeFiles } from "./python/_shared.ts";
import { runBugbout } from "./_helpers.ts";
import { git } from "../lib/git.ts";

/** Write files into a new git repository with one commit. */
async function committed(dir: string, files: Record<string, string>): Promise<void> {
  await writeFiles(dir, files);
  await git(["init", "--quiet", "--initial-branch=main"], { cwd: dir });
  await git(["add", "--all"], { cwd: dir });
  await git([
    "-c",
    "user.name=t",
    "-c",
    "user.email=t@example.com",
    "commit",
    "--quiet",
    "-m",
    "start",
  ], {
    cwd: dir,
  });
}

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
  deepEqual(result.summary[0], ["package", "src/_shop"]);
  match(result.text, /^source = "src\/_shop"$/m);
  match(result.text, /# Chosen because src\/shop only re-exports src\/_shop/);
  match(result.notes.join("\n"), /Package: src\/_shop \(src\/shop only re-exports/);
});

Deno.test("init takes a package of tests for tests, not for the code, and finds a sub-project's package (the shape of jorisroovers/gitlint)", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, {
    "pyproject.toml": '[project]\nname = "lint"\n',
    "hatch_build.py": "def build():\n    pass\n",
    // Integration tests, a package of their own beside the sub-project.
    "qa/__init__.py": "",
    "qa/base.py": "class BaseTestCase:\n    pass\n",
    "qa/test_commits.py": "from qa.base import BaseTestCase\n",
    "qa/test_config.py": "from qa.base import BaseTestCase\n",
    // The code lives in a sub-project, its unit tests inside the package.
    "lint-core/pyproject.toml": '[project]\nname = "lint-core"\n',
    "lint-core/lint/__init__.py": "",
    "lint-core/lint/rules.py": CODE,
    "lint-core/lint/cli.py": CODE,
    "lint-core/lint/tests/__init__.py": "",
    "lint-core/lint/tests/test_rules.py": "from lint import rules\n",
    "lint-core/lint/tests/test_cli.py": "from lint import cli\n",
    "lint-core/lint/tests/test_more.py": "from lint import cli\n",
  });
  const result = await initProject(dir.path, { path: "/nonexistent" });
  deepEqual(result.summary.slice(0, 2), [
    ["package", "lint-core/lint"],
    ["tests", "lint-core/lint/tests"],
  ]);
  // With no tests elsewhere, the package of tests is the tests directory.
  await Deno.remove(join(dir.path, "lint-core/lint/tests"), { recursive: true });
  const layout = await detectLayout(dir.path);
  deepEqual([layout.source, layout.tests], ["lint-core/lint", "qa"]);
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
        "requirements-test.txt": "-r requirements-base.txt\npretend==1.0  # mocks\n-e .\n" +
          "mock==3.0.5;\n",
        "requirements-base.txt": "pytest\n",
      },
      ["pytest", "pretend==1.0", "mock==3.0.5"],
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

Deno.test("declaredTestDependencies() leaves out tooling no test imports, and keeps pytest plugins and a tool a test imports", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, {
    "requirements-test.txt": "coverage==6.5.0\npytest==7.2.0\npytest-cov==4.0.0\ntox<3.0\n" +
      "flake8\nmypy==1.0\nSphinx>=5\n",
    "tests/test_types.py": "from mypy import api\n",
  });
  const found = await declaredTestDependencies(dir.path);
  deepEqual(found?.requirements, ["pytest==7.2.0", "pytest-cov==4.0.0", "mypy==1.0"]);
  deepEqual(found?.tooling, ["coverage==6.5.0", "tox<3.0", "flake8", "Sphinx>=5"]);
  // The project's own name is never tooling: tox's tests need tox.
  await using own = await tempDir();
  await writeFiles(own.path, {
    "pyproject.toml": '[project]\nname = "tox"\n\n[project.optional-dependencies]\n' +
      'testing = ["tox", "pytest"]\n',
  });
  deepEqual((await declaredTestDependencies(own.path))?.requirements, ["tox", "pytest"]);
});

Deno.test("doctor's check of test-dependencies says when uv cannot install them", async () => {
  const { checkTestDependencies } = await import("../lib/lang/python/mod.ts");
  const { resolvePython } = await import("../lib/lang/python/mod.ts");
  await using dir = await tempDir();
  const python = await resolvePython(dir.path, {});
  const bad = await checkTestDependencies(python.path, ["pytest>>=1"]);
  equal(bad.ok, false);
  match(bad.detail, /^uv cannot install them: /);
  deepEqual(await checkTestDependencies(python.path, []), { ok: true, detail: "none" });
});

Deno.test("init in a Go module or a JavaScript project writes a bugbout.toml of its language and says what it found", async () => {
  const cases: [Record<string, string>, string, RegExp][] = [
    [
      { "go.mod": "module example.com/calc\n\ngo 1.22\n", "calc.go": "package calc\n" },
      "go",
      /go test \(go\.mod \(module example\.com\/calc, go 1\.22\)/,
    ],
    [
      {
        "package.json": '{"name": "calc", "scripts": {"test": "vitest run"}, ' +
          '"devDependencies": {"vitest": "^3.2.0"}}',
        "src/calc.ts": "export const add = (a: number, b: number) => a + b;\n",
      },
      "node",
      /vitest \(package\.json scripts\.test: vitest run/,
    ],
    [
      // A few Python scripts beside a Go module are no Python package.
      {
        "go.mod": "module example.com/calc\n\ngo 1.22\n",
        "calc.go": "package calc\n",
        "scripts/release.py": "print('release')\n",
      },
      "go",
      /go test/,
    ],
  ];
  for (const [files, language, found] of cases) {
    await using dir = await tempDir();
    await committed(dir.path, files);
    const bin = join(dir.path, "bin");
    await Deno.mkdir(bin);
    await Deno.writeTextFile(join(bin, "claude"), "#!/bin/sh\necho 1.0.0\n");
    await Deno.chmod(join(bin, "claude"), 0o755);
    const result = await initProject(dir.path, { path: bin });
    equal(result.language, language);
    match(`${result.detected?.runner} (${result.detected?.evidence})`, found);
    deepEqual(result.warnings, []);
    deepEqual(result.agents, ["claude"]);
    match(result.text, new RegExp(`^language = "${language}"$`, "m"));
    ok(!/^source =|pytest|test-dependencies/m.test(result.text), result.text);
    match(result.text, /^\[\[contestants\]\]\nagent = "claude-code"$/m);
    // The file is a valid configuration of that language.
    const config = await loadConfig(join(dir.path, "bugbout.toml"));
    equal(config.project.language, language);
    equal(config.contestants.length, 1);
  }
});

Deno.test("init keeps a Python package over a go.mod beside it, and a Go module over a package.json", async () => {
  await using python = await tempDir();
  await writeFiles(python.path, {
    "go.mod": "module example.com/tool\n\ngo 1.22\n",
    "tool/__init__.py": "",
    "tool/core.py": "def f():\n    return 1\n",
    "tests/test_core.py": "import tool\n",
  });
  equal((await initProject(python.path, { path: "/nonexistent" })).language, "python");
  await using both = await tempDir();
  await writeFiles(both.path, {
    "go.mod": "module example.com/web\n\ngo 1.22\n",
    "main.go": "package main\n",
    "package.json": '{"scripts": {"test": "jest"}, "devDependencies": {"jest": "29"}}',
  });
  const result = await initProject(both.path, { path: "/nonexistent" });
  equal(result.language, "go");
  match(
    result.notes.join("\n"),
    /Also found a JavaScript project tested with jest; set \[project\] language = "node"/,
  );
  match(result.notes.join("\n"), /No agent CLI found on PATH/);
});

Deno.test("bugbout init in a Go module prints the language and the runner", async () => {
  await using dir = await tempDir();
  await committed(dir.path, { "go.mod": "module example.com/calc\n\ngo 1.22\n" });
  const run = await runBugbout(["init"], { cwd: dir.path, env: { PATH: "/usr/bin:/bin" } });
  equal(run.code, 0, run.stderr);
  match(
    run.stdout,
    /^ {2}language: go, tested with go test \(go\.mod \(module example\.com\/calc, go 1\.22\)/m,
  );
  ok(!/package:/.test(run.stdout), run.stdout);
});
