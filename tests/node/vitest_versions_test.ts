/**
 * vitest 1 and a current vitest, each installed from the registry into a small project of the
 * shape real packages have (a `describe` holding tests, a top-level test): the ids the harness
 * reports must be the ids the static reader gives, or every agent's and examiner's test is
 * `not-run` on every tree.
 */
import { deepEqual, equal } from "node:assert/strict";
import { join } from "node:path";
import { openNodeRunner } from "../../lib/lang/node/mod.ts";
import { lockfileFor, vitestPackage } from "../fixtures/node_project.ts";
import { ENVS, LOCKS, sandbox, tempDir, writeFiles } from "./_shared.ts";

const TEST_FILE = `import { describe, expect, it, test } from "vitest";
import { merge } from "../src/merge";

describe("merge", () => {
  it("works with arrays", () => {
    expect(merge([1], [2])).toEqual([1, 2]);
  });
  describe("objects", () => {
    it("keeps both keys", () => {
      expect(merge({ a: 1 }, { b: 2 })).toEqual({ a: 1, b: 2 });
    });
  });
});

test("merges nothing", () => {
  expect(merge([], [])).toEqual([]);
});
`;

const MERGE = `export function merge(a: any, b: any): any {
  return Array.isArray(a) ? [...a, ...b] : { ...a, ...b };
}
`;

for (const version of ["1.6.0", "4.1.12"]) {
  Deno.test(`vitest ${version}: reported ids are the static ids, with no empty suite`, async () => {
    await using tmp = await tempDir();
    const tree = join(tmp.path, "tree");
    const pkg = vitestPackage("merger", version);
    await writeFiles(tree, {
      "package.json": pkg,
      "package-lock.json": await lockfileFor(pkg, LOCKS),
      "src/merge.ts": MERGE,
      "test/merge.test.ts": TEST_FILE,
    });
    const real = await Deno.realPath(tree);
    const runner = await openNodeRunner(real);
    equal(runner.name, "vitest");
    const env = await runner.prepare(real, ENVS);
    const expected = [
      "test/merge.test.ts > merge > works with arrays",
      "test/merge.test.ts > merge > objects > keeps both keys",
      "test/merge.test.ts > merges nothing",
    ];
    const [declared] = await runner.readTests([
      { path: "test/merge.test.ts", before: null, after: TEST_FILE },
    ]);
    deepEqual(declared.kind === "tests" ? declared.ids.sort() : declared, [...expected].sort());
    // Whole file, then the tests asked for by id (as agents' and examiners' tests are).
    const whole = await runner.run({
      sandbox: await sandbox("bubblewrap"),
      env,
      tree: real,
      groups: [["test/merge.test.ts"], expected],
      timeoutMs: 120_000,
      memoryMb: 4096,
      scratch: join(tmp.path, "scratch"),
    });
    equal(whole.status, "ok", whole.message);
    const passed = Object.fromEntries(expected.map((id) => [id, "passed"]));
    deepEqual(whole.groups[0].outcomes, passed);
    deepEqual(whole.groups[1].outcomes, passed);
  });
}
