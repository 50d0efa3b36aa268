/**
 * A fake machine for the sandbox tests: a user repository with history and a fix, a
 * BUGBOUT_HOME with a gold tree and another attempt's patch, a results directory, and a
 * history-free checkout (a copy) to work in. Every "future" file holds a unique canary.
 *
 * BUGBOUT_HOME lies inside a readable directory (like `/opt`), so the sandbox must cover it.
 *
 * @module
 */

import { join } from "node:path";
import { run } from "../../lib/proc.ts";

/** Paths and canaries of one fake machine. */
export interface World extends AsyncDisposable {
  /** The temporary root holding everything. */
  root: string;
  /** The unique canary planted in every "future" file. */
  canary: string;
  /** The user's repository (has `.git` and the fix). */
  repo: string;
  /** The results directory inside the repository. */
  results: string;
  /** A readable toolchain root that contains BUGBOUT_HOME. */
  opt: string;
  /** BUGBOUT_HOME. */
  home: string;
  /** The checkout the run works in (a copy, with a fresh one-commit git). */
  checkout: string;
  /** The run's log directory (writable). */
  logs: string;
  /** The gold tree in BUGBOUT_HOME. */
  gold: string;
  /** Another attempt's checkout in BUGBOUT_HOME. */
  other: string;
}

const GIT_ENV = {
  PATH: "/usr/bin:/bin",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.invalid",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.invalid",
};

async function git(cwd: string, ...args: string[]) {
  await run(["git", ...args], { cwd, clearEnv: true, env: GIT_ENV });
}

async function write(path: string, text: string) {
  await Deno.mkdir(join(path, ".."), { recursive: true });
  await Deno.writeTextFile(path, text);
}

/** Build the fake machine under a new temporary directory; dispose it to remove everything. */
export async function makeWorld(): Promise<World> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "bugbout-world-" }));
  const canary = `FUTURE-CANARY-${crypto.randomUUID()}`;
  const repo = join(root, "repo");
  const results = join(repo, ".bugbout");
  const opt = join(root, "opt");
  const home = join(opt, "bugbout_home");
  const gold = join(home, "gold");
  const other = join(home, "checkouts", "other");
  const checkout = join(home, "checkouts", "run1");
  const logs = join(root, "logs", "run1");

  // The buggy version, then the fix (with the canary) as the last commit.
  await write(join(repo, "pkg", "__init__.py"), "from .core import add\n");
  await write(join(repo, "pkg", "core.py"), "def add(a, b):\n    return a - b\n");
  await git(repo, "init", "-q", "-b", "main");
  await git(repo, "add", "-A");
  await git(repo, "commit", "-q", "-m", "buggy");
  const buggy = (await run(["git", "rev-parse", "HEAD"], {
    cwd: repo,
    clearEnv: true,
    env: GIT_ENV,
  })).stdout.trim();
  await write(join(repo, "pkg", "core.py"), `def add(a, b):\n    return a + b  # ${canary}\n`);
  await git(repo, "commit", "-q", "-am", `fix add ${canary}`);
  await write(join(results, "results.json"), JSON.stringify({ winner: canary }));

  await write(join(gold, "pkg", "core.py"), `# gold ${canary}\n`);
  await write(join(other, "patch.diff"), `+    return a + b  # ${canary}\n`);
  await write(join(opt, "tool", "README"), "a readable toolchain file\n");

  // The checkout: a copy of the buggy tree (git archive | tar), then a fresh one-commit git.
  await Deno.mkdir(checkout, { recursive: true });
  const archive = new Deno.Command("git", {
    args: ["-C", repo, "archive", buggy],
    clearEnv: true,
    env: GIT_ENV,
    stdout: "piped",
  }).spawn();
  const tar = new Deno.Command("tar", { args: ["-x", "-C", checkout], stdin: "piped" }).spawn();
  await archive.stdout.pipeTo(tar.stdin);
  await archive.status;
  await tar.status;
  await git(checkout, "init", "-q", "-b", "main");
  await git(checkout, "add", "-A");
  await git(checkout, "commit", "-q", "-m", "task");
  // A symlink planted in the checkout that points at the repository.
  await Deno.symlink(repo, join(checkout, "escape"));
  await Deno.mkdir(logs, { recursive: true });

  return {
    root,
    canary,
    repo,
    results,
    opt,
    home,
    checkout,
    logs,
    gold,
    other,
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}
