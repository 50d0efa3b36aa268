import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { claudeCode } from "../../adapters/claude_code.ts";
import {
  assertRecording,
  fakeSession,
  jsonl,
  makeAgent,
  recordings,
  runOutput,
} from "./_helpers.ts";

const FLAGS = [
  "claude",
  "--print",
  "--output-format",
  "stream-json",
  "--verbose",
  "--permission-mode",
  "bypassPermissions",
  "--safe-mode",
  "--setting-sources=",
  "--strict-mcp-config",
  "--disallowedTools",
  "WebSearch",
  "WebFetch",
];

const BASE_ENV = {
  CLAUDE_CONFIG_DIR: "/bb/run/state",
  IS_SANDBOX: "1",
  CLAUDE_CODE_MAX_RETRIES: "2",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  DISABLE_AUTOUPDATER: "1",
};

Deno.test("claude-code runs --print in safe mode with web tools disallowed and permissions bypassed", async () => {
  const agent = makeAgent(claudeCode, { model: "sonnet", options: { effort: "high" } });
  const session = fakeSession({
    hostEnv: { HOME: "/home/ada", ANTHROPIC_API_KEY: "sk-ant", OPENAI_API_KEY: "sk-other" },
  });
  const invocation = await agent.invocation(session);
  assertEquals(invocation.argv, [
    ...FLAGS,
    "--model",
    "sonnet",
    "--effort",
    "high",
    "--",
    "Fix the bug in add().",
  ]);
  assertEquals(invocation.env, { ...BASE_ENV, ANTHROPIC_API_KEY: "sk-ant" });
  assertEquals(invocation.copy, [{
    from: "~/.claude/.credentials.json",
    to: "/bb/run/state/.credentials.json",
  }]);
  assertEquals(invocation.stdin, undefined);
  assertEquals(invocation.modelHosts, ["api.anthropic.com:443", "platform.claude.com:443"]);
  assertEquals(agent.modelHosts(), ["api.anthropic.com:443", "platform.claude.com:443"]);
});

Deno.test("claude-code points ANTHROPIC_BASE_URL at the base-url option", async () => {
  const agent = makeAgent(claudeCode, { options: { "base-url": "http://127.0.0.1:9000" } });
  const session = fakeSession({
    hostEnv: { HOME: "/home/ada", CLAUDE_CONFIG_DIR: "/srv/claude", CLAUDE_CODE_OAUTH_TOKEN: "t" },
  });
  const invocation = await agent.invocation(session);
  assertEquals(invocation.argv, [...FLAGS, "--", "Fix the bug in add()."]);
  assertEquals(invocation.env, {
    ...BASE_ENV,
    CLAUDE_CODE_OAUTH_TOKEN: "t",
    ANTHROPIC_BASE_URL: "http://127.0.0.1:9000",
  });
  assertEquals(invocation.copy, [{
    from: "/srv/claude/.credentials.json",
    to: "/bb/run/state/.credentials.json",
  }]);
  assertEquals(invocation.modelHosts, ["127.0.0.1:9000"]);
  assertEquals(agent.modelHosts(), ["127.0.0.1:9000"]);
});

Deno.test("claude-code takes ANTHROPIC_BASE_URL from the host environment", async () => {
  const session = fakeSession({
    hostEnv: { ANTHROPIC_BASE_URL: "https://llm.corp.example:8443", ANTHROPIC_AUTH_TOKEN: "b" },
  });
  const invocation = await makeAgent(claudeCode).invocation(session);
  assertEquals(invocation.env, {
    ...BASE_ENV,
    ANTHROPIC_AUTH_TOKEN: "b",
    ANTHROPIC_BASE_URL: "https://llm.corp.example:8443",
  });
  assertEquals(invocation.modelHosts, ["llm.corp.example:8443"]);
});

Deno.test("claude-code parse() reads the result line: summary, usage with cache, cost", async () => {
  const stdout = jsonl(
    { type: "system", subtype: "init", session_id: "s" },
    {
      type: "assistant",
      message: { id: "m1", content: [{ type: "text", text: "Looking." }], usage: {} },
    },
    {
      type: "result",
      subtype: "success",
      is_error: false,
      api_error_status: null,
      result: "Fixed add().",
      total_cost_usd: 0.0125,
      usage: {
        input_tokens: 100,
        cache_creation_input_tokens: 20,
        cache_read_input_tokens: 103,
        output_tokens: 30,
      },
    },
  );
  const report = await makeAgent(claudeCode).parse!(runOutput({ stdout }));
  assertEquals(report, {
    summary: "Fixed add().",
    tokens: { input: 223, cachedInput: 103, cacheWrite: 20, output: 30 },
    costUsd: 0.0125,
    quota: false,
  });
});

Deno.test("claude-code parse() calls an API 429 a quota stop despite subtype success", async () => {
  const result = "API Error: Request rejected (429) · You exceeded your current quota";
  const stdout = jsonl({
    type: "result",
    subtype: "success",
    is_error: true,
    api_error_status: 429,
    result,
    usage: { input_tokens: 0, output_tokens: 0 },
  });
  const report = await makeAgent(claudeCode).parse!(runOutput({ stdout, exitCode: 1 }));
  assertEquals(report.quota, true);
  assertEquals(report.error, result);
  assertEquals(report.summary, undefined);
});

Deno.test("claude-code parse() calls a subscription limit a quota stop", async () => {
  const stdout = jsonl({
    type: "result",
    subtype: "success",
    is_error: true,
    result: "You've hit your session limit · resets 3pm",
  });
  const report = await makeAgent(claudeCode).parse!(runOutput({ stdout, exitCode: 1 }));
  assertEquals(report.quota, true);
});

Deno.test("claude-code parse() keeps an authentication failure apart from a quota stop", async () => {
  const result = "Failed to authenticate. API Error: 401 invalid x-api-key";
  const stdout = jsonl({ type: "result", subtype: "success", is_error: true, result });
  const report = await makeAgent(claudeCode).parse!(runOutput({ stdout, exitCode: 1 }));
  assertEquals(report.quota, false);
  assertEquals(report.error, result);
});

Deno.test("claude-code parse() adds up each message's prompt once when the run was cut short", async () => {
  const usage = (input: number) => ({ input_tokens: input, output_tokens: 5 });
  const stdout = jsonl(
    {
      type: "assistant",
      message: { id: "m1", content: [{ type: "text", text: "A" }], usage: usage(10) },
    },
    { type: "assistant", message: { id: "m1", content: [{ type: "tool_use" }], usage: usage(10) } },
    {
      type: "assistant",
      message: { id: "m2", content: [{ type: "text", text: "B" }], usage: usage(20) },
    },
  );
  const report = await makeAgent(claudeCode).parse!(
    runOutput({ stdout, exitCode: 137, timedOut: true }),
  );
  assertEquals(report, { summary: "B", tokens: { input: 30 }, quota: false });
});

for (const recording of await recordings("claude-code")) {
  Deno.test(`claude-code parse() reads the recorded run ${recording.label}`, async () => {
    const report = await makeAgent(claudeCode).parse!(recording.output);
    assertRecording(report, recording, ["input", "cachedInput", "cacheWrite", "output"]);
  });
}
