import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { compareOutlines, outlineTests } from "../../lib/lang/python/mod.ts";
import { run } from "../../lib/proc.ts";
import { configChangedLate, gapToml, hiddenTests } from "../fixtures/gaps.ts";
import { mineHistory } from "./_history.ts";

Deno.test("discovery rules are those in force at each commit: a python_files changed years later loses no fix", async () => {
  await using m = await mineHistory(configChangedLate, { toml: gapToml() });
  deepEqual(m.result.file.tasks.map((t) => t.id), ["issue-9", "issue-3"]);
  deepEqual(m.task("early")!.newTests, ["tests/check_cart.py::test_empty"]);
  deepEqual(m.task("late")!.newTests, ["tests/test_round.py::test_half"]);
  // A test_*.py outside testpaths is not a test module of the project.
  const outside = m.excluded("outside")!;
  equal(outside.reason, "no-test-added");
  match(outside.detail!, /python_files from setup\.cfg/);
});

Deno.test("mining finds tests pytest finds: parametrize cases, inherited TestCase bases, factory-made classes", async () => {
  await using m = await mineHistory(hiddenTests, { toml: gapToml() });
  // A new case in a parametrize list, or in the list it names, changes that test only.
  deepEqual(m.task("parametrize")!.newTests, ["tests/test_param.py::test_total"]);
  deepEqual(m.task("named")!.newTests, ["tests/test_param.py::test_cases"]);
  // A TestCase subclass through a base class from another module, or from the same one.
  deepEqual(m.task("inherited")!.newTests, ["tests/test_api.py::CartTests::test_two"]);
  deepEqual(m.task("local")!.newTests, ["tests/test_local.py::RoundingTests::test_half"]);
  // Classes made by a factory: static reading cannot name them, so collection decides.
  const factory = m.task("factory")!;
  deepEqual(factory.newTests, []);
  deepEqual(factory.unsureTests, [{
    file: "tests/test_factory.py",
    why: "test classes are made by _make_rounding_test()",
  }]);
  // Only an import changed: no test was added or changed.
  equal(m.excluded("importOnly")?.reason, "no-test-added");
});

Deno.test("what static reading calls a test agrees with what pytest collects from the same modules", async () => {
  await using m = await mineHistory(hiddenTests, { toml: gapToml() });
  const result = await run(
    ["python3", "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "tests"],
    { cwd: m.dir, okCodes: "any", timeoutMs: 120_000, env: { PYTHONPATH: m.dir } },
  );
  const collected = new Set(
    result.stdout.split("\n").filter((l) => l.includes("::")).map((l) => l.replace(/\[.*$/, "")),
  );
  ok(collected.size > 0, result.stdout + result.stderr);
  for (const file of ["tests/test_param.py", "tests/test_api.py", "tests/test_local.py"]) {
    const text = await Deno.readTextFile(join(m.dir, file));
    const found = new Set(outlineTests(text).tests.map((t) => `${file}::${t.id}`));
    const byPytest = new Set([...collected].filter((id) => id.startsWith(`${file}::`)));
    deepEqual([...found].sort(), [...byPytest].sort(), file);
  }
  // The factory's classes are collected under names static reading cannot know.
  ok([...collected].some((id) => id.startsWith("tests/test_factory.py::TestRoundingFast::")));
});

Deno.test("compareOutlines: a changed helper changes the tests that call it, setUp every test of its class", () => {
  const before = `import unittest

def helper():
    return 1


def test_uses_helper():
    assert helper() == 1


def test_alone():
    assert True


class Things(unittest.TestCase):
    def setUp(self):
        self.x = 1

    def test_x(self):
        assert self.x
`;
  const helperChanged = before.replace("return 1", "return 2");
  deepEqual(compareOutlines(outlineTests(before), outlineTests(helperChanged)).changed, [
    "test_uses_helper",
  ]);
  const setupChanged = before.replace("self.x = 1", "self.x = 2");
  deepEqual(compareOutlines(outlineTests(before), outlineTests(setupChanged)).changed, [
    "Things::test_x",
  ]);
  const hookChanged = `def setup_module():\n    pass\n\n\n${before}`;
  deepEqual(
    compareOutlines(
      outlineTests(`def setup_module():\n    x = 1\n\n\n${before}`),
      outlineTests(hookChanged),
    )
      .changed,
    ["test_uses_helper", "test_alone", "Things::test_x"],
  );
  deepEqual(compareOutlines(null, outlineTests(before)).added, [
    "test_uses_helper",
    "test_alone",
    "Things::test_x",
  ]);
});
