/**
 * The prompts agents get: the cleaned issue, what to do, and a test command that works inside the
 * sandbox. Contestants fix and add a regression test; examiners write tests only.
 *
 * @module
 */

import type { PromptWords } from "../lang/mod.ts";
import type { Task } from "../records.ts";

/** What the prompt needs to know about the project. */
export interface PromptContext {
  /** The task. */
  task: Task;
  /** The command that runs the tests inside the sandbox. */
  testCommand: string;
  /** `contestant`, or an examiner's assignment. */
  role: "contestant" | "reproduce" | "specify";
  /** The language's words for where tests go (`LanguageSpec.promptWords`). */
  words: PromptWords;
}

/** Build the prompt for one attempt. */
export function buildPrompt(context: PromptContext): string {
  const { task, testCommand, role, words } = context;
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
