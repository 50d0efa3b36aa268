import { deepEqual, equal } from "node:assert/strict";
import {
  DEFAULT_RULES,
  isTestModule,
  matchesName,
  pytestRules,
  testPathspecs,
} from "../../lib/lang/python/pytest_rules.ts";
import { addedTestFunctions, testFunctions } from "../../lib/lang/python/mod.ts";
import { run } from "../../lib/proc.ts";

Deno.test("isTestModule follows python_files, by name or by path", () => {
  const cases: [string, boolean][] = [
    ["tests/test_parsing.py", true],
    ["tests/parsing_test.py", true],
    ["test_top.py", true],
    ["tests/conftest.py", false],
    ["tests/helpers.py", false],
    ["tests/test_data.json", false],
    ["src/pkg/testing.py", false],
  ];
  for (const [path, expected] of cases) equal(isTestModule(path), expected, path);
  const custom = { ...DEFAULT_RULES, files: ["check_*.py", "tests/unit/*.py"] };
  equal(isTestModule("tests/check_prices.py", custom), true);
  equal(isTestModule("tests/test_prices.py", custom), false);
  equal(isTestModule("tests/unit/prices.py", custom), true);
  deepEqual(testPathspecs(custom), [":(glob)**/check_*.py", ":(glob)**/tests/unit/*.py"]);
});

Deno.test("matchesName takes prefixes and globs, as pytest does", () => {
  equal(matchesName("testFoo", ["test"]), true);
  equal(matchesName("check_prices", ["test", "check_"]), true);
  equal(matchesName("it_works", ["*_works"]), true);
  equal(matchesName("helper", ["test"]), false);
});

Deno.test("pytestRules reads the file pytest would read, with pytest's precedence", () => {
  const toml =
    '[tool.pytest.ini_options]\npython_files = ["check_*.py"]\npython_functions = "test check_"\n';
  deepEqual(pytestRules({ "pyproject.toml": toml }), {
    files: ["check_*.py"],
    functions: ["test", "check_"],
    classes: ["Test"],
    from: "pyproject.toml",
  });
  const native = '[tool.pytest]\npython_classes = ["Describe"]\n';
  deepEqual(pytestRules({ "pyproject.toml": native }).classes, ["Describe"]);
  // pytest 9's pytest.toml comes first of all.
  deepEqual(
    pytestRules({
      "pytest.toml": '[pytest]\npython_functions = ["should_"]\n',
      "pytest.ini": "[pytest]\npython_functions = check_\n",
    }),
    { files: DEFAULT_RULES.files, functions: ["should_"], classes: ["Test"], from: "pytest.toml" },
  );
  // pytest.ini wins even when it sets nothing.
  deepEqual(
    pytestRules({ "pytest.ini": "[pytest]\naddopts = -q\n", "pyproject.toml": toml }).files,
    DEFAULT_RULES.files,
  );
  deepEqual(
    pytestRules({
      "tox.ini": "[tox]\nenvlist = py311\n\n[pytest]\npython_files =\n    t_*.py\n    *_t.py\n",
    }).files,
    ["t_*.py", "*_t.py"],
  );
  deepEqual(pytestRules({ "setup.cfg": "[tool:pytest]\npython_functions = should_\n" }).functions, [
    "should_",
  ]);
  deepEqual(pytestRules({ "pyproject.toml": "[project]\nname = 'x'\n" }), DEFAULT_RULES);
  deepEqual(pytestRules({ "pyproject.toml": "not [valid toml" }), DEFAULT_RULES);
});

const MODULE = `"""Tests.

def test_in_a_docstring():
    pass
"""
import unittest

import pytest


def test_plain():
    assert True


async def test_async():
    pass


def testCamelCase():
    pass


def helper():
    def test_nested_in_function():
        pass


@pytest.mark.parametrize(
    "x",
    [1, 2],
)
def test_parametrised(x):
    text = """
def test_inside_a_string():
"""


class TestThing:
    def test_method(self):
        pass

    async def test_async_method(self):
        pass

    def helper(self):
        pass

    class TestNested:
        def test_deep(self):
            pass


class TestWithInit:
    def __init__(self):
        pass

    def test_not_collected(self):
        pass


class Helper:
    def test_not_collected_either(self):
        pass


class MyCase(unittest.TestCase):
    def test_unittest_method(self):
        pass

    def check_not_a_unittest_test(self):
        pass


if True:
    def test_under_if():
        pass
`;

Deno.test("testFunctions finds what pytest collects and nothing in strings or helpers", () => {
  deepEqual(testFunctions(MODULE), [
    "test_plain",
    "test_async",
    "testCamelCase",
    "test_parametrised",
    "TestThing::test_method",
    "TestThing::test_async_method",
    "TestThing::TestNested::test_deep",
    "MyCase::test_unittest_method",
    "test_under_if",
  ]);
});

Deno.test("testFunctions honours python_functions and python_classes", () => {
  const source =
    "def check_price():\n    pass\n\n\nclass DescribeCart:\n    def it_totals(self):\n        pass\n";
  deepEqual(testFunctions(source), []);
  deepEqual(
    testFunctions(source, { files: ["*.py"], functions: ["check_", "it_"], classes: ["Describe"] }),
    ["check_price", "DescribeCart::it_totals"],
  );
});

Deno.test("addedTestFunctions compares a module before and after a change", () => {
  const before = "def test_a():\n    pass\n\n\nclass TestX:\n    def test_b(self):\n        pass\n";
  const after = before +
    "\n    def test_c(self):\n        pass\n\n\ndef test_d():\n    pass\n\n\ndef helper():\n    pass\n";
  deepEqual(addedTestFunctions(before, after), ["TestX::test_c", "test_d"]);
  deepEqual(addedTestFunctions(before, before.replace("assert", "")), []);
});

Deno.test("testFunctions agrees with what real pytest collects from the same module", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bugbout-collect-" });
  try {
    await Deno.writeTextFile(`${dir}/test_module.py`, MODULE);
    const result = await run(
      [
        "python3",
        "-m",
        "pytest",
        "--collect-only",
        "-q",
        "-p",
        "no:cacheprovider",
        "test_module.py",
      ],
      { cwd: dir, okCodes: "any", timeoutMs: 60_000 },
    );
    const collected = result.stdout.split("\n")
      .filter((line) => line.startsWith("test_module.py::"))
      .map((line) => line.slice("test_module.py::".length).replace(/\[.*\]$/, ""));
    deepEqual([...new Set(collected)].sort(), testFunctions(MODULE).sort());
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
