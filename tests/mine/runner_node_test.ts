/**
 * Mining a JavaScript/TypeScript project: `mineAll` on the vitest and `node --test` fixtures
 * finds exactly their fixes, with the runner's ids, and leaves out what is not a fix of source
 * with a test, each for its reason.
 *
 * @module
 */

import { deepEqual, equal, match, notEqual } from "node:assert/strict";
import { join } from "node:path";
import { mineAll } from "../../lib/mine/mod.ts";
import { tasksFileSchema } from "../../lib/records.ts";
import { buildPlainProject, buildTallyProject } from "../fixtures/node_project.ts";
import { LOCKS } from "../node/_shared.ts";
import { tempDir } from "../python/_shared.ts";
import { commitOnTop, loadAs } from "./_runner.ts";
import { NO_TOKENS } from "./_setup.ts";

Deno.test("mining a vitest project finds exactly its fixes, with vitest's ids", async () => {
  await using tmp = await tempDir("bugbout-mine-node-");
  const tally = await buildTallyProject(join(tmp.path, "repo"), LOCKS);
  const project = await loadAs(tally.dir, join(tmp.path, "home"), "node");
  const { file } = await mineAll(project, { env: NO_TOKENS });
  tasksFileSchema.parse(file);
  deepEqual(file.tasks.map((t) => t.id), ["issue-7", "issue-3"]);
  const fixes = [...tally.fixes].reverse();
  for (const [i, task] of file.tasks.entries()) {
    const fix = fixes[i];
    deepEqual(
      {
        commit: task.commit,
        parent: task.parent,
        testFiles: task.testFiles,
        newTests: task.newTests,
        packageDir: task.packageDir,
        pythonPath: task.pythonPath,
      },
      {
        commit: fix.g,
        parent: fix.b,
        testFiles: [fix.testFile],
        newTests: fix.failToPass,
        packageDir: ".",
        pythonPath: ".",
      },
      fix.key,
    );
  }
  deepEqual(file.tasks.map((t) => t.sourceFiles), [["src/slug.ts"], ["src/money.ts"]]);
  // The first commit, the feature (percent), the flaky test and the config change are no fixes.
  deepEqual(file.counts, { "not-a-fix": 4 });
});

Deno.test("mining a node --test project finds its fix", async () => {
  await using tmp = await tempDir("bugbout-mine-node-");
  const plain = await buildPlainProject(join(tmp.path, "repo"));
  const project = await loadAs(plain.dir, join(tmp.path, "home"), "node");
  const { file } = await mineAll(project, { env: NO_TOKENS });
  deepEqual(
    file.tasks.map((t) => [t.id, t.commit, t.sourceFiles, t.testFiles, t.newTests]),
    [[
      "issue-2",
      plain.fixes[0].g,
      ["lib/parse.js"],
      ["test/parse.test.js"],
      plain.fixes[0].failToPass,
    ]],
  );
});

const SLUG_TEST = `import { expect, test } from "vitest";
import { slugify } from "../src/slug";

test("lowercases and joins words", () => {
  expect(slugify("Hello World")).toBe("hello-world");
});
`;

Deno.test("mining a vitest project leaves out fixes without source or a test, each for its reason", async () => {
  await using tmp = await tempDir("bugbout-mine-node-");
  const tally = await buildTallyProject(join(tmp.path, "repo"), LOCKS);
  const slug = await Deno.readTextFile(join(tally.dir, "src/slug.ts"));
  const c = {
    config: await commitOnTop(tally.dir, "Fix #20: tests time out on slow machines", {
      "vitest.config.ts": "export default { test: { testTimeout: 20000 } };\n",
      "package.json": (await Deno.readTextFile(join(tally.dir, "package.json")))
        .replace('"vitest run"', '"vitest run --reporter=dot"'),
    }),
    docs: await commitOnTop(tally.dir, "Fix #21: the README's example", {
      "README.md": "# tally\n",
      "docs/guide.md": "Use slugify.\n",
      "tests/slug.test.ts": SLUG_TEST + '\ntest("readme", () => {\n  expect(1).toBe(1);\n});\n',
    }),
    untested: await commitOnTop(tally.dir, "Fix #22: slugify keeps digits", {
      "src/slug.ts": slug + "\nexport const DIGITS = true;\n",
    }),
    helperOnly: await commitOnTop(tally.dir, "Fix #23: slugify of empty titles", {
      "src/slug.ts": slug + "\nexport const EMPTY = '';\n",
      "tests/helpers.ts": "export const titles = ['', 'a'];\n",
    }),
    tooMany: await commitOnTop(tally.dir, "Fix #24: exports everywhere", {
      "src/slug.ts": slug + "\nexport const A = 1;\n",
      "src/money.ts": "export const B = 2;\n",
      "src/index.ts": "export * from './slug';\n",
      "tests/slug.test.ts": SLUG_TEST + '\ntest("a", () => {\n  expect(1).toBe(1);\n});\n',
    }),
    snapshot: await commitOnTop(tally.dir, "Fix #25: slugs of long titles", {
      "src/slug.ts": slug + "\nexport const MAX = 80;\n",
      "tests/__snapshots__/slug.test.ts.snap": "// snapshot\n",
      "CHANGELOG.md": "- long titles\n",
      ".changeset/long-titles.md": "---\ntally: patch\n---\nlong titles\n",
      "renovate.json": "{}\n",
      "docs/slug.md": "Slugs of long titles.\n",
      "tests/slug.test.ts": SLUG_TEST + '\ntest("long", () => {\n  expect(80).toBe(80);\n});\n',
    }),
    table: await commitOnTop(tally.dir, "Fix #26: slugs of numbers", {
      "src/slug.ts": slug + "\nexport const NUMBERS = 1;\n",
      "tests/slug.test.ts": SLUG_TEST + '\ntest("long", () => {\n  expect(80).toBe(80);\n});\n' +
        'test.each([["1", "1"], ["2", "2"]])("slug of %s", (a, b) => {\n  expect(a).toBe(b);\n});\n',
    }),
  };
  const home = join(tmp.path, "home");
  // Mined as Python first: a change of language mines again.
  const asPython = await mineAll(await loadAs(tally.dir, home, "python"), { env: NO_TOKENS });
  equal(asPython.file.tasks.length, 0);
  // The runner's configuration is read from the commit mined, not from the work tree.
  await Deno.remove(join(tally.dir, "package.json"));
  const result = await mineAll(await loadAs(tally.dir, home, "node"), { env: NO_TOKENS });
  equal(result.cached, false);
  notEqual(result.file.inputsKey, asPython.file.inputsKey);
  const { file } = result;
  deepEqual(file.tasks.map((t) => t.id), ["issue-26", "issue-25", "issue-7", "issue-3"]);
  const [table, snapshot] = file.tasks;
  // A new table of cases: its names come from running the file.
  deepEqual(table.newTests, []);
  deepEqual(table.unsureTests, [
    { file: "tests/slug.test.ts", why: "test.each names its cases from a table" },
  ]);
  // Snapshots are support files; the changelog, a changeset, docs and root settings are not source.
  deepEqual(
    [snapshot.sourceFiles, snapshot.testFiles, snapshot.newTests, snapshot.supportFiles],
    [
      ["src/slug.ts"],
      ["tests/slug.test.ts"],
      ["tests/slug.test.ts > long"],
      ["tests/__snapshots__/slug.test.ts.snap"],
    ],
  );
  deepEqual(file.excluded.map((e) => [e.commit, e.reason]), [
    [c.tooMany, "too-many-source-files"],
    [c.helperOnly, "no-test-added"],
    [c.untested, "no-test-added"],
    [c.docs, "no-source-change"],
    [c.config, "no-source-change"],
  ]);
  const detail = new Map(file.excluded.map((e) => [e.commit, e.detail ?? ""]));
  match(detail.get(c.helperOnly)!, /tests\/helpers\.ts but adds or changes no test/);
  match(detail.get(c.untested)!, /changes no test file vitest runs/);
  match(detail.get(c.config)!, /changes no JavaScript\/TypeScript source file/);
  // Up to date now: nothing is mined again.
  equal((await mineAll(await loadAs(tally.dir, home, "node"), { env: NO_TOKENS })).cached, true);
});
