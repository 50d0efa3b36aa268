import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { join } from "node:path";
import { codex } from "../../adapters/codex.ts";
import {
  assertRecording,
  fakeSession,
  jsonl,
  makeAgent,
  recordings,
  runOutput,
  tempDir,
} from "./_helpers.ts";

const COMMON = [
  "codex",
  "exec",
  "--json",
  "--ephemeral",
  "--ignore-user-config",
  "--ignore-rules",
  "--skip-git-repo-check",
  "--color",
  "never",
  "--dangerously-bypass-approvals-and-sandbox",
  "--cd",
  "/bb/run/checkout",
  "--output-last-message",
  "/bb/run/logs/last_message.txt",
  "-c",
  "project_doc_max_bytes=0",
  "-c",
  "web_search=disabled",
  "-c",
  "analytics.enabled=false",
  "-c",
  "allow_login_shell=false",
  "--disable",
  "plugins",
  "--disable",
  "apps",
];

Deno.test("codex with a base-url option runs a custom Responses provider with few retries", async () => {
  const agent = makeAgent(codex, {
    model: "gpt-5-codex",
    options: { "base-url": "http://127.0.0.1:8080/v1", "reasoning-effort": "high" },
  });
  const session = fakeSession({ hostEnv: { HOME: "/home/ada", OPENAI_API_KEY: "sk-test" } });
  const invocation = await agent.invocation(session);
  assertEquals(invocation.argv, [
    ...COMMON,
    "--model",
    "gpt-5-codex",
    "-c",
    'model_reasoning_effort="high"',
    "-c",
    "model_provider=bugbout",
    "-c",
    'model_providers.bugbout={name="bugbout",base_url="http://127.0.0.1:8080/v1",' +
    'env_key="OPENAI_API_KEY",wire_api="responses",request_max_retries=2,stream_max_retries=2}',
    "--",
    "Fix the bug in add().",
  ]);
  assertEquals(invocation.env, { CODEX_HOME: "/bb/run/state", OPENAI_API_KEY: "sk-test" });
  assertEquals(invocation.copy, []);
  assertEquals(invocation.stdin, undefined);
  assertEquals(invocation.modelHosts, ["127.0.0.1:8080"]);
  assertEquals(agent.modelHosts(), ["127.0.0.1:8080"]);
});

Deno.test("codex without a base URL talks to OpenAI with only auth.json copied in", async () => {
  const agent = makeAgent(codex);
  const invocation = await agent.invocation(fakeSession());
  assertEquals(invocation.argv, [...COMMON, "--", "Fix the bug in add()."]);
  assertEquals(invocation.env, { CODEX_HOME: "/bb/run/state" });
  assertEquals(invocation.copy, [{ from: "~/.codex/auth.json", to: "/bb/run/state/auth.json" }]);
  const hosts = ["api.openai.com:443", "chatgpt.com:443", "auth.openai.com:443"];
  assertEquals(invocation.modelHosts, hosts);
  assertEquals(agent.modelHosts(), hosts);
});

Deno.test("codex copies auth.json from the host's CODEX_HOME and passes API keys", async () => {
  const session = fakeSession({
    hostEnv: { HOME: "/home/ada", CODEX_HOME: "/srv/codex", CODEX_API_KEY: "k1", PATH: "/bin" },
  });
  const invocation = await makeAgent(codex).invocation(session);
  assertEquals(invocation.copy, [{ from: "/srv/codex/auth.json", to: "/bb/run/state/auth.json" }]);
  assertEquals(invocation.env, { CODEX_HOME: "/bb/run/state", CODEX_API_KEY: "k1" });
});

Deno.test("codex takes OPENAI_BASE_URL from the host and sends no key it does not have", async () => {
  const session = fakeSession({
    hostEnv: { HOME: "/home/ada", OPENAI_BASE_URL: "https://gw.example.com/openai/v1" },
  });
  const agent = makeAgent(codex, { model: "gpt-5" });
  const invocation = await agent.invocation(session);
  assertEquals(invocation.argv.slice(COMMON.length), [
    "--model",
    "gpt-5",
    "-c",
    "model_provider=bugbout",
    "-c",
    'model_providers.bugbout={name="bugbout",base_url="https://gw.example.com/openai/v1",' +
    'wire_api="responses",request_max_retries=2,stream_max_retries=2}',
    "--",
    "Fix the bug in add().",
  ]);
  assertEquals(invocation.env, { CODEX_HOME: "/bb/run/state" });
  assertEquals(invocation.modelHosts, ["gw.example.com:443"]);
});

Deno.test("codex local-provider ollama runs --oss against the given base URL", async () => {
  const agent = makeAgent(codex, {
    model: "gpt-oss:20b",
    options: { "local-provider": "ollama", "base-url": "http://127.0.0.1:11500/v1" },
  });
  const invocation = await agent.invocation(fakeSession());
  assertEquals(invocation.argv.slice(COMMON.length), [
    "--model",
    "gpt-oss:20b",
    "--oss",
    "--local-provider",
    "ollama",
    "--",
    "Fix the bug in add().",
  ]);
  assertEquals(invocation.env, {
    CODEX_HOME: "/bb/run/state",
    CODEX_OSS_BASE_URL: "http://127.0.0.1:11500/v1",
  });
  assertEquals(invocation.modelHosts, ["127.0.0.1:11500"]);
});

Deno.test("codex local-provider lmstudio defaults to LM Studio's local port", async () => {
  const agent = makeAgent(codex, { options: { "local-provider": "lmstudio" } });
  const invocation = await agent.invocation(fakeSession());
  assertEquals(invocation.env, { CODEX_HOME: "/bb/run/state" });
  assertEquals(invocation.modelHosts, ["localhost:1234", "127.0.0.1:1234"]);
  assertEquals(agent.modelHosts(), ["localhost:1234", "127.0.0.1:1234"]);
});

Deno.test("codex parse() sums turn usage and takes the last agent message", async () => {
  const stdout = jsonl(
    { type: "thread.started", thread_id: "t1" },
    {
      type: "item.completed",
      item: { id: "i0", type: "error", message: "Model metadata for `x` not found." },
    },
    { type: "turn.started" },
    { type: "item.completed", item: { id: "i1", type: "agent_message", text: "Looking." } },
    { type: "item.completed", item: { id: "i2", type: "agent_message", text: "Fixed add()." } },
    {
      type: "turn.completed",
      usage: {
        input_tokens: 223,
        cached_input_tokens: 100,
        cache_write_input_tokens: 0,
        output_tokens: 40,
        reasoning_output_tokens: 12,
      },
    },
  );
  const report = await makeAgent(codex).parse!(runOutput({ stdout }));
  assertEquals(report, {
    summary: "Fixed add().",
    tokens: { input: 223, cachedInput: 100, cacheWrite: 0, output: 40, reasoning: 12 },
    quota: false,
  });
});

Deno.test("codex parse() calls an insufficient_quota failure a quota stop", async () => {
  const message = "Quota exceeded. Check your plan and billing details.";
  const stdout = jsonl(
    { type: "turn.started" },
    { type: "error", message },
    { type: "turn.failed", error: { message } },
  );
  const report = await makeAgent(codex).parse!(runOutput({ stdout, exitCode: 1 }));
  assertEquals(report, { summary: undefined, tokens: undefined, quota: true, error: message });
});

Deno.test("codex parse() calls a ChatGPT usage limit a quota stop, either apostrophe", async () => {
  for (const apostrophe of ["’", "'"]) {
    const message =
      `You${apostrophe}ve hit your usage limit. Upgrade to Pro or try again at 4:25 AM.`;
    const stdout = jsonl({ type: "turn.failed", error: { message } });
    const report = await makeAgent(codex).parse!(runOutput({ stdout, exitCode: 1 }));
    assertEquals(report.quota, true, apostrophe);
  }
});

Deno.test("codex parse() does not call a plain API error a quota stop", async () => {
  const message = "unexpected status 400 Bad Request: Invalid request";
  const stdout = jsonl({ type: "turn.failed", error: { message } });
  const report = await makeAgent(codex).parse!(runOutput({ stdout, exitCode: 1 }));
  assertEquals(report.quota, false);
  assertEquals(report.error, message);
});

Deno.test("codex parse() reads the last message file when stdout has none", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(join(dir.path, "last_message.txt"), "All done.\n");
  const report = await makeAgent(codex).parse!(runOutput({ logdir: dir.path }));
  assertEquals(report.summary, "All done.");
});

const RECORDED = await recordings("codex");

for (const recording of RECORDED) {
  Deno.test(`codex parse() reads the recorded run ${recording.label}`, async () => {
    const report = await makeAgent(codex).parse!(recording.output);
    assertRecording(report, recording, ["input", "cachedInput", "output", "reasoning"]);
  });
}
