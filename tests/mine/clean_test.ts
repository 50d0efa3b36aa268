import { equal } from "node:assert/strict";
import { cleanStatement, composeStatement, isFixHeading } from "../../lib/mine/clean.ts";

Deno.test("cleanStatement keeps the problem and drops what describes the fix", () => {
  const cases: { name: string; body: string; expected: string }[] = [
    {
      name: "a markdown Solution section up to the next heading of its level",
      body:
        "## Bug\nIt crashes.\n\n## Solution\nCheck for None.\n\n### Detail\nIn parse().\n\n## Environment\nLinux",
      expected: "## Bug\nIt crashes.\n\n## Environment\nLinux",
    },
    {
      name: "bold and colon headings",
      body:
        "**Describe the bug**\nIt hangs.\n\n**Proposed fix**\nAdd a timeout.\n\nSteps to reproduce:\nrun it",
      expected: "**Describe the bug**\nIt hangs.\n\nSteps to reproduce:\nrun it",
    },
    {
      name: "a pull request template: changes, checklist, how it was tested",
      body: "Closes #30\n\n## What does this PR do?\nClamps it.\n\n## Checklist\n- [x] Tests\n\n" +
        "## How has this been tested?\nLocally.\n\nThanks!",
      expected: "",
    },
    {
      name: "diff and patch blocks, but not other code",
      body:
        "Repro:\n```python\nparse('')\n```\n\n```diff\n- a\n+ b\n```\n\n```\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n```",
      expected: "Repro:\n```python\nparse('')\n```",
    },
    {
      name: "HTML comments, also unterminated",
      body: "<!-- Thanks for the report -->\nIt breaks.\n<!-- Please describe",
      expected: "It breaks.",
    },
    {
      name: "trailers and reference-only lines of a commit message",
      body: "Blank quantities crashed.\n\nFixes #12\nSigned-off-by: Dana <d@example.com>\n" +
        "Co-authored-by: Kim <k@example.com>",
      expected: "Blank quantities crashed.",
    },
    {
      name: "setext headings",
      body: "Problem\n=======\nWrong total.\n\nFix\n---\nUse sum.\n\nNotes\n-----\nSeen in 2.0",
      expected: "Problem\n=======\nWrong total.\n\nNotes\n-----\nSeen in 2.0",
    },
    {
      name: "a fix section heading inside a code block is not a heading",
      body: "Run:\n```\n## Solution\nnot a heading\n```\nThat's all.",
      expected: "Run:\n```\n## Solution\nnot a heading\n```\nThat's all.",
    },
    { name: "nothing", body: "", expected: "" },
  ];
  for (const { name, body, expected } of cases) equal(cleanStatement(body), expected, name);
});

Deno.test("isFixHeading names fix sections and not problem sections", () => {
  for (
    const heading of [
      "Solution",
      "Proposed fix",
      "Changes",
      "Implementation",
      "Fix",
      "The fix:",
      "Changes made",
      "How to fix",
    ]
  ) {
    equal(isFixHeading(heading), true, heading);
  }
  for (
    const heading of [
      "Describe the bug",
      "Expected behaviour",
      "Steps to reproduce",
      "Environment",
      "Workaround",
    ]
  ) {
    equal(isFixHeading(heading), false, heading);
  }
});

Deno.test("composeStatement puts the title first and the cleaned body after it", () => {
  equal(
    composeStatement("Crash on empty input", "It crashes.\n\n## Fix\nReturn 0."),
    "Crash on empty input\n\nIt crashes.",
  );
  equal(composeStatement("Crash", null), "Crash");
});
