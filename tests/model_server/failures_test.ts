import { deepStrictEqual as assertEquals, ok as assert, rejects } from "node:assert/strict";
import { anthropicBody, geminiBody, miniBody, post, responsesBody } from "./_helpers.ts";
import { GEMINI_DAILY_QUOTA_ID, OPENAI_QUOTA_MESSAGE } from "./failures.ts";
import { startModelServer } from "./server.ts";
import { sseJson } from "./sse.ts";

const GEMINI = "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse";

Deno.test("quota: each API answers 429 with its vendor's quota body", async () => {
  await using server = startModelServer({ failure: { kind: "quota" } });
  const responses = await post(server, "/v1/responses", responsesBody());
  assertEquals(responses.status, 429);
  assertEquals(JSON.parse(responses.text).error, {
    message: OPENAI_QUOTA_MESSAGE,
    type: "insufficient_quota",
    param: null,
    code: "insufficient_quota",
  });
  const chat = await post(server, "/v1/chat/completions", miniBody());
  assertEquals(JSON.parse(chat.text).error.code, "insufficient_quota");
  const anthropic = await post(server, "/v1/messages?beta=true", anthropicBody());
  assertEquals(anthropic.status, 429);
  assertEquals(JSON.parse(anthropic.text).type, "error");
  assertEquals(JSON.parse(anthropic.text).error.type, "rate_limit_error");
  const gemini = await post(server, GEMINI, geminiBody());
  const error = JSON.parse(gemini.text).error;
  assertEquals([gemini.status, error.code, error.status], [429, 429, "RESOURCE_EXHAUSTED"]);
  const failure = error.details.find((d: Record<string, string>) =>
    d["@type"].endsWith("QuotaFailure")
  );
  assertEquals(failure.violations[0].quotaId, GEMINI_DAILY_QUOTA_ID);
  assert(GEMINI_DAILY_QUOTA_ID.includes("PerDay"));
  assertEquals(server.modelRequests().map((r) => [r.role, r.status]), [
    ["failure", 429],
    ["failure", 429],
    ["failure", 429],
    ["failure", 429],
  ]);
});

Deno.test("quota: codex's usage_limit_reached and gemini's retryable flavor, with retry-after", async () => {
  await using server = startModelServer();
  server.fail({ kind: "quota", flavor: "usage_limit_reached", retryAfterSeconds: 2 });
  const codex = await post(server, "/v1/responses", responsesBody());
  assertEquals(codex.headers.get("retry-after"), "2");
  const error = JSON.parse(codex.text).error;
  assertEquals([error.type, error.plan_type], ["usage_limit_reached", "plus"]);
  assert(error.resets_at > Date.now() / 1000);
  server.fail({ kind: "quota", flavor: "per_minute" });
  const details = JSON.parse((await post(server, GEMINI, geminiBody())).text).error.details;
  const ids = details.map((d: Record<string, string>) => d["@type"].split(".").at(-1));
  assertEquals(ids, ["QuotaFailure", "Help", "RetryInfo"]);
  assert(!JSON.stringify(details).includes("PerDay"));
});

Deno.test("status: 5xx and 400 come in each API's error shape", async () => {
  await using server = startModelServer({ failure: { kind: "status", status: 500 } });
  const openai = await post(server, "/v1/chat/completions", miniBody());
  assertEquals([openai.status, JSON.parse(openai.text).error.type], [500, "server_error"]);
  server.fail({ kind: "status", status: 400, message: "bad tool schema" });
  const anthropic = JSON.parse((await post(server, "/v1/messages", anthropicBody())).text);
  assertEquals(anthropic.error, { type: "invalid_request_error", message: "bad tool schema" });
  server.fail({ kind: "status", status: 529 });
  const overloaded = JSON.parse((await post(server, "/v1/messages", anthropicBody())).text);
  assertEquals(overloaded.error.type, "overloaded_error");
  server.fail({ kind: "status", status: 503 });
  const gemini = JSON.parse((await post(server, GEMINI, geminiBody())).text);
  assertEquals([gemini.error.code, gemini.error.status], [503, "UNAVAILABLE"]);
});

Deno.test("fail(times) then healthy(): failed requests do not consume turns", async () => {
  await using server = startModelServer({ script: [{ run: "ls" }, { finish: "Done." }] });
  server.fail({ kind: "quota" }, { times: 2 });
  assertEquals((await post(server, "/v1/chat/completions", miniBody())).status, 429);
  assertEquals((await post(server, "/v1/chat/completions", miniBody())).status, 429);
  const ok = JSON.parse((await post(server, "/v1/chat/completions", miniBody())).text);
  assertEquals(JSON.parse(ok.choices[0].message.tool_calls[0].function.arguments).command, "ls");
  server.fail({ kind: "quota" });
  assertEquals((await post(server, "/v1/chat/completions", miniBody())).status, 429);
  server.healthy();
  const last = JSON.parse((await post(server, "/v1/chat/completions", miniBody())).text);
  assert(last.choices[0].message.tool_calls[0].function.arguments.includes("Done."));
  assertEquals(server.modelRequests().map((r) => r.turn ?? null), [null, null, 0, null, 1]);
});

Deno.test("a fail turn in the script fails one request and is consumed", async () => {
  await using server = startModelServer({
    script: [{ fail: { kind: "status", status: 500 } }, { finish: "Recovered." }],
  });
  assertEquals((await post(server, "/v1/chat/completions", miniBody())).status, 500);
  const ok = JSON.parse((await post(server, "/v1/chat/completions", miniBody())).text);
  assert(ok.choices[0].message.tool_calls[0].function.arguments.includes("Recovered."));
  assertEquals(server.modelRequests().map((r) => [r.turn, r.turnKind]), [[0, "fail"], [
    1,
    "finish",
  ]]);
});

Deno.test("slow: every stream event waits delayMs, and the answer is complete", async () => {
  await using server = startModelServer({ script: [{ run: "ls" }] });
  server.fail({ kind: "slow", delayMs: 40 });
  const started = performance.now();
  const got = await post(server, "/v1/responses", responsesBody());
  const elapsed = performance.now() - started;
  const events = sseJson(got.text);
  assertEquals(events.at(-1)!.type, "response.completed");
  assert(elapsed >= 40 * events.length * 0.9, `${elapsed} ms for ${events.length} events`);
  assertEquals(server.played, 1);
});

Deno.test("truncate: the stream ends before its completion event and the turn is kept", async () => {
  await using server = startModelServer({ script: [{ run: "ls" }] });
  server.fail({ kind: "truncate" }, { times: 1 });
  const cut = sseJson((await post(server, "/v1/responses", responsesBody())).text);
  assert(cut.length > 0);
  assert(!cut.some((e) => e.type === "response.completed"));
  assertEquals(server.played, 0);
  const whole = sseJson((await post(server, "/v1/responses", responsesBody())).text);
  assertEquals(whole.at(-1)!.type, "response.completed");
  assertEquals(server.played, 1);
  assertEquals(server.modelRequests().map((r) => r.role), ["failure", "turn"]);
});

Deno.test("truncate with abort: the client sees the connection break mid-body", async () => {
  await using server = startModelServer({ script: [{ run: "ls" }] });
  server.fail({ kind: "truncate", abort: true });
  const response = await fetch(`${server.url}/v1/messages`, {
    method: "POST",
    body: JSON.stringify(anthropicBody()),
  });
  assertEquals(response.status, 200);
  await rejects(response.text());
});

Deno.test("hang: the first event arrives, then nothing until the server closes", async () => {
  const server = startModelServer({ script: [{ run: "ls" }] });
  server.fail({ kind: "hang" });
  const response = await fetch(`${server.url}${GEMINI}`, {
    method: "POST",
    body: JSON.stringify(geminiBody()),
  });
  const reader = response.body!.getReader();
  const first = await reader.read();
  assert(!first.done && new TextDecoder().decode(first.value).startsWith("data: "));
  const timeout = new Promise<"waiting">((resolve) => {
    const id = setTimeout(() => resolve("waiting"), 200);
    Deno.unrefTimer(id);
  });
  const next = reader.read();
  assertEquals(await Promise.race([next.then(() => "more"), timeout]), "waiting");
  await server.close();
  assertEquals((await next).done, true);
  assertEquals(server.played, 0);
});

Deno.test("a slow fail turn delivers the next turn slowly and consumes both", async () => {
  await using server = startModelServer({
    script: [{ fail: { kind: "slow", delayMs: 5 } }, { run: "ls" }, { finish: "Done." }],
  });
  const body = JSON.parse((await post(server, "/v1/chat/completions", miniBody())).text);
  assertEquals(JSON.parse(body.choices[0].message.tool_calls[0].function.arguments).command, "ls");
  assertEquals(server.played, 2);
  assertEquals(server.modelRequests()[0].failure, { kind: "slow", delayMs: 5 });
});
