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
}

/** Build the prompt for one attempt. */
export function buildPrompt({ task, testsDir, testCommand, role }: PromptContext): string {
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
