/**
 * What cross-examination and scoring share about one task: the pytest discovery rules of B's
 * tree, where the package and the tests lie, every author's tests, how sessions are run, and what
 * identifies the attempts a result was made from.
 *
 * Requires `--allow-run` (git, the interpreter), `--allow-read` and `--allow-write`.
 *
 * @module
 */

import type { Project } from "../project.ts";
import { type PytestRules, pytestRulesIn, type TestEnv } from "../lang/python/mod.ts";
import { attemptName, type BoutAttempt, nameOf, type Task } from "../records.ts";
import type { Sandbox } from "../sandbox/types.ts";
import { authorDirs, type AuthorTests, readAuthorTests } from "./authors.ts";
import type { PathRules } from "./paths.ts";
import type { SessionSettings } from "./sessions.ts";
import type { Slots } from "./slots.ts";

/** The fix's test files to put in place on a tree: the test modules and their support files. */
export function hiddenTestFiles(task: Task): string[] {
  return [...new Set([...task.testFiles, ...(task.supportFiles ?? [])])];
}

/** What identifies a set of attempts, for the inputs keys of later stages. */
export function attemptsFingerprint(attempts: readonly BoutAttempt[]): string[][] {
  return attempts.map(({ attempt: a }) => [a.agent, a.role, a.inputsKey, a.status, a.startedAt]);
}

/** pytest's discovery rules in a tree (from its pytest.ini, pyproject.toml, tox.ini, setup.cfg). */
export function treeRules(tree: string): Promise<PytestRules> {
  return pytestRulesIn(tree);
}

/**
 * Every author's tests at a task: each agent whose attempt finished (`patch`), in configuration
 * order, read against B's tree `base` (only read). Directories are named from every configured
 * agent, so they are the same in every stage.
 */
export async function taskAuthors(
  project: Project,
  attempts: readonly BoutAttempt[],
  options: {
    base: string;
    python: string;
    rules: PytestRules;
    scratch: string;
    signal?: AbortSignal;
  },
): Promise<AuthorTests[]> {
  const dirs = authorDirs(attemptNames(project));
  const authors: AuthorTests[] = [];
  for (const { attempt, patches } of attempts) {
    if (attempt.status !== "patch") continue;
    authors.push(
      await readAuthorTests({
        agent: nameOf(attempt),
        role: attempt.role,
        dir: dirs.get(nameOf(attempt))!,
        patch: patches.tests,
        files: attempt.files,
      }, options),
    );
  }
  return authors;
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

/** Where a task's package and a project's tests lie, for classifying paths. */
export function taskPathRules(project: Project, task: Task): PathRules {
  return { packageDir: task.packageDir, testsDir: project.config.project.tests };
}

/** How a project's pytest sessions run for a task. */
export function sessionSettings(
  project: Project,
  task: Task,
  shared: { sandbox: Sandbox; env: TestEnv; slots: Slots; scratch: string; signal?: AbortSignal },
): SessionSettings {
  const c = project.config;
  return {
    sandbox: shared.sandbox,
    env: shared.env,
    pythonPath: task.pythonPath,
    pytestArgs: c.project.pytestArgs,
    extraEnv: c.project.env,
    timeoutMs: c.run.testTimeout * 1000,
    memoryMb: c.run.testMemory,
    deny: [project.repository, project.home, project.results.path],
    scratch: shared.scratch,
    slots: shared.slots,
    signal: shared.signal,
  };
}
