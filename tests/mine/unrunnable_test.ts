/**
 * Tasks that cannot work are left out, each for its reason, in every language (issue #23, class
 * 8, in the shapes seen on real Go and JavaScript packages): a type-only fix tested with
 * `expectTypeOf`, new tests that are only `it.skip`, a `feat!:` whose changelog entry sits under
 * bug fixes, a test change that needs a new `go.mod` dependency, a Go test that skips first; and
 * the same for Python (`@pytest.mark.skip`, `assert_type`).
 *
 * @module
 */

import { deepEqual, equal, match } from "node:assert/strict";
import { join } from "node:path";
import { mineAll } from "../../lib/mine/mod.ts";
import { buildGoProject, SOURCES } from "../fixtures/go_project.ts";
import { buildTallyProject } from "../fixtures/node_project.ts";
import { LOCKS } from "../node/_shared.ts";
import { tempDir } from "../python/_shared.ts";
import { gapToml } from "../fixtures/gaps.ts";
import { untestable } from "../fixtures/shapes.ts";
import { mineHistory } from "./_history.ts";
import { commitOnTop, loadAs } from "./_runner.ts";
import { NO_TOKENS } from "./_setup.ts";

const SLUG_TEST = `import { describe, expect, expectTypeOf, it, test } from "vitest";
import { slugify } from "../src/slug";

test("lowercases and joins words", () => {
  expect(slugify("Hello World")).toBe("hello-world");
});
`;

Deno.test("a JavaScript fix whose new tests only skip, only check types, or whose type says feature is left out", async () => {
  await using tmp = await tempDir("bugbout-mine-unrunnable-");
  const tally = await buildTallyProject(join(tmp.path, "repo"), LOCKS);
  const slug = await Deno.readTextFile(join(tally.dir, "src/slug.ts"));
  const changelog = "# Changelog\n\n## Unreleased\n\n### Bug Fixes\n\n";
  const c = {
    typeOnly: await commitOnTop(tally.dir, "fix(types): slugify returns a branded string (#31)", {
      "src/slug.ts": slug + "\nexport type Slug = string & { __slug: true };\n",
      "tests/slug.test.ts": SLUG_TEST +
        '\ntest("its type is a string", () => {\n  expectTypeOf(slugify("a")).toBeString();\n});\n',
    }),
    skipOnly: await commitOnTop(tally.dir, "Fix slugify of emoji (#32)", {
      "src/slug.ts": slug + "\nexport const EMOJI = true;\n",
      "tests/slug.test.ts": SLUG_TEST +
        '\ndescribe("emoji", () => {\n  it.skip("drops them", () => {\n' +
        '    expect(slugify("a 🎉")).toBe("a");\n  });\n});\n',
    }),
    breaking: await commitOnTop(tally.dir, "feat!: slugify throws on empty titles (#33)", {
      "src/slug.ts": slug + "\nexport const STRICT = true;\n",
      "CHANGELOG.md": changelog + "- slugify throws on empty titles\n",
      "tests/slug.test.ts": SLUG_TEST +
        '\ntest("throws on empty", () => {\n  expect(() => slugify("")).toThrow();\n});\n',
    }),
    dependency: await commitOnTop(tally.dir, "Fix slugify of accented letters (#34)", {
      "src/slug.ts": slug + "\nexport const ACCENTS = true;\n",
      "package.json": (await Deno.readTextFile(join(tally.dir, "package.json")))
        .replace('"devDependencies": {', '"devDependencies": {\n    "diacritics": "1.3.0",'),
      "tests/slug.test.ts": SLUG_TEST +
        '\ntest("accents", () => {\n  expect(slugify("é")).toBe("e");\n});\n',
    }),
  };
  const { file } = await mineAll(await loadAs(tally.dir, join(tmp.path, "home"), "node"), {
    env: NO_TOKENS,
  });
  const reason = new Map(file.excluded.map((e) => [e.commit, e]));
  equal(reason.get(c.typeOnly)?.reason, "type-only");
  match(reason.get(c.typeOnly)?.detail ?? "", /its type is a string/);
  equal(reason.get(c.skipOnly)?.reason, "skip-only");
  equal(reason.get(c.dependency)?.reason, "needs-dependency");
  match(reason.get(c.dependency)?.detail ?? "", /package\.json adds diacritics/);
  // A conventional `feat!:` is a feature, whatever section its changelog entry sits in.
  deepEqual(
    file.leftOut?.["not-a-fix"]?.find((e) => e.startsWith(c.breaking.slice(0, 12))),
    `${c.breaking.slice(0, 12)} type feat!`,
  );
  equal(
    file.tasks.some((t) => [c.typeOnly, c.skipOnly, c.breaking, c.dependency].includes(t.commit)),
    false,
  );
});

Deno.test("a Go fix whose test needs a new module or skips first is left out, each for its reason", async () => {
  await using tmp = await tempDir("bugbout-mine-unrunnable-");
  const go = await buildGoProject(join(tmp.path, "repo"));
  const test = (name: string, body: string) =>
    SOURCES.parseTestFixed + `\nfunc ${name}(t *testing.T) {\n${body}\n}\n`;
  const c = {
    dependency: await commitOnTop(go.dir, "Fix #41: quantities with units from a table", {
      "go.mod": "module example.com/shelf\n\ngo 1.22\n\nrequire github.com/google/go-cmp v0.6.0\n",
      "parse/parse.go": SOURCES.parseFixed + "\n// Table is units.\nconst Table = 1\n",
      "parse/parse_test.go": test("TestTable", "\tif Table != 1 {\n\t\tt.Fatal(Table)\n\t}"),
    }),
    skips: await commitOnTop(go.dir, "Fix #42: quantities over a million", {
      "parse/parse.go": SOURCES.parseFixed + "\n// Million is big.\nconst Million = 1\n",
      "parse/parse_test.go": test(
        "TestMillion",
        '\tt.Skip("flaky on CI")\n\tif Million != 1 {\n\t\tt.Fatal(Million)\n\t}',
      ),
    }),
  };
  const { file } = await mineAll(await loadAs(go.dir, join(tmp.path, "home"), "go"), {
    env: NO_TOKENS,
  });
  const reason = new Map(file.excluded.map((e) => [e.commit, e]));
  equal(reason.get(c.dependency)?.reason, "needs-dependency");
  match(reason.get(c.dependency)?.detail ?? "", /go\.mod adds github\.com\/google\/go-cmp/);
  equal(reason.get(c.skips)?.reason, "skip-only");
});

Deno.test("a Python fix whose new tests are all skipped or check types only is left out", async () => {
  await using m = await mineHistory(untestable, { toml: gapToml() });
  equal(m.excluded("skipped")?.reason, "skip-only");
  equal(m.excluded("typed")?.reason, "type-only");
  // One skipped test beside one that runs: a task, with both.
  deepEqual(m.task("mixed")?.newTests, [
    "tests/test_cart.py::test_rounding_skipped",
    "tests/test_cart.py::test_rounding_runs",
  ]);
});
