/**
 * The guard's coverage by test (`cover`), as test selection reads it: which functions of the
 * tree's non-test files each test started, what ran outside any one test, and no coverage at all
 * when the tree replaced the profile hook.
 */

import { deepEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import type { TestEnv } from "../../lib/lang/python/env.ts";
import { runPytest } from "../../lib/lang/python/pytest.ts";
import { sharedEnv } from "./_project.ts";
import { sandbox, tempDir, writeFiles } from "./_shared.ts";

let envPromise: Promise<TestEnv> | undefined;
let envTmp: string | undefined;
function env(): Promise<TestEnv> {
  envPromise ??= (async () => {
    envTmp = await Deno.realPath(await Deno.makeTempDir({ prefix: "bugbout-env-" }));
    return await sharedEnv(envTmp);
  })();
  return envPromise;
}
globalThis.addEventListener("unload", () => {
  if (envTmp) Deno.removeSync(envTmp, { recursive: true });
});

const PKG = {
  "pkg/__init__.py": "",
  "pkg/a.py":
    "def table():\n    return {1: 2}\n\n\nTABLE = table()\n\n\ndef f():\n    return g()\n\n\n" +
    "def g():\n    return 1\n",
  "pkg/b.py": "def h():\n    return 2\n\n\ndef made():\n    return 3\n",
  "tests/test_x.py":
    "import pytest\n\nfrom pkg.a import f, TABLE\nfrom pkg.b import h, made\n\n\n" +
    '@pytest.fixture(scope="module")\ndef shared():\n    return made()\n\n\n' +
    "def test_f():\n    assert f() == 1\n\n\ndef test_h(shared):\n    assert h() == 2\n",
};

async function covered(files: Record<string, string>) {
  await using tmp = await tempDir();
  const tree = join(tmp.path, "tree");
  await writeFiles(tree, files);
  return await runPytest({
    sandbox: await sandbox("bubblewrap"),
    env: await env(),
    tree,
    targets: [],
    groups: [["tests/test_x.py"]],
    cover: [0],
    timeoutMs: 60_000,
    memoryMb: 1024,
    scratch: join(tmp.path, "runs"),
  });
}

Deno.test("the guard records, by test, the functions of the tree's non-test files each test started", async () => {
  const run = await covered(PKG);
  equal(run.status, "ok", run.message);
  const coverage = run.groups[0].coverage;
  ok(coverage, "coverage recorded");
  const names = (ids: readonly number[]) => ids.map((i) => coverage.locations[i]).sort();
  deepEqual(names(coverage.tests["tests/test_x.py::test_f"]), ["pkg/a.py:12", "pkg/a.py:8"]);
  deepEqual(names(coverage.tests["tests/test_x.py::test_h"]), ["pkg/b.py:1"]);
  // Imports and the module-scoped fixture ran outside any one test.
  const outside = names(coverage.outside);
  ok(outside.includes("pkg/a.py:1") && outside.includes("pkg/b.py:5"), outside.join(" "));
});

Deno.test("a tree that replaces the profile hook leaves no coverage, so selection runs the whole suite", async () => {
  const run = await covered({
    ...PKG,
    "pkg/b.py": "import sys\n\n\ndef h():\n    sys.setprofile(None)\n    return 2\n\n\n" +
      "def made():\n    return 3\n",
  });
  equal(run.status, "ok", run.message);
  equal(run.groups[0].coverage, undefined);
});
