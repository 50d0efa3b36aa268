/**
 * Another copy of the project in what the sandbox shows would hand an agent the fix: a clone in
 * `/usr/local/src` is covered by the default view, but a clone inside a toolchain's directory (a
 * package installed from a checkout, a virtual environment next to a clone) is not. This looks
 * through the shown directories for git repositories that hold the project's root commit, so
 * `doctor` and the race can warn before a bout.
 *
 * Requires `--allow-run` (`find`, `git`) and `--allow-read`.
 *
 * @module
 */

import { dirname } from "node:path";
import { gitRun } from "../git.ts";
import { run } from "../proc.ts";
import { findPrune, outermost, resolveIfExists } from "./_paths.ts";
import { AGENT_PLACES, homeDirectories, placesUnder, SECRET_PLACES, systemView } from "./view.ts";
import { statIfExists } from "../fs.ts";

/** What {@linkcode findProjectClones} looks through. */
export interface CloneSearch {
  /** The project's repository: a clone shares its root commit. */
  repository: string;
  /** Host paths a sandbox shows besides the default view (toolchains, the test environment). */
  readable?: readonly string[];
  /** Host paths a sandbox covers (the repository, `BUGBOUT_HOME`, the results). */
  deny?: readonly string[];
  /** Stop looking. */
  signal?: AbortSignal;
}

/**
 * The directories (sorted) a sandbox shows (the default view and `readable`) that hold a git
 * repository with one of the project's root commits. Nothing when the project has no commit.
 */
export async function findProjectClones(search: CloneSearch): Promise<string[]> {
  const roots = await gitRun(["rev-list", "--max-parents=0", "--all", "--"], {
    cwd: search.repository,
    okCodes: "any",
  });
  const commits = roots.code === 0 ? roots.stdout.split("\n").filter(Boolean) : [];
  const view = await systemView();
  const homes = await homeDirectories();
  const hidden = [...view.hidden];
  for (const path of search.deny ?? []) hidden.push(await resolveIfExists(path) ?? path);
  hidden.push(...await placesUnder(homes, [...SECRET_PLACES, ...AGENT_PLACES]));
  const dirs: string[] = [];
  for (const path of outermost([...view.shown, ...search.readable ?? []])) {
    const real = await resolveIfExists(path);
    if (real && (await statIfExists(real))?.isDirectory) dirs.push(real);
  }
  if (commits.length === 0 || dirs.length === 0) return [];
  const found = await run([
    "find",
    ...dirs,
    ...findPrune(hidden),
    "-name",
    ".git",
    "-print",
    "-prune",
  ], { okCodes: "any", timeoutMs: 300_000, signal: search.signal, maxOutputBytes: 1024 * 1024 });
  const clones = new Set<string>();
  for (const git of found.stdout.split("\n").filter(Boolean)) {
    const dir = dirname(git);
    for (const commit of commits) {
      const has = await gitRun(
        ["-c", "safe.directory=*", "-C", dir, "cat-file", "-e", `${commit}^{commit}`],
        { okCodes: "any", signal: search.signal },
      );
      if (has.code === 0) {
        clones.add(dir);
        break;
      }
    }
  }
  return [...clones].sort();
}
