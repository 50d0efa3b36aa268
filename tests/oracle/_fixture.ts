/**
 * Helpers for the oracle tests: a `Project` over a repository built with `RepoBuilder`, and
 * tasks made by hand (the miner is not under test here).
 *
 * @module
 */

import { join } from "node:path";
import { parseConfig } from "../../lib/config.ts";
import { Project } from "../../lib/project.ts";
import type { Task } from "../../lib/records.ts";

/** Settings of the generated `bugbout.toml`. */
export interface FixtureSettings {
  sandbox: "bubblewrap" | "none";
  jobs?: number;
  reruns?: number;
  testTimeout?: number;
  testMemory?: number;
}

/** A project whose `bugbout.toml` lives in `root` and points at `repo`. */
export async function makeProject(
  root: string,
  repo: string,
  home: string,
  s: FixtureSettings,
): Promise<Project> {
  const toml = `[project]
source = "calc"
repository = ${JSON.stringify(repo)}
test-dependencies = ["pytest"]

[tasks]
reruns = ${s.reruns ?? 2}

[run]
sandbox = "${s.sandbox}"
jobs = ${s.jobs ?? 2}
test-timeout = ${s.testTimeout ?? 60}
test-memory = ${s.testMemory ?? 1024}
`;
  await Deno.mkdir(root, { recursive: true });
  await Deno.writeTextFile(join(root, "bugbout.toml"), toml);
  const config = await parseConfig(toml, join(root, "bugbout.toml"));
  return new Project(config, repo, home);
}

/** A task for the fix `commit` with parent `parent`. */
export function makeTask(
  id: string,
  fix: { parent: string; commit: string },
  testFiles: string[],
  sourceFiles: string[] = [],
): Task {
  return {
    id,
    ref: { kind: "issue", number: 1 },
    title: `Fix ${id}`,
    commit: fix.commit,
    parent: fix.parent,
    date: "2023-11-14T00:00:00Z",
    sourceFiles,
    testFiles,
    newTests: [],
    packageDir: "calc",
    pythonPath: ".",
    statement: `Something is wrong (${id}).`,
    statementSource: "issue",
  };
}
