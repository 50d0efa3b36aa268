/**
 * History-free checkouts of any commit. Each commit's files are written once into a cache in
 * `BUGBOUT_HOME` (keyed by repository and commit, created atomically: temporary directory, then
 * rename), and every use gets its own **copy** (`cp -a --reflink=auto`, never hard links), so
 * nothing under test can reach `.git`, the cache, or another run's files.
 *
 * Files are written with `git read-tree` into a private index and `git checkout-index` rather
 * than `git archive`: the result is the same history-free tree, but `export-ignore` and
 * `export-subst` attributes (which make `git archive` drop test directories or rewrite files)
 * do not apply. Works for bare repositories too.
 *
 * Requires `--allow-run` (git, cp), `--allow-read` and `--allow-write` on `BUGBOUT_HOME` and the
 * destinations.
 *
 * @module
 */

import { basename, dirname, join } from "node:path";
import { BugboutError } from "./errors.ts";
import { git, gitRun } from "./git.ts";
import { inputsKey, slug } from "./hash.ts";
import { sweepDead } from "./pids.ts";
import { run } from "./proc.ts";
import { lstatIfExists, removeIfExists, statIfExists } from "./fs.ts";

/** Options shared by the checkout helpers. */
export interface CheckoutOptions {
  /** `BUGBOUT_HOME`: the cache of extracted commits lives in `<home>/checkouts/`. */
  home: string;
  /** Stop a long extraction or copy. */
  signal?: AbortSignal;
}

const gitDirs = new Map<string, Promise<string>>();

/** The absolute git directory of a repository (`repo/.git`, or the repository itself when bare). */
export function gitDir(repo: string): Promise<string> {
  let found = gitDirs.get(repo);
  if (!found) {
    found = git(["rev-parse", "--absolute-git-dir"], { cwd: repo });
    gitDirs.set(repo, found);
    found.catch(() => gitDirs.delete(repo));
  }
  return found;
}

/** Where the cached tree of `commit` of `repo` lives (it may not exist yet). */
export async function cachedTreePath(repo: string, commit: string, home: string): Promise<string> {
  const real = await Deno.realPath(repo);
  return join(home, "checkouts", `${slug(basename(real))}-${inputsKey(real)}`, commit);
}

/**
 * Write the files of `commit` (no `.git`) into `dest`, which must not exist yet or be empty.
 * Uses a private index file, so the repository's own index and work tree are never touched.
 */
export async function extractCommit(
  repo: string,
  commit: string,
  dest: string,
  signal?: AbortSignal,
): Promise<void> {
  const dir = await gitDir(repo);
  await Deno.mkdir(dest, { recursive: true });
  const scratch = await Deno.makeTempDir({ prefix: "bugbout-index-" });
  try {
    const env = { GIT_INDEX_FILE: join(scratch, "index") };
    const common = [`--git-dir=${dir}`, `--work-tree=${dest}`];
    await git([...common, "read-tree", "--end-of-options", `${commit}^{tree}`], {
      env,
      signal,
      timeoutMs: 600_000,
    });
    await git([...common, "checkout-index", "--all", "--force"], {
      cwd: dest,
      env,
      signal,
      timeoutMs: 3_600_000,
    });
  } catch (error) {
    throw new BugboutError(
      `Cannot extract commit ${commit.slice(0, 12)} of ${repo}: ${(error as Error).message}`,
      { hint: "Check that the commit exists in the repository (git cat-file -t <commit>)." },
    );
  } finally {
    await removeIfExists(scratch);
  }
}

/**
 * The cached, history-free tree of `commit`: extracted once per repository and commit, shared
 * by every later use. Never hand this directory to anything under test; copy it with
 * {@linkcode checkout}.
 */
export async function cachedTree(
  repo: string,
  commit: string,
  options: CheckoutOptions,
): Promise<string> {
  const path = await cachedTreePath(repo, commit, options.home);
  if (await isDirectory(path)) return path;
  await Deno.mkdir(dirname(path), { recursive: true });
  await sweepPartials(dirname(path));
  const partial = `${path}.partial-${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`;
  try {
    await extractCommit(repo, commit, partial, options.signal);
    try {
      await Deno.rename(partial, path);
    } catch (error) {
      // Another process (or task) finished the same commit first: theirs is as good as ours.
      if (!(await isDirectory(path))) throw error;
    }
  } finally {
    await removeIfExists(partial);
  }
  return path;
}

/** Copy a directory tree to `dest` (which must not exist): `cp -a --reflink=auto`, no hard links. */
export async function copyTree(src: string, dest: string, signal?: AbortSignal): Promise<void> {
  await Deno.mkdir(dirname(dest), { recursive: true });
  await run(["cp", "-a", "--reflink=auto", "--no-target-directory", "--", src, dest], {
    signal,
    timeoutMs: 3_600_000,
  });
}

/**
 * A fresh, private, history-free copy of `commit` at `dest` (which must not exist). Returns
 * `dest`.
 */
export async function checkout(
  repo: string,
  commit: string,
  dest: string,
  options: CheckoutOptions,
): Promise<string> {
  const cached = await cachedTree(repo, commit, options);
  await copyTree(cached, dest, options.signal);
  return dest;
}

/** Paths of files (blobs and symlinks) at `commit`, optionally only under the given paths. */
export async function listFiles(
  repo: string,
  commit: string,
  under: readonly string[] = [],
): Promise<string[]> {
  const out = await git(
    ["ls-tree", "-r", "-z", "--name-only", "--full-tree", commit, "--", ...under],
    { cwd: repo, maxOutputBytes: 256 * 1024 * 1024 },
  );
  return out.split("\0").filter((p) => p !== "");
}

/** What {@linkcode installFiles} changed in the destination tree. */
export interface InstalledFiles {
  /** Paths written with their content at the commit. */
  written: string[];
  /** Paths removed because they do not exist at the commit. */
  removed: string[];
}

/**
 * Put `commit`'s versions of `paths` into the tree at `dest` (the fix's test files into a copy
 * of the code before the fix, say). A path that does not exist at `commit` is removed from
 * `dest`.
 */
export async function installFiles(
  repo: string,
  commit: string,
  paths: readonly string[],
  dest: string,
  signal?: AbortSignal,
): Promise<InstalledFiles> {
  if (paths.length === 0) return { written: [], removed: [] };
  const present = new Set(await listFiles(repo, commit, paths));
  const written = paths.filter((p) => present.has(p));
  const removed = paths.filter((p) => !present.has(p));
  for (const path of removed) {
    await Deno.remove(join(dest, path), { recursive: true }).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
  }
  if (written.length === 0) return { written, removed };
  const dir = await gitDir(repo);
  const scratch = await Deno.makeTempDir({ prefix: "bugbout-index-" });
  try {
    const env = { GIT_INDEX_FILE: join(scratch, "index") };
    const common = [`--git-dir=${dir}`, `--work-tree=${dest}`];
    await git([...common, "read-tree", "--end-of-options", `${commit}^{tree}`], { env, signal });
    // A file may replace a directory or a symlink in B's tree: clear the way first.
    for (const path of written) {
      const info = await lstatIfExists(join(dest, path));
      if (info && (info.isDirectory || info.isSymlink)) {
        await Deno.remove(join(dest, path), { recursive: true });
      }
    }
    await git([...common, "checkout-index", "--force", "-z", "--stdin"], {
      cwd: dest,
      env,
      signal,
      stdin: written.map((p) => `${p}\0`).join(""),
    });
  } finally {
    await removeIfExists(scratch);
  }
  return { written, removed };
}

/** True when `commit` names a commit in `repo`. */
export async function hasCommit(repo: string, commit: string): Promise<boolean> {
  const result = await gitRun(["cat-file", "-e", `${commit}^{commit}`], {
    cwd: repo,
    okCodes: "any",
  });
  return result.code === 0;
}

/** Remove a tree made by {@linkcode checkout}; missing trees are fine. */
export async function removeTree(path: string): Promise<void> {
  await Deno.remove(path, { recursive: true }).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
}

/** Remove `*.partial-<pid>-*` directories left by processes that no longer exist. */
function sweepPartials(dir: string): Promise<void> {
  return sweepDead(
    dir,
    /\.partial-(\d+)-[0-9a-f]+$/,
    (path) => Deno.remove(path, { recursive: true }),
  );
}

async function isDirectory(path: string): Promise<boolean> {
  return (await statIfExists(path))?.isDirectory ?? false;
}
