/**
 * A task's problem statement: the issue's text from GitHub, the linked issue's text for a pull
 * request, or — when GitHub cannot tell — the change's own message, cleaned the same way.
 *
 * Requires what {@linkcode GithubClient} requires when a client is given.
 *
 * @module
 */

import type { Task } from "../records.ts";
import type { Candidate } from "./classify.ts";
import { composeStatement } from "./clean.ts";
import { type GithubClient, webUrl } from "./github.ts";

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
}

/** The statement from the change itself: its title and body (a PR's description), cleaned. */
export function commitStatement(
  candidate: Pick<Candidate, "title" | "body" | "reference">,
  site?: { api: string; repository: string },
): ResolvedStatement {
  const { reference } = candidate;
  const kind = reference.kind === "pull" ? "pull" : "issue";
  const url = reference.url ??
    (site
      ? webUrl(site.api, site.repository, kind === "pull" ? "pull" : "issues", reference.number)
      : undefined);
  return {
    statement: composeStatement(candidate.title, candidate.body),
    statementSource: "commit",
    ref: { kind, number: reference.number, ...(url ? { url } : {}) },
  };
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
  if (!item.isPullRequest) {
    return {
      statement: composeStatement(item.title, item.body),
      statementSource: "issue",
      ref: { kind: "issue", number: item.number, ...(item.url ? { url: item.url } : {}) },
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
      };
    }
  }
  return {
    statement: composeStatement(item.title, item.body),
    statementSource: "pull-request",
    ref,
  };
}
