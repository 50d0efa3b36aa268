import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { join } from "node:path";
import { qwenCode } from "../../adapters/qwen_code.ts";
import {
  assertRecording,
  fakeSession,
  jsonl,
  makeAgent,
  recordings,
  runOutput,
  tempDir,
} from "./_helpers.ts";

Deno.test("qwen-code runs one-shot in yolo mode with web tools excluded and settings written", async () => {
  const agent = makeAgent(qwenCode, {
    model: "qwen3-coder-plus",
    options: { "base-url": "https://dashscope.example.com/compatible-mode/v1" },
  });
  const session = fakeSession({ hostEnv: { HOME: "/home/ada", OPENAI_API_KEY: "sk-q" } });
  const invocation = await agent.invocation(session);
  assertEquals(invocation.argv, [
    "qwen",
    "--approval-mode",
    "yolo",
    "--output-format",
    "stream-json",
    "--exclude-tools",
    "web_fetch",
    "web_search",
    "--auth-type",
    "openai",
    "--model",
    "qwen3-coder-plus",
    "Fix the bug in add().",
  ]);
  assertEquals(invocation.env, {
    QWEN_HOME: "/bb/run/state",
    QWEN_RUNTIME_DIR: "/bb/run/logs/qwen-runtime",
    QWEN_DISABLE_AUTO_TITLE: "1",
    OPENAI_API_KEY: "sk-q",
    OPENAI_BASE_URL: "https://dashscope.example.com/compatible-mode/v1",
  });
  assertEquals(Object.keys(invocation.files ?? {}), ["/bb/run/state/settings.json"]);
  assertEquals(JSON.parse(invocation.files!["/bb/run/state/settings.json"]), {
    model: { generationConfig: { maxRetries: 0 } },
    privacy: { usageStatisticsEnabled: false },
    memory: { enableManagedAutoMemory: false },
    context: { fileName: ["BUGBOUT-NO-CONTEXT-FILE.md"] },
    general: { enableAutoUpdate: false },
  });
  assertEquals(invocation.stdin, undefined);
  assertEquals(invocation.modelHosts, ["dashscope.example.com:443"]);
  assertEquals(agent.modelHosts(), ["dashscope.example.com:443"]);
});

Deno.test("qwen-code takes OPENAI_BASE_URL from the host, else OpenAI", async () => {
  const agent = makeAgent(qwenCode);
  const fromHost = await agent.invocation(
    fakeSession({ hostEnv: { OPENAI_BASE_URL: "http://127.0.0.1:4000/v1" } }),
  );
  assertEquals(fromHost.argv.at(-2), "openai");
  assertEquals(fromHost.env!.OPENAI_BASE_URL, "http://127.0.0.1:4000/v1");
  assertEquals(fromHost.modelHosts, ["127.0.0.1:4000"]);
  const plain = await agent.invocation(fakeSession());
  assertEquals(plain.env!.OPENAI_BASE_URL, undefined);
  assertEquals(plain.modelHosts, ["api.openai.com:443"]);
  assertEquals(agent.modelHosts(), ["api.openai.com:443"]);
});

Deno.test("qwen-code parse() reads the result line", async () => {
  const stdout = jsonl(
    { type: "system", subtype: "init" },
    { type: "assistant", message: { id: "a", content: [], usage: { input_tokens: 100 } } },
    {
      type: "result",
      subtype: "success",
      is_error: false,
      result: "Fixed add().",
      usage: {
        input_tokens: 223,
        output_tokens: 30,
        cache_read_input_tokens: 100,
        total_tokens: 253,
      },
    },
  );
  const report = await makeAgent(qwenCode).parse!(runOutput({ stdout }));
  assertEquals(report, {
    tokens: { input: 223, cachedInput: 100, output: 30, total: 253 },
    quota: false,
    summary: "Fixed add().",
  });
});

Deno.test("qwen-code parse() calls an [API Error: 429 result a quota stop though it exits 0", async () => {
  const result = "[API Error: 429 You exceeded your current quota, please check your plan and " +
    "billing details.]\nPossible quota limitations in place or slow response times detected.";
  const stdout = jsonl({
    type: "result",
    subtype: "success",
    is_error: false,
    result,
    usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
  });
  const report = await makeAgent(qwenCode).parse!(runOutput({ stdout, exitCode: 0 }));
  assertEquals(report.quota, true);
  assertEquals(report.error, result);
  assertEquals(report.summary, undefined);
});

Deno.test("qwen-code parse() keeps another API error apart from a quota stop", async () => {
  const result = "[API Error: 400 Invalid request: scripted failure.]";
  const stdout = jsonl({ type: "result", subtype: "success", is_error: false, result });
  const report = await makeAgent(qwenCode).parse!(runOutput({ stdout }));
  assertEquals(report.quota, false);
  assertEquals(report.error, result);
});

Deno.test("qwen-code parse() finds a 429 in its debug log when it was killed while retrying", async () => {
  await using dir = await tempDir();
  const debug = join(dir.path, "qwen-runtime", "debug");
  await Deno.mkdir(debug, { recursive: true });
  await Deno.writeTextFile(
    join(debug, "session-1.txt"),
    "[DEBUG] request\n[ERROR] [OPENAI_ERROR] OpenAI API Error: 429 You exceeded your quota\n",
  );
  const report = await makeAgent(qwenCode).parse!(
    runOutput({ logdir: dir.path, exitCode: 137, timedOut: true }),
  );
  assertEquals(report, {
    tokens: undefined,
    quota: true,
    error: "no result (exit code 137, timed out)",
  });
});

for (const recording of await recordings("qwen-code")) {
  Deno.test(`qwen-code parse() reads the recorded run ${recording.label}`, async () => {
    const report = await makeAgent(qwenCode).parse!(recording.output);
    assertRecording(report, recording, ["input", "cachedInput", "output"]);
  });
}
