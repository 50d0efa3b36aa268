/**
 * Mine a small history written for one test: the history is built with `RepoBuilder` into a temp
 * dir with the given `bugbout.toml`, and mined offline (no token, no GitHub) unless the settings
 * say otherwise.
 *
 * @module
 */

import { join } from "node:path";
import { type CommitRef, RepoBuilder } from "../../lib/demo/repo.ts";
import { mineAll, type MineOptions, type MineResult } from "../../lib/mine/mine.ts";
import { Project } from "../../lib/project.ts";
import type { Task } from "../../lib/records.ts";
import { NO_TOKENS } from "./_setup.ts";

/** A mined history. */
export interface Mined extends AsyncDisposable {
  /** The repository. */
  dir: string;
  /** `BUGBOUT_HOME`. */
  home: string;
  /** The commits the history named, by key. */
  commits: Record<string, string>;
  /** What mining returned. */
  result: MineResult;
  /** The task whose fix is the commit named `key`, if any. */
  task(key: string): Task | undefined;
  /** The exclusion of the commit named `key`, if any. */
  excluded(key: string): { reason: string; detail?: string } | undefined;
  /** The project. */
  project: Project;
}

/** Settings of {@linkcode mineHistory}. */
export interface HistorySettings {
  /** The `bugbout.toml` text (`[project] source` at least). */
  toml: string;
  /** Mining options (the environment defaults to one without tokens). */
  options?: MineOptions;
  /** Add an `origin` remote on github.com (nothing is fetched from it). */
  origin?: string;
}

/** Build a history with `write` (returning the commits it wants to name) and mine it. */
export async function mineHistory(
  write: (repo: RepoBuilder) => Record<string, CommitRef>,
  settings: HistorySettings,
): Promise<Mined> {
  const root = await Deno.makeTempDir({ prefix: "bugbout-history-" });
  const dir = join(root, "repo");
  const home = join(root, "home");
  const repo = new RepoBuilder();
  const refs = write(repo);
  await repo.build(dir);
  if (settings.origin) {
    const { git } = await import("../../lib/git.ts");
    await git(["remote", "add", "origin", settings.origin], { cwd: dir });
  }
  await Deno.writeTextFile(join(dir, "bugbout.toml"), settings.toml);
  const project = await Project.load(dir, { home });
  const result = await mineAll(project, { env: NO_TOKENS, ...settings.options });
  const commits = Object.fromEntries(Object.entries(refs).map(([k, r]) => [k, r.sha]));
  return {
    dir,
    home,
    commits,
    result,
    project,
    task: (key) => result.file.tasks.find((t) => t.commit === commits[key]),
    excluded: (key) => result.file.excluded.find((e) => e.commit === commits[key]),
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}
