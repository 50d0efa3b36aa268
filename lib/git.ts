/**
 * Thin helpers over the `git` program, with a fixed environment so output does not depend on the
 * user's git configuration (diff prefixes, colours, locale, time zone).
 *
 * Requires `--allow-run=git`.
 *
 * @module
 */

import { BugboutError } from "./errors.ts";
import { statIfExists } from "./fs.ts";
import { lineBatches, lines, type ProcResult, run, type RunOptions } from "./proc.ts";

/** Options for a git call. */
export interface GitOptions extends Omit<RunOptions, "env" | "clearEnv"> {
  /** Let the user's global configuration apply (credentials for a clone, say). */
  userConfig?: boolean;
  /** Extra environment variables. */
  env?: Record<string, string>;
}

let safeDirectories: string[] | undefined;

/**
 * The user's `safe.directory` entries: bugbout ignores the user's git configuration for
 * reproducible output, but must still read repositories the user has said are safe (a checkout
 * owned by another user, common in containers and CI).
 */
function userSafeDirectories(): string[] {
  if (safeDirectories) return safeDirectories;
  try {
    const out = new Deno.Command("git", {
      args: ["config", "--global", "--get-all", "safe.directory"],
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).outputSync();
    safeDirectories = new TextDecoder().decode(out.stdout).split("\n").filter(Boolean);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    safeDirectories = []; // no git at all: every call will say so
  }
  return safeDirectories;
}

/** The environment every git call gets. */
export function gitEnv(
  userConfig = false,
  extra: Record<string, string> = {},
): Record<string, string> {
  const keep = ["PATH", "HOME", "SSH_AUTH_SOCK", "GIT_SSH_COMMAND"];
  const env: Record<string, string> = {};
  for (const key of keep) {
    const value = Deno.env.get(key);
    if (value !== undefined) env[key] = value;
  }
  Object.assign(env, {
    LC_ALL: "C",
    TZ: "UTC",
    GIT_TERMINAL_PROMPT: "0",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_OPTIONAL_LOCKS: "0",
  });
  if (!userConfig) {
    env.GIT_CONFIG_GLOBAL = "/dev/null";
    const safe = userSafeDirectories();
    if (safe.length) {
      env.GIT_CONFIG_COUNT = String(safe.length);
      safe.forEach((dir, i) => {
        env[`GIT_CONFIG_KEY_${i}`] = "safe.directory";
        env[`GIT_CONFIG_VALUE_${i}`] = dir;
      });
    }
  }
  return { ...env, ...extra };
}

function argvFor(args: readonly string[]): string[] {
  return ["git", "-c", "core.quotePath=false", "-c", "color.ui=never", ...args];
}

/** Run git and return stdout without the final newline. Throws on failure. */
export async function git(args: readonly string[], options: GitOptions = {}): Promise<string> {
  return (await gitRun(args, options)).stdout.replace(/\n$/, "");
}

/**
 * Run git and return the whole result (pass `okCodes` for exit codes other than 0). Whatever the
 * accepted codes, git's refusal of a repository owned by another user becomes advice.
 */
export async function gitRun(
  args: readonly string[],
  options: GitOptions = {},
): Promise<ProcResult> {
  const { userConfig, env, ...rest } = options;
  let result: ProcResult;
  try {
    result = await run(argvFor(args), { ...rest, env: gitEnv(userConfig, env), clearEnv: true });
  } catch (error) {
    throw refusal((error as { result?: ProcResult }).result?.stderr ?? "") ?? error;
  }
  if (result.code !== 0) {
    const refused = refusal(result.stderr);
    if (refused) throw refused;
  }
  return result;
}

/** git's refusal of a repository owned by another user, as advice; undefined for anything else. */
function refusal(stderr: string): BugboutError | undefined {
  const match = stderr.match(/detected dubious ownership in repository at '([^']+)'/);
  if (!match) return undefined;
  return new BugboutError(`git refuses to read ${match[1]}: it belongs to another user.`, {
    hint: `If you trust it, run \`git config --global --add safe.directory ${match[1]}\` ` +
      `and try again.`,
  });
}

/** Stream git's stdout as lines. */
export function gitLines(
  args: readonly string[],
  options: { cwd?: string; signal?: AbortSignal } = {},
): AsyncGenerator<string> {
  return lines(argvFor(args), { ...options, env: gitEnv(), clearEnv: true });
}

/** Stream git's stdout as batches of lines (see {@linkcode lineBatches}), for large outputs. */
export function gitLineBatches(
  args: readonly string[],
  options: { cwd?: string; signal?: AbortSignal } = {},
): AsyncGenerator<string[]> {
  return lineBatches(argvFor(args), { ...options, env: gitEnv(), clearEnv: true });
}

/** The top of the work tree containing `dir`, or undefined when it is not in a git repository. */
export async function repositoryRoot(dir: string): Promise<string | undefined> {
  const result = await gitRun(["rev-parse", "--show-toplevel"], { cwd: dir, okCodes: "any" });
  return result.code === 0 ? result.stdout.trim() : undefined;
}

/** A repository bugbout cannot mine as it is: not there, not one, empty, or shallow. */
export class RepositoryError extends BugboutError {
  /** What is wrong with it. */
  readonly state: "missing" | "not-a-repository" | "no-commits" | "shallow";
  constructor(state: RepositoryError["state"], message: string, hint: string) {
    super(message, { hint });
    this.name = "RepositoryError";
    this.state = state;
  }
}

/**
 * Check that `repo` is a git repository (bare or not) with commits and its whole history.
 * Throws a {@linkcode RepositoryError} that names the path and what to do otherwise. A shallow
 * clone is refused: its oldest commits look parentless, so a fix there would pass for the first
 * commit, and the fixes before it would be missed.
 */
export async function checkRepository(repo: string): Promise<void> {
  // git cannot even start in a directory that does not exist: say so before asking it.
  if (!(await statIfExists(repo))?.isDirectory) {
    throw new RepositoryError(
      "missing",
      `Cannot mine ${repo}: there is no such directory.`,
      "Run bugbout in your project's repository, or set [project] repository in bugbout.toml " +
        "to its path.",
    );
  }
  const inside = await gitRun(["rev-parse", "--git-dir"], { cwd: repo, okCodes: "any" });
  if (inside.code !== 0) {
    throw new RepositoryError(
      "not-a-repository",
      `Cannot mine ${repo}: it is not a git repository.`,
      "Run bugbout in your project's repository, or set [project] repository in bugbout.toml " +
        "to its path.",
    );
  }
  const any = await gitRun(["rev-list", "--all", "--max-count=1"], { cwd: repo, okCodes: "any" });
  if (any.code !== 0 || !any.stdout.trim()) {
    throw new RepositoryError(
      "no-commits",
      `Cannot mine ${repo}: it has no commits yet.`,
      "bugbout replays fixes from the project's history: commit the project first.",
    );
  }
  const shallow = await git(["rev-parse", "--is-shallow-repository"], { cwd: repo });
  if (shallow.trim() === "true") {
    throw new RepositoryError(
      "shallow",
      `Cannot mine ${repo}: it is a shallow clone; run \`git fetch --unshallow\` in it first.`,
      "A shallow clone lacks the older history, and its oldest commit looks like a first " +
        "commit; bugbout needs the full history to find fixes.",
    );
  }
}

/** What {@linkcode probeRemote} found: a remote with branches, or why it cannot be read. */
export type RemoteProbe = { ok: true } | { ok: false; reason: string; hint: string };

/**
 * Whether the remote repository at `url` answers and has a branch to mine, without cloning it:
 * `git ls-remote`, with the user's configuration (credentials) and no prompt.
 */
export async function probeRemote(
  url: string,
  options: { timeoutMs?: number } = {},
): Promise<RemoteProbe> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const result = await gitRun(["ls-remote", "--heads", "--", url], {
    userConfig: true,
    okCodes: "any",
    timeoutMs,
  });
  if (result.timedOut) {
    return {
      ok: false,
      reason: `no answer within ${Math.round(timeoutMs / 1000)} s`,
      hint: "Check the network and the URL.",
    };
  }
  if (result.code !== 0) {
    // git's first line is the specific one ("repository '...' not found", "Could not resolve
    // host"); what follows is general advice.
    const reason = result.stderr.split("\n").map((l) => l.replace(/^fatal: /, "").trim())
      .find(Boolean);
    return {
      ok: false,
      reason: reason || `git ls-remote exited with ${result.code}`,
      hint: "Check the URL and your access to it, or clone it yourself and set repository to " +
        "the path of the clone.",
    };
  }
  if (!result.stdout.trim()) {
    return {
      ok: false,
      reason: "it has no branches yet",
      hint: "bugbout replays fixes from the project's history: push the project first.",
    };
  }
  return { ok: true };
}

/**
 * The default branch: `origin/HEAD` when it is set, else the current branch, else `main` or
 * `master` if one exists.
 */
export async function defaultBranch(repo: string): Promise<string> {
  const remoteHead = await gitRun(["symbolic-ref", "--quiet", "refs/remotes/origin/HEAD"], {
    cwd: repo,
    okCodes: "any",
  });
  if (remoteHead.code === 0) return remoteHead.stdout.trim().replace(/^refs\/remotes\//, "");
  const current = await gitRun(["symbolic-ref", "--quiet", "--short", "HEAD"], {
    cwd: repo,
    okCodes: "any",
  });
  if (current.code === 0 && current.stdout.trim()) return current.stdout.trim();
  for (const name of ["main", "master"]) {
    const found = await gitRun(["rev-parse", "--verify", "--quiet", `refs/heads/${name}`], {
      cwd: repo,
      okCodes: "any",
    });
    if (found.code === 0) return name;
  }
  throw new BugboutError(`Cannot find the default branch of ${repo}.`, {
    hint: "Check out the branch bugbout should mine (main, say).",
  });
}

/** Resolve a revision to a full commit id. */
export function revParse(repo: string, rev: string): Promise<string> {
  return git(["rev-parse", "--verify", "--end-of-options", `${rev}^{commit}`], { cwd: repo });
}

/** The `origin` remote's URL, if any. */
export async function originUrl(repo: string): Promise<string | undefined> {
  if (!(await statIfExists(repo))?.isDirectory) return undefined;
  const result = await gitRun(["remote", "get-url", "origin"], { cwd: repo, okCodes: "any" });
  return result.code === 0 ? result.stdout.trim() : undefined;
}

/** `owner/name` from a GitHub remote URL, if it is one. */
export function githubSlug(url: string | undefined): string | undefined {
  if (!url) return undefined;
  const match = url.match(/github\.com[:/]+([\w.-]+)\/([\w.-]+?)(?:\.git)?\/?$/);
  return match ? `${match[1]}/${match[2]}` : undefined;
}

/** Count commits on the first-parent history of `rev`. */
export async function firstParentCount(repo: string, rev: string): Promise<number> {
  return Number(await git(["rev-list", "--first-parent", "--count", rev, "--"], { cwd: repo }));
}
