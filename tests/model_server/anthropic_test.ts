import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { anthropicBody, get, post } from "./_helpers.ts";
import { anthropicUsage } from "./anthropic_wire.ts";
import { startModelServer } from "./server.ts";
import { parseSse, sseJson } from "./sse.ts";

const USAGE = { input: 1000, output: 30, cachedInput: 400, cacheWrite: 100 };

Deno.test("Anthropic: HEAD / answers Claude's preflight and is recorded as meta", async () => {
  await using server = startModelServer();
  const got = await get(server, "/", "HEAD");
  assertEquals(got.status, 200);
  assertEquals(server.requests[0].method, "HEAD");
  assertEquals(server.requests[0].role, "meta");
  assertEquals(server.played, 0);
});

Deno.test("Anthropic: a run turn streams a Bash tool_use block with the usage split", async () => {
  await using server = startModelServer({
    script: [{ run: "cat src/pkg/mod.py", say: "Reading.", usage: USAGE }],
  });
  const got = await post(server, "/v1/messages?beta=true", anthropicBody(), {
    "x-api-key": "sk-fake",
    "anthropic-version": "2023-06-01",
  });
  assertEquals(got.status, 200);
  const frames = parseSse(got.text);
  assertEquals(frames.map((f) => f.event), [
    "message_start",
    "ping",
    "content_block_start",
    "content_block_delta",
    "content_block_delta",
    "content_block_delta",
    "content_block_stop",
    "content_block_start",
    "content_block_delta",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
  ]);
  const events = sseJson(got.text);
  assert(frames.every((f, i) => f.event === events[i].type));
  const start = events.find((e) => e.type === "content_block_start" && e.index === 1)!;
  assertEquals((start.content_block as { name: string }).name, "Bash");
  const json = events.filter((e) => e.type === "content_block_delta" && e.index === 1)
    .map((e) => (e.delta as { partial_json: string }).partial_json).join("");
  assertEquals(JSON.parse(json), { command: "cat src/pkg/mod.py", description: "Scripted step" });
  const message = events[0].message as { usage: Record<string, number> };
  assertEquals(message.usage.input_tokens, 500, "input minus cache reads and writes");
  assertEquals(message.usage.cache_read_input_tokens, 400);
  assertEquals(message.usage.cache_creation_input_tokens, 100);
  const delta = events.find((e) => e.type === "message_delta")!;
  assertEquals(delta.usage, { output_tokens: 30 });
  assertEquals((delta.delta as { stop_reason: string }).stop_reason, "tool_use");
  const recorded = server.modelRequests()[0];
  assertEquals(recorded.path, "/v1/messages");
  assertEquals(recorded.query, { beta: "true" });
  assertEquals(recorded.headers["x-api-key"], "sk-fake");
  assertEquals(recorded.tools, ["Bash", "Read", "Write", "Edit", "web_search"]);
});

Deno.test("Anthropic: Read, Write and Edit turns use Claude's tools with absolute paths", async () => {
  await using server = startModelServer({
    cwd: "/p",
    script: [
      { read: "a.py" },
      { write: { path: "a.py", content: "a = 1\n" } },
      { edit: { path: "a.py", old: "1", new: "2" } },
    ],
  });
  const calls = [];
  for (let i = 0; i < 3; i++) {
    const body = JSON.parse(
      (await post(server, "/v1/messages", anthropicBody({ stream: false }))).text,
    );
    assertEquals(body.stop_reason, "tool_use");
    calls.push(body.content.at(-1));
  }
  assertEquals(calls.map((c) => [c.name, c.input]), [
    ["Read", { file_path: "/p/a.py" }],
    ["Write", { file_path: "/p/a.py", content: "a = 1\n" }],
    ["Edit", { file_path: "/p/a.py", old_string: "1", new_string: "2" }],
  ]);
});

Deno.test("Anthropic: tool_result blocks are recorded and finish ends the turn", async () => {
  await using server = startModelServer({ script: [{ finish: "Done.", usage: USAGE }] });
  const body = anthropicBody({
    stream: false,
    messages: [
      { role: "user", content: "Fix it." },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Bash", input: {} }] },
      {
        role: "user",
        content: [{
          type: "tool_result",
          tool_use_id: "t1",
          content: [{ type: "text", text: "ok" }],
        }],
      },
    ],
  });
  const message = JSON.parse((await post(server, "/v1/messages", body)).text);
  assertEquals(message.content, [{ type: "text", text: "Done." }]);
  assertEquals(message.stop_reason, "end_turn");
  assertEquals(message.usage, anthropicUsage(USAGE));
  assertEquals(server.modelRequests()[0].toolResults, ["ok"]);
});

Deno.test("Anthropic: count_tokens and the model list answer without consuming turns", async () => {
  await using server = startModelServer({ script: [{ finish: "x" }], models: ["claude-x"] });
  const count = JSON.parse((await post(server, "/v1/messages/count_tokens", anthropicBody())).text);
  assert(count.input_tokens > 0);
  const list = JSON.parse((await get(server, "/v1/models")).text);
  assertEquals(list.data.map((m: { id: string }) => m.id), ["claude-x"]);
  assertEquals(server.played, 0);
});
