import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { geminiCli } from "../../adapters/gemini_cli.ts";
import {
  assertRecording,
  fakeSession,
  jsonl,
  makeAgent,
  recordings,
  runOutput,
} from "./_helpers.ts";

const SETTINGS = "/bb/run/state/.gemini/settings.json";

function settingsFor(selectedType: string): unknown {
  return {
    security: { auth: { selectedType } },
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, maxAttempts: 3 },
    privacy: { usageStatisticsEnabled: false },
    tools: { exclude: ["google_web_search", "web_fetch"] },
    skills: { enabled: false },
    hooksConfig: { enabled: false },
  };
}

Deno.test("gemini-cli runs --prompt in yolo mode with an API key, a base URL and web tools excluded", async () => {
  const agent = makeAgent(geminiCli, {
    model: "gemini-2.5-pro",
    options: { "base-url": "http://127.0.0.1:7000" },
  });
  const session = fakeSession({ hostEnv: { HOME: "/home/ada", GEMINI_API_KEY: "g-key" } });
  const invocation = await agent.invocation(session);
  assertEquals(invocation.argv, [
    "gemini",
    "--prompt",
    "Fix the bug in add().",
    "--approval-mode",
    "yolo",
    "--skip-trust",
    "--output-format",
    "stream-json",
    "--model",
    "gemini-2.5-pro",
    "--extensions",
    "none",
  ]);
  assertEquals(invocation.env, {
    GEMINI_CLI_HOME: "/bb/run/state",
    GEMINI_API_KEY: "g-key",
    GOOGLE_GEMINI_BASE_URL: "http://127.0.0.1:7000",
  });
  assertEquals(Object.keys(invocation.files ?? {}), [SETTINGS]);
  assertEquals(JSON.parse(invocation.files![SETTINGS]), settingsFor("gemini-api-key"));
  assertEquals(invocation.copy, []);
  assertEquals(invocation.stdin, undefined);
  assertEquals(invocation.modelHosts, ["127.0.0.1:7000"]);
  assertEquals(agent.modelHosts(), ["127.0.0.1:7000"]);
});

Deno.test("gemini-cli without an API key uses the personal Google login, copied in", async () => {
  const agent = makeAgent(geminiCli);
  const invocation = await agent.invocation(fakeSession());
  assertEquals(invocation.argv.slice(-2), ["--extensions", "none"]);
  assertEquals(invocation.env, { GEMINI_CLI_HOME: "/bb/run/state" });
  assertEquals(JSON.parse(invocation.files![SETTINGS]), settingsFor("oauth-personal"));
  assertEquals(invocation.copy, [
    { from: "~/.gemini/oauth_creds.json", to: "/bb/run/state/.gemini/oauth_creds.json" },
    { from: "~/.gemini/google_accounts.json", to: "/bb/run/state/.gemini/google_accounts.json" },
  ]);
  const hosts = [
    "generativelanguage.googleapis.com:443",
    "cloudcode-pa.googleapis.com:443",
    "oauth2.googleapis.com:443",
  ];
  assertEquals(invocation.modelHosts, hosts);
  assertEquals(agent.modelHosts(), hosts);
});

Deno.test("gemini-cli takes GOOGLE_GEMINI_BASE_URL and GOOGLE_API_KEY from the host", async () => {
  const session = fakeSession({
    hostEnv: { GOOGLE_API_KEY: "k", GOOGLE_GEMINI_BASE_URL: "https://gemini.proxy.example" },
  });
  const invocation = await makeAgent(geminiCli).invocation(session);
  assertEquals(invocation.env, {
    GEMINI_CLI_HOME: "/bb/run/state",
    GOOGLE_API_KEY: "k",
    GOOGLE_GEMINI_BASE_URL: "https://gemini.proxy.example",
  });
  assertEquals(invocation.modelHosts, ["gemini.proxy.example:443"]);
});

Deno.test("gemini-cli parse() takes the final reply and counts thinking tokens as output", async () => {
  const stdout = jsonl(
    { type: "init", session_id: "s", model: "gemini-2.5-pro" },
    { type: "message", role: "user", content: "Fix it." },
    { type: "message", role: "assistant", content: "Let me ", delta: true },
    { type: "message", role: "assistant", content: "look.", delta: true },
    { type: "tool_use", tool_name: "run_shell_command", tool_id: "t1", parameters: {} },
    { type: "tool_result", tool_id: "t1", status: "success", output: "ok" },
    { type: "message", role: "assistant", content: "Fixed ", delta: true },
    { type: "message", role: "assistant", content: "add().", delta: true },
    {
      type: "result",
      status: "success",
      stats: { total_tokens: 260, input_tokens: 200, output_tokens: 50, cached: 80, input: 120 },
    },
  );
  const report = await makeAgent(geminiCli).parse!(runOutput({ stdout }));
  assertEquals(report, {
    summary: "Fixed add().",
    tokens: { input: 200, cachedInput: 80, output: 60, reasoning: 10, total: 260 },
    quota: false,
  });
});

Deno.test("gemini-cli parse() calls a daily-quota stop a quota stop", async () => {
  const message = "[API Error: You have exhausted your daily quota on this model.]\nPlease wait.";
  const stdout = jsonl({
    type: "result",
    status: "error",
    error: { type: "unknown", message },
    stats: { total_tokens: 0, input_tokens: 0, output_tokens: 0 },
  });
  const report = await makeAgent(geminiCli).parse!(runOutput({ stdout, exitCode: 173 }));
  assertEquals(report.quota, true);
  assertEquals(report.error, message);
});

Deno.test("gemini-cli parse() reads the error object on stderr when stdout is empty", async () => {
  const stderr = "Attempt 3 failed: Max attempts reached\n" +
    JSON.stringify({
      type: "Error",
      message: "Resource has been exhausted (e.g. check quota).",
      code: 429,
    }) +
    "\n";
  const report = await makeAgent(geminiCli).parse!(runOutput({ stderr, exitCode: 173 }));
  assertEquals(report.quota, true);
  assertEquals(report.error, "Resource has been exhausted (e.g. check quota).");
});

Deno.test("gemini-cli parse() keeps a 400 apart from a quota stop", async () => {
  const stderr = JSON.stringify({
    error: { type: "Error", message: "Invalid request", code: 400 },
  });
  const report = await makeAgent(geminiCli).parse!(runOutput({ stderr, exitCode: 144 }));
  assertEquals(report.quota, false);
  assertEquals(report.error, "Invalid request");
});

for (const recording of await recordings("gemini-cli")) {
  Deno.test(`gemini-cli parse() reads the recorded run ${recording.label}`, async () => {
    const report = await makeAgent(geminiCli).parse!(recording.output);
    assertRecording(report, recording, ["input", "cachedInput", "output", "reasoning"]);
  });
}
