/**
 * Several first-parent histories: `[tasks] branches` (the default branch alone unless set), each
 * walked from its tip until it reaches a commit an earlier branch's walk read; the same change
 * landed on two branches is told by its patch-id; and, when the default branch alone yields few
 * tasks, a look at the other branches for the fixes that land there.
 *
 * Requires `--allow-run=git`.
 *
 * @module
 */

import { BugboutError } from "../errors.ts";
import { git, gitRun } from "../git.ts";
import { changeReadsLikeFix, changeText } from "./titles.ts";

/** A branch to mine and its tip. */
export interface Branch {
  /** The name, as given (`main`, `stable`, `origin/3.1.x`). */
  name: string;
  /** Its tip. */
  head: string;
}

/** The tip of a branch by its name, a local branch first, else the `origin` remote's. */
async function tipOf(repo: string, name: string): Promise<string | undefined> {
  for (const ref of [`refs/heads/${name}`, `refs/remotes/origin/${name}`, name]) {
    const found = await gitRun(["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], {
      cwd: repo,
      okCodes: [0, 1, 128],
    });
    if (found.code === 0) return found.stdout.trim();
  }
  return undefined;
}

/**
 * The branches to mine: `names` (`[tasks] branches`), else the default branch alone, at its
 * `head`. Throws with the branches there are when one is not found.
 */
export async function branchesOf(
  repo: string,
  names: readonly string[] | undefined,
  fallback: Branch,
): Promise<Branch[]> {
  if (!names?.length) return [fallback];
  const found: Branch[] = [];
  for (const name of new Set(names)) {
    const head = name === fallback.name ? fallback.head : await tipOf(repo, name);
    if (!head) {
      const known = await git(
        ["for-each-ref", "--format=%(refname:short)", "refs/heads", "refs/remotes"],
        { cwd: repo },
      );
      throw new BugboutError(`No branch ${name} in ${repo} ([tasks] branches).`, {
        hint: `The branches there are: ${known.split("\n").filter(Boolean).join(", ")}.`,
      });
    }
    found.push({ name, head });
  }
  return found;
}

/**
 * The patch-id of each of `commits` (against its first parent): two commits with one patch-id
 * land the same change. One `git log -p` and one `git patch-id`.
 */
export async function patchIds(
  repo: string,
  commits: readonly string[],
  signal?: AbortSignal,
): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  if (commits.length === 0) return ids;
  const diff = await gitRun(
    [
      "log",
      "--no-walk=unsorted",
      "--diff-merges=first-parent",
      "-p",
      "--format=commit %H",
      ...commits,
    ],
    { cwd: repo, signal, maxOutputBytes: 512 * 1024 * 1024 },
  );
  const out = await gitRun(["patch-id", "--stable"], {
    cwd: repo,
    stdin: diff.stdout,
    signal,
    maxOutputBytes: 64 * 1024 * 1024,
  });
  for (const line of out.stdout.split("\n")) {
    const [id, commit] = line.trim().split(/\s+/);
    if (id && commit) ids.set(commit, id);
  }
  return ids;
}

/** How many branches the hint looks at, at most, and how far back on each. */
const HINT_BRANCHES = 12;
const HINT_DEPTH = 3000;

/**
 * When the default branch yields few tasks: the other branch whose first-parent history (the part
 * the default branch's does not share) holds the most fix-titled commits, when it holds many, as
 * a sentence for `bugbout tasks`; undefined otherwise.
 */
export async function branchHint(
  repo: string,
  mined: { branch: string; walked: ReadonlySet<string>; tasks: number; limit: number },
  signal?: AbortSignal,
): Promise<string | undefined> {
  if (mined.tasks >= Math.min(mined.limit, 10)) return undefined;
  const refs = await git(
    ["for-each-ref", "--format=%(objectname) %(refname:short)", "refs/heads", "refs/remotes"],
    { cwd: repo },
  );
  const tips = new Map<string, string>();
  for (const line of refs.split("\n")) {
    const [tip, name] = line.split(" ");
    if (!tip || !name || name.endsWith("/HEAD") || name === mined.branch) continue;
    if (name.endsWith(`/${mined.branch}`) || mined.walked.has(tip)) continue;
    if (!tips.has(tip)) tips.set(tip, name);
  }
  let best: { name: string; fixes: number } | undefined;
  for (const [tip, name] of [...tips].slice(0, HINT_BRANCHES)) {
    const log = await git(
      ["log", "--first-parent", `-n${HINT_DEPTH}`, "--format=%H%x1f%B%x1e", tip],
      { cwd: repo, signal },
    );
    let fixes = 0;
    for (const entry of log.split("\x1e")) {
      const [commit, message] = entry.trim().split("\x1f");
      if (!commit || mined.walked.has(commit)) break;
      if (changeReadsLikeFix(changeText(message ?? ""))) fixes++;
    }
    if (!best || fixes > best.fixes) best = { name, fixes };
  }
  if (!best || best.fixes < Math.max(10, 2 * mined.tasks)) return undefined;
  return `${mined.branch} yields ${mined.tasks} task(s), but ${best.name} holds ${best.fixes} ` +
    `fix-titled commits of its own: set [tasks] branches = ["${mined.branch}", "${
      best.name.replace(/^origin\//, "")
    }"] to mine it too.`;
}

/**
 * Branch names that read as a maintenance line (`stable`, `2.1.x`, `pytest-2.7`, `maint`,
 * `release-3.2.0`): fixes land there one by one, and the branch is merged as a whole.
 */
const MAINTENANCE =
  /^(stable|maint|maintenance|lts)$|^(maint|maintenance|release|stable|lts)[-_.]?v?\d+(\.\d+)*(\.x)?$|^v?\d+(\.\d+)*\.(\d+|x)$/i;

/** A project's own line by name and version, in a `Merge branch` subject (`pytest-2.7`). */
const NAMED_LINE = /^[a-z]+[-_]v?\d+(\.\d+)*\.(\d+|x)$/i;

/** Names of a project's main line, merged into another line (`Merge branch 'master' into …`). */
const MAIN_LINE = /^(master|main|develop|development|trunk)$/i;

/**
 * The branch a merge commit's subject says it merges, when that branch is a maintenance line (or
 * the main line, merged into the line walked): `Merge branch 'stable'`, `Merge remote-tracking
 * branch 'origin/2.1.x'`, `Merge pull request #12 from pallets/2.0.x` (a contributor's `master`
 * in a pull request is not). Its own commits are changes landed one by one, each worth mining; a
 * feature branch's merge is one change, and undefined here.
 */
export function mergedLine(message: string): string | undefined {
  const subject = message.split("\n", 1)[0].trim();
  const branch = subject.match(
    /^Merge (?:remote-tracking )?branch '([^']+)'(?: of \S+)?(?: into \S+)?$/,
  );
  const pull = subject.match(/^Merge pull request #\d+ from [^/\s]+\/(\S+)$/);
  const name = branch?.[1] ?? pull?.[1];
  if (!name) return undefined;
  const last = branch ? name.replace(/^[^/\s]+\/(?=[^/]+$)/, "") : name;
  // A pull request's `dependabot/pip/tox-3.24.3` or a remote's nested path is no line.
  if (last.includes("/")) return undefined;
  // A release's pull request (`from pytest-dev/release-5.4.0`) carries a release's notes: its
  // line is the maintenance line merged on its own, or a line of features, not fixes.
  if (pull && /^release\b/i.test(last)) return undefined;
  if (MAINTENANCE.test(last)) return name;
  if (branch && NAMED_LINE.test(last)) return name;
  if (branch && MAIN_LINE.test(last)) return name;
  return undefined;
}
