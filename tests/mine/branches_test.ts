/**
 * Several first-parent histories (issue #23, class 7, the shape of pallets' projects): fixes land
 * on a maintenance branch `stable`, which is merged into `main` now and then, so `main`'s own
 * history holds only merges of many fixes at once. `[tasks] branches = ["main", "stable"]` mines
 * both; the same change landed on both (a backport) is one task; and without the setting,
 * `bugbout tasks` says that `stable` holds the fixes.
 *
 * @module
 */

import { deepEqual, equal, match } from "node:assert/strict";
import { join } from "node:path";
import { git } from "../../lib/git.ts";
import { mineAll } from "../../lib/mine/mod.ts";
import { mergedLine } from "../../lib/mine/branches.ts";
import { tempDir } from "../python/_shared.ts";
import { Project } from "../../lib/project.ts";
import { commitOnTop } from "./_runner.ts";
import { NO_TOKENS } from "./_setup.ts";

const FIXES = 10;

/** The project of `dir`, its package `shop/`, with `extra` in `bugbout.toml`. */
async function load(dir: string, home: string, extra = ""): Promise<Project> {
  await Deno.writeTextFile(join(dir, "bugbout.toml"), `[project]\nsource = "shop"\n${extra}`);
  return await Project.load(dir, { home });
}

/** The history: `main` and `stable` (merged into `main` unless `merge` is false). */
async function maintenanceBranch(dir: string, merge = true) {
  await Deno.mkdir(dir, { recursive: true });
  await git(["init", "--quiet", "--initial-branch=main"], { cwd: dir });
  const files: Record<string, string> = { "shop/__init__.py": "", "tests/__init__.py": "" };
  for (let i = 0; i < FIXES; i++) {
    files[`shop/part${i}.py`] = `def value():\n    return ${i}\n`;
    files[`tests/test_part${i}.py`] = `from shop.part${i} import value\n\n\ndef test_value():\n` +
      `    assert value() >= 0\n`;
  }
  files["shop/cart.py"] = "def total(prices):\n    return sum(prices)\n";
  await commitOnTop(dir, "Initial", files);
  await git(["checkout", "--quiet", "-b", "stable"], { cwd: dir });
  const fixes: string[] = [];
  for (let i = 0; i < FIXES; i++) {
    fixes.push(
      await commitOnTop(dir, `Fix part ${i} returning a negative value (#${100 + i})`, {
        [`shop/part${i}.py`]: `def value():\n    return abs(${i})\n`,
        [`tests/test_part${i}.py`]: files[`tests/test_part${i}.py`] +
          `\n\ndef test_never_negative():\n    assert value() == ${i}\n`,
      }),
    );
  }
  await git(["checkout", "--quiet", "main"], { cwd: dir });
  const none = {
    "shop/cart.py": "def total(prices):\n    return sum(prices or [])\n",
    "tests/test_cart.py": "from shop.cart import total\n\n\ndef test_none():\n" +
      "    assert total(None) == 0\n",
  };
  const onMain = await commitOnTop(dir, "Fix total of None (#50)", none);
  await git(["checkout", "--quiet", "stable"], { cwd: dir });
  const backport = await commitOnTop(dir, "Backport the total-of-None fix to stable (#60)", none);
  await git(["checkout", "--quiet", "main"], { cwd: dir });
  if (!merge) return { fixes, onMain, backport };
  await git(
    [
      "-c",
      "user.name=Fixer",
      "-c",
      "user.email=fixer@example.com",
      "merge",
      "--quiet",
      "--no-ff",
      "stable",
      "-m",
      "Merge branch 'stable'",
    ],
    { cwd: dir, env: { GIT_COMMITTER_DATE: "2024-01-02T00:00:00Z" } },
  );
  return { fixes, onMain, backport };
}

Deno.test("[tasks] branches mines the maintenance branch too, and a change landed on both is one task", async () => {
  await using tmp = await tempDir("bugbout-mine-branches-");
  const dir = join(tmp.path, "repo");
  const h = await maintenanceBranch(dir);
  const home = join(tmp.path, "home");
  const project = await load(dir, home, '\n[tasks]\nbranches = ["main", "stable"]\n');
  const { file } = await mineAll(project, { env: NO_TOKENS });
  deepEqual(file.repository.branches?.map((b) => b.name), ["main", "stable"]);
  const commits = file.tasks.map((t) => t.commit);
  equal(commits.includes(h.onMain), true);
  for (const fix of h.fixes) equal(commits.includes(fix), true, fix);
  // The backport on stable is the same patch as the fix on main.
  const twin = file.excluded.find((e) => e.commit === h.backport);
  deepEqual([twin?.reason, twin?.detail], [
    "same-change",
    `the same change as ${h.onMain.slice(0, 10)}`,
  ]);
});

Deno.test("a maintenance line merged into main is mined without naming it: its fixes one by one, its backport the same change", async () => {
  await using tmp = await tempDir("bugbout-mine-branches-");
  const dir = join(tmp.path, "repo");
  const h = await maintenanceBranch(dir);
  const { file } = await mineAll(await load(dir, join(tmp.path, "home")), { env: NO_TOKENS });
  deepEqual(file.repository.merged, ["stable"]);
  const commits = file.tasks.map((t) => t.commit);
  equal(commits.includes(h.onMain), true);
  for (const fix of h.fixes) equal(commits.includes(fix), true, fix);
  const twin = file.excluded.find((e) => e.commit === h.backport);
  deepEqual([twin?.reason, twin?.detail], [
    "same-change",
    `the same change as ${h.onMain.slice(0, 10)}`,
  ]);
  equal(file.branchNote, undefined);
});

Deno.test("a merge of main back into the maintenance line is not mined again as the line's change", async () => {
  await using tmp = await tempDir("bugbout-mine-branches-");
  const dir = join(tmp.path, "repo");
  const h = await maintenanceBranch(dir, false);
  const merge = async (branch: string, message: string) => {
    await git(
      ["-c", "user.name=Fixer", "-c", "user.email=fixer@example.com", "merge", "--quiet"]
        .concat(["--no-ff", branch, "-m", message]),
      { cwd: dir },
    );
    return await git(["rev-parse", "HEAD"], { cwd: dir });
  };
  // main (with its fix of total) is merged into stable, then stable into main.
  await git(["checkout", "--quiet", "stable"], { cwd: dir });
  await git(["reset", "--quiet", "--hard", "HEAD~1"], { cwd: dir }); // no backport this time
  const back = await merge("main", "Merge branch 'main' into stable (fixes #70)");
  await git(["checkout", "--quiet", "main"], { cwd: dir });
  await merge("stable", "Merge branch 'stable'");
  const { file } = await mineAll(await load(dir, join(tmp.path, "home")), { env: NO_TOKENS });
  const commits = file.tasks.map((t) => t.commit);
  equal(commits.length, FIXES + 1);
  equal(commits.includes(h.onMain), true);
  const excluded = file.excluded.find((e) => e.commit === back.trim());
  equal(excluded?.reason, "same-change");
  match(excluded?.detail ?? "", /back into a merged line/);
});

Deno.test("bugbout tasks says when another branch holds fixes the default branch never merged, a remote's in a fresh clone too", async () => {
  await using tmp = await tempDir("bugbout-mine-branches-");
  const dir = join(tmp.path, "repo");
  await maintenanceBranch(dir, false);
  const { file } = await mineAll(await load(dir, join(tmp.path, "home")), {
    env: NO_TOKENS,
  });
  equal(file.tasks.length, 1);
  equal(file.repository.merged, undefined);
  match(file.branchNote ?? "", /stable holds 11 fix-titled commits of its own/);
  match(file.branchNote ?? "", /\[tasks\] branches = \["main", "stable"\]/);
  // A fresh clone knows stable only as origin/stable; naming `stable` finds it there.
  const clone = join(tmp.path, "clone");
  await git(["clone", "--quiet", dir, clone]);
  const cloned = await mineAll(await load(clone, join(tmp.path, "home2")), { env: NO_TOKENS });
  match(cloned.file.branchNote ?? "", /origin\/stable holds 11 fix-titled commits/);
  match(
    cloned.file.branchNote ?? "",
    /\[tasks\] branches = \["origin\/main", "stable"\]|branches = \["main", "stable"\]/,
  );
  const both = await load(
    clone,
    join(tmp.path, "home3"),
    '\n[tasks]\nbranches = ["main", "stable"]\n',
  );
  const mined = await mineAll(both, { env: NO_TOKENS });
  equal(mined.file.tasks.length, FIXES + 1);
});

Deno.test("which merges bring in a maintenance line: subjects as real projects write them", () => {
  const lines: [string, string | undefined][] = [
    ["Merge branch 'stable'", "stable"], // pallets/itsdangerous
    ["Merge remote-tracking branch 'origin/2.1.x'", "origin/2.1.x"],
    ["Merge pull request #2012 from pallets/2.0.x", "2.0.x"],
    ["Merge branch 'pytest-2.7'", "pytest-2.7"], // pytest-dev/pytest
    ["Merge remote-tracking branch 'upstream/master' into features", "upstream/master"],
    ["Merge branch 'master' of github.com:mitsuhiko/itsdangerous", "master"],
    // A feature branch, a contributor's master or a bot's branch is one change: its merge.
    ["Merge branch 'strict-xpass'", undefined],
    ["Merge pull request #3 from someone/master", undefined],
    ["Merge pull request #301 from dependabot/pip/tox-3.24.3", undefined],
    ["Merge pull request #7 from someone/patch-1", undefined],
    ["Merge pull request #6 from someone/fix-6997", undefined],
    ["Merge pull request #5 from someone/drop-python-3.6", undefined],
    // A release's pull request carries its notes.
    ["Merge pull request #4 from pytest-dev/release-5.4.0", undefined],
  ];
  for (const [subject, line] of lines) equal(mergedLine(subject), line, subject);
});
