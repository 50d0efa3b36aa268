/**
 * Issue texts from the GitHub REST API (and GraphQL for a pull request's linked issues), with a
 * token from `GITHUB_TOKEN`, else `gh auth token`, else anonymous; responses cached in
 * `BUGBOUT_HOME`; rate limits respected with a bounded back-off; and one clear answer when GitHub
 * cannot be reached, so mining falls back to commit messages.
 *
 * Requires `--allow-net` to the API host, `--allow-env`, `--allow-read`/`--allow-write` on the
 * cache, and `--allow-run=gh` to ask `gh` for a token.
 *
 * @module
 */

import { join } from "node:path";
import { slug as fileSlug } from "../hash.ts";
import { StoreError } from "../errors.ts";
import { NotInstalledError, run, which } from "../proc.ts";
import { readJson, writeJsonAtomic } from "../store.ts";
import { z } from "../deps.ts";
import { closingReferences, ownReferences } from "./refs.ts";

/** Where a token came from. */
export type TokenSource = "GITHUB_TOKEN" | "GH_TOKEN" | "gh" | "none";

/** An environment to read (Deno.env, or a map in tests). */
export interface EnvLike {
  /** The value of a variable, if set. */
  get(key: string): string | undefined;
}

/** Find a token: `GITHUB_TOKEN`, `GH_TOKEN`, then `gh auth token` when `gh` is on PATH. */
export async function githubToken(
  env: EnvLike = Deno.env,
): Promise<{ token?: string; source: TokenSource }> {
  for (const name of ["GITHUB_TOKEN", "GH_TOKEN"] as const) {
    const value = env.get(name)?.trim();
    if (value) return { token: value, source: name };
  }
  const path = env.get("PATH") ?? "";
  const gh = await which("gh", path);
  if (!gh) return { source: "none" };
  const keep: Record<string, string> = { PATH: path };
  for (const key of ["HOME", "GH_CONFIG_DIR", "XDG_CONFIG_HOME", "GH_HOST"]) {
    const value = env.get(key);
    if (value !== undefined) keep[key] = value;
  }
  const result = await run([gh, "auth", "token"], {
    env: keep,
    clearEnv: true,
    timeoutMs: 10_000,
    okCodes: "any",
  }).catch((error) => {
    if (error instanceof NotInstalledError) return undefined;
    throw error;
  });
  const token = result?.code === 0 ? result.stdout.trim() : "";
  return token ? { token, source: "gh" } : { source: "none" };
}

/** A cached reply, or undefined when there is none or it is corrupt (it is fetched again). */
async function readCache<T>(path: string, schema: z.ZodType<T>): Promise<T | undefined> {
  try {
    return await readJson(path, schema, "GitHub cache");
  } catch (error) {
    if (error instanceof StoreError) return undefined;
    throw error;
  }
}

/** GitHub's rate limit as last reported. */
export interface RateLimit {
  /** Requests left in the window. */
  remaining: number;
  /** Requests allowed in the window. */
  limit: number;
  /** When the window resets, ISO 8601. */
  reset: string;
}

/** An issue or pull request, as much of it as bugbout keeps. */
export interface GithubItem {
  /** Its number. */
  number: number;
  /** Its title. */
  title: string;
  /** Its description (Markdown), if any. */
  body: string | null;
  /** Its web address. */
  url?: string;
  /** `open` or `closed`. */
  state?: string;
  /** True for a pull request (GitHub lists them among issues). */
  isPullRequest: boolean;
  /** Its labels' names. */
  labels?: string[];
}

/** Schema of a cached {@linkcode GithubItem}. */
export const githubItemSchema: z.ZodType<GithubItem> = z.object({
  number: z.int(),
  title: z.string(),
  body: z.string().nullable(),
  url: z.string().optional(),
  state: z.string().optional(),
  isPullRequest: z.boolean(),
  labels: z.array(z.string()).optional(),
});

const closingSchema = z.object({ issues: z.array(z.int()) });

/** Options for {@linkcode GithubClient}. */
export interface GithubClientOptions {
  /** The REST API base URL, e.g. `https://api.github.com` or `https://ghe.example/api/v3`. */
  api: string;
  /** `owner/name`. */
  repository: string;
  /** A token; anonymous without one. */
  token?: string;
  /** Directory for cached responses (`BUGBOUT_HOME/github`); no caching without one. */
  cacheDir?: string;
  /** Ignore cached responses (they are still written). */
  refresh?: boolean;
  /** The most time to spend waiting out rate limits in all, milliseconds (default 60 s). */
  maxWaitMs?: number;
  /** Timeout of one request, milliseconds (default 20 s). */
  timeoutMs?: number;
  /** Stop waiting and requesting. */
  signal?: AbortSignal;
}

type Reply = { status: number; data?: unknown };

/** The GraphQL endpoint beside a REST base URL. */
export function graphqlUrl(api: string): string {
  const base = api.replace(/\/+$/, "");
  return base.endsWith("/api/v3") ? `${base.slice(0, -2)}graphql` : `${base}/graphql`;
}

/** The web address of an issue for a REST base URL, when it can be told. */
export function webUrl(api: string, repository: string, kind: "issues" | "pull", n: number) {
  const base = api.replace(/\/+$/, "");
  let host: string | undefined;
  if (/^https:\/\/api\.github\.com$/.test(base)) host = "https://github.com";
  else if (base.endsWith("/api/v3")) host = base.slice(0, -7);
  return host ? `${host}/${repository}/${kind}/${n}` : undefined;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** A small GitHub client for issue texts. It never throws for network or HTTP trouble. */
export class GithubClient {
  /** Options it was made with. */
  readonly options: GithubClientOptions;
  /** The last rate limit GitHub reported. */
  rateLimit?: RateLimit;
  /** Why GitHub could not be reached, once it could not: no further requests are made. */
  unreachable?: string;
  /** Set when a rate limit outlasted the back-off budget: no further requests are made. */
  rateLimitedUntil?: string;
  /** Requests sent (not counting cache hits). */
  requests = 0;
  /**
   * Replies that were failures, by HTTP status, and how many: a server error that outlasted the
   * retries, a refusal that is no rate limit (404 and 410, a missing issue, are answers).
   */
  readonly failedReplies: Map<number, number> = new Map();
  #waited = 0;

  /** A client for one repository; nothing is sent until a method is called. */
  constructor(options: GithubClientOptions) {
    this.options = { ...options, api: options.api.replace(/\/+$/, "") };
  }

  /** True once requests stopped: unreachable or rate-limited past the budget. */
  get stopped(): boolean {
    return this.unreachable !== undefined || this.rateLimitedUntil !== undefined;
  }

  /** True when some request failed: requests stopped, or GitHub answered with a failure. */
  get failed(): boolean {
    return this.stopped || this.failedReplies.size > 0;
  }

  #cachePath(...parts: string[]): string | undefined {
    const dir = this.options.cacheDir;
    if (!dir) return undefined;
    const host = new URL(this.options.api).host;
    const [owner, name] = this.options.repository.split("/");
    const root = host === "api.github.com" ? [dir] : [dir, fileSlug(host)];
    return join(...root, fileSlug(owner), fileSlug(name), ...parts);
  }

  #headers(json = false): Headers {
    const headers = new Headers({
      accept: "application/vnd.github+json",
      "x-github-api-version": "2022-11-28",
      "user-agent": "bugbout",
    });
    if (json) headers.set("content-type", "application/json");
    if (this.options.token) headers.set("authorization", `Bearer ${this.options.token}`);
    return headers;
  }

  #noteRateLimit(headers: Headers): void {
    const remaining = headers.get("x-ratelimit-remaining");
    const limit = headers.get("x-ratelimit-limit");
    const reset = headers.get("x-ratelimit-reset");
    if (remaining === null || limit === null || reset === null) return;
    this.rateLimit = {
      remaining: Number(remaining),
      limit: Number(limit),
      reset: new Date(Number(reset) * 1000).toISOString(),
    };
  }

  /** Send one request, waiting out rate limits within the budget. */
  async #request(url: string, init: RequestInit = {}): Promise<Reply> {
    const budget = this.options.maxWaitMs ?? 60_000;
    for (let attempt = 0; attempt < 8; attempt++) {
      if (this.stopped || this.options.signal?.aborted) return { status: 0 };
      let response: Response;
      const timeoutMs = this.options.timeoutMs ?? 20_000;
      try {
        this.requests++;
        const timeout = AbortSignal.timeout(timeoutMs);
        response = await fetch(url, {
          ...init,
          signal: this.options.signal ? AbortSignal.any([timeout, this.options.signal]) : timeout,
        });
      } catch (error) {
        if (this.options.signal?.aborted) return { status: 0 };
        const reason = (error as Error).name === "TimeoutError"
          ? `no answer within ${Math.round(timeoutMs / 1000)} s`
          : (error as Error).message;
        this.unreachable = `${new URL(url).origin}: ${reason}`;
        return { status: 0 };
      }
      this.#noteRateLimit(response.headers);
      const retryAfter = response.headers.get("retry-after");
      const exhausted = response.headers.get("x-ratelimit-remaining") === "0";
      if ((response.status === 403 || response.status === 429) && (retryAfter || exhausted)) {
        await response.body?.cancel();
        const reset = Number(response.headers.get("x-ratelimit-reset") ?? 0) * 1000;
        const wait = retryAfter
          ? Number(retryAfter) * 1000
          : Math.max(0, reset - Date.now()) + 1000;
        if (!Number.isFinite(wait) || this.#waited + wait > budget) {
          this.rateLimitedUntil = new Date(Date.now() + (Number.isFinite(wait) ? wait : 0))
            .toISOString();
          return { status: response.status };
        }
        this.#waited += wait;
        await sleep(wait, this.options.signal);
        continue;
      }
      if (response.status >= 500 && attempt < 2) {
        await response.body?.cancel();
        await sleep(500 * (attempt + 1), this.options.signal);
        continue;
      }
      if (!response.ok) {
        await response.body?.cancel();
        if (response.status === 401) {
          this.unreachable = `${new URL(url).origin} refused the token (401 Bad credentials)`;
        } else if (response.status !== 404 && response.status !== 410) {
          this.failedReplies.set(
            response.status,
            (this.failedReplies.get(response.status) ?? 0) + 1,
          );
        }
        return { status: response.status };
      }
      try {
        return { status: response.status, data: await response.json() };
      } catch (error) {
        // A reply cut short or not JSON: as good as no reply.
        this.unreachable = `${new URL(url).origin}: ${(error as Error).message}`;
        return { status: 0 };
      }
    }
    return { status: 0 };
  }

  /** An issue or pull request by number; undefined when missing or unreadable now. */
  async issue(n: number): Promise<GithubItem | undefined> {
    const cache = this.#cachePath("issues", `${n}.json`);
    if (cache && !this.options.refresh) {
      const cached = await readCache(cache, githubItemSchema);
      if (cached) return cached;
    }
    const reply = await this.#request(
      `${this.options.api}/repos/${this.options.repository}/issues/${n}`,
      { headers: this.#headers() },
    );
    const data = reply.data as Record<string, unknown> | undefined;
    if (!data || typeof data.title !== "string") return undefined;
    const item: GithubItem = {
      number: Number(data.number ?? n),
      title: data.title,
      body: typeof data.body === "string" ? data.body : null,
      url: typeof data.html_url === "string" ? data.html_url : undefined,
      state: typeof data.state === "string" ? data.state : undefined,
      isPullRequest: data.pull_request !== undefined && data.pull_request !== null,
    };
    if (Array.isArray(data.labels)) {
      item.labels = data.labels
        .map((l: unknown) => typeof l === "string" ? l : (l as { name?: unknown } | null)?.name)
        .filter((l): l is string => typeof l === "string");
    }
    if (cache) await writeJsonAtomic(cache, item);
    return item;
  }

  /**
   * The issues a pull request closes: GitHub's own links (GraphQL `closingIssuesReferences`) when
   * a token allows, else the closing keywords in its description.
   */
  async closingIssues(pull: GithubItem): Promise<number[]> {
    const fromBody = [
      ...new Set(
        ownReferences(closingReferences(pull.body ?? ""), this.options.repository)
          .filter((ref) => ref.kind !== "pull" && ref.number !== pull.number)
          .map((ref) => ref.number),
      ),
    ];
    if (!this.options.token) return fromBody;
    const cache = this.#cachePath("pulls", `${pull.number}.closing.json`);
    if (cache && !this.options.refresh) {
      const cached = await readCache(cache, closingSchema);
      if (cached) return cached.issues.length ? cached.issues : fromBody;
    }
    const [owner, name] = this.options.repository.split("/");
    const query = "query($owner:String!,$name:String!,$number:Int!){repository(owner:$owner," +
      "name:$name){pullRequest(number:$number){closingIssuesReferences(first:10){nodes{number}}}}}";
    const reply = await this.#request(graphqlUrl(this.options.api), {
      method: "POST",
      headers: this.#headers(true),
      body: JSON.stringify({ query, variables: { owner, name, number: pull.number } }),
    });
    const nodes = (reply.data as {
      data?: {
        repository?: {
          pullRequest?: { closingIssuesReferences?: { nodes?: { number: number }[] } };
        };
      };
    } | undefined)?.data?.repository?.pullRequest?.closingIssuesReferences?.nodes;
    if (!Array.isArray(nodes)) return fromBody;
    const issues = nodes.map((node) => node.number).filter((n) => Number.isInteger(n));
    if (cache) await writeJsonAtomic(cache, { issues });
    return issues.length ? issues : fromBody;
  }

  /** `GET /repos/{owner}/{name}`: the HTTP status (0 when GitHub could not be reached). */
  async repositoryStatus(): Promise<number> {
    const reply = await this.#request(`${this.options.api}/repos/${this.options.repository}`, {
      headers: this.#headers(),
    });
    return reply.status;
  }

  /** `GET /rate_limit`: the core limit, or undefined when GitHub cannot be reached. */
  async checkRateLimit(): Promise<{ status: number; rateLimit?: RateLimit }> {
    const reply = await this.#request(`${this.options.api}/rate_limit`, {
      headers: this.#headers(),
    });
    const core = (reply.data as { resources?: { core?: Record<string, number> } } | undefined)
      ?.resources?.core;
    if (core && typeof core.remaining === "number") {
      this.rateLimit = {
        remaining: core.remaining,
        limit: core.limit,
        reset: new Date(core.reset * 1000).toISOString(),
      };
    }
    return { status: reply.status, rateLimit: this.rateLimit };
  }
}
