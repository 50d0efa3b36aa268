/**
 * Tests pytest collects through an import (issue #23, class 1): a module `python_files` does not
 * name holds tests when a collected module imports it, as lark's `tests/__main__.py` does.
 *
 * @module
 */

import { deepEqual, equal, match } from "node:assert/strict";
import { collectedThroughImport, markTakenOff } from "../fixtures/shapes.ts";
import { gapToml } from "../fixtures/gaps.ts";
import { mineHistory } from "./_history.ts";

Deno.test('tests imported into a collected module count under python_files = "__main__.py"', async () => {
  await using m = await mineHistory(collectedThroughImport, { toml: gapToml() });
  const task = m.task("imported");
  deepEqual(
    [task?.id, task?.testFiles, task?.newTests],
    ["pr-14", ["tests/test_trees.py"], ["tests/test_trees.py::TestTrees::test_total_of_none"]],
  );
  // A module of the tests that defines a test but that no collected module imports adds none.
  const helper = m.excluded("helper");
  equal(helper?.reason, "no-test-added");
  match(helper?.detail ?? "", /tests\/helpers\.py/);
});

Deno.test("a test whose xfail mark a fix takes off is a changed test, the mark on one line or several", async () => {
  await using m = await mineHistory(markTakenOff, { toml: gapToml() });
  // pytest-dev/pytest 9d879be: the mark and the comment above it removed, nothing else.
  deepEqual(m.task("xfail")?.newTests, ["tests/test_cart.py::TestRounding::test_half"]);
  deepEqual(m.task("multiline")?.newTests, [
    "tests/test_cart.py::TestRounding::test_negative_half",
  ]);
});
