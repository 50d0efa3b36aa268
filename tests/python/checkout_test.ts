import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { join } from "node:path";
import {
  cachedTree,
  cachedTreePath,
  checkout,
  installFiles,
  listFiles,
} from "../../lib/checkout.ts";
import { git } from "../../lib/git.ts";
import { RepoBuilder } from "../../lib/demo/repo.ts";
import { tempDir } from "./_shared.ts";

async function twoCommits(dir: string) {
  const repo = new RepoBuilder();
  const first = repo.commit({
    message: "Initial",
    files: {
      "calc/__init__.py": "VALUE = 1\n",
      "tests/test_calc.py": "def test_one():\n    pass\n",
      "tests/old_test.py": "def test_old():\n    pass\n",
      ".gitattributes": "tests export-ignore\ncalc/__init__.py export-subst\n",
    },
  });
  const second = repo.commit({
    message: "Fix",
    files: {
      "calc/__init__.py": "VALUE = 2\n",
      "tests/test_calc.py": "def test_two():\n    pass\n",
      "tests/test_new.py": "def test_new():\n    pass\n",
      "tests/old_test.py": null,
    },
  });
  await repo.build(dir);
  return { first: first.sha, second: second.sha };
}

async function read(path: string) {
  return await Deno.readTextFile(path);
}

Deno.test("checkout() copies a commit without its history, and every copy is private", async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "repo");
  const home = join(tmp.path, "home");
  const { first } = await twoCommits(repo);
  const a = await checkout(repo, first, join(tmp.path, "a"), { home });
  const b = await checkout(repo, first, join(tmp.path, "b"), { home });
  equal(await read(join(a, "calc/__init__.py")), "VALUE = 1\n");
  await rejects(Deno.stat(join(a, ".git")));
  // export-ignore and export-subst do not apply: the tests are there, the file is unchanged.
  equal(await read(join(a, "tests/test_calc.py")), "def test_one():\n    pass\n");
  await Deno.writeTextFile(join(a, "calc/__init__.py"), "VALUE = 99\n");
  equal(await read(join(b, "calc/__init__.py")), "VALUE = 1\n");
  const cached = await cachedTreePath(repo, first, home);
  equal(await read(join(cached, "calc/__init__.py")), "VALUE = 1\n");
  // Copies, not hard links: nothing in a copy shares an inode with the cache.
  equal((await Deno.stat(join(b, "tests/test_calc.py"))).nlink, 1);
  // The repository's own work tree and index are untouched.
  equal(await git(["status", "--porcelain"], { cwd: repo }), "");
});

Deno.test("checkout() works from a bare repository", async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "repo");
  const { second } = await twoCommits(repo);
  const bare = join(tmp.path, "bare.git");
  await git(["clone", "--quiet", "--bare", repo, bare]);
  const tree = await checkout(bare, second, join(tmp.path, "co"), { home: join(tmp.path, "h") });
  equal(await read(join(tree, "calc/__init__.py")), "VALUE = 2\n");
  deepEqual(
    (await listFiles(bare, second, ["tests"])).sort(),
    ["tests/test_calc.py", "tests/test_new.py"],
  );
});

Deno.test("installFiles() puts the fix's test files into B and removes those it deleted", async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "repo");
  const { first, second } = await twoCommits(repo);
  const tree = await checkout(repo, first, join(tmp.path, "b"), { home: join(tmp.path, "h") });
  const changed = await installFiles(repo, second, [
    "tests/test_calc.py",
    "tests/test_new.py",
    "tests/old_test.py",
  ], tree);
  deepEqual(changed, {
    written: ["tests/test_calc.py", "tests/test_new.py"],
    removed: ["tests/old_test.py"],
  });
  equal(await read(join(tree, "tests/test_calc.py")), "def test_two():\n    pass\n");
  equal(await read(join(tree, "tests/test_new.py")), "def test_new():\n    pass\n");
  await rejects(Deno.stat(join(tree, "tests/old_test.py")));
  // The source stays B's.
  equal(await read(join(tree, "calc/__init__.py")), "VALUE = 1\n");
});

Deno.test("cachedTree() extracts a commit once even when two callers race", async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "repo");
  const { second } = await twoCommits(repo);
  const home = join(tmp.path, "h");
  const [x, y] = await Promise.all([
    cachedTree(repo, second, { home }),
    cachedTree(repo, second, { home }),
  ]);
  equal(x, y);
  const siblings = [];
  for await (const e of Deno.readDir(join(x, ".."))) siblings.push(e.name);
  deepEqual(siblings, [second]);
  ok((await Deno.stat(join(x, "tests/test_new.py"))).isFile);
});

Deno.test("checkout() of a commit that does not exist says so", async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "repo");
  await twoCommits(repo);
  await rejects(
    checkout(repo, "0".repeat(40), join(tmp.path, "x"), { home: join(tmp.path, "h") }),
    /Cannot extract commit 000000000000/,
  );
});
