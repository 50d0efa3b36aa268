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
  runner?: { language: "go" | "node"; name: string };
}

/** Where a Go or JavaScript project's tests go, and what kind of test to write. */
function runnerWords(runner: { language: "go" | "node"; name: string }) {
  return runner.language === "go"
    ? {
      where: "in a `_test.go` file beside the code it tests",
      kind: "Go tests (`go test`)",
      place: "in `_test.go` files",
    }
    : {
      where: `in a test file that ${runner.name} runs, where the project keeps its tests`,
      kind: `${runner.name} tests`,
      place: "in test files",
    };
}

/** Build the prompt for one attempt. */
export function buildPrompt(context: PromptContext): string {
  if (context.runner) return runnerPrompt(context, context.runner);
  const { task, testsDir, testCommand, role } = context;
  const pkg = task.packageDir;
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
      `Fix the issue in the source code (the package is in \`${pkg}\`). Then add a regression`,
      `test under \`${testsDir}/\` that fails without your fix and passes with it. Keep the change`,
      "focused on the issue; do not change unrelated behaviour.",
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
    `Do not fix anything. Write pytest tests under \`${testsDir}/\` ${scope}. They must fail on the`,
    "current code for the reason the issue describes, and pass once the bug is fixed. Any change you",
    `make outside \`${testsDir}/\` is discarded.`,
    "",
    ...run,
    "When you are done, reply with a short summary of what your tests check.",
    "",
  ].join("\n");
}

/** The prompt of a Go or JavaScript project: the same, with tests where its runner finds them. */
function runnerPrompt(
  { task, testCommand, role }: PromptContext,
  runner: { language: "go" | "node"; name: string },
): string {
  const words = runnerWords(runner);
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
      `Fix the issue in the source code. Then add a regression test ${words.where}`,
      "that fails without your fix and passes with it. Keep the change focused on the issue; do",
      "not change unrelated behaviour.",
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
    `Do not fix anything. Write ${words.kind} ${words.place} ${scope}. They must fail on the`,
    "current code for the reason the issue describes, and pass once the bug is fixed. Any change you",
    "make outside test files is discarded.",
    "",
    ...run,
    "When you are done, reply with a short summary of what your tests check.",
    "",
  ].join("\n");
}
