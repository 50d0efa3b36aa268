/**
 * The demo project, `textkit`: a small pure-Python text and list toolkit (flat layout, no
 * dependencies) whose history holds five realistic fixed bugs that become scorable tasks, one fix
 * without an issue and a few features.
 *
 * @module
 */

import type { BuildOptions, FixtureProject, GithubRecord } from "./fixture.ts";
import { ProjectWriter } from "./writer.ts";

const PYPROJECT = `[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "textkit"
version = "0.3.0"
description = "Small helpers for text and lists"
requires-python = ">=3.8"

[tool.setuptools]
packages = ["textkit"]
`;

const LISTS = `"""Helpers for lists."""


def chunk(items, size):
    """Split items into lists of at most size elements, keeping their order."""
    if size < 1:
        raise ValueError("size must be at least 1")
    count = len(items) // size
    return [list(items[i * size:(i + 1) * size]) for i in range(count)]


def flatten(nested):
    """Flatten one level of nesting."""
    return [item for group in nested for item in group]
`;

const STATS = `"""Summary statistics."""


def mean(values):
    """The arithmetic mean of values."""
    values = list(values)
    if not values:
        raise ValueError("mean of empty data")
    return sum(values) / len(values)


def median(values):
    """The middle value of values (the mean of the two middle ones for an even count)."""
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2
`;

const TEXT = `"""Helpers for text."""


def wrap(text, width):
    """Break text into lines of at most width characters, at spaces."""
    lines = []
    current = ""
    for word in text.split():
        if current and len(current) + len(word) + 1 > width + 1:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    if current:
        lines.append(current)
    return lines


def title_case(text):
    """Capitalise the first letter of every word."""
    return text.title()
`;

const DURATIONS = `"""Parsing durations such as "1h30m"."""

_UNITS = {"h": 3600, "m": 60, "s": 1}


def parse_duration(text):
    """Parse a duration such as "45s", "2h" or "1h30m" into seconds."""
    total = 0
    number = ""
    for char in text.strip():
        if char.isdigit():
            number += char
        elif char in _UNITS and number:
            total = int(number) * _UNITS[char]
            number = ""
        else:
            raise ValueError(f"not a duration: {text!r}")
    if number or not text.strip():
        raise ValueError(f"not a duration: {text!r}")
    return total
`;

const ITEMS: GithubRecord[] = [
  {
    number: 3,
    title: "chunk() drops the last partial chunk",
    body: "`chunk([1, 2, 3, 4, 5], 2)` returns `[[1, 2], [3, 4]]`: the 5 is lost.\n\n" +
      "### Expected\n`[[1, 2], [3, 4], [5]]`, like `more_itertools.chunked`.\n\n" +
      "<!-- Please include your Python version -->\nPython 3.11, textkit 0.2.0\n",
  },
  {
    number: 5,
    title: "wrap() makes lines one character longer than width",
    body: 'With `wrap("aa bb cc", 4)` I get `["aa bb", "cc"]`; "aa bb" is 5 characters.\n\n' +
      "## Proposed fix\nCompare against `width` instead of `width + 1`.\n",
  },
  {
    number: 6,
    title: "Fix wrap() exceeding the requested width",
    body: "Fixes #5\n\n## Changes\n- use the width as given\n- add a regression test\n",
    pullRequest: true,
    closes: [5],
  },
  {
    number: 8,
    title: "parse_duration ignores the hours in 1h30m",
    body: 'parse_duration("1h30m") returns 1800 instead of 5400; "2m5s" gives 5.\n' +
      "Every unit seems to replace what came before it.\n",
  },
  {
    number: 11,
    title: "median([]) raises IndexError",
    body: "median of an empty list fails with `IndexError: list index out of range`.\n" +
      '`mean([])` raises `ValueError("mean of empty data")`; median should do the same.\n',
  },
  {
    number: 14,
    title: "title_case capitalises letters after apostrophes",
    body: '`title_case("don\'t stop")` gives `"Don\'T Stop"`. Words with apostrophes should keep ' +
      'the rest of the word in lower case: `"Don\'t Stop"`.\n\n```diff\n-    return text.title()\n' +
      "+    return capwords(text)\n```\n",
  },
];

/** Build the demo project (`textkit`) into `dir` and return its manifest. */
export async function buildDemo(dir: string, options: BuildOptions = {}): Promise<FixtureProject> {
  const w = new ProjectWriter("textkit");
  w.commit("Initial commit", {
    "pyproject.toml": PYPROJECT,
    "README.md": "# textkit\n\nSmall helpers for text and lists.\n",
    "textkit/__init__.py":
      '"""textkit: small helpers for text and lists."""\n\n__version__ = "0.1.0"\n',
    "textkit/lists.py": LISTS,
    "textkit/stats.py": STATS,
    "tests/test_lists.py": "from textkit.lists import chunk, flatten\n\n\n" +
      "def test_chunk_even():\n    assert chunk([1, 2, 3, 4], 2) == [[1, 2], [3, 4]]\n\n\n" +
      "def test_flatten():\n    assert flatten([[1], [2, 3]]) == [1, 2, 3]\n",
    "tests/test_stats.py": "import pytest\n\nfrom textkit.stats import mean, median\n\n\n" +
      "def test_mean():\n    assert mean([1, 2, 3]) == 2\n\n\n" +
      "def test_mean_of_nothing():\n    with pytest.raises(ValueError):\n        mean([])\n\n\n" +
      "def test_median_odd_and_even():\n    assert median([3, 1, 2]) == 2\n    assert median([4, 1, 3, 2]) == 2.5\n",
  });
  w.commit("Add text helpers", {
    "textkit/text.py": TEXT,
    "tests/test_text.py": "from textkit.text import title_case, wrap\n\n\n" +
      'def test_wrap_short_text():\n    assert wrap("hello world", 20) == ["hello world"]\n\n\n' +
      'def test_title_case():\n    assert title_case("hello world") == "Hello World"\n',
  });
  w.commit("Add duration parsing", {
    "textkit/durations.py": DURATIONS,
    "tests/test_durations.py":
      "import pytest\n\nfrom textkit.durations import parse_duration\n\n\n" +
      'def test_single_units():\n    assert parse_duration("45s") == 45\n    assert parse_duration("2h") == 7200\n\n\n' +
      'def test_rejects_garbage():\n    with pytest.raises(ValueError):\n        parse_duration("soon")\n',
  });
  w.fix({
    key: "chunk-partial",
    shape: "squash",
    message: "Fix chunk() dropping the last partial chunk (#3)\n\n" +
      "chunk([1, 2, 3, 4, 5], 2) returned [[1, 2], [3, 4]] and lost the 5.\n\n" +
      "## Solution\nRound the number of chunks up instead of down.\n",
    edits: {
      "textkit/lists.py": {
        replace: [["count = len(items) // size", "count = -(-len(items) // size)"]],
      },
      "tests/test_lists.py": {
        append: "\n\ndef test_chunk_keeps_last_partial_chunk():\n" +
          "    assert chunk([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]\n\n\n" +
          "def test_chunk_exact_multiple_has_no_empty_chunk():\n" +
          "    assert chunk([1, 2, 3, 4, 5, 6], 3) == [[1, 2, 3], [4, 5, 6]]\n",
      },
    },
    issue: 3,
    expected: { taskId: "issue-3" },
    newTests: [
      "tests/test_lists.py::test_chunk_keeps_last_partial_chunk",
      "tests/test_lists.py::test_chunk_exact_multiple_has_no_empty_chunk",
    ],
    failToPass: ["tests/test_lists.py::test_chunk_keeps_last_partial_chunk"],
    wrong: {
      "textkit/lists.py": {
        replace: [["count = len(items) // size", "count = len(items) // size + 1"]],
      },
    },
    reproTest: {
      path: "tests/test_chunk_repro.py",
      content: "from textkit.lists import chunk\n\n\ndef test_partial_chunk_is_kept():\n" +
        "    assert chunk([1, 2, 3], 2)[-1] == [3]\n",
    },
    specTest: {
      path: "tests/test_chunk_spec.py",
      content: "from textkit.lists import chunk\n\n\ndef test_every_item_once_in_order():\n" +
        "    assert chunk([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]\n" +
        "    assert chunk([1, 2, 3, 4], 2) == [[1, 2], [3, 4]]\n",
    },
  });
  w.commit("Document the public API in the README", {
    "README.md": {
      append: "\n## API\n\n- `chunk`, `flatten`\n- `mean`, `median`\n- `wrap`, `title_case`\n",
    },
  });
  w.fix({
    key: "wrap-width",
    shape: "merge",
    merge: {
      number: 6,
      branch: "fix-wrap-width",
      title: "Fix wrap() exceeding the requested width",
      body: "Fixes #5\n\n## Changes\n- use the width as given\n- add a regression test",
      commits: [
        {
          message: "Use the width as given",
          edits: { "textkit/text.py": { replace: [["+ 1 > width + 1:", "+ 1 > width:"]] } },
        },
        {
          message: "Add a regression test for wrap",
          edits: {
            "tests/test_text.py": {
              append:
                '\n\ndef test_wrap_never_exceeds_width():\n    assert wrap("aa bb cc", 4) == ["aa", "bb", "cc"]\n' +
                '    assert all(len(line) <= 9 for line in wrap("the quick brown fox jumps over", 9))\n',
            },
          },
        },
      ],
    },
    issue: 5,
    expected: { taskId: "issue-5" },
    newTests: ["tests/test_text.py::test_wrap_never_exceeds_width"],
    failToPass: ["tests/test_text.py::test_wrap_never_exceeds_width"],
    wrong: {
      "textkit/text.py": {
        replace: [[
          "len(current) + len(word) + 1 > width + 1:",
          "len(current) + len(word) > width:",
        ]],
      },
    },
    reproTest: {
      path: "tests/test_wrap_repro.py",
      content: "from textkit.text import wrap\n\n\ndef test_lines_fit():\n" +
        '    assert all(len(line) <= 5 for line in wrap("abc de fgh ij", 5))\n',
    },
    specTest: {
      path: "tests/test_wrap_spec.py",
      content: "from textkit.text import wrap\n\n\ndef test_lines_at_most_width():\n" +
        '    assert wrap("aa bb cc", 4) == ["aa", "bb", "cc"]\n' +
        '    assert wrap("aa bb cc", 5) == ["aa bb", "cc"]\n',
    },
  });
  w.fix({
    key: "duration-hours",
    shape: "commit",
    message: "Fix parse_duration ignoring the hours in 1h30m\n\n" +
      'parse_duration("1h30m") returned 1800: each unit replaced the total so far.\n\nFixes #8\n',
    edits: {
      "textkit/durations.py": {
        replace: [["total = int(number) * _UNITS[char]", "total += int(number) * _UNITS[char]"]],
      },
      "tests/test_durations.py": {
        append:
          '\n\ndef test_combined_units_add_up():\n    assert parse_duration("1h30m") == 5400\n' +
          '    assert parse_duration("2m5s") == 125\n',
      },
    },
    issue: 8,
    expected: { taskId: "issue-8" },
    newTests: ["tests/test_durations.py::test_combined_units_add_up"],
    failToPass: ["tests/test_durations.py::test_combined_units_add_up"],
    wrong: {
      "textkit/durations.py": {
        replace: [[
          "total = int(number) * _UNITS[char]",
          'total = total + int(number) * 60 if char == "m" else int(number) * _UNITS[char]',
        ]],
      },
    },
    reproTest: {
      path: "tests/test_duration_repro.py",
      content: "from textkit.durations import parse_duration\n\n\ndef test_hours_and_minutes():\n" +
        '    assert parse_duration("1h30m") == 90 * 60\n',
    },
    specTest: {
      path: "tests/test_duration_spec.py",
      content: "from textkit.durations import parse_duration\n\n\ndef test_units_add_up():\n" +
        '    assert parse_duration("1h30m") == 5400\n    assert parse_duration("2m5s") == 125\n',
    },
  });
  w.commit("Fix typo in README", {
    "README.md": { replace: [["Small helpers", "Small, dependable helpers"]] },
  });
  w.fix({
    key: "median-empty",
    shape: "squash",
    message:
      "Fix median() crash on empty data (#11)\n\nmedian([]) raised IndexError; mean([]) raises ValueError.\n",
    edits: {
      "textkit/stats.py": {
        replace: [[
          "    ordered = sorted(values)\n",
          '    ordered = sorted(values)\n    if not ordered:\n        raise ValueError("median of empty data")\n',
        ]],
      },
      "tests/test_stats.py": {
        append:
          '\n\ndef test_median_of_nothing():\n    with pytest.raises(ValueError, match="empty"):\n        median([])\n',
      },
    },
    issue: 11,
    expected: { taskId: "issue-11" },
    newTests: ["tests/test_stats.py::test_median_of_nothing"],
    failToPass: ["tests/test_stats.py::test_median_of_nothing"],
    wrong: {
      "textkit/stats.py": {
        replace: [[
          "    ordered = sorted(values)\n",
          "    ordered = sorted(values)\n    if not ordered:\n        return None\n",
        ]],
      },
    },
    reproTest: {
      path: "tests/test_median_repro.py",
      content: "from textkit.stats import median\n\n\ndef test_empty_median_does_not_crash():\n" +
        "    try:\n        median([])\n    except IndexError:\n        raise AssertionError('IndexError')\n" +
        "    except ValueError:\n        pass\n",
    },
    specTest: {
      path: "tests/test_median_spec.py",
      content: "import pytest\n\nfrom textkit.stats import median\n\n\n" +
        "def test_median_of_nothing_is_a_value_error():\n" +
        "    with pytest.raises(ValueError):\n        median([])\n",
    },
  });
  w.fix({
    key: "title-apostrophe",
    shape: "squash",
    message: "Fix title_case capitalising letters after apostrophes (#14)",
    edits: {
      "textkit/text.py": {
        replace: [[
          "    return text.title()\n",
          '    return " ".join(word[:1].upper() + word[1:].lower() for word in text.split(" "))\n',
        ]],
      },
      "tests/test_text.py": {
        append: "\n\ndef test_title_case_keeps_apostrophes():\n" +
          '    assert title_case("don\'t stop believing") == "Don\'t Stop Believing"\n' +
          '    assert title_case("it\'s fine") == "It\'s Fine"\n',
      },
    },
    issue: 14,
    expected: { taskId: "issue-14" },
    newTests: ["tests/test_text.py::test_title_case_keeps_apostrophes"],
    failToPass: ["tests/test_text.py::test_title_case_keeps_apostrophes"],
    wrong: {
      "textkit/text.py": {
        replace: [["    return text.title()\n", '    return text.title().replace("\'T", "\'t")\n']],
      },
    },
    reproTest: {
      path: "tests/test_title_repro.py",
      content: "from textkit.text import title_case\n\n\ndef test_dont():\n" +
        '    assert title_case("don\'t") == "Don\'t"\n',
    },
    specTest: {
      path: "tests/test_title_spec.py",
      content: "from textkit.text import title_case\n\n\ndef test_one_capital_per_word():\n" +
        '    assert title_case("don\'t stop") == "Don\'t Stop"\n' +
        "    assert title_case(\"it's o'clock\") == \"It's O'clock\"\n",
    },
  });
  w.commit("Add flatten depth option", {
    "textkit/lists.py": {
      replace: [[
        'def flatten(nested):\n    """Flatten one level of nesting."""\n    return [item for group in nested for item in group]\n',
        'def flatten(nested, depth=1):\n    """Flatten depth levels of nesting."""\n    for _ in range(depth):\n' +
        "        nested = [item for group in nested for item in group]\n    return nested\n",
      ]],
    },
    "tests/test_lists.py": {
      append:
        "\n\ndef test_flatten_depth():\n    assert flatten([[[1]], [[2]]], depth=2) == [1, 2]\n",
    },
  });
  return await w.build(dir, {
    name: "textkit",
    github: { repository: "acme/textkit", items: ITEMS },
    origin: options.origin,
  });
}
