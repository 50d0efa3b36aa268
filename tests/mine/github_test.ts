import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { githubAccess } from "../../lib/mine/access.ts";
import { GithubClient, githubToken, graphqlUrl, webUrl } from "../../lib/mine/github.ts";
import { mineAll } from "../../lib/mine/mine.ts";
import { buildBugshop, buildDemo, type GithubRecord } from "../fixtures/projects.ts";
import { type FakeGithubOptions, startFakeGithub } from "../../lib/demo/github.ts";
import { miningSetup, NO_TOKENS } from "./_setup.ts";

const CLOSED_PORT = "http://127.0.0.1:1";

function fake(items: GithubRecord[], options: Partial<FakeGithubOptions> = {}) {
  return startFakeGithub({ repository: "acme/bugshop", items, ...options });
}

Deno.test("mining reads issue texts from GitHub, and for a pull request the issue it closes", async () => {
  await using s = await miningSetup(buildBugshop, {}, { origin: true });
  await using server = fake(s.fixture.github.items);
  await s.reconfigure({ githubApi: server.url });
  const { file } = await mineAll(s.project, { env: NO_TOKENS });
  const byId = new Map(file.tasks.map((t) => [t.id, t]));
  // The squash names #41, which GitHub says is a pull request closing #40.
  const cart = byId.get("pr-41")!;
  deepEqual([cart.ref.kind, cart.linkedIssue, cart.statementSource], ["pull", 40, "issue"]);
  match(cart.statement, /^cart_total fails for an empty cart\n/);
  ok(!cart.statement.includes("```diff"));
  // A pull request without a linked issue gives its own description.
  equal(byId.get("pr-75")!.statementSource, "pull-request");
  ok(!/Return early/.test(byId.get("pr-75")!.statement), "its Implementation section is removed");
  // An issue's text is cleaned: no template comment, no proposed fix.
  const empty = byId.get("issue-12")!;
  deepEqual([empty.statementSource, empty.ref.url], [
    "issue",
    "https://github.com/acme/bugshop/issues/12",
  ]);
  match(empty.statement, /A blank quantity field counts as zero/);
  ok(!/Return 0 when|<!--/.test(empty.statement), empty.statement);
  equal(byId.get("issue-23")!.statementSource, "issue");
  match(file.statementNote!, /acme\/bugshop anonymously \(\d+ of 60 requests left/);
  ok(server.requests.every((r) => !r.authorization), "anonymous requests carry no token");
});

Deno.test("with a token, a pull request's linked issue comes from GraphQL closingIssuesReferences", async () => {
  await using s = await miningSetup(buildBugshop, { github: "acme/bugshop" });
  const items = s.fixture.github.items.map((item) =>
    item.number === 41 ? { ...item, body: "Handle empty carts." } : item
  );
  await using server = fake(items, { token: "s3cret" });
  await s.reconfigure({ github: "acme/bugshop", githubApi: server.url });
  const env = new Map([["GITHUB_TOKEN", "s3cret"]]);
  const { file } = await mineAll(s.project, { env });
  equal(file.tasks.find((t) => t.id === "pr-41")!.linkedIssue, 40);
  const graphql = server.requests.filter((r) => r.path === "/graphql");
  ok(graphql.some((r) => r.variables?.number === 41 && r.authorization === "Bearer s3cret"));
  match(file.statementNote!, /with a token from GITHUB_TOKEN/);
  // Without a token the body has no closing keyword, so the pull request's own text is used.
  await using anonymous = fake(items);
  await s.reconfigure({ github: "acme/bugshop", githubApi: anonymous.url });
  const plain = await mineAll(s.project, { env: NO_TOKENS, refresh: true });
  equal(plain.file.tasks.find((t) => t.id === "pr-41")!.statementSource, "pull-request");
});

Deno.test("rate-limited replies (403 with a reset, 429 with retry-after) are waited out", async () => {
  await using s = await miningSetup(buildDemo);
  await using server = startFakeGithub({
    repository: "acme/textkit",
    items: s.fixture.github.items,
    failures: [
      { path: "/issues/14", times: 1, kind: "rate-limit-403", seconds: 1 },
      { path: "/issues/11", times: 1, kind: "retry-after-429", seconds: 1 },
    ],
  });
  await s.reconfigure({ github: "acme/textkit", githubApi: server.url });
  const { file } = await mineAll(s.project, { env: NO_TOKENS });
  ok(
    file.tasks.every((t) => t.statementSource === "issue"),
    JSON.stringify(file.tasks.map((t) => t.statementSource)),
  );
  equal(server.requests.filter((r) => r.path.endsWith("/issues/14")).length, 2);
  equal(server.requests.filter((r) => r.path.endsWith("/issues/11")).length, 2);
});

Deno.test("a rate limit longer than the budget stops requests and falls back to commit messages", async () => {
  await using s = await miningSetup(buildDemo);
  await using server = startFakeGithub({
    repository: "acme/textkit",
    items: s.fixture.github.items,
    failures: [{ path: "/issues/", times: 100, kind: "retry-after-429", seconds: 3600 }],
  });
  await s.reconfigure({ github: "acme/textkit", githubApi: server.url });
  const { file } = await mineAll(s.project, { env: NO_TOKENS, github: { maxWaitMs: 1000 } });
  // From the commits: their titles, or a merge commit's pull request title and description.
  ok(
    file.tasks.every((t) => t.statementSource === "commit" || t.statementSource === "pull-request"),
  );
  ok(server.requests.length <= 4, `stopped asking (${server.requests.length} requests)`);
  match(file.statementNote!, /rate limit ran out/);
  match(file.statementNote!, /GITHUB_TOKEN/);
});

Deno.test("when GitHub cannot be reached, statements come from commits and the note says how to fix it", async () => {
  await using s = await miningSetup(buildDemo);
  await s.reconfigure({ github: "acme/textkit", githubApi: CLOSED_PORT });
  const { file } = await mineAll(s.project, { env: NO_TOKENS });
  // From the commits: their titles, or a merge commit's pull request title and description.
  ok(
    file.tasks.every((t) => t.statementSource === "commit" || t.statementSource === "pull-request"),
  );
  match(file.statementNote!, /could not be reached \(http:\/\/127\.0\.0\.1:1: /);
  // A token would not help: the note says what would.
  match(file.statementNote!, /check the network and \[project\] github-api\.$/);
  // The next run asks GitHub again rather than reusing statements from commit messages.
  equal((await mineAll(s.project, { env: NO_TOKENS })).cached, false);
  deepEqual(file.tasks.find((t) => t.id === "issue-3")!.ref, {
    kind: "issue",
    number: 3,
  });
});

Deno.test("a missing issue (404) falls back to the commit message for that task only", async () => {
  await using s = await miningSetup(buildBugshop);
  await using server = fake(s.fixture.github.items.filter((i) => i.number !== 80));
  await s.reconfigure({ github: "acme/bugshop", githubApi: server.url, limit: 3 });
  const { file } = await mineAll(s.project, { env: NO_TOKENS });
  deepEqual(file.tasks.map((t) => [t.id, t.statementSource]), [
    ["issue-80", "commit"],
    ["pr-75", "pull-request"],
    ["issue-66", "issue"],
  ]);
});

Deno.test("GitHub responses are cached in BUGBOUT_HOME and not asked for again", async () => {
  await using s = await miningSetup(buildBugshop);
  await using server = fake(s.fixture.github.items);
  await s.reconfigure({ github: "acme/bugshop", githubApi: server.url, limit: 4 });
  await mineAll(s.project, { env: NO_TOKENS });
  const host = new URL(server.url).host.replace(":", "_");
  const cached = JSON.parse(
    await Deno.readTextFile(join(s.home, "github", host, "acme", "bugshop", "issues", "66.json")),
  );
  equal(cached.title, "slugify(max_length=...) leaves a trailing dash");
  const asked = server.requests.length;
  await s.reconfigure({ github: "acme/bugshop", githubApi: server.url, limit: 3 });
  const { cached: reused, file } = await mineAll(s.project, { env: NO_TOKENS });
  equal(reused, false);
  equal(server.requests.length, asked, "every statement came from the cache");
  equal(file.tasks[2].statementSource, "issue");
});

Deno.test("two changes for one issue keep only the newer, also when a pull request names the issue", async () => {
  await using s = await miningSetup(buildBugshop);
  // In this variant #80 is a pull request that also closes #40, newer than the squash of #41.
  const items = s.fixture.github.items.map((item) =>
    item.number === 80
      ? {
        number: 80,
        title: "Totals and prices",
        body: "Fixes #40",
        pullRequest: true,
        closes: [40],
      }
      : item
  );
  await using server = fake(items);
  await s.reconfigure({ github: "acme/bugshop", githubApi: server.url });
  const { file } = await mineAll(s.project, { env: NO_TOKENS });
  ok(file.tasks.some((t) => t.id === "pr-80" && t.linkedIssue === 40));
  ok(!file.tasks.some((t) => t.id === "pr-41"));
  const left = file.excluded.find((e) => e.title.startsWith("Fix total for empty cart"))!;
  equal(left.reason, "older-change-for-same-issue");
  match(left.detail!, /#40/);
});

Deno.test("githubAccess reports token, gh, anonymous, unreachable, refused and no-repository", async () => {
  await using s = await miningSetup(buildDemo);
  await using server = startFakeGithub({ repository: "acme/textkit", items: [], token: "good" });
  await s.reconfigure({ github: "acme/textkit", githubApi: server.url });
  const token = await githubAccess(s.project, { env: new Map([["GITHUB_TOKEN", "good"]]) });
  deepEqual([token.mode, token.ok, token.rateLimit?.limit], ["token", true, 60]);
  const anonymous = await githubAccess(s.project, { env: NO_TOKENS });
  deepEqual([anonymous.mode, anonymous.ok], ["anonymous", true]);
  match(anonymous.fix!, /GITHUB_TOKEN/);
  const refused = await githubAccess(s.project, { env: new Map([["GITHUB_TOKEN", "bad"]]) });
  deepEqual([refused.mode, refused.ok], ["token", false]);
  match(refused.detail, /401/);
  const bin = join(s.root, "bin");
  await Deno.mkdir(bin);
  await Deno.writeTextFile(
    join(bin, "gh"),
    "#!/bin/sh\n[ \"$1 $2\" = 'auth token' ] && echo good\n",
  );
  await Deno.chmod(join(bin, "gh"), 0o755);
  const viaGh = await githubAccess(s.project, { env: new Map([["PATH", bin]]) });
  deepEqual([viaGh.mode, viaGh.ok], ["gh", true]);
  await s.reconfigure({ github: "acme/missing", githubApi: server.url });
  const missing = await githubAccess(s.project, { env: NO_TOKENS });
  deepEqual([missing.ok, /no such repository/.test(missing.detail)], [false, true]);
  await s.reconfigure({ github: "acme/textkit", githubApi: CLOSED_PORT });
  const down = await githubAccess(s.project, { env: NO_TOKENS });
  deepEqual([down.mode, down.ok], ["unreachable", false]);
  await s.reconfigure({});
  const none = await githubAccess(s.project, { env: NO_TOKENS });
  deepEqual([none.mode, none.ok], ["no-repository", false]);
  match(none.fix!, /\[project\] github/);
});

Deno.test("githubToken prefers GITHUB_TOKEN, then GH_TOKEN, and finds none without gh on PATH", async () => {
  deepEqual(await githubToken(new Map([["GITHUB_TOKEN", " a "], ["GH_TOKEN", "b"]])), {
    token: "a",
    source: "GITHUB_TOKEN",
  });
  deepEqual(await githubToken(new Map([["GH_TOKEN", "b"]])), { token: "b", source: "GH_TOKEN" });
  deepEqual(await githubToken(new Map([["PATH", "/nonexistent"]])), { source: "none" });
});

Deno.test("the client knows GitHub Enterprise addresses and gives up after a connection failure", async () => {
  equal(graphqlUrl("https://ghe.example/api/v3"), "https://ghe.example/api/graphql");
  equal(graphqlUrl("https://api.github.com"), "https://api.github.com/graphql");
  equal(
    webUrl("https://ghe.example/api/v3", "a/b", "issues", 3),
    "https://ghe.example/a/b/issues/3",
  );
  equal(webUrl("http://127.0.0.1:9", "a/b", "issues", 3), undefined);
  const client = new GithubClient({ api: CLOSED_PORT, repository: "a/b" });
  equal(await client.issue(1), undefined);
  ok(client.stopped);
  equal(await client.issue(2), undefined);
  equal(client.requests, 1);
});
