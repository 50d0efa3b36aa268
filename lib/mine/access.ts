/**
 * Which GitHub repository a project's issues live in, how bugbout may read them, and a check of
 * that access for `bugbout doctor`.
 *
 * Requires `--allow-run=git` (the origin remote), `--allow-env`, `--allow-net` to the API host and
 * `--allow-run=gh` when `gh` is installed.
 *
 * @module
 */

import { join } from "node:path";
import { githubSlug, originUrl } from "../git.ts";
import type { Project } from "../project.ts";
import type { Task } from "../records.ts";
import {
  type EnvLike,
  GithubClient,
  githubToken,
  type RateLimit,
  type TokenSource,
} from "./github.ts";

/** How issue texts can be read for a project, decided without the network. */
export interface GithubSetup {
  /** `owner/name`, when one is known. */
  repository?: string;
  /** The REST API base URL. */
  api: string;
  /** The token, when one was found. */
  token?: string;
  /** Where the token came from. */
  tokenSource: TokenSource;
}

/** Options for {@linkcode githubSetup} and {@linkcode githubAccess}. */
export interface AccessOptions {
  /** Environment for the token (default `Deno.env`). */
  env?: EnvLike;
}

/**
 * The project's GitHub repository (`[project] github`, else the URL of a remote repository, else
 * the local repository's `origin`) and a token, if any.
 */
export async function githubSetup(project: Project, options: AccessOptions = {}): Promise<
  GithubSetup
> {
  const config = project.config.project;
  // A remote's clone has the remote itself as its origin, and may not be cloned yet.
  const repository = config.github ??
    githubSlug(config.remote ? config.repository : await originUrl(project.repository));
  const found = repository ? await githubToken(options.env) : { source: "none" as const };
  return {
    repository,
    api: config.githubApi,
    tokenSource: found.source,
    ...(found.token ? { token: found.token } : {}),
  };
}

/** A client for the project's repository, caching in `BUGBOUT_HOME/github`; undefined without one. */
export function clientFor(
  project: Project,
  setup: GithubSetup,
  options: { refresh?: boolean; maxWaitMs?: number; timeoutMs?: number; signal?: AbortSignal } = {},
): GithubClient | undefined {
  if (!setup.repository) return undefined;
  return new GithubClient({
    api: setup.api,
    repository: setup.repository,
    token: setup.token,
    cacheDir: join(project.home, "github"),
    ...options,
  });
}

/** The result of {@linkcode githubAccess}. */
export interface GithubAccess {
  /** How issue texts are read, or why they are not. */
  mode: "token" | "gh" | "anonymous" | "unreachable" | "no-repository";
  /** True when issue texts can be read now. */
  ok: boolean;
  /** `owner/name`, when known. */
  repository?: string;
  /** GitHub's rate limit, when it answered. */
  rateLimit?: RateLimit;
  /** What was found, in a line. */
  detail: string;
  /** What to do about it, when something could be better. */
  fix?: string;
}

const HOW_TO =
  "set GITHUB_TOKEN (or run `gh auth login`) for issue texts and 5,000 requests an hour";

function describeLimit(limit: RateLimit | undefined): string {
  if (!limit) return "";
  const at = limit.reset.slice(11, 16);
  return ` (${limit.remaining} of ${limit.limit} requests left, reset at ${at} UTC)`;
}

/** Where the tasks' statements came from, in words: "3 from issues, 1 from a commit title". */
export function statementSources(tasks: readonly Pick<Task, "statementSource">[]): string {
  const count = (source: Task["statementSource"]) =>
    tasks.filter((t) => t.statementSource === source).length;
  const parts: string[] = [];
  const issues = count("issue");
  const pulls = count("pull-request");
  const titles = count("commit");
  if (issues) parts.push(`${issues} from ${issues === 1 ? "an issue" : "issues"}`);
  if (pulls) {
    parts.push(`${pulls} from ${pulls === 1 ? "a pull request" : "pull requests"}`);
  }
  if (titles) {
    parts.push(
      `${titles} from ${titles === 1 ? "a commit title" : "commit titles"} (the title only, ` +
        `without how it was fixed)`,
    );
  }
  return parts.join(", ");
}

/**
 * A sentence on how issue texts were read, for tasks.json and the CLI (where the statements came
 * from is in each task: {@linkcode statementSources} counts them). It says GitHub was read only
 * when a statement came from it.
 */
export function accessNote(
  setup: GithubSetup,
  client: GithubClient | undefined,
  tasks: readonly Pick<Task, "statementSource">[] = [],
  read: { fromGithub: number } = {
    fromGithub: tasks.filter((t) => t.statementSource !== "commit").length,
  },
): string {
  const fromGithub = read.fromGithub > 0;
  if (!setup.repository || !client) {
    return `No GitHub repository is known, so problem statements come from commit ` +
      'titles. To use issue texts, set [project] github = "owner/name" in bugbout.toml.';
  }
  const fromTitles = tasks.filter((t) => t.statementSource === "commit").length;
  if (client.unreachable && /refused the token/.test(client.unreachable)) {
    const source = setup.tokenSource === "gh" ? "gh auth token" : setup.tokenSource;
    return `GitHub refused the token from ${source} (HTTP 401 Bad credentials), so problem ` +
      `statements come from commit titles (the next run asks again). Set a valid token there, ` +
      `or unset it to read issues anonymously.`;
  }
  if (client.unreachable) {
    return `GitHub could not be reached (${client.unreachable}), so problem statements ` +
      `come from commit titles (the next run asks again). To use issue texts, check the ` +
      `network and [project] github-api.`;
  }
  if (client.rateLimitedUntil) {
    return `GitHub's rate limit ran out (until ${client.rateLimitedUntil}), so some ` +
      `problem statements come from commit titles (the next run asks again). To avoid it, ` +
      `${HOW_TO}.`;
  }
  if (client.failedReplies.size) {
    const replies = [...client.failedReplies].sort((a, b) => a[0] - b[0])
      .map(([status, n]) => `HTTP ${status} to ${n} ${n === 1 ? "request" : "requests"}`);
    return `GitHub answered ${replies.join(" and ")} for ${setup.repository}, so ` +
      `${fromTitles} problem ${fromTitles === 1 ? "statement comes" : "statements come"} from ` +
      `commit titles (the next run asks again). If it lasts, check [project] github-api` +
      (setup.token
        ? " and that the token can read the repository."
        : `; for a private repository, ${HOW_TO}.`);
  }
  if (!fromGithub) {
    return `No issue text was read from GitHub ${setup.repository}` +
      (tasks.length ? " (it had none for these changes)." : ".");
  }
  const how = setup.token
    ? `with a token from ${setup.tokenSource === "gh" ? "gh auth token" : setup.tokenSource}`
    : "anonymously";
  const tail = setup.token ? "" : `; ${HOW_TO}`;
  const cached = client.requests === 0 ? ", from bugbout's cache" : "";
  return `Issue texts read from GitHub ${setup.repository} ${how}${cached}${
    describeLimit(client.rateLimit)
  }${tail}.`;
}

/** Check GitHub access for `bugbout doctor`: `GET /rate_limit`, then the repository itself. */
export async function githubAccess(
  project: Project,
  options: AccessOptions & { timeoutMs?: number } = {},
): Promise<GithubAccess> {
  const setup = await githubSetup(project, options);
  const client = clientFor(project, setup, {
    timeoutMs: options.timeoutMs ?? 10_000,
    maxWaitMs: 0,
  });
  if (!setup.repository || !client) {
    return {
      mode: "no-repository",
      ok: false,
      detail: "no GitHub repository is known: problem statements will come from commit messages",
      fix: 'Set [project] github = "owner/name" in bugbout.toml to use issue texts.',
    };
  }
  const mode = setup.tokenSource === "gh" ? "gh" : setup.token ? "token" : "anonymous";
  const how = setup.token
    ? `a token from ${setup.tokenSource === "gh" ? "gh auth token" : setup.tokenSource}`
    : "anonymous";
  await client.checkRateLimit();
  if (client.unreachable) {
    if (/refused the token/.test(client.unreachable)) {
      return {
        mode,
        ok: false,
        repository: setup.repository,
        detail: `GitHub refused ${how} (401 Bad credentials)`,
        fix: `Set a valid token in ${
          setup.tokenSource === "gh" ? "gh (gh auth login)" : setup.tokenSource
        }, or unset it.`,
      };
    }
    return {
      mode: "unreachable",
      ok: false,
      repository: setup.repository,
      detail:
        `cannot reach ${client.unreachable}: problem statements will come from commit messages`,
      fix: "Check the network and [project] github-api.",
    };
  }
  const repo = await client.repositoryStatus();
  const base = {
    mode,
    repository: setup.repository,
    ...(client.rateLimit ? { rateLimit: client.rateLimit } : {}),
  } as const;
  const found = `${setup.repository}, ${how}${describeLimit(client.rateLimit)}`;
  if (repo === 404) {
    return {
      ...base,
      ok: false,
      detail: `${found}: GitHub shows no such repository`,
      fix: setup.token
        ? "Check [project] github and that the token can read the repository."
        : `Check [project] github; for a private repository, ${HOW_TO}.`,
    };
  }
  if (client.rateLimit?.remaining === 0) {
    return {
      ...base,
      ok: false,
      detail: `${found}: the rate limit is spent`,
      fix: `Wait, or ${HOW_TO}.`,
    };
  }
  return {
    ...base,
    ok: true,
    detail: found,
    ...(setup.token ? {} : { fix: `For more than 60 requests an hour, ${HOW_TO}.` }),
  };
}
