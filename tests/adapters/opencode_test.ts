import { deepStrictEqual as assertEquals, throws } from "node:assert/strict";
import { opencode } from "../../adapters/opencode.ts";
import { ConfigError } from "../../lib/errors.ts";
import {
  assertRecording,
  fakeSession,
  jsonl,
  makeAgent,
  recordings,
  runOutput,
} from "./_helpers.ts";

const ISOLATION = {
  XDG_CONFIG_HOME: "/bb/run/state/config",
  XDG_DATA_HOME: "/bb/run/state/data",
  XDG_STATE_HOME: "/bb/run/state/state",
  XDG_CACHE_HOME: "/bb/run/state/cache",
  OPENCODE_DISABLE_PROJECT_CONFIG: "1",
  OPENCODE_DISABLE_CLAUDE_CODE: "1",
  OPENCODE_DISABLE_EXTERNAL_SKILLS: "1",
  OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
  OPENCODE_DISABLE_AUTOUPDATE: "1",
  OPENCODE_DISABLE_MODELS_FETCH: "1",
  OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
  OPENCODE_DISABLE_SHARE: "1",
  npm_config_offline: "true",
};

const PERMISSION = { edit: "allow", bash: "allow", webfetch: "deny", websearch: "deny" };

Deno.test("opencode with a base URL defines an OpenAI-compatible provider and denies web tools", async () => {
  const agent = makeAgent(opencode, {
    model: "qwen3-coder",
    options: { "base-url": "http://127.0.0.1:8000/v1", variant: "high" },
  });
  const session = fakeSession({ hostEnv: { HOME: "/home/ada", OPENAI_API_KEY: "sk-x" } });
  const invocation = await agent.invocation(session);
  assertEquals(invocation.argv, [
    "opencode",
    "run",
    "--format",
    "json",
    "--pure",
    "--auto",
    "--dir",
    "/bb/run/checkout",
    "--model",
    "bugbout/qwen3-coder",
    "--title",
    "calc-12",
    "--variant",
    "high",
    "Fix the bug in add().",
  ]);
  const { OPENCODE_CONFIG_CONTENT: content, ...env } = invocation.env!;
  assertEquals(env, ISOLATION);
  assertEquals(JSON.parse(content), {
    $schema: "https://opencode.ai/config.json",
    model: "bugbout/qwen3-coder",
    small_model: "bugbout/qwen3-coder",
    autoupdate: false,
    share: "disabled",
    permission: PERMISSION,
    provider: {
      bugbout: {
        npm: "@ai-sdk/openai-compatible",
        options: { baseURL: "http://127.0.0.1:8000/v1", apiKey: "sk-x" },
        models: { "qwen3-coder": {} },
      },
    },
  });
  assertEquals(invocation.copy, []);
  assertEquals(invocation.stdin, undefined);
  assertEquals(invocation.modelHosts, ["127.0.0.1:8000"]);
  assertEquals(agent.modelHosts(), ["127.0.0.1:8000"]);
});

Deno.test("opencode with a provider/model passes that provider's key and copies auth.json", async () => {
  const agent = makeAgent(opencode, { model: "anthropic/claude-sonnet-4-5" });
  const session = fakeSession({
    hostEnv: { HOME: "/home/ada", ANTHROPIC_API_KEY: "sk-ant", OPENAI_API_KEY: "sk-oai" },
  });
  const invocation = await agent.invocation(session);
  assertEquals(invocation.argv.slice(8, 10), ["--model", "anthropic/claude-sonnet-4-5"]);
  const { OPENCODE_CONFIG_CONTENT: content, ...env } = invocation.env!;
  assertEquals(env, { ...ISOLATION, ANTHROPIC_API_KEY: "sk-ant" });
  assertEquals(JSON.parse(content), {
    $schema: "https://opencode.ai/config.json",
    model: "anthropic/claude-sonnet-4-5",
    small_model: "anthropic/claude-sonnet-4-5",
    autoupdate: false,
    share: "disabled",
    permission: PERMISSION,
  });
  assertEquals(invocation.copy, [{
    from: "~/.local/share/opencode/auth.json",
    to: "/bb/run/state/data/opencode/auth.json",
  }]);
  assertEquals(invocation.modelHosts, ["api.anthropic.com:443"]);
  assertEquals(agent.modelHosts(), ["api.anthropic.com:443"]);
});

Deno.test("opencode moves a native provider to the host's base URL variable", async () => {
  const agent = makeAgent(opencode, { model: "openai/gpt-5" });
  const session = fakeSession({
    hostEnv: { XDG_DATA_HOME: "/srv/data", OPENAI_BASE_URL: "https://gw.example.com/v1" },
  });
  const invocation = await agent.invocation(session);
  const config = JSON.parse(invocation.env!.OPENCODE_CONFIG_CONTENT);
  assertEquals(config.provider, { openai: { options: { baseURL: "https://gw.example.com/v1" } } });
  assertEquals(invocation.env!.OPENAI_BASE_URL, "https://gw.example.com/v1");
  assertEquals(invocation.copy![0].from, "/srv/data/opencode/auth.json");
  assertEquals(invocation.modelHosts, ["gw.example.com:443"]);
});

Deno.test("opencode refuses a bare model name without a base URL", () => {
  throws(() => makeAgent(opencode, { model: "gpt-5" }), ConfigError);
});

const step = (input: number, read: number, output: number, reasoning: number, cost = 0) => ({
  type: "step_finish",
  part: {
    reason: "tool-calls",
    tokens: {
      total: input + read + output + reasoning,
      input,
      output,
      reasoning,
      cache: { write: 0, read },
    },
    cost,
  },
});

Deno.test("opencode parse() adds back cache reads and reasoning that steps report apart", async () => {
  const stdout = jsonl(
    { type: "step_start", part: {} },
    { type: "text", part: { type: "text", text: "Looking." } },
    step(60, 40, 5, 2, 0.001),
    { type: "text", part: { type: "text", text: "Fixed add()." } },
    step(83, 40, 7, 1, 0.002),
  );
  const report = await makeAgent(opencode, { model: "a/b" }).parse!(runOutput({ stdout }));
  assertEquals(report, {
    summary: "Fixed add().",
    tokens: { input: 223, cachedInput: 80, cacheWrite: 0, output: 15, reasoning: 3, total: 238 },
    quota: false,
    costUsd: 0.003,
  });
});

Deno.test("opencode parse() calls an APIError with status 429 a quota stop", async () => {
  const stdout = jsonl({
    type: "error",
    error: {
      name: "APIError",
      data: {
        message: "You exceeded your current quota, please check your plan and billing details.",
        statusCode: 429,
        isRetryable: true,
      },
    },
  });
  const report = await makeAgent(opencode, { model: "a/b" }).parse!(
    runOutput({ stdout, exitCode: 1 }),
  );
  assertEquals(report.quota, true);
  assertEquals(
    report.error,
    "You exceeded your current quota, please check your plan and billing details.",
  );
});

Deno.test("opencode parse() keeps a 400 apart from a quota stop", async () => {
  const stdout = jsonl({
    type: "error",
    error: { name: "APIError", data: { message: "Invalid request", statusCode: 400 } },
  });
  const report = await makeAgent(opencode, { model: "a/b" }).parse!(
    runOutput({ stdout, exitCode: 1 }),
  );
  assertEquals(report.quota, false);
  assertEquals(report.error, "Invalid request");
});

for (const recording of await recordings("opencode")) {
  Deno.test(`opencode parse() reads the recorded run ${recording.label}`, async () => {
    const report = await makeAgent(opencode, { model: "fake/fake-model" }).parse!(
      recording.output,
    );
    assertRecording(report, recording, [
      "input",
      "cachedInput",
      "cacheWrite",
      "output",
      "reasoning",
    ]);
  });
}
