import { deepEqual, equal, ok } from "node:assert/strict";
import { dirname, join } from "node:path";
import { patchedFiles, readState } from "../../lib/testbed/patched.ts";
import { applySourceChanges, hasCandidate } from "../../lib/testbed/trees.ts";
import { classifyPath } from "../../lib/testbed/paths.ts";
import { capturePatch, takeSnapshot } from "../../lib/testbed/capture.ts";
import { type Attempt, type Matrix, RESULTS_VERSION } from "../../lib/records.ts";
import { evidenceOf, reviewedPaths } from "../../lib/score/mod.ts";
import { PythonRunner, reviewPythonPatch, targetFile } from "../../lib/lang/python/mod.ts";
import type { PatchFile } from "../../lib/records.ts";
import type { FileChange } from "../../lib/testbed/patched.ts";
import { tempDir } from "../python/_shared.ts";

const RULES = { packageDir: "pkg", runner: new PythonRunner({ testsDir: "pkg/tests" }) };

/** Python's review of a patch's files, as scoring makes it. */
function reviewPatch(
  files: readonly PatchFile[],
  changes: ReadonlyMap<string, FileChange>,
  rules: typeof RULES,
) {
  return reviewPythonPatch(reviewedPaths(files, changes, rules));
}

const B: Record<string, string> = {
  "pyproject.toml": "[tool.pytest.ini_options]\nfilterwarnings = ['error']\nxfail_strict = true\n",
  "pytest.ini": "[pytest]\nfilterwarnings =\n    error\nxfail_strict = true\naddopts = -ra\n",
  "pkg/__init__.py": "from .core import value\n",
  "pkg/core.py": "def value():\n    return 1\n",
  "pkg/tests/__init__.py": "",
  "pkg/tests/conftest.py": "import pytest\n\n\n@pytest.fixture\ndef answer():\n    return 42\n",
  "pkg/tests/test_core.py":
    "from pkg import value\n\n\ndef test_value():\n    assert value() == 1\n",
};

async function writeTree(root: string, files: Record<string, string>) {
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(dirname(join(root, path)), { recursive: true });
    await Deno.writeTextFile(join(root, path), text);
  }
}

/**
 * An agent's attempt made for real: a copy of B is edited by `edit`, captured with the race's own
 * snapshot and diff, and applied to a fresh copy of B the way scoring builds S.
 */
async function attemptOn(root: string, edit: (work: string) => Promise<void>) {
  const work = join(root, "work");
  const base = join(root, "base");
  const pristine = join(root, "pristine");
  await writeTree(work, B);
  await writeTree(base, B);
  await writeTree(pristine, B);
  const snapshot = await takeSnapshot(work, join(root, "snapshot.git"));
  await edit(work);
  const captured = await capturePatch(snapshot, RULES);
  const attempt = {
    status: "patch",
    role: "contestant",
    files: captured.files,
  } as Pick<Attempt, "status" | "role" | "files"> as Attempt;
  const patches = {
    source: captured.sourcePatch,
    tests: captured.testPatch,
    full: captured.fullPatch,
  };
  return { attempt, patches, base, pristine, captured };
}

async function text(tree: string, path: string): Promise<string | undefined> {
  const state = await readState(tree, path);
  return state.kind === "file" ? new TextDecoder().decode(state.data) : undefined;
}

Deno.test("scoring keeps pytest configuration that a rename moves into the package", async () => {
  await using dir = await tempDir();
  const { attempt, patches, base, pristine, captured } = await attemptOn(dir.path, async (work) => {
    await Deno.rename(join(work, "pytest.ini"), join(work, "pkg/settings.ini"));
    await Deno.rename(join(work, "pkg/tests/conftest.py"), join(work, "pkg/fixtures.py"));
    await Deno.writeTextFile(join(work, "pkg/core.py"), "def value():\n    return 2\n");
  });
  // git sees two renames across kinds, and a plain source edit.
  deepEqual(
    captured.files.filter((f) => f.change === "renamed").map((f) => [f.oldPath, f.path]),
    [["pkg/tests/conftest.py", "pkg/fixtures.py"], ["pytest.ini", "pkg/settings.ini"]],
  );
  ok(hasCandidate(attempt, RULES));
  const applied = await applySourceChanges(base, attempt, patches, RULES);
  equal(applied.ok, true);
  // The source side of each rename reaches S; the configuration side stays as it was on B.
  equal(await text(base, "pytest.ini"), B["pytest.ini"]);
  equal(await text(base, "pkg/tests/conftest.py"), B["pkg/tests/conftest.py"]);
  equal(await text(base, "pkg/settings.ini"), B["pytest.ini"]);
  equal(await text(base, "pkg/fixtures.py"), B["pkg/tests/conftest.py"]);
  equal(await text(base, "pkg/core.py"), "def value():\n    return 2\n");
  // And the review says so: the old paths are ignored, and the deletions flagged.
  const changes = await patchedFiles(pristine, patches.full, attempt.files, {
    scratch: join(dir.path, "scratch"),
  });
  const review = reviewPatch(attempt.files, changes, RULES);
  deepEqual(review.ignored.map((i) => i.path).sort(), ["pkg/tests/conftest.py", "pytest.ini"]);
});

Deno.test("scoring applies the deletion of a source module that a rename moves into the tests", async () => {
  await using dir = await tempDir();
  const { attempt, patches, base } = await attemptOn(dir.path, async (work) => {
    await Deno.rename(join(work, "pkg/core.py"), join(work, "pkg/tests/core_copy.py"));
    await Deno.writeTextFile(join(work, "pkg/__init__.py"), "def value():\n    return 1\n");
  });
  ok(hasCandidate(attempt, RULES));
  const applied = await applySourceChanges(base, attempt, patches, RULES);
  equal(applied.ok, true);
  equal(await text(base, "pkg/core.py"), undefined);
  equal(await text(base, "pkg/tests/core_copy.py"), undefined);
  equal(await text(base, "pkg/__init__.py"), "def value():\n    return 1\n");
});

Deno.test("pytest.toml is pytest configuration wherever it sits, never applied, and flagged", async () => {
  for (const path of ["pytest.toml", ".pytest.toml", "pkg/pytest.toml", "pkg/sub/.pytest.toml"]) {
    equal(classifyPath(path, RULES), "config", path);
  }
  await using dir = await tempDir();
  // With the tests inside the package, pytest takes pkg/pytest.toml as the tests' configuration
  // instead of B's: it would drop `filterwarnings = error` for every hidden test.
  const { attempt, patches, base, pristine } = await attemptOn(dir.path, async (work) => {
    await Deno.writeTextFile(join(work, "pkg/pytest.toml"), "[pytest]\nfilterwarnings = []\n");
    await Deno.writeTextFile(join(work, "pkg/core.py"), "def value():\n    return 2\n");
  });
  const applied = await applySourceChanges(base, attempt, patches, RULES);
  equal(applied.ok, true);
  equal(await text(base, "pkg/pytest.toml"), undefined);
  equal(await text(base, "pkg/core.py"), "def value():\n    return 2\n");
  const changes = await patchedFiles(pristine, patches.full, attempt.files, {
    scratch: join(dir.path, "scratch"),
  });
  deepEqual(reviewPatch(attempt.files, changes, RULES).flags, [
    "adds pkg/pytest.toml (pytest configuration)",
  ]);
});

Deno.test("evidenceOf() does not charge an agent with inadequate closure when its tree hit an infrastructure error", () => {
  const test = "tests/_bugbout_a/test_bug.py::test_bug";
  const matrix: Matrix = {
    version: RESULTS_VERSION,
    kind: "matrix",
    task: "t",
    inputsKey: "k",
    trees: [
      { id: "B", kind: "base", status: "ok" },
      { id: "B#2", kind: "base", status: "ok" },
      { id: "a", kind: "patch", agent: "a", status: "infra-error", message: "sandbox failed" },
      { id: "b", kind: "patch", agent: "b", status: "ok" },
    ],
    tests: [
      { id: test, author: "a", authorRole: "contestant" },
      { id: `${test}_b`, author: "b", authorRole: "contestant" },
    ],
    cells: {
      [test]: { B: "failed", "B#2": "failed", a: "not-run", b: "passed" },
      [`${test}_b`]: { B: "passed", "B#2": "passed", a: "not-run", b: "passed" },
    },
    unstableOnB: [],
    runs: [],
  };
  const evidence = evidenceOf(matrix, [], ["a", "b", "c"], targetFile);
  // Nothing is known about a's tests on its own patch: that is bugbout's failure, not a's.
  equal(evidence.a.inadequateClosure, null);
  // b's only test never failed on B: its closure is inadequate, as before.
  equal(evidence.b.inadequateClosure, true);
  // c has no candidate at all.
  equal(evidence.c.inadequateClosure, null);
});
