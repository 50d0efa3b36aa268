/**
 * Tests pytest collects through an import (issue #23, class 1): a module `python_files` does not
 * name holds tests when a collected module imports it, as lark's `tests/__main__.py` does.
 *
 * @module
 */

import { deepEqual, equal, match } from "node:assert/strict";
import { collectedThroughImport } from "../fixtures/shapes.ts";
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
