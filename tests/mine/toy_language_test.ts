/**
 * Mining through the one language interface: a toy language registered in this test (shell
 * scripts whose tests are `test_*` functions in `*_test.sh` files) is mined with nothing but its
 * runner's static reading, its code patterns and the shared runner miner.
 *
 * @module
 */

import { deepEqual, equal, match } from "node:assert/strict";
import { join } from "node:path";
import {
  type FileTests,
  type LanguageSpec,
  openRunnerMiner,
  registerLanguage,
} from "../../lib/lang/mod.ts";
import { go, GoRunner } from "../../lib/lang/go/mod.ts";
import { mineAll } from "../../lib/mine/mod.ts";
import { tempDir } from "../python/_shared.ts";
import { commitOnTop, loadAs } from "./_runner.ts";
import { NO_TOKENS } from "./_setup.ts";
import { git } from "../../lib/git.ts";

/** The `test_*` functions of a shell test file; a `for` loop of cases makes it unsure. */
function shellTests(
  path: string,
  text: string,
): { tests: string[]; bodies: Map<string, string>; unsure?: string } {
  const bodies = new Map<string, string>();
  for (const m of text.matchAll(/^(test_\w+)\(\) \{\n([\s\S]*?)^\}/gm)) {
    bodies.set(`${path}::${m[1]}`, m[2]);
  }
  const unsure = /^for /m.test(text) ? "a loop defines tests" : undefined;
  return { tests: [...bodies.keys()], bodies, ...(unsure ? { unsure } : {}) };
}

function changedShellTests(path: string, before: string | null, after: string): FileTests {
  const now = shellTests(path, after);
  const then = before === null ? undefined : shellTests(path, before);
  const changed = now.tests.filter((id) => then?.bodies.get(id) !== now.bodies.get(id));
  return { tests: now.tests, changed, ...(now.unsure ? { unsure: now.unsure } : {}) };
}

/**
 * The toy's runner: `go test`'s for everything mining does not ask of it (a runner of its own
 * would run nothing here), with the toy's test files, configuration and reading of tests.
 */
class ToyRunner extends GoRunner {
  override isTestFile(path: string): boolean {
    return path.endsWith("_test.sh") || path.startsWith("tests/data/");
  }
  override isConfig(path: string): boolean {
    return path === "toy.conf";
  }
  override changedTests(path: string, before: string | null, after: string): FileTests {
    return changedShellTests(path, before, after);
  }
}

const toy: LanguageSpec = {
  ...go,
  name: "toy",
  label: "Toy shell",
  runWord: "toy run",
  detect: () => Promise.resolve(undefined),
  openRunner: () => Promise.resolve(new ToyRunner()),
  openMiner: (context) =>
    openRunnerMiner(toy, context, {
      source: /\.sh$/,
      tests: /_test\.sh$/,
      marks: (path, text, ids) => ({
        skipped: ids.filter((id) => shellTests(path, text).bodies.get(id)?.trim() === "skip"),
        typeOnly: [],
      }),
    }),
};

Deno.test("a registered language is mined through its runner's reading and its code patterns alone", async () => {
  using _toy = { [Symbol.dispose]: registerLanguage(toy) };
  await using tmp = await tempDir("bugbout-mine-toy-");
  const dir = join(tmp.path, "repo");
  await Deno.mkdir(dir);
  await git(["init", "--quiet", "--initial-branch=main"], { cwd: dir });
  await commitOnTop(dir, "Initial", {
    "trim.sh": 'trim() { echo "$1"; }\n',
    "tests/trim_test.sh": 'test_plain() {\n  [ "$(trim a)" = a ]\n}\n',
  });
  const fix = await commitOnTop(dir, "Fix trim keeping spaces (#3)", {
    "trim.sh": 'trim() { echo "$1" | xargs; }\n',
    "tests/trim_test.sh": 'test_plain() {\n  [ "$(trim a)" = a ]\n}\n' +
      "test_spaces() {\n  [ \"$(trim ' a ')\" = a ]\n}\n",
    "tests/data/spaces.txt": " a \n",
  });
  const docs = await commitOnTop(dir, "Fix trim of an empty string (#4)", {
    "README.md": "trim\n",
    "tests/trim_test.sh": 'test_plain() {\n  [ "$(trim a)" = a ]\n}\n' +
      "test_spaces() {\n  [ \"$(trim ' a ')\" = a ]\n}\ntest_readme() {\n  true\n}\n",
  });
  const project = await loadAs(dir, join(tmp.path, "home"), "toy");
  const { file } = await mineAll(project, { env: NO_TOKENS });
  deepEqual(file.tasks.map((t) => [t.id, t.commit, t.sourceFiles, t.testFiles, t.newTests]), [
    ["issue-3", fix, ["trim.sh"], ["tests/trim_test.sh"], ["tests/trim_test.sh::test_spaces"]],
  ]);
  deepEqual(file.tasks[0].supportFiles, ["tests/data/spaces.txt"]);
  const docsLeftOut = file.excluded.find((e) => e.commit === docs);
  equal(docsLeftOut?.reason, "no-source-change");
  match(docsLeftOut?.detail ?? "", /changes no Toy shell source file/);
});
