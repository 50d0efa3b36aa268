/**
 * The prompts agents get: the cleaned issue, what to do, and a test command that works inside the
 * sandbox. Contestants fix and add a regression test; examiners write tests only.
 *
 * @module
 */

import type { Task } from "../records.ts";

/** What the prompt needs to know about the project. */
export interface PromptContext {
  /** The task. */
  task: Task;
  /** The tests directory. */
  testsDir: string;
  /** The command that runs the tests inside the sandbox. */
  testCommand: string;
  /** `contestant`, or an examiner's assignment. */
  role: "contestant" | "reproduce" | "specify";
  /**
   * A Go or JavaScript project's runner (`go test`, `vitest`, `jest`, `node --test`): tests go
   * where that language keeps them, not under a tests directory. Absent for Python.
   */
  runner?: { language: string; name: string };
}

/** What differs between languages: where tests go, in the prompt's own words and line breaks. */
interface Words {
  /** The contestant's instruction, as lines. */
  fix: string[];
  /** The examiner's tests and where they go ("pytest tests under `tests/`"). */
  tests: string;
  /** What an examiner may change ("`tests/`", "test files"). */
  within: string;
}

function wordsOf({ task, testsDir, runner }: PromptContext): Words {
  if (!runner) {
    return {
      fix: [
        `Fix the issue in the source code (the package is in \`${task.packageDir}\`). Then add a regression`,
        `test under \`${testsDir}/\` that fails without your fix and passes with it. Keep the change`,
        "focused on the issue; do not change unrelated behaviour.",
      ],
      tests: `pytest tests under \`${testsDir}/\``,
      within: `\`${testsDir}/\``,
    };
  }
  const go = runner.language === "go";
  const where = go
    ? "in a `_test.go` file beside the code it tests"
    : `in a test file that ${runner.name} runs, where the project keeps its tests`;
  return {
    fix: [
      `Fix the issue in the source code. Then add a regression test ${where}`,
      "that fails without your fix and passes with it. Keep the change focused on the issue; do",
      "not change unrelated behaviour.",
    ],
    tests: go ? "Go tests (`go test`) in `_test.go` files" : `${runner.name} tests in test files`,
    within: "test files",
  };
}

/** Build the prompt for one attempt. */
export function buildPrompt(context: PromptContext): string {
  const { task, testCommand, role } = context;
  const words = wordsOf(context);
  const issue = [
    "Here is an issue reported against this repository:",
    "",
    "<issue>",
    task.statement.trim(),
    "</issue>",
    "",
  ];
  const run = [
    `Run the tests with: ${testCommand}`,
    "There is no network access and no git history; work with the files in this directory.",
  ];
  if (role === "contestant") {
    return [
      ...issue,
      ...words.fix,
      "",
      ...run,
      "When you are done, reply with a short summary of the cause and your change.",
      "",
    ].join("\n");
  }
  const scope = role === "reproduce"
    ? "that reproduce exactly what the issue reports"
    : "that capture what the issue reports and the general rule behind it, plus nearby behaviour " +
      "a correct fix must keep working";
  return [
    ...issue,
    `Do not fix anything. Write ${words.tests} ${scope}. They must fail on the`,
    "current code for the reason the issue describes, and pass once the bug is fixed. Any change you",
    `make outside ${words.within} is discarded.`,
    "",
    ...run,
    "When you are done, reply with a short summary of what your tests check.",
    "",
  ].join("\n");
}
