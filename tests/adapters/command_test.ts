import { deepStrictEqual as assertEquals, throws } from "node:assert/strict";
import { command } from "../../adapters/command.ts";
import { ConfigError } from "../../lib/errors.ts";
import { fakeSession, makeAgent, runOutput } from "./_helpers.ts";

Deno.test("command fills the placeholders and passes the prompt file, so stdin stays empty", async () => {
  const agent = makeAgent(command, {
    name: "aider",
    model: "gpt-5",
    options: {
      command: [
        "aider",
        "--yes-always",
        "--no-git",
        "--model",
        "{model}",
        "--message-file",
        "{prompt_file}",
        "--chat-history-file={logdir}/chat.md",
      ],
      env: { AIDER_ANALYTICS: "false", WORK: "{workdir}" },
      "state-dirs": ["~/.aider", "/var/cache/aider"],
      "model-hosts": ["api.openai.com:443"],
    },
  });
  const invocation = await agent.invocation(fakeSession());
  assertEquals(invocation, {
    argv: [
      "aider",
      "--yes-always",
      "--no-git",
      "--model",
      "gpt-5",
      "--message-file",
      "/bb/run/prompt.md",
      "--chat-history-file=/bb/run/logs/chat.md",
    ],
    env: { AIDER_ANALYTICS: "false", WORK: "/bb/run/checkout" },
    writable: ["/home/ada/.aider", "/var/cache/aider"],
  });
  assertEquals(agent.executable, "aider");
  assertEquals(agent.modelHosts(), ["api.openai.com:443"]);
});

Deno.test("command sends the prompt on stdin when the command line does not carry it", async () => {
  const agent = makeAgent(command, {
    name: "script",
    options: { command: ["./agent.sh", "--json", "{}"], sandboxed: false },
  });
  const invocation = await agent.invocation(fakeSession());
  assertEquals(invocation, {
    argv: ["./agent.sh", "--json", "{}"],
    env: {},
    writable: [],
    stdin: "Fix the bug in add().",
    unconfined: true,
  });
  assertEquals(agent.modelHosts(), []);
});

Deno.test("command puts {prompt} itself into an argument", async () => {
  const agent = makeAgent(command, { name: "x", options: { command: ["x", "--task={prompt}"] } });
  const invocation = await agent.invocation(fakeSession());
  assertEquals(invocation.argv, ["x", "--task=Fix the bug in add()."]);
  assertEquals(invocation.stdin, undefined);
});

Deno.test("command refuses {model} without a model and relative state dirs", () => {
  throws(
    () => makeAgent(command, { name: "x", options: { command: ["x", "{model}"] } }),
    ConfigError,
  );
  throws(
    () => makeAgent(command, { name: "x", options: { command: ["x"], "state-dirs": [".aider"] } }),
    ConfigError,
  );
});

Deno.test("command parse() takes the output tail as summary and spots vendor quota wording", async () => {
  const agent = makeAgent(command, { name: "aider", options: { command: ["aider"] } });
  const done = await agent.parse!(
    runOutput({ stdout: "Applied edit to calc.py\nTokens: 1.2k sent\n" }),
  );
  assertEquals(done, { quota: false, summary: "Applied edit to calc.py\nTokens: 1.2k sent" });
  const limited = await agent.parse!(runOutput({
    stdout: "litellm.RateLimitError: OpenAIException - You exceeded your current quota\n" +
      "The API provider has rate limited you. Try again later or check your quotas.\n",
  }));
  assertEquals(limited.quota, true);
  const failed = await agent.parse!(runOutput({ stderr: "boom\n", exitCode: 2 }));
  assertEquals(failed, { quota: false, error: "boom" });
});
