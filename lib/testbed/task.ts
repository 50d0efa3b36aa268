/**
 * What cross-examination and scoring share about one task: every author's tests, the test files
 * the fix brings, the runs' settings, and what identifies the attempts a result was made from.
 *
 * Requires `--allow-run` (git, the runner's tools), `--allow-read` and `--allow-write`.
 *
 * @module
 */

import type { Project } from "../project.ts";
import { attemptName, type BoutAttempt, nameOf, type Task } from "../records.ts";
import type { Sandbox } from "../sandbox/types.ts";
import type { LanguageSpec } from "../lang/mod.ts";
import { type AuthorReading, type AuthorTests, readAuthor } from "./authors.ts";
import type { RunSettings } from "./owners.ts";
import type { Slots } from "./slots.ts";

/** The fix's test files to put in place on a tree: the test files and their support files. */
export function hiddenTestFiles(task: Task): string[] {
  return [...new Set([...task.testFiles, ...(task.supportFiles ?? [])])];
}

/** What identifies a set of attempts, for the inputs keys of later stages. */
export function attemptsFingerprint(attempts: readonly BoutAttempt[]): string[][] {
  return attempts.map(({ attempt: a }) => [a.agent, a.role, a.inputsKey, a.status, a.startedAt]);
}

/**
 * Every attempt name a task can have, in configuration order: each configured agent's, then its
 * repeats (`[run] repeats`; see `attemptName`).
 */
export function attemptNames(project: Project): string[] {
  return project.agents.flatMap((agent) =>
    Array.from({ length: project.config.run.repeats }, (_, i) => attemptName(agent.name, i + 1))
  );
}

/**
 * Every author's tests at a task: each agent whose attempt finished (`patch`), in configuration
 * order, read against B's tree (only read). Tags are made from every configured agent, so they are
 * the same in every stage.
 */
export async function taskAuthors(
  project: Project,
  language: Pick<LanguageSpec, "authorTags">,
  attempts: readonly BoutAttempt[],
  at: AuthorReading,
): Promise<AuthorTests[]> {
  const tags = language.authorTags(attemptNames(project));
  const authors: AuthorTests[] = [];
  for (const { attempt, patches } of attempts) {
    if (attempt.status !== "patch") continue;
    const name = nameOf(attempt);
    authors.push(
      await readAuthor({
        agent: name,
        role: attempt.role,
        tag: tags.get(name) ?? language.authorTags([name]).get(name)!,
        patch: patches.tests,
        files: attempt.files,
      }, at),
    );
  }
  return authors;
}

/** How a project's test runs are made in a task's working directory. */
export function runSettings(
  project: Project,
  shared: { sandbox: Sandbox; slots: Slots; scratch: string; signal?: AbortSignal },
): RunSettings {
  const c = project.config;
  return {
    sandbox: shared.sandbox,
    extraEnv: c.project.env,
    timeoutMs: c.run.testTimeout * 1000,
    memoryMb: c.run.testMemory,
    deny: [project.repository, project.home, project.results.path],
    scratch: shared.scratch,
    slots: shared.slots,
    signal: shared.signal,
  };
}
