/**
 * Every adapter's transcript reader against the real agent CLIs' recorded runs with the scripted
 * model server (`tests/fixtures/recorded/`): the success script's five tool calls in order, each
 * shell command with the exit code it ended with, the closing summary, and an ATIF export that
 * passes ATIF 1.4's schema.
 *
 * @module
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { builtinAdapters } from "../../adapters/mod.ts";
import { atifSchema, toAtif } from "../../lib/transcript/atif.ts";
import type { TranscriptToolCall } from "../../lib/transcript/types.ts";
import { makeAgent, recordings } from "../adapters/_helpers.ts";

const SUMMARY =
  "Fixed add() in src/pkg/mod.py (it subtracted); added tests/test_extra.py; tests pass.";

for (
  const type of [
    "codex",
    "claude-code",
    "gemini-cli",
    "mini-swe-agent",
    "opencode",
    "qwen-code",
    "copilot",
  ]
) {
  Deno.test(`${type}'s transcript reads the recorded success run: tool calls, exit codes, summary, ATIF`, async () => {
    const agent = makeAgent(builtinAdapters[type], {
      model: type === "opencode" ? "bugbout/fake-model" : "fake-model",
    });
    assert(agent.transcript, `${type} reads a transcript`);
    const runs = (await recordings(type)).filter((r) => r.meta.scenario === "success");
    assert(runs.length > 0);
    for (const run of runs) {
      const steps = await agent.transcript({
        logdir: run.output.logdir,
        stdout: run.output.stdout,
        stderr: run.output.stderr,
      });
      const tools = steps.filter((s): s is TranscriptToolCall => s.kind === "tool");
      // The script: list, read, edit, write a test, run the tests (codex does all five in a shell);
      // mini-swe-agent then says it is done with a command of its own.
      const expected = type === "mini-swe-agent" ? 6 : 5;
      assertEquals(tools.length, expected, `${run.label}: ${tools.map((t) => t.name).join(", ")}`);
      const commands = tools.filter((t) => t.command !== undefined);
      assert(commands.length >= 2, `${run.label}: the shell commands are recognised`);
      assert(commands[0].command!.includes("ls -R src tests"), commands[0].command);
      const testRun = commands.find((c) => c.command!.includes("unittest discover"));
      assert(testRun, `${run.label}: the test run is a command`);
      assertEquals(testRun.exitCode, 0);
      assert(testRun.output?.includes("OK"), `${run.label}: its output: ${testRun.output}`);
      const last = steps.findLast((s) => s.kind === "message" && s.role === "agent");
      assertEquals(last?.kind === "message" ? last.text.trim() : undefined, SUMMARY);
      const atif = toAtif({
        agent: type,
        model: "fake-model",
        source: "recorded",
        steps,
        tokens: { input: 7500, cachedInput: 2400, output: 135 },
      }, `task/${type}`);
      const parsed = atifSchema.safeParse(JSON.parse(JSON.stringify(atif)));
      assert(parsed.success, JSON.stringify(parsed.error?.issues));
      const calls = atif.steps.flatMap((s) => s.tool_calls ?? []);
      assertEquals(calls.length, expected);
      const codes = atif.steps.flatMap((s) => Object.values((s.extra?.exit_codes ?? {}) as object));
      assert(codes.includes(0), "exit codes are kept in the steps' extra");
      assertEquals(atif.final_metrics?.total_prompt_tokens, 7500);
    }
  });
}

Deno.test("the ATIF schema refuses what ATIF 1.4 does not allow: unknown fields, gaps, stray results", () => {
  const good = toAtif({
    agent: "x",
    source: "t",
    steps: [{ kind: "message", role: "user", text: "hi" }],
  }, "s");
  assert(atifSchema.safeParse(good).success);
  assert(!atifSchema.safeParse({ ...good, steps: [{ ...good.steps[0], step_id: 2 }] }).success);
  assert(!atifSchema.safeParse({ ...good, surprise: 1 }).success);
  assert(
    !atifSchema.safeParse({
      ...good,
      steps: [{
        step_id: 1,
        source: "agent",
        message: "",
        observation: { results: [{ source_call_id: "nope", content: "" }] },
      }],
    }).success,
  );
  assert(
    !atifSchema.safeParse({
      ...good,
      steps: [{ step_id: 1, source: "user", message: "", model_name: "m" }],
    }).success,
  );
});
