/**
 * A task's problem statement: the issue's text from GitHub, the linked issue's text for a pull
 * request, or — when GitHub cannot tell — the change's title alone, without the wording of the
 * fix (a commit's body often says how the bug was fixed; an issue never does).
 *
 * Requires what {@linkcode GithubClient} requires when a client is given.
 *
 * @module
 */

import type { Task } from "../records.ts";
import type { Candidate } from "./classify.ts";
import { composeStatement, titleStatement } from "./clean.ts";
import { type GithubClient, type GithubItem, webUrl } from "./github.ts";

/** A statement and what it is about. */
export interface ResolvedStatement {
  /** The cleaned text given to agents. */
  statement: string;
  /** Where the text came from. */
  statementSource: Task["statementSource"];
  /** The issue or pull request the change names. */
  ref: Task["ref"];
  /** For a pull request: the issue it closes, whose text is the statement. */
  linkedIssue?: number;
  /** GitHub's labels on the issue and the pull request, when GitHub answered. */
  labels?: string[];
  /** True when the text came from GitHub. */
  fromGithub?: boolean;
  /** Set when there is no statement anyone could act on, and says why. */
  none?: string;
}

/**
 * The statement from the change itself: a pull request's title and description from its merge
 * commit (cleaned), else the title alone, without references or how it was fixed. A bare merge
 * subject is no statement.
 */
export function commitStatement(
  candidate: Pick<Candidate, "title" | "body" | "reference" | "pullRequest" | "bare">,
  site?: { api: string; repository: string },
): ResolvedStatement {
  const { reference } = candidate;
  const kind = reference.kind === "pull" ? "pull" : "issue";
  const url = reference.url ??
    (site
      ? webUrl(site.api, site.repository, kind === "pull" ? "pull" : "issues", reference.number)
      : undefined);
  const ref: Task["ref"] = { kind, number: reference.number, ...(url ? { url } : {}) };
  if (candidate.bare) {
    return {
      statement: candidate.title,
      statementSource: "commit",
      ref,
      none: `its only statement would be the merge subject "${candidate.title}"`,
    };
  }
  const title = titleStatement(candidate.title);
  // A merge commit's body is its pull request's description; when cleaning leaves nothing of it,
  // the statement is the title alone, as for any commit.
  const statement = candidate.pullRequest ? composeStatement(title, candidate.body) : title;
  return { statement, statementSource: statement === title ? "commit" : "pull-request", ref };
}

/**
 * The statement from GitHub: the issue's text; for a pull request, the text of the issue it
 * closes, else its own description. Undefined when GitHub cannot say (missing, unreachable,
 * rate-limited): the caller falls back to {@linkcode commitStatement}.
 */
export async function githubStatement(
  candidate: Pick<Candidate, "title" | "body" | "reference">,
  client: GithubClient,
): Promise<ResolvedStatement | undefined> {
  if (client.stopped) return undefined;
  const item = await client.issue(candidate.reference.number);
  if (!item) return undefined;
  const labelsOf = (...items: GithubItem[]) => {
    const all = [...new Set(items.flatMap((i) => i.labels ?? []))];
    return items.some((i) => i.labels) ? { labels: all } : {};
  };
  if (!item.isPullRequest) {
    return {
      statement: composeStatement(item.title, item.body),
      statementSource: "issue",
      ref: { kind: "issue", number: item.number, ...(item.url ? { url: item.url } : {}) },
      fromGithub: true,
      ...labelsOf(item),
    };
  }
  const ref: Task["ref"] = {
    kind: "pull",
    number: item.number,
    ...(item.url ? { url: item.url } : {}),
  };
  for (const number of await client.closingIssues(item)) {
    const issue = await client.issue(number);
    if (issue && !issue.isPullRequest) {
      return {
        statement: composeStatement(issue.title, issue.body),
        statementSource: "issue",
        ref,
        linkedIssue: issue.number,
        fromGithub: true,
        ...labelsOf(item, issue),
      };
    }
  }
  return {
    statement: composeStatement(item.title, item.body),
    statementSource: "pull-request",
    ref,
    fromGithub: true,
    ...labelsOf(item),
  };
}
