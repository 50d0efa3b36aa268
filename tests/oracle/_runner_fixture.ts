/**
 * Go and JavaScript projects for the ground-truth and race tests: a `Project` over a fixture
 * repository (`buildGoProject`, `buildTallyProject`, `buildPlainProject`), tasks made by hand
 * from the fixtures' fixes (the miner is not under test here), and a `BUGBOUT_HOME` whose runner
 * caches are the persistent test caches, so that only a machine's first run builds environments.
 *
 * @module
 */

import { join } from "node:path";
import { parseConfig } from "../../lib/config.ts";
import { Project } from "../../lib/project.ts";
import type { Language, Task } from "../../lib/records.ts";
import { goTestCache } from "../go/_shared.ts";
import { ENVS } from "../node/_shared.ts";

/** Settings of the generated `bugbout.toml`. */
export interface RunnerProjectSettings {
  language: Exclude<Language, "python">;
  /** `[project] env`. */
  env?: Record<string, string>;
  /** `[project] tests`. */
  tests?: string;
  reruns?: number;
  /** Extra lines (agents). */
  extra?: string;
}

/**
 * A project over `repo` whose `bugbout.toml` lives in `root`, with `home` as `BUGBOUT_HOME`;
 * `home/runners/<language>` links to the persistent test cache of that language.
 */
export async function makeRunnerProject(
  root: string,
  repo: string,
  home: string,
  s: RunnerProjectSettings,
): Promise<Project> {
  const env = Object.entries(s.env ?? {}).map(([k, v]) => `${k} = ${JSON.stringify(v)}`);
  const toml = `[project]
language = "${s.language}"
repository = ${JSON.stringify(repo)}
${s.tests ? `tests = ${JSON.stringify(s.tests)}\n` : ""}${
    env.length ? `env = { ${env.join(", ")} }\n` : ""
  }
[tasks]
reruns = ${s.reruns ?? 2}

[run]
sandbox = "bubblewrap"
jobs = 2
timeout = 300
test-timeout = 300
test-memory = 4096
${s.extra ?? ""}`;
  await Deno.mkdir(root, { recursive: true });
  await Deno.writeTextFile(join(root, "bugbout.toml"), toml);
  const cache = s.language === "go" ? goTestCache() : ENVS;
  await Deno.mkdir(cache, { recursive: true });
  await Deno.mkdir(join(home, "runners"), { recursive: true });
  try {
    await Deno.symlink(cache, join(home, "runners", s.language));
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
  }
  const config = await parseConfig(toml, join(root, "bugbout.toml"));
  return new Project(config, repo, home);
}

/** A task of a Go or JavaScript project, as mining makes one (`packageDir` and `pythonPath` "."). */
export function runnerTask(
  id: string,
  fix: { parent: string; commit: string },
  files: { testFiles: string[]; sourceFiles: string[]; newTests?: string[] },
  statement = `Something is wrong (${id}).`,
): Task {
  return {
    id,
    ref: { kind: "issue", number: 1 },
    title: `Fix ${id}`,
    commit: fix.commit,
    parent: fix.parent,
    date: "2023-11-14T00:00:00Z",
    sourceFiles: files.sourceFiles,
    testFiles: files.testFiles,
    newTests: files.newTests ?? [],
    packageDir: ".",
    pythonPath: ".",
    statement,
    statementSource: "issue",
  };
}
