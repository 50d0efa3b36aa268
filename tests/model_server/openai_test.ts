import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import {
  chatBodyTools,
  chatTool,
  chatToolCall,
  miniBody,
  opencodeBody,
  post,
  responsesBody,
} from "./_helpers.ts";
import { chatUsage, responsesUsage } from "./openai_wire.ts";
import { startModelServer } from "./server.ts";
import { sseJson } from "./sse.ts";

const USAGE = { input: 1200, output: 40, cachedInput: 300, reasoning: 7 };

Deno.test("Responses: a run turn streams an exec_command function_call and the usage", async () => {
  await using server = startModelServer({
    script: [{ run: "cat src/pkg/mod.py", say: "Looking.", usage: USAGE }],
  });
  const got = await post(server, "/v1/responses", responsesBody());
  assertEquals(got.status, 200);
  assertEquals(got.headers.get("content-type"), "text/event-stream");
  const events = sseJson(got.text);
  assertEquals(events[0].type, "response.created");
  assertEquals(events.at(-1)!.type, "response.completed");
  const done = events.filter((e) => e.type === "response.output_item.done")
    .map((e) => e.item as Record<string, unknown>);
  assertEquals(done.map((i) => i.type), ["message", "function_call"]);
  const call = done[1];
  assertEquals(call.name, "exec_command");
  assertEquals(JSON.parse(String(call.arguments)), { cmd: "cat src/pkg/mod.py" });
  const deltas = events.filter((e) => e.type === "response.function_call_arguments.delta")
    .map((e) => e.delta).join("");
  assertEquals(deltas, call.arguments);
  const text = events.filter((e) => e.type === "response.output_text.delta").map((e) => e.delta);
  assertEquals(text.join(""), "Looking.");
  const completed = events.at(-1)!.response as Record<string, unknown>;
  assertEquals(completed.usage, responsesUsage(USAGE));
  assertEquals(completed.usage, {
    input_tokens: 1200,
    input_tokens_details: { cached_tokens: 300 },
    output_tokens: 40,
    output_tokens_details: { reasoning_tokens: 7 },
    total_tokens: 1240,
  });
});

Deno.test("Responses: the next request's function_call_output is recorded as a tool result", async () => {
  await using server = startModelServer({ script: [{ run: "ls" }, { finish: "All done." }] });
  await post(server, "/v1/responses", responsesBody());
  const second = responsesBody({
    input: [
      { type: "message", role: "user", content: [{ type: "input_text", text: "Fix it." }] },
      { type: "function_call", call_id: "call_0", name: "exec_command", arguments: "{}" },
      { type: "function_call_output", call_id: "call_0", output: "README.md\nsrc\n" },
    ],
  });
  const got = await post(server, "/v1/responses", second);
  const events = sseJson(got.text);
  const done = events.filter((e) => e.type === "response.output_item.done");
  assertEquals(done.length, 1);
  assertEquals((done[0].item as { content: { text: string }[] }).content[0].text, "All done.");
  const [first, again] = server.modelRequests();
  assertEquals(first.tools, ["exec_command", "web_search"]);
  assertEquals(first.toolResults, []);
  assertEquals(again.toolResults, ["README.md\nsrc\n"]);
  assert(again.text.includes("You are Codex.") && again.text.includes("Fix it."));
  assertEquals([first.turn, again.turn], [0, 1]);
});

Deno.test("Responses: a non-streamed request gets one JSON response object", async () => {
  await using server = startModelServer({ script: [{ finish: "Plain." }] });
  const got = await post(server, "/v1/responses", responsesBody({ stream: false }));
  assertEquals(got.headers.get("content-type"), "application/json");
  const body = JSON.parse(got.text);
  assertEquals(body.status, "completed");
  assertEquals(body.output[0].content[0].text, "Plain.");
});

Deno.test("Chat: streamed tool_calls deltas reassemble into opencode's bash call", async () => {
  await using server = startModelServer({ script: [{ run: "pytest -q", usage: USAGE }] });
  const got = await post(server, "/v1/chat/completions", opencodeBody());
  const chunks = sseJson(got.text);
  assert(got.text.trimEnd().endsWith("data: [DONE]"));
  const call = chatToolCall(chunks);
  assertEquals(call.name, "bash");
  assertEquals(JSON.parse(call.arguments), { command: "pytest -q" });
  const finish = chunks.flatMap((c) => c.choices as { finish_reason: string | null }[])
    .map((c) => c.finish_reason).filter(Boolean);
  assertEquals(finish, ["tool_calls"]);
  const last = chunks.at(-1)!;
  assertEquals(last.choices, []);
  assertEquals(last.usage, chatUsage(USAGE));
  assertEquals((last.usage as { prompt_tokens: number }).prompt_tokens, 1200);
});

Deno.test("Chat: opencode's write and edit tools get camelCase arguments under cwd", async () => {
  await using server = startModelServer({
    cwd: "/work/project",
    script: [
      { write: { path: "src/new.py", content: "x = 1\n" } },
      { edit: { path: "src/new.py", old: "1", new: "2" } },
    ],
  });
  const write = chatToolCall(
    sseJson((await post(server, "/v1/chat/completions", opencodeBody())).text),
  );
  assertEquals(write.name, "write");
  assertEquals(JSON.parse(write.arguments), {
    filePath: "/work/project/src/new.py",
    content: "x = 1\n",
  });
  const edit = chatToolCall(
    sseJson((await post(server, "/v1/chat/completions", opencodeBody())).text),
  );
  assertEquals(edit.name, "edit");
  assertEquals(JSON.parse(edit.arguments), {
    filePath: "/work/project/src/new.py",
    oldString: "1",
    newString: "2",
  });
});

Deno.test("Chat: mini-swe-agent gets plain JSON with tool_calls and finishes by submitting", async () => {
  await using server = startModelServer({
    script: [{ write: { path: "a.py", content: "a = 1\n" } }, { finish: "Fixed it." }],
  });
  const first = JSON.parse((await post(server, "/v1/chat/completions", miniBody())).text);
  assertEquals(first.object, "chat.completion");
  assertEquals(first.choices[0].finish_reason, "tool_calls");
  const command = JSON.parse(first.choices[0].message.tool_calls[0].function.arguments).command;
  assert(command.startsWith("cat > 'a.py' <<'BUGBOUT_EOF'\na = 1\n"), command);
  const last = JSON.parse((await post(server, "/v1/chat/completions", miniBody())).text);
  const submit = JSON.parse(last.choices[0].message.tool_calls[0].function.arguments).command;
  assertEquals(
    submit,
    "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && printf '%s\\n' 'Fixed it.'",
  );
  assertEquals(first.usage.total_tokens, 123);
});

Deno.test("Chat: a tool-less request is auxiliary and does not consume a turn", async () => {
  await using server = startModelServer({
    script: [{ run: "ls", usage: USAGE }],
    auxText: "Title: fixing add",
  });
  const title = sseJson(
    (await post(server, "/v1/chat/completions", { model: "m", stream: true, messages: [] })).text,
  );
  const text = title.flatMap((c) => c.choices as { delta: { content?: string } }[])
    .map((c) => c.delta.content ?? "").join("");
  assertEquals(text, "Title: fixing add");
  assertEquals(server.played, 0);
  const call = chatToolCall(
    sseJson((await post(server, "/v1/chat/completions", chatBodyTools())).text),
  );
  assertEquals(call.name, "run_shell_command");
  assertEquals(server.modelRequests().map((r) => r.role), ["aux", "turn"]);
  assertEquals(server.usageSent().input, 1200);
  assertEquals(server.usageSent({ aux: true }).input, 1210);
});

Deno.test("Chat: a turn no offered tool can do is answered in text and recorded as a problem", async () => {
  await using server = startModelServer({ script: [{ run: "ls" }] });
  const body = {
    model: "m",
    messages: [],
    tools: [chatTool("todo_write", { todos: { type: "array" } }, [])],
  };
  const got = JSON.parse((await post(server, "/v1/chat/completions", body)).text);
  assert(got.choices[0].message.content.includes("no offered tool can do a run"));
  assertEquals(server.requests[0].problem, "no offered tool can do a run (tools: todo_write)");
});
