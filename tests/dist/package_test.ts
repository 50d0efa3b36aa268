/**
 * The JSR package is complete: what `deno publish` would upload holds every module `main.ts`
 * reaches and bugbout's Python helpers, and nothing shipped imports tests or benches. The check
 * is proven to fail on a planted graph and on a planted import in a copy of the package.
 *
 * @module
 */

import { deepEqual, ok } from "node:assert/strict";
import { dirname, join } from "node:path";
import { filesByExclude, type PackageFacts, packageFacts, packageProblems } from "./_package.ts";
import { ROOT, tempDir } from "../_helpers.ts";

let facts: Promise<PackageFacts> | undefined;
/** This checkout's facts, computed once for the whole file. */
function ours(): Promise<PackageFacts> {
  return facts ??= packageFacts(ROOT);
}

Deno.test("deno publish uploads every module main.ts reaches and bugbout's Python helpers", async () => {
  const here = await ours();
  deepEqual(packageProblems(here), []);
  for (const helper of ["lib/lang/python/_guard.ts", "lib/lang/python/changed_tests.ts"]) {
    ok(here.helpers.includes(helper), `${helper} is found as a Python helper`);
  }
  for (const file of ["main.ts", "deno.json", "README.md", "LICENSE", "lib/sandbox/bridge.ts"]) {
    ok(here.published.includes(file), `${file} is published`);
  }
  deepEqual(
    here.published.filter((f) => /^(tests|bench|scripts|dist|\.github|\.ci)\//.test(f)),
    [],
  );
});

Deno.test("the files chosen from deno.json and .gitignore are the ones deno publish uploads", async () => {
  deepEqual(await filesByExclude(ROOT), (await ours()).published);
});

Deno.test("the package check fails on a planted graph: tests, a file outside, an excluded file, a missing helper", async () => {
  const here = await ours();
  const planted: PackageFacts = {
    ...here,
    modules: [
      ...here.modules,
      `file://${ROOT}/tests/fixtures/planted.ts`,
      `file://${dirname(ROOT)}/elsewhere/planted.ts`,
      `file://${ROOT}/scripts/compile.ts`,
      "https://example.invalid/planted.ts",
    ],
    helpers: [...here.helpers, "lib/lang/python/_plugin.py"],
    assets: ["lib/lang/python/_hook.py"],
  };
  deepEqual(packageProblems(planted), [
    "main.ts reaches tests/fixtures/planted.ts: shipped code must not import tests or benches",
    "main.ts reaches ../elsewhere/planted.ts, outside the package",
    "main.ts reaches scripts/compile.ts, which deno publish leaves out (deno.json publish)",
    "main.ts reaches https://example.invalid/planted.ts: a package imports only its own files " +
    "and npm:, node:, jsr:",
    "lib/lang/python/_plugin.py (written into environments) is not published",
    "lib/lang/python/_hook.py (read beside the code) is not published",
  ]);
  const unreachable = { ...here, modules: here.modules.filter((m) => !m.endsWith("_guard.ts")) };
  deepEqual(packageProblems(unreachable), [
    "lib/lang/python/_guard.ts (written into environments) is not reachable from main.ts",
  ]);
});

Deno.test("the package check fails on a planted import of tests/ in a copy of the package", async () => {
  await using dir = await tempDir("bugbout-package-");
  for (const file of (await ours()).published) {
    await Deno.mkdir(dirname(join(dir.path, file)), { recursive: true });
    await Deno.copyFile(join(ROOT, file), join(dir.path, file));
  }
  await Deno.copyFile(join(ROOT, ".gitignore"), join(dir.path, ".gitignore"));
  await Deno.mkdir(join(dir.path, "tests"));
  await Deno.writeTextFile(join(dir.path, "tests", "planted.ts"), "export const PLANTED = 1;\n");
  const version = join(dir.path, "lib", "version.ts");
  await Deno.writeTextFile(
    version,
    `${await Deno.readTextFile(version)}export { PLANTED } from "../tests/planted.ts";\n`,
  );
  const copy = await packageFacts(dir.path);
  deepEqual(copy.refused, [
    "error[excluded-module]: module in package's module graph was excluded from publishing " +
    "(tests/planted.ts)",
  ]);
  deepEqual(packageProblems(copy), [
    "deno publish --dry-run: error[excluded-module]: module in package's module graph was " +
    "excluded from publishing (tests/planted.ts)",
    "main.ts reaches tests/planted.ts: shipped code must not import tests or benches",
  ]);
});
