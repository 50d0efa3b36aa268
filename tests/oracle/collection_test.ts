/**
 * What static reading cannot see, collection decides: for a fix whose test classes are made by a
 * factory function, the ground truth collects B's own tests and compares them with G's.
 *
 * @module
 */

import { deepEqual, ok } from "node:assert/strict";
import { oracleAll } from "../../lib/oracle/mod.ts";
import { ensureTestEnv, envRequest } from "../../lib/lang/python/env.ts";
import { gapToml, hiddenTests } from "../fixtures/gaps.ts";
import { mineHistory } from "../mine/_history.ts";
import { ENVS_DIR, sandbox, toolsWith } from "../python/_shared.ts";

Deno.test("tests made by a factory are found by collecting B and G, and the collection is a run of its own", async () => {
  await using m = await mineHistory(hiddenTests, {
    toml: gapToml('test-dependencies = ["pytest"]\n\n[run]\nsandbox = "none"\njobs = 2\n'),
  });
  const task = m.task("factory")!;
  ok(task.unsureTests?.length, JSON.stringify(task));
  const env = await ensureTestEnv({ ...envRequest(m.project), envsDir: ENVS_DIR });
  const { file } = await oracleAll(m.project, [task], {
    tools: toolsWith(m.project, env),
    sandbox: await sandbox("none"),
  });
  const o = file.oracles[task.id];
  deepEqual(o.collectedNewTests, [
    "tests/test_factory.py::TestRoundingFast::test_large",
    "tests/test_factory.py::TestRoundingSlow::test_large",
  ]);
  ok(o.runs.some((r) => r.tree === "B-collect"), JSON.stringify(o.runs));
});
