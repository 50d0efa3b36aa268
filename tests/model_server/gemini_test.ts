import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { geminiBody, get, post } from "./_helpers.ts";
import { geminiUsage } from "./gemini_wire.ts";
import { startModelServer } from "./server.ts";
import { sseJson } from "./sse.ts";

const USAGE = { input: 900, output: 50, cachedInput: 100, reasoning: 10 };
const STREAM = "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse";

type Chunk = {
  candidates: { content: { parts: Record<string, unknown>[] }; finishReason?: string }[];
  usageMetadata?: Record<string, number>;
  modelVersion: string;
};

Deno.test("Gemini: a run turn streams a run_shell_command functionCall and usageMetadata", async () => {
  await using server = startModelServer({
    script: [{ run: "ls src", say: "Let me list the files.", usage: USAGE }],
  });
  const got = await post(server, STREAM, geminiBody(), { "x-goog-api-key": "k" });
  assertEquals(got.headers.get("content-type"), "text/event-stream");
  const chunks = sseJson(got.text) as unknown as Chunk[];
  const parts = chunks.flatMap((c) => c.candidates[0].content.parts);
  assertEquals(parts.filter((p) => p.text).map((p) => p.text).join(""), "Let me list the files.");
  const call = parts.find((p) => p.functionCall)!.functionCall as Record<string, unknown>;
  assertEquals(call.name, "run_shell_command");
  assertEquals(call.args, { command: "ls src", description: "Scripted step" });
  const last = chunks.at(-1)!;
  assertEquals(last.candidates[0].finishReason, "STOP");
  assertEquals(last.usageMetadata, geminiUsage(USAGE));
  assertEquals(last.usageMetadata, {
    promptTokenCount: 900,
    candidatesTokenCount: 40,
    totalTokenCount: 950,
    cachedContentTokenCount: 100,
    thoughtsTokenCount: 10,
  });
  assertEquals(last.modelVersion, "gemini-2.5-pro");
  assert(chunks.slice(0, -1).every((c) => c.usageMetadata === undefined));
  const recorded = server.modelRequests()[0];
  assertEquals(recorded.model, "gemini-2.5-pro");
  assertEquals(recorded.stream, true);
  assertEquals(recorded.tools, ["run_shell_command", "read_file", "write_file", "replace"]);
});

Deno.test("Gemini: write and edit turns use write_file and replace, filling instruction", async () => {
  await using server = startModelServer({
    cwd: "/p",
    script: [
      { write: { path: "a.py", content: "a = 1\n" } },
      { edit: { path: "a.py", old: "1", new: "2" } },
    ],
  });
  const calls = [];
  for (let i = 0; i < 2; i++) {
    const chunks = sseJson((await post(server, STREAM, geminiBody())).text) as unknown as Chunk[];
    calls.push(chunks.flatMap((c) => c.candidates[0].content.parts).find((p) => p.functionCall));
  }
  assertEquals(calls.map((c) => c!.functionCall), [
    { id: "call_0", name: "write_file", args: { file_path: "/p/a.py", content: "a = 1\n" } },
    {
      id: "call_1",
      name: "replace",
      args: { file_path: "/p/a.py", old_string: "1", new_string: "2", instruction: "scripted" },
    },
  ]);
});

Deno.test("Gemini: functionResponse parts are recorded as tool results", async () => {
  await using server = startModelServer({ script: [{ finish: "Done." }] });
  const body = geminiBody({
    contents: [
      { role: "user", parts: [{ text: "Fix it." }] },
      { role: "model", parts: [{ functionCall: { name: "run_shell_command", args: {} } }] },
      {
        role: "user",
        parts: [{
          functionResponse: { name: "run_shell_command", response: { output: "a.py\n" } },
        }],
      },
    ],
  });
  const chunks = sseJson((await post(server, STREAM, body)).text) as unknown as Chunk[];
  assertEquals(
    chunks.flatMap((c) => c.candidates[0].content.parts).map((p) => p.text).join(""),
    "Done.",
  );
  assertEquals(server.modelRequests()[0].toolResults, ["a.py\n"]);
});

Deno.test("Gemini: generateContent answers in JSON; a stream without alt=sse is a JSON array", async () => {
  await using server = startModelServer({ script: [{ finish: "One." }, { finish: "Two." }] });
  const plain = await post(server, "/v1beta/models/g:generateContent", geminiBody());
  assertEquals(JSON.parse(plain.text).candidates[0].content.parts, [{ text: "One." }]);
  assertEquals(server.modelRequests()[0].stream, false);
  const array = await post(server, "/v1beta/models/g:streamGenerateContent", geminiBody());
  const chunks = JSON.parse(array.text) as Chunk[];
  assertEquals(
    chunks.flatMap((c) => c.candidates[0].content.parts).map((p) => p.text).join(""),
    "Two.",
  );
  const list = JSON.parse((await get(server, "/v1beta/models")).text);
  assertEquals(list.models[0].name, "models/fake-model");
});
