/**
 * Why one commit became a task or was left out, from tasks.json alone where it can (a task's
 * evidence, an exclusion's reason and detail, a compact entry's words), with the commit's title
 * and place in history read from git.
 *
 * Requires `--allow-run=git`.
 *
 * @module
 */

import { BugboutError } from "../errors.ts";
import { git, gitRun } from "../git.ts";
import type { Exclusion, Task, TasksFile } from "../records.ts";
import { changeText, notFixWords } from "./titles.ts";

/** What {@linkcode whyCommit} found. */
export type CommitDecision =
  | { kind: "task"; commit: string; task: Task }
  | { kind: "excluded"; commit: string; exclusion: Exclusion }
  | { kind: "left-out"; commit: string; title: string; reason: string; detail?: string }
  | { kind: "not-walked"; commit: string; title: string; why: string };

async function resolve(repo: string, sha: string): Promise<string> {
  if (!/^[0-9a-f]{4,40}$/i.test(sha)) {
    throw new BugboutError(`"${sha}" is no commit id.`, {
      hint: "Give a commit's sha (or its first 7 or more hex digits), as `git log` shows it.",
    });
  }
  const found = await gitRun(["rev-parse", "--verify", "--quiet", `${sha}^{commit}`], {
    cwd: repo,
    okCodes: [0, 1, 128],
  });
  if (found.code !== 0) {
    throw new BugboutError(`No commit ${sha} in ${repo} (or more than one starts so).`, {
      hint: "Give a commit of the mined repository, as `git log` shows it.",
    });
  }
  return found.stdout.trim();
}

/**
 * How mining decided on the commit `sha` (any unambiguous prefix), from `file`, the project's
 * tasks.json; a commit it never judged says why (not on the first-parent history, older than
 * `since`, newer than the mined HEAD).
 */
export async function whyCommit(
  repo: string,
  file: TasksFile,
  sha: string,
  /** `[tasks] until`, to say so of a newer commit. */
  until?: Date,
): Promise<CommitDecision> {
  const commit = await resolve(repo, sha);
  const task = file.tasks.find((t) => t.commit === commit);
  if (task) return { kind: "task", commit, task };
  const exclusion = file.excluded.find((e) => e.commit === commit);
  if (exclusion) return { kind: "excluded", commit, exclusion };
  const message = await git(["log", "-1", "--format=%B", commit], { cwd: repo });
  const text = changeText(message.trim());
  const short = commit.slice(0, 12);
  for (const [reason, entries] of Object.entries(file.leftOut ?? {})) {
    const entry = entries.find((e) => e.slice(0, 12) === short);
    if (entry === undefined) continue;
    const detail = entry.length > 13 ? entry.slice(13) : notFixWords(text);
    return { kind: "left-out", commit, title: text.title, reason, ...(detail ? { detail } : {}) };
  }
  const head = file.repository.head;
  const onHistory = await git(["rev-list", "--first-parent", head], { cwd: repo });
  const why = !onHistory.split("\n").includes(commit)
    ? (await isAncestor(repo, commit, head))
      ? `it is not on the first-parent history of ${file.repository.branch}: a branch ` +
        `brought it in, and the change mining judged is the merge commit that landed it`
      : `it is not in the history of ${file.repository.branch} as mined (HEAD ` +
        `${head.slice(0, 10)}); run \`bugbout tasks --refresh\` if the branch has moved on`
    : until && await commitTime(repo, commit) > until.getTime()
    ? "it is newer than [tasks] until: mining counted it without judging it"
    : (file.counts["before-since"] ?? 0) > 0
    ? "it is older than [tasks] since: mining never read it"
    : "mining counted it without listing it (tasks.json is older than this bugbout: mine again with `bugbout tasks --refresh`)";
  return { kind: "not-walked", commit, title: text.title, why };
}

async function commitTime(repo: string, commit: string): Promise<number> {
  return Number(await git(["log", "-1", "--format=%ct", commit], { cwd: repo })) * 1000;
}

async function isAncestor(repo: string, commit: string, head: string): Promise<boolean> {
  const result = await gitRun(["merge-base", "--is-ancestor", commit, head], {
    cwd: repo,
    okCodes: [0, 1],
  });
  return result.code === 0;
}
