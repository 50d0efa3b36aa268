/**
 * What cross-examination and scoring share about one task of a bout: which agents count, their
 * attempts and tests, the pytest discovery rules at B, and how sessions are run.
 *
 * Requires `--allow-run` (git, the interpreter), `--allow-read` and `--allow-write`.
 *
 * @module
 */

import { join } from "node:path";
import { removeTree } from "../checkout.ts";
import { OWNED, ownedSuffix, sweepDead } from "../pids.ts";
import type { AgentEntry } from "../config.ts";
import { CONFIG_FILES, type PytestRules, pytestRules } from "../python/pytest_rules.ts";
import type { Project } from "../project.ts";
import type { TestEnv } from "../python/env.ts";
import { type AttemptPatches, loadPatches, loadTaskAttempts } from "../race/attempts.ts";
import type { Attempt, Task } from "../records.ts";
import type { Sandbox } from "../sandbox/types.ts";
import { authorDirs, type AuthorTests, pathRules, readAuthorTests } from "./authors.ts";
import type { SessionSettings } from "./sessions.ts";
import type { Slots } from "./slots.ts";

/** Every configured agent, contestants first, in configuration order. */
export function boutAgents(project: Project): AgentEntry[] {
  return [...project.config.contestants, ...project.config.examiners];
}

/** One agent's saved attempt at a task, with its patches. */
export interface BoutAttempt {
  /** The attempt record. */
  attempt: Attempt;
  /** Its patches. */
  patches: AttemptPatches;
}

/**
 * The saved attempts of configured agents at a task, in configuration order (attempts of agents no
 * longer in `bugbout.toml` are left out), with their patches.
 */
export async function boutAttempts(project: Project, task: string): Promise<BoutAttempt[]> {
  const saved = await loadTaskAttempts(project.results, task);
  const found: BoutAttempt[] = [];
  for (const agent of boutAgents(project)) {
    const attempt = saved.get(agent.name);
    if (!attempt) continue;
    found.push({ attempt, patches: await loadPatches(project.results, task, agent.name) });
  }
  return found;
}

/** What identifies a set of attempts, for the inputs keys of later stages. */
export function attemptsFingerprint(attempts: readonly BoutAttempt[]): string[][] {
  return attempts.map(({ attempt: a }) => [a.agent, a.role, a.inputsKey, a.status, a.startedAt]);
}

/** pytest's discovery rules in a tree (from its pytest.ini, pyproject.toml, tox.ini, setup.cfg). */
export async function treeRules(tree: string): Promise<PytestRules> {
  const files: Record<string, string | undefined> = {};
  for (const name of CONFIG_FILES) {
    files[name] = await Deno.readTextFile(join(tree, name)).catch(() => undefined);
  }
  return pytestRules(files);
}

/**
 * Every author's tests at a task: each agent whose attempt finished (`patch`), in configuration
 * order, read against B's tree `base` (only read). Directories are named from every configured
 * agent, so they are the same in every stage.
 */
export async function boutAuthors(
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
  const dirs = authorDirs(boutAgents(project).map((a) => a.name));
  const authors: AuthorTests[] = [];
  for (const { attempt, patches } of attempts) {
    if (attempt.status !== "patch") continue;
    authors.push(
      await readAuthorTests({
        agent: attempt.agent,
        role: attempt.role,
        dir: dirs.get(attempt.agent)!,
        patch: patches.tests,
        files: attempt.files,
      }, options),
    );
  }
  return authors;
}

/** The path rules of a task in a project (package and tests directories). */
export function taskPathRules(project: Project, task: Task) {
  return pathRules(task, project.config.project.tests);
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

/** A fresh working directory for one task of a stage, under the project's cache. */
export function taskWorkDir(project: Project, stage: string, task: string): string {
  return project.cacheDir(stage, `${task}${ownedSuffix()}`);
}

/** Remove working directories left by bugbout processes that were killed (`<task>-<pid>-<hex>`). */
export function sweepWorkDirs(dir: string): Promise<void> {
  return sweepDead(dir, OWNED, removeTree);
}
