import { deepStrictEqual as assertEquals, rejects } from "node:assert/strict";
import { join } from "node:path";
import { copilot } from "../../adapters/copilot.ts";
import { BugboutError } from "../../lib/errors.ts";
import {
  assertRecording,
  fakeSession,
  jsonl,
  makeAgent,
  recordings,
  runOutput,
  tempDir,
} from "./_helpers.ts";

const FLAGS = [
  "copilot",
  "--allow-all-tools",
  "--allow-all-paths",
  "--no-ask-user",
  "--no-custom-instructions",
  "--disable-builtin-mcps",
  "--no-auto-update",
  "--disable-client-telemetry",
  "--output-format",
  "json",
  "--usage-output-file",
  "/bb/run/logs/usage.json",
];
const TAIL = ["--excluded-tools", "web_fetch", "web_search", "-p", "Fix the bug in add()."];
const CACHE = "/home/ada/.cache/bugbout/agent-cache/copilot";

Deno.test("copilot with a base URL runs offline against it (BYOK) with web tools excluded", async () => {
  const agent = makeAgent(copilot, {
    model: "gpt-5-mini",
    options: { "base-url": "http://127.0.0.1:8081/v1", "reasoning-effort": "low" },
  });
  const session = fakeSession({
    hostEnv: { HOME: "/home/ada", OPENAI_API_KEY: "sk-o", GH_TOKEN: "gh" },
  });
  const invocation = await agent.invocation(session);
  assertEquals(invocation.argv, [
    ...FLAGS,
    "--model",
    "gpt-5-mini",
    "--reasoning-effort",
    "low",
    ...TAIL,
  ]);
  assertEquals(invocation.env, {
    COPILOT_HOME: "/bb/run/state",
    COPILOT_PKG_CACHE_HOME: CACHE,
    COPILOT_AUTO_UPDATE: "false",
    COPILOT_OFFLINE: "true",
    COPILOT_PROVIDER_BASE_URL: "http://127.0.0.1:8081/v1",
    COPILOT_PROVIDER_TYPE: "openai",
    COPILOT_MODEL: "gpt-5-mini",
    COPILOT_PROVIDER_API_KEY: "sk-o",
  });
  assertEquals(invocation.writable, [CACHE]);
  assertEquals(invocation.stdin, undefined);
  assertEquals(invocation.modelHosts, ["127.0.0.1:8081"]);
  assertEquals(agent.modelHosts(), ["127.0.0.1:8081"]);
});

Deno.test("copilot without a base URL uses GitHub with the first token the host has", async () => {
  const agent = makeAgent(copilot);
  const session = fakeSession({
    hostEnv: { HOME: "/home/ada", BUGBOUT_HOME: "/data/bb", GH_TOKEN: "gh", GITHUB_TOKEN: "gt" },
  });
  const invocation = await agent.invocation(session);
  assertEquals(invocation.argv, [...FLAGS, ...TAIL]);
  assertEquals(invocation.env, {
    COPILOT_HOME: "/bb/run/state",
    COPILOT_PKG_CACHE_HOME: "/data/bb/agent-cache/copilot",
    COPILOT_AUTO_UPDATE: "false",
    GH_TOKEN: "gh",
  });
  const hosts = [
    "api.github.com:443",
    "api.githubcopilot.com:443",
    "api.individual.githubcopilot.com:443",
    "api.business.githubcopilot.com:443",
    "api.enterprise.githubcopilot.com:443",
  ];
  assertEquals(invocation.modelHosts, hosts);
  assertEquals(agent.modelHosts(), hosts);
});

Deno.test("copilot refuses a base URL without a model", async () => {
  const session = fakeSession({
    hostEnv: { HOME: "/home/ada", COPILOT_PROVIDER_BASE_URL: "http://127.0.0.1:1/v1" },
  });
  await rejects(async () => await makeAgent(copilot).invocation(session), BugboutError);
});

Deno.test("copilot parse() takes the last reply and the usage file's model metrics", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(
    join(dir.path, "usage.json"),
    JSON.stringify({
      modelMetrics: {
        "gpt-5-mini": {
          requests: { count: 2, cost: 0 },
          usage: { inputTokens: 200, outputTokens: 30, cacheReadTokens: 50, cacheWriteTokens: 0 },
        },
        "gpt-5-nano": {
          requests: { count: 1, cost: 0 },
          usage: { inputTokens: 23, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
        },
      },
    }),
  );
  const stdout = jsonl(
    { type: "assistant.message", data: { content: "Looking.", toolRequests: [{}] } },
    { type: "assistant.message", data: { content: "", toolRequests: [{}] } },
    { type: "assistant.message", data: { content: "Fixed add().", toolRequests: [] } },
    { type: "result", sessionId: "s", exitCode: 0, usage: { premiumRequests: 0 } },
  );
  const report = await makeAgent(copilot).parse!(runOutput({ stdout, logdir: dir.path }));
  assertEquals(report, {
    summary: "Fixed add().",
    tokens: { input: 223, cachedInput: 50, cacheWrite: 0, output: 35 },
    quota: false,
  });
});

Deno.test("copilot parse() calls a rate_limit session error a quota stop", async () => {
  const message = "Failed to get response from the AI model; retried 5 times (total retry wait " +
    "time: 58.97 seconds) Last error: 429 You exceeded your current quota.";
  const stdout = jsonl(
    { type: "session.error", data: { errorType: "rate_limit", message, statusCode: 429 } },
    { type: "result", exitCode: 1 },
  );
  const report = await makeAgent(copilot).parse!(runOutput({ stdout, exitCode: 1 }));
  assertEquals(report, { tokens: undefined, quota: true, error: message });
});

Deno.test("copilot parse() keeps an execution error apart from a quota stop", async () => {
  const stdout = jsonl(
    { type: "session.error", data: { errorType: "execution", message: "400 Invalid request" } },
    { type: "result", exitCode: 1 },
  );
  const report = await makeAgent(copilot).parse!(runOutput({ stdout, exitCode: 1 }));
  assertEquals(report.quota, false);
  assertEquals(report.error, "400 Invalid request");
});

for (const recording of await recordings("copilot")) {
  Deno.test(`copilot parse() reads the recorded run ${recording.label}`, async () => {
    const report = await makeAgent(copilot, { model: "fake-model" }).parse!(recording.output);
    assertRecording(report, recording, [
      "input",
      "cachedInput",
      "cacheWrite",
      "output",
      "reasoning",
    ]);
  });
}
