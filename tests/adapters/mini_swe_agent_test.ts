import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { EXAMINER_TEMPLATE, litellmProvider, miniSweAgent } from "../../adapters/mini_swe_agent.ts";
import {
  assertRecording,
  fakeSession,
  makeAgent,
  recordings,
  runOutput,
  tempDir,
} from "./_helpers.ts";

const ENV = {
  MSWEA_CONFIGURED: "true",
  MSWEA_GLOBAL_CONFIG_DIR: "/bb/run/state",
  MSWEA_COST_TRACKING: "ignore_errors",
  MSWEA_SILENT_STARTUP: "1",
  MSWEA_MODEL_RETRY_STOP_AFTER_ATTEMPT: "3",
  LITELLM_LOCAL_MODEL_COST_MAP: "True",
};

Deno.test("mini-swe-agent runs mini in yolo mode with its step limit and a trajectory file", async () => {
  const agent = makeAgent(miniSweAgent, { model: "anthropic/claude-sonnet-4-5" });
  const session = fakeSession({
    hostEnv: { HOME: "/home/ada", ANTHROPIC_API_KEY: "sk-ant", OPENAI_API_KEY: "sk-oai" },
  });
  const invocation = await agent.invocation(session);
  assertEquals(invocation.argv, [
    "mini",
    "-t",
    "Fix the bug in add().",
    "-y",
    "--exit-immediately",
    "-m",
    "anthropic/claude-sonnet-4-5",
    "-c",
    "mini.yaml",
    "-c",
    "agent.step_limit=75",
    "-o",
    "/bb/run/logs/trajectory.json",
  ]);
  assertEquals(invocation.env, { ...ENV, ANTHROPIC_API_KEY: "sk-ant" });
  assertEquals(invocation.files, {});
  assertEquals(invocation.stdin, undefined);
  assertEquals(invocation.modelHosts, ["api.anthropic.com:443"]);
  assertEquals(agent.modelHosts(), ["api.anthropic.com:443"]);
});

Deno.test("mini-swe-agent passes text actions, step limit, model kwargs and base URL as -c", async () => {
  const agent = makeAgent(miniSweAgent, {
    model: "ollama/qwen3-coder:30b",
    options: {
      "text-actions": true,
      "step-limit": 40,
      "model-kwargs": { temperature: "0", max_tokens: 4096, drop_params: true },
      "base-url": "http://127.0.0.1:11434",
    },
  });
  const invocation = await agent.invocation(fakeSession());
  assertEquals(invocation.argv, [
    "mini",
    "-t",
    "Fix the bug in add().",
    "-y",
    "--exit-immediately",
    "-m",
    "ollama/qwen3-coder:30b",
    "-c",
    "mini_textbased.yaml",
    "-c",
    "agent.step_limit=40",
    "-c",
    "model.model_kwargs.temperature=0",
    "-c",
    "model.model_kwargs.max_tokens=4096",
    "-c",
    "model.model_kwargs.drop_params=true",
    "-c",
    "model.model_kwargs.api_base=http://127.0.0.1:11434",
    "--model-class",
    "litellm_textbased",
    "-o",
    "/bb/run/logs/trajectory.json",
  ]);
  assertEquals(invocation.env, ENV);
  assertEquals(invocation.modelHosts, ["127.0.0.1:11434"]);
  assertEquals(agent.modelHosts(), ["127.0.0.1:11434"]);
});

Deno.test("mini-swe-agent takes OPENAI_BASE_URL from the host for an openai/ model", async () => {
  const agent = makeAgent(miniSweAgent, { model: "openai/fake-model" });
  const session = fakeSession({
    hostEnv: { OPENAI_API_KEY: "k", OPENAI_BASE_URL: "http://127.0.0.1:8080/v1" },
  });
  const invocation = await agent.invocation(session);
  assertEquals(invocation.env, {
    ...ENV,
    OPENAI_API_KEY: "k",
    OPENAI_BASE_URL: "http://127.0.0.1:8080/v1",
  });
  assertEquals(invocation.modelHosts, ["127.0.0.1:8080"]);
  assertEquals(agent.modelHosts(), ["api.openai.com:443"]);
});

Deno.test("mini-swe-agent gives examiners a template without mini's fix-the-issue workflow", async () => {
  const agent = makeAgent(miniSweAgent, { model: "openai/gpt-5" });
  const invocation = await agent.invocation(fakeSession({ role: "examiner" }));
  assertEquals(invocation.argv.slice(7, 13), [
    "-c",
    "mini.yaml",
    "-c",
    "/bb/run/state/examiner.yaml",
    "-c",
    "agent.step_limit=75",
  ]);
  const file = JSON.parse(invocation.files!["/bb/run/state/examiner.yaml"]);
  assertEquals(file, { agent: { instance_template: EXAMINER_TEMPLATE } });
  assert(EXAMINER_TEMPLATE.startsWith("{{task}}\n"));
  assert(EXAMINER_TEMPLATE.includes("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"));
  assert(!/solve this issue|Edit the source code/i.test(EXAMINER_TEMPLATE));
});

Deno.test("litellmProvider() reads the prefix and guesses bare OpenAI and Anthropic names", () => {
  assertEquals(litellmProvider("ollama_chat/qwen3:8b"), "ollama_chat");
  assertEquals(litellmProvider("gpt-5"), "openai");
  assertEquals(litellmProvider("o4-mini"), "openai");
  assertEquals(litellmProvider("claude-sonnet-4-5"), "anthropic");
  assertEquals(litellmProvider("mystery-model"), undefined);
});

function trajectory(info: Record<string, unknown>, messages: unknown[]): string {
  return JSON.stringify({ info, messages, trajectory_format: "mini-swe-agent-1.1" });
}

const usage = (prompt: number, completion: number) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  prompt_tokens_details: { cached_tokens: 10 },
  completion_tokens_details: { reasoning_tokens: 2 },
});

Deno.test("mini-swe-agent parse() sums usage from the trajectory and takes the submission", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(
    join(dir.path, "trajectory.json"),
    trajectory(
      {
        exit_status: "Submitted",
        submission: "Fixed add().\n",
        model_stats: { instance_cost: 0.02 },
      },
      [
        { role: "system", content: "You are a helpful assistant." },
        { role: "assistant", content: "Look.", extra: { response: { usage: usage(100, 7) } } },
        { role: "tool", content: "{}", extra: { returncode: 0 } },
        { role: "assistant", content: null, extra: { response: { usage: usage(123, 9) } } },
        { role: "exit", content: "Fixed add().\n", extra: { exit_status: "Submitted" } },
      ],
    ),
  );
  const report = await makeAgent(miniSweAgent, { model: "openai/x" }).parse!(
    runOutput({ logdir: dir.path }),
  );
  assertEquals(report, {
    summary: "Fixed add().",
    tokens: { input: 223, cachedInput: 20, output: 16, reasoning: 4, total: 239 },
    quota: false,
    costUsd: 0.02,
  });
});

Deno.test("mini-swe-agent parse() calls a RateLimitError exit a quota stop", async () => {
  await using dir = await tempDir();
  const exception = "litellm.RateLimitError: RateLimitError: OpenAIException - You exceeded " +
    "your current quota, please check your plan and billing details.";
  await Deno.writeTextFile(
    join(dir.path, "trajectory.json"),
    trajectory({ exit_status: "RateLimitError", submission: "" }, [
      {
        role: "exit",
        content: exception,
        extra: { exit_status: "RateLimitError", exception_str: exception },
      },
    ]),
  );
  const report = await makeAgent(miniSweAgent, { model: "openai/x" }).parse!(
    runOutput({ logdir: dir.path, exitCode: 1 }),
  );
  assertEquals(report, { tokens: undefined, quota: true, error: exception });
});

Deno.test("mini-swe-agent parse() reports a crash before any trajectory from stderr", async () => {
  const stderr = "Traceback (most recent call last):\n...\nValueError: bad config\n";
  const report = await makeAgent(miniSweAgent, { model: "openai/x" }).parse!(
    runOutput({ stderr, exitCode: 1 }),
  );
  assertEquals(report, { tokens: undefined, quota: false, error: "ValueError: bad config" });
});

for (const recording of await recordings("mini-swe-agent")) {
  Deno.test(`mini-swe-agent parse() reads the recorded run ${recording.label}`, async () => {
    const report = await makeAgent(miniSweAgent, { model: "openai/fake-model" }).parse!(
      recording.output,
    );
    assertRecording(report, recording, ["input", "cachedInput", "output", "reasoning"]);
  });
}
