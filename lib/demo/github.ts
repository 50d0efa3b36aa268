/**
 * A fake GitHub API on 127.0.0.1 for tests: REST issues (pull requests show up there with a
 * `pull_request` key, as on GitHub), pulls, repositories, `/rate_limit`, and GraphQL
 * `closingIssuesReferences`; payloads shaped like GitHub's, rate-limit headers on every reply,
 * and failures on demand (403 with `x-ratelimit-remaining: 0`, 429 with `retry-after`, 401 for a
 * wrong token). Every request is recorded.
 *
 * Requires `--allow-net=127.0.0.1`.
 *
 * @module
 */

import type { GithubRecord } from "./fixture.ts";

/** A failure to serve for requests whose path matches. */
export interface FakeFailure {
  /** Requests whose path includes this string fail. */
  path: string;
  /** How many times (then it answers normally). */
  times: number;
  /** 403 rate limit (with `x-ratelimit-reset`) or 429 with `retry-after`, or a plain status. */
  kind: "rate-limit-403" | "retry-after-429" | number;
  /** Seconds to wait that the reply asks for. */
  seconds?: number;
}

/** Options for {@linkcode startFakeGithub}. */
export interface FakeGithubOptions {
  /** `owner/name`. */
  repository: string;
  /** Its issues and pull requests. */
  items: GithubRecord[];
  /** When set, only this token is accepted (others get 401); GraphQL needs it. */
  token?: string;
  /** Failures to serve. */
  failures?: FakeFailure[];
  /** The rate limit to report: limit and remaining (default 60/60, one less per request). */
  limit?: number;
}

/** One request the server saw. */
export interface SeenRequest {
  /** HTTP method. */
  method: string;
  /** Path and query. */
  path: string;
  /** The authorization header, if any. */
  authorization?: string;
  /** GraphQL variables, for GraphQL requests. */
  variables?: Record<string, unknown>;
}

/** A running fake GitHub. */
export interface FakeGithub extends AsyncDisposable {
  /** Base URL (`http://127.0.0.1:PORT`), for `[project] github-api`. */
  url: string;
  /** Every request, in order. */
  requests: SeenRequest[];
  /** Stop the server. */
  close(): Promise<void>;
}

function issuePayload(base: string, repository: string, item: GithubRecord) {
  const html = `https://github.com/${repository}/${
    item.pullRequest ? "pull" : "issues"
  }/${item.number}`;
  return {
    url: `${base}/repos/${repository}/issues/${item.number}`,
    html_url: html,
    id: 1000 + item.number,
    node_id: `I_kwDO${item.number}`,
    number: item.number,
    title: item.title,
    user: { login: "octocat", id: 1, type: "User" },
    labels: (item.labels ?? []).map((name, i) => ({ id: 7000 + i, name, color: "ededed" })),
    state: "closed",
    locked: false,
    comments: 0,
    created_at: "2023-11-14T22:13:20Z",
    updated_at: "2023-11-15T10:00:00Z",
    closed_at: "2023-11-16T10:00:00Z",
    author_association: "MEMBER",
    body: item.body,
    ...(item.pullRequest
      ? {
        pull_request: {
          url: `${base}/repos/${repository}/pulls/${item.number}`,
          html_url: html,
          diff_url: `${html}.diff`,
          patch_url: `${html}.patch`,
          merged_at: "2023-11-16T10:00:00Z",
        },
      }
      : {}),
  };
}

/** Start the fake GitHub on 127.0.0.1 (a free port). */
export function startFakeGithub(options: FakeGithubOptions): FakeGithub {
  const requests: SeenRequest[] = [];
  const failures = (options.failures ?? []).map((f) => ({ ...f }));
  const limit = options.limit ?? 60;
  let used = 0;
  const reset = Math.floor(Date.now() / 1000) + 3600;
  let base = "";
  const json = (status: number, body: unknown, extra: Record<string, string> = {}) =>
    new Response(JSON.stringify(body), {
      status,
      headers: {
        "content-type": "application/json; charset=utf-8",
        "x-ratelimit-limit": String(limit),
        "x-ratelimit-remaining": String(Math.max(0, limit - used)),
        "x-ratelimit-reset": String(reset),
        "x-ratelimit-resource": "core",
        "x-github-api-version-selected": "2022-11-28",
        ...extra,
      },
    });
  const notFound = () =>
    json(404, {
      message: "Not Found",
      documentation_url: "https://docs.github.com/rest",
      status: "404",
    });

  const handler = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const seen: SeenRequest = {
      method: request.method,
      path: url.pathname + url.search,
      ...(request.headers.get("authorization")
        ? { authorization: request.headers.get("authorization")! }
        : {}),
    };
    requests.push(seen);
    let body: { query?: string; variables?: Record<string, unknown> } | undefined;
    if (request.method === "POST") {
      body = await request.json().catch((error) => {
        if (error instanceof SyntaxError) return undefined; // a body that is not JSON
        throw error;
      });
      if (body?.variables) seen.variables = body.variables;
    } else {
      await request.body?.cancel();
    }
    const failure = failures.find((f) => f.times > 0 && seen.path.includes(f.path));
    if (failure) {
      failure.times--;
      const seconds = failure.seconds ?? 1;
      if (failure.kind === "rate-limit-403") {
        return json(403, {
          message:
            "API rate limit exceeded for 127.0.0.1. (But here's the good news: Authenticated " +
            "requests get a higher rate limit. Check out the documentation for more details.)",
          documentation_url: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api",
        }, {
          "x-ratelimit-remaining": "0",
          "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) + seconds),
        });
      }
      if (failure.kind === "retry-after-429") {
        return json(429, { message: "You have exceeded a secondary rate limit." }, {
          "retry-after": String(seconds),
        });
      }
      return json(failure.kind, { message: "Server Error" });
    }
    const auth = request.headers.get("authorization");
    if (options.token && auth && auth !== `Bearer ${options.token}`) {
      return json(401, {
        message: "Bad credentials",
        documentation_url: "https://docs.github.com/rest",
      });
    }
    if (url.pathname !== "/rate_limit") used++;
    if (url.pathname === "/rate_limit") {
      const core = { limit, used, remaining: Math.max(0, limit - used), reset };
      return json(200, { resources: { core, graphql: core, search: core }, rate: core });
    }
    if (url.pathname === "/graphql" && request.method === "POST") {
      if (!auth) return json(401, { message: "This endpoint requires you to be authenticated." });
      const number = Number(body?.variables?.number);
      const item = options.items.find((i) => i.number === number && i.pullRequest);
      if (!item) {
        return json(200, {
          data: { repository: { pullRequest: null } },
          errors: [{
            type: "NOT_FOUND",
            message: `Could not resolve to a PullRequest with the number of ${number}.`,
          }],
        });
      }
      const nodes = (item.closes ?? []).map((n) => ({ number: n }));
      return json(200, {
        data: { repository: { pullRequest: { closingIssuesReferences: { nodes } } } },
      });
    }
    const [owner, name] = options.repository.split("/");
    const prefix = `/repos/${owner}/${name}`;
    if (url.pathname === prefix) {
      return json(200, {
        id: 1,
        name,
        full_name: options.repository,
        private: false,
        default_branch: "main",
      });
    }
    const issue = url.pathname.match(new RegExp(`^${prefix}/(issues|pulls)/(\\d+)$`));
    if (issue) {
      const item = options.items.find((i) => i.number === Number(issue[2]));
      if (!item || (issue[1] === "pulls" && !item.pullRequest)) return notFound();
      return json(200, issuePayload(base, options.repository, item));
    }
    return notFound();
  };

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
  base = `http://127.0.0.1:${server.addr.port}`;
  const close = async () => {
    await server.shutdown();
  };
  return { url: base, requests, close, [Symbol.asyncDispose]: close };
}
