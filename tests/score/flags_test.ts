import { deepEqual, equal, notEqual } from "node:assert/strict";
import type { FileChange, FileState } from "../../lib/testbed/patched.ts";
import type { Outcome, PatchFile } from "../../lib/records.ts";
import { reviewedPaths, scoreRun } from "../../lib/score/mod.ts";
import {
  pytestSection,
  PythonRunner,
  reviewPythonPatch,
  targetFile,
} from "../../lib/lang/python/mod.ts";
import type { PathRules } from "../../lib/testbed/paths.ts";

const RULES = { packageDir: "src/pkg", runner: new PythonRunner({ testsDir: "tests" }) };

/** Python's review of a patch's files, as scoring makes it. */
function reviewPatch(
  files: readonly PatchFile[],
  changes: ReadonlyMap<string, FileChange>,
  rules: PathRules,
) {
  return reviewPythonPatch(reviewedPaths(files, changes, rules));
}

function file(text: string): FileState {
  return { kind: "file", data: new TextEncoder().encode(text), executable: false };
}
const ABSENT: FileState = { kind: "absent" };

function changed(path: string, before: FileState, after: FileState): [PatchFile, FileChange] {
  const change = before.kind === "absent"
    ? "added"
    : after.kind === "absent"
    ? "deleted"
    : "modified";
  return [
    { path, change, kind: "source", binary: false, symlink: false },
    { before, after },
  ];
}

function review(...entries: [PatchFile, FileChange][]) {
  return reviewPatch(
    entries.map(([f]) => f),
    new Map(entries.map(([f, c]) => [f.path, c])),
    RULES,
  );
}

Deno.test("reviewPatch() never applies configuration, tests or files outside the package, and flags the tricks", () => {
  const result = review(
    changed("src/pkg/core.py", file("x = 1\n"), file("x = 2\n")),
    changed("conftest.py", ABSENT, file("def pytest_runtest_makereport(): ...\n")),
    changed("src/pkg/conftest.py", file("import pytest\n"), file("import pytest\nX = 1\n")),
    changed("pytest.ini", ABSENT, file("[pytest]\naddopts = -p no:junitxml\n")),
    changed(
      "pyproject.toml",
      file('[project]\nname = "p"\n'),
      file('[project]\nname = "p"\nversion = "2"\n'),
    ),
    changed(
      "setup.cfg",
      file("[metadata]\nname = p\n"),
      file("[metadata]\nname = p\n\n[tool:pytest]\naddopts = -k nothing\n"),
    ),
    changed("sitecustomize.py", ABSENT, file("import builtins\n")),
    changed("src/evil.pth", ABSENT, file("import os\n")),
    changed("pytest_fake.py", ABSENT, file("def pytest_configure(): ...\n")),
    changed(
      "tests/test_core.py",
      file("def test_a():\n    pass\n"),
      file("import pytest\n\n@pytest.mark.skip\ndef test_a():\n    pass\n"),
    ),
    changed(
      "tests/test_new.py",
      ABSENT,
      file("import pytest\n\n@pytest.mark.xfail\ndef test_b():\n    pass\n"),
    ),
    changed("README.md", file("a\n"), file("b\n")),
  );
  deepEqual(result.flags, [
    "adds conftest.py (a conftest.py)",
    "edits src/pkg/conftest.py (a conftest.py)",
    "adds pytest.ini (pytest configuration)",
    "edits the pytest settings in setup.cfg",
    "adds sitecustomize.py (an import hook)",
    "adds src/evil.pth (a .pth file)",
    "adds pytest_fake.py (a pytest plugin)",
    "adds skip/xfail markers to the repository's tests in tests/test_core.py",
  ]);
  deepEqual(result.ignored.map((i) => [i.path, i.reason.split(":")[0]]), [
    ["conftest.py", "pytest configuration or an import hook"],
    ["src/pkg/conftest.py", "pytest configuration or an import hook"],
    ["pytest.ini", "pytest configuration or an import hook"],
    ["pyproject.toml", "pytest configuration or an import hook"],
    ["setup.cfg", "pytest configuration or an import hook"],
    ["sitecustomize.py", "pytest configuration or an import hook"],
    ["src/evil.pth", "pytest configuration or an import hook"],
    ["pytest_fake.py", "pytest configuration or an import hook"],
    ["tests/test_core.py", "a test change"],
    ["tests/test_new.py", "a test change"],
    ["README.md", "outside the package"],
  ]);
});

Deno.test("reviewPatch() flags source code that reaches for pytest", () => {
  const result = review(
    changed("src/pkg/core.py", file("x = 1\n"), file("import _pytest.runner\nx = 1\n")),
    changed(
      "src/pkg/util.py",
      file("import pytest  # already there\n"),
      file("import pytest  # already there\ny = 2\n"),
    ),
  );
  deepEqual(result.flags, ["imports pytest from the source: src/pkg/core.py"]);
  deepEqual(result.ignored, []);
});

Deno.test("reviewPatch() flags a pytest hook defined in the source", () => {
  const result = review(
    changed(
      "src/pkg/plugin.py",
      file("x = 1\n"),
      file("x = 1\n\ndef pytest_pyfunc_call(pyfuncitem):\n    return True\n"),
    ),
  );
  deepEqual(result.flags, ["defines pytest hooks in the source: src/pkg/plugin.py"]);
  deepEqual(result.ignored, []);
});

Deno.test("pytestSection() compares only the pytest settings of a configuration file", () => {
  equal(pytestSection("pyproject.toml", '[project]\nname = "p"\n'), undefined);
  equal(
    pytestSection("pyproject.toml", '[tool.pytest.ini_options]\naddopts = "-q"\n'),
    pytestSection("pyproject.toml", '# comment\n[tool.pytest.ini_options]\naddopts = "-q"\n'),
  );
  notEqual(
    pytestSection("tox.ini", "[pytest]\naddopts = -q\n"),
    pytestSection("tox.ini", "[pytest]\naddopts = -q -p no:junitxml\n"),
  );
  equal(pytestSection("setup.cfg", "[metadata]\nname = p\n"), undefined);
});

Deno.test("scoreRun() counts a fail-to-pass test only when it passed", () => {
  const oracle = { failToPass: ["t/a.py::f2p"], passToPass: ["t/a.py::p2p", "t/b.py::p2p"] };
  const run = (entries: [string, Outcome][]) =>
    scoreRun(new Map(entries), oracle, targetFile).outcome;
  equal(
    run([["t/a.py::f2p", "passed"], ["t/a.py::p2p", "passed"], ["t/b.py::p2p", "passed"]]),
    "resolved",
  );
  equal(
    run([["t/a.py::f2p", "passed"], ["t/a.py::p2p", "failed"], ["t/b.py::p2p", "passed"]]),
    "broke-tests",
  );
  equal(
    run([["t/a.py::f2p", "passed"], ["t/a.py::p2p", "passed"], ["t/b.py::p2p", "skipped"]]),
    "broke-tests",
  );
  for (const outcome of ["failed", "error", "skipped", "xfailed", "not-run"] as const) {
    equal(
      run([["t/a.py::f2p", outcome], ["t/a.py::p2p", "passed"], ["t/b.py::p2p", "passed"]]),
      "wrong-fix",
    );
  }
  // A hidden module that cannot be imported fails every test in it.
  const broken = scoreRun(
    new Map([["t/a.py", "error"], ["t/b.py::p2p", "passed"]]),
    oracle,
    targetFile,
  );
  deepEqual(broken, {
    outcome: "wrong-fix",
    failToPass: { passed: 0, total: 1, failing: ["t/a.py::f2p"] },
    passToPass: { failing: ["t/a.py::p2p"], total: 2 },
  });
});
