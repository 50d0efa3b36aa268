/**
 * `docs/report.schema.json`: generated from the report's zod schema (one source of truth), and a
 * built report valid against the file on disk.
 */

import { deepEqual, equal, ok } from "node:assert/strict";
import { buildReport } from "../../lib/report/build.ts";
import { renderJson } from "../../lib/report/json.ts";
import { fixtureInput } from "./fixture.ts";
import { validate } from "./_json_schema.ts";
import { SCHEMA_PATH, schemaText } from "./write_schema.ts";

const onDisk = await Deno.readTextFile(SCHEMA_PATH);
const schema = JSON.parse(onDisk);

Deno.test("docs/report.schema.json is the schema generated from reportSchema", () => {
  equal(
    onDisk,
    schemaText(),
    "docs/report.schema.json is stale: run `deno run -A tests/report/write_schema.ts`",
  );
  equal(schema.$schema, "https://json-schema.org/draft/2020-12/schema");
  equal(schema.title, "bugbout report");
});

Deno.test("a built report is valid against docs/report.schema.json", () => {
  const report = JSON.parse(renderJson(buildReport(fixtureInput())));
  deepEqual(validate(schema, report), []);
  // Attempts under several sandboxes, and a bout with no scored task.
  const input = fixtureInput();
  input.attempts = input.attempts.map((a, i) => ({ ...a, sandbox: i % 2 ? "seatbelt" : "none" }));
  input.resolutions = {};
  const mixed = JSON.parse(renderJson(buildReport(input)));
  deepEqual([mixed.sandbox.mode, typeof mixed.noScoredTask], ["mixed", "string"]);
  deepEqual(validate(schema, mixed), []);
});

Deno.test("docs/report.schema.json rejects a report that breaks it", () => {
  const report = JSON.parse(renderJson(buildReport(fixtureInput())));
  report.kind = "verdicts";
  delete report.agents[0].resolveRate.low;
  report.agents[1].outcomes.resolved = -1;
  report.tasks[0].agents[0].attempts[0].outcome = "fixed-ish";
  report.picking.judge.rate.rate = 1.5;
  report.sandbox.extra = true;
  const errors = validate(schema, report);
  for (
    const where of [
      "$.kind",
      "$.agents[0].resolveRate: missing low",
      "$.agents[1].outcomes.resolved",
      "$.tasks[0].agents[0].attempts[0].outcome",
      "$.picking.judge.rate.rate",
      "$.sandbox: unexpected extra",
    ]
  ) {
    ok(errors.some((e) => e.startsWith(where)), `no error at ${where}: ${errors.join("; ")}`);
  }
});
