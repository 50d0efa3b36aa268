import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { get, miniBody, post, responsesBody } from "./_helpers.ts";
import { startModelServer } from "./server.ts";
import { sseJson } from "./sse.ts";

Deno.test("startModelServer() listens on 127.0.0.1 at a free port", async () => {
  await using one = startModelServer();
  await using two = startModelServer();
  assert(one.url.startsWith("http://127.0.0.1:"));
  assert(one.port > 0 && one.port !== two.port);
  assertEquals((await get(one, "/")).text, "ok");
});

Deno.test("the Ollama endpoints satisfy codex --oss: version, tags and the model list", async () => {
  await using server = startModelServer({ models: ["gpt-oss:20b"] });
  const version = JSON.parse((await get(server, "/api/version")).text).version as string;
  const [major, minor, patch] = version.split(".").map(Number);
  assert(major > 0 || minor > 13 || (minor === 13 && patch >= 4), version);
  const tags = JSON.parse((await get(server, "/api/tags")).text);
  assertEquals(tags.models.map((m: { name: string }) => m.name), ["gpt-oss:20b"]);
  const models = JSON.parse((await get(server, "/v1/models")).text);
  assertEquals(models.data.map((m: { id: string }) => m.id), ["gpt-oss:20b"]);
  const missing = await get(server, "/nope");
  assertEquals(missing.status, 404);
  assertEquals(server.requests.map((r) => [r.method, r.path, r.role, r.status]), [
    ["GET", "/api/version", "meta", 200],
    ["GET", "/api/tags", "meta", 200],
    ["GET", "/v1/models", "meta", 200],
    ["GET", "/nope", "meta", 404],
  ]);
});

Deno.test("every request is recorded with headers, body, tools and text", async () => {
  await using server = startModelServer({ script: [{ run: "ls" }] });
  await post(server, "/v1/chat/completions?x=1", miniBody(), { authorization: "Bearer sk-1" });
  const [r] = server.requests;
  assertEquals([r.seq, r.method, r.path, r.query], [0, "POST", "/v1/chat/completions", { x: "1" }]);
  assertEquals(r.headers.authorization, "Bearer sk-1");
  assertEquals((r.body as { model: string }).model, "fake-model");
  assertEquals([r.api, r.model, r.stream, r.tools], ["chat", "fake-model", false, ["bash"]]);
  assert(r.text.includes("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT") && r.text.includes("Fix it."));
  assertEquals([r.role, r.turn, r.turnKind, r.status], ["turn", 0, "run", 200]);
  assertEquals(r.reply?.call?.args, { command: "ls" });
  assertEquals(r.usage, { input: 100, output: 23 });
  assert(!Number.isNaN(Date.parse(r.at)));
});

Deno.test("a body that is not JSON is recorded as text and still answered", async () => {
  await using server = startModelServer({ script: [{ finish: "x" }] });
  const response = await fetch(`${server.url}/v1/chat/completions`, {
    method: "POST",
    body: "not json",
  });
  assertEquals(response.status, 200);
  await response.body?.cancel();
  assertEquals(server.requests[0].body, "not json");
  assertEquals(server.requests[0].role, "aux");
});

Deno.test("the server-wide usage applies to turns without their own, and usageSent() sums", async () => {
  await using server = startModelServer({
    usage: { input: 50, output: 5, reasoning: 1 },
    script: [{ run: "a" }, { run: "b", usage: { input: 70, output: 7, cachedInput: 20 } }],
  });
  await post(server, "/v1/chat/completions", miniBody());
  await post(server, "/v1/chat/completions", miniBody());
  assertEquals(server.usageSent(), {
    input: 120,
    output: 12,
    cachedInput: 20,
    cacheWrite: 0,
    reasoning: 1,
  });
});

Deno.test("after the script runs out the model finishes with exhaustedText", async () => {
  await using server = startModelServer({
    script: [{ run: "ls" }],
    exhaustedText: "Out of script.",
  });
  await post(server, "/v1/responses", responsesBody());
  const events = sseJson((await post(server, "/v1/responses", responsesBody())).text);
  const texts = events.filter((e) => e.type === "response.output_text.done").map((e) => e.text);
  assertEquals(texts, ["Out of script."]);
  assertEquals([server.played, server.remaining], [1, 0]);
  assertEquals(server.modelRequests()[1].turn, undefined);
});

Deno.test("setScript() replaces the script, starts over and can change cwd", async () => {
  await using server = startModelServer({ script: [{ run: "first" }] });
  await post(server, "/v1/chat/completions", miniBody());
  server.setScript([{ write: { path: "f.py", content: "x\n" } }], { cwd: "/elsewhere" });
  assertEquals([server.played, server.remaining], [0, 1]);
  const body = JSON.parse((await post(server, "/v1/chat/completions", miniBody())).text);
  const command = JSON.parse(body.choices[0].message.tool_calls[0].function.arguments).command;
  assert(command.includes("cat > 'f.py'"), "mini has only bash, so the write is a heredoc");
});

Deno.test("close() can be called twice and after await using", async () => {
  const server = startModelServer();
  await server.close();
  await server.close();
  await server[Symbol.asyncDispose]();
});
