/** One run from its groups, the same for every language's runner. */

import { deepEqual, equal } from "node:assert/strict";
import { mergeGroups } from "../../lib/lang/results.ts";
import type { RunnerGroupRun } from "../../lib/lang/types.ts";
import type { GuardEvent } from "../../lib/records.ts";

const event: GuardEvent = { what: "forged a result", where: "" };

function group(part: Partial<RunnerGroupRun>): RunnerGroupRun {
  return {
    status: "ok",
    complete: true,
    outcomes: {},
    durations: {},
    tamper: [],
    suspect: [],
    ...part,
  };
}

Deno.test("mergeGroups: a later timeout never hides an earlier group's tampering", () => {
  const run = mergeGroups([
    group({ status: "tampered", outcomes: { a: "passed" }, tamper: [event], message: "forged" }),
    group({ status: "timeout", outcomes: { b: "not-run" }, message: "hung" }),
  ], 5);
  equal(run.status, "tampered");
  equal(run.message, "forged");
  deepEqual(run.outcomes, { a: "passed", b: "not-run" });
  deepEqual(run.tamper, [event]);
  equal(run.durationMs, 5);
});

Deno.test("mergeGroups: an infrastructure error keeps its cause, or reads it from the message", () => {
  const given = mergeGroups([group({ status: "infra-error", cause: "sandbox", message: "x" })], 1);
  equal(given.cause, "sandbox");
  const read = mergeGroups([
    group({ status: "infra-error", message: "go test could not run this tree: no go.mod" }),
    group({ status: "infra-error", message: "go test could not run this tree: no go.mod" }),
    group({ status: "ok", failures: { t: "boom" } }),
  ], 1);
  equal(read.cause, "unrunnable");
  equal(read.message, "go test could not run this tree: no go.mod");
  deepEqual(read.failures, { t: "boom" });
  equal(mergeGroups([group({})], 1).failures, undefined);
});
