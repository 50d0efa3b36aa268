import { deepEqual, equal, match, ok, rejects } from "node:assert/strict";
import { join } from "node:path";
import { BugboutError, InterruptedError } from "../../lib/errors.ts";
import { git } from "../../lib/git.ts";
import { mineAll, readTasks } from "../../lib/mine/mine.ts";
import { whyCommit } from "../../lib/mine/why.ts";
import { Project } from "../../lib/project.ts";
import { tasksFileSchema } from "../../lib/records.ts";
import {
  buildBugshop,
  buildDemo,
  buildMeasures,
  configFor,
  expectedTasks,
  fixByKey,
} from "../fixtures/projects.ts";
import { buildLargeHistory } from "../fixtures/history.ts";
import { miningSetup, NO_TOKENS } from "./_setup.ts";

Deno.test("mineAll turns bugshop's fixes into exactly the tasks its manifest expects, newest first", async () => {
  await using s = await miningSetup(buildBugshop);
  const { file, cached } = await mineAll(s.project, { env: NO_TOKENS });
  equal(cached, false);
  tasksFileSchema.parse(file);
  const expected = expectedTasks(s.fixture);
  deepEqual(
    file.tasks.map((t) => t.id),
    expected.map((f) => "taskId" in f.expected ? f.expected.taskId : ""),
  );
  for (const [i, task] of file.tasks.entries()) {
    const fix = expected[i];
    deepEqual(
      {
        commit: task.commit,
        parent: task.parent,
        sourceFiles: task.sourceFiles,
        testFiles: task.testFiles,
        newTests: task.newTests,
        packageDir: task.packageDir,
        pythonPath: task.pythonPath,
        title: task.title,
      },
      {
        commit: fix.commit,
        parent: fix.parent,
        sourceFiles: fix.sourceFiles,
        testFiles: fix.testFiles,
        newTests: fix.newTests,
        packageDir: fix.packageDir,
        pythonPath: fix.pythonPath,
        title: fix.title,
      },
      fix.key,
    );
    // Offline, a pull request's merge commit gives the pull request's own title and description
    // (the title alone when its cleaned description is empty).
    const offline = fix.shape === "merge" ? ["commit", "pull-request"] : ["commit"];
    ok(offline.includes(task.statementSource), fix.key);
  }
  equal(file.examined, 25);
  equal(file.repository.head, s.fixture.head);
  equal(file.repository.branch, "main");
});

Deno.test("mineAll records every left-out fix with a stable reason and counts every reason", async () => {
  await using s = await miningSetup(buildBugshop);
  const { file } = await mineAll(s.project, { env: NO_TOKENS });
  for (const fix of s.fixture.fixes) {
    if (!("excluded" in fix.expected) || fix.expected.excluded === "not-a-fix") continue;
    const entry = file.excluded.find((e) => e.commit === fix.commit);
    equal(entry?.reason, fix.expected.excluded, fix.key);
  }
  ok(!file.excluded.some((e) => e.reason === "not-a-fix"), "non-fixes are counted, not listed");
  deepEqual(file.counts, {
    "not-a-fix": 8,
    "no-issue-reference": 1,
    "no-source-change": 1,
    "too-many-source-files": 1,
    "older-change-for-same-issue": 1,
  });
  equal(Object.values(file.counts).reduce((a, b) => a + b) + file.tasks.length, file.examined);
  match(file.excluded.find((e) => e.reason === "older-change-for-same-issue")!.detail!, /#60/);
  match(file.excluded.find((e) => e.reason === "too-many-source-files")!.detail!, /3 source files/);
});

Deno.test("a pull request's merge commit is judged by its diff against the first parent", async () => {
  await using s = await miningSetup(buildBugshop);
  const { file } = await mineAll(s.project, { env: NO_TOKENS });
  const fix = fixByKey(s.fixture, "stacked-discounts");
  const task = file.tasks.find((t) => t.id === "issue-30")!;
  equal(task.commit, fix.commit);
  equal(await git(["rev-parse", `${fix.commit}^1`], { cwd: s.fixture.dir }), task.parent);
  equal(task.title, "Fix discounts stacking beyond 100%");
  // A merge whose pull request title reads like a fix only in its branch name still counts.
  const zero = file.tasks.find((t) => t.id === "pr-75")!;
  deepEqual(zero.ref, { kind: "pull", number: 75 });
  equal(zero.title, "Handle restocking zero units");
  // Offline, the statement is the pull request's title and description from its merge commit,
  // cleaned (a commit's own body, which often says how it was fixed, is never used).
  equal(
    zero.statement,
    "Handle restocking zero units\n\n" +
      "Restocking 0 units of a new SKU created an empty entry that showed up in skus().",
  );
});

Deno.test("fixes from before the package moved to src/ count, with where the package was at B", async () => {
  await using s = await miningSetup(buildBugshop);
  const { file } = await mineAll(s.project, { env: NO_TOKENS });
  const early = file.tasks.find((t) => t.id === "issue-12")!;
  deepEqual([early.packageDir, early.pythonPath, early.sourceFiles], ["bugshop", ".", [
    "bugshop/parsing.py",
  ]]);
  const late = file.tasks.find((t) => t.id === "issue-23")!;
  deepEqual([late.packageDir, late.pythonPath], ["src/bugshop", "src"]);
});

Deno.test("the project's own pytest settings decide what a test is (check_*.py, check_ functions)", async () => {
  await using s = await miningSetup(buildBugshop);
  const { file } = await mineAll(s.project, { env: NO_TOKENS });
  deepEqual(file.tasks.find((t) => t.id === "issue-80")!.newTests, [
    "tests/check_prices.py::check_thousands_separator",
  ]);
});

Deno.test("since leaves out older changes and counts them as before-since", async () => {
  await using s = await miningSetup(buildBugshop);
  const fix = fixByKey(s.fixture, "restock-capacity");
  const date = await git(["log", "-1", "--format=%cI", fix.commit], { cwd: s.fixture.dir });
  await s.reconfigure({ since: date });
  const { file } = await mineAll(s.project, { env: NO_TOKENS });
  deepEqual(file.tasks.map((t) => t.id), [
    "issue-80",
    "pr-75",
    "issue-66",
    "issue-63",
    "issue-60",
    "issue-55",
  ]);
  const older = Number(
    await git(["rev-list", "--first-parent", "--count", `${fix.commit}^`], { cwd: s.fixture.dir }),
  );
  equal(file.counts["before-since"], older);
  // The older fix of #60 is before `since` now, so it is not an older change for the same issue.
  equal(file.counts["older-change-for-same-issue"], undefined);
});

Deno.test("until leaves out newer changes, counts them as after-until and says so with --why", async () => {
  await using s = await miningSetup(buildBugshop);
  const fix = fixByKey(s.fixture, "restock-capacity");
  const date = await git(["log", "-1", "--format=%cI", fix.commit], { cwd: s.fixture.dir });
  await s.reconfigure({ until: date });
  const { file } = await mineAll(s.project, { env: NO_TOKENS });
  const newer = Number(
    await git(["rev-list", "--first-parent", "--count", `${fix.commit}..HEAD`], {
      cwd: s.fixture.dir,
    }),
  );
  equal(file.counts["after-until"], newer);
  const until = Date.parse(date);
  equal(file.tasks.some((t) => t.commit === fix.commit), true);
  for (const task of file.tasks) {
    const time = await git(["log", "-1", "--format=%ct", task.commit], { cwd: s.fixture.dir });
    equal(Number(time) * 1000 <= until, true, task.id);
  }
  const head = await git(["rev-parse", "HEAD"], { cwd: s.fixture.dir });
  const why = await whyCommit(s.fixture.dir, file, head, new Date(until));
  equal(why.kind, "not-walked");
  match((why as { why: string }).why, /newer than \[tasks\] until/);
});

Deno.test("limit keeps the newest tasks and lists the others as over-limit", async () => {
  await using s = await miningSetup(buildBugshop, { limit: 3 });
  const { file, stats } = await mineAll(s.project, { env: NO_TOKENS });
  deepEqual(file.tasks.map((t) => t.id), ["issue-80", "pr-75", "issue-66"]);
  // Examining stops once the limit is reached: every later candidate is over the limit, the
  // older fix of #60 included (it is never read, so never told apart from a new one).
  equal(file.counts["over-limit"], 11);
  const over = file.excluded.filter((e) => e.reason === "over-limit").map((e) => e.title);
  for (const fix of expectedTasks(s.fixture).slice(3)) ok(over.includes(fix.title), fix.title);
  ok(stats!.examined < stats!.candidates, JSON.stringify(stats));
});

Deno.test("max-source-files decides whether a fix touching three source files counts", async () => {
  await using s = await miningSetup(buildBugshop, { maxSourceFiles: 3 });
  const { file } = await mineAll(s.project, { env: NO_TOKENS });
  const task = file.tasks.find((t) => t.id === "issue-50")!;
  equal(task.sourceFiles.length, 3);
  equal(file.counts["too-many-source-files"], undefined);
});

Deno.test("tasks.json is reused until HEAD or a setting changes, and --refresh mines again", async () => {
  await using s = await miningSetup(buildDemo);
  const first = await mineAll(s.project, { env: NO_TOKENS });
  const again = await mineAll(s.project, { env: NO_TOKENS });
  equal(again.cached, true);
  deepEqual(again.file, first.file);
  equal((await mineAll(s.project, { env: NO_TOKENS, refresh: true })).cached, false);
  await s.reconfigure({ limit: 2 });
  const fewer = await mineAll(s.project, { env: NO_TOKENS });
  deepEqual([fewer.cached, fewer.file.tasks.length], [false, 2]);
  await git(
    [
      "-c",
      "user.name=T",
      "-c",
      "user.email=t@example.com",
      "commit",
      "--allow-empty",
      "-qm",
      "Later work",
    ],
    { cwd: s.fixture.dir },
  );
  const later = await mineAll(s.project, { env: NO_TOKENS });
  deepEqual([later.cached, later.file.examined], [false, first.file.examined + 1]);
  deepEqual(await readTasks(s.project), later.file);
});

Deno.test("readTasks says how to mine when there is no tasks.json yet", async () => {
  await using s = await miningSetup(buildDemo);
  await rejects(
    readTasks(s.project),
    (e) => e instanceof BugboutError && /bugbout tasks/.test(e.hint ?? ""),
  );
});

Deno.test("the demo project mines five tasks whose commit statements leave out the fix", async () => {
  await using s = await miningSetup(buildDemo);
  const { file } = await mineAll(s.project, { env: NO_TOKENS });
  deepEqual(file.tasks.map((t) => t.id), ["issue-14", "issue-11", "issue-8", "issue-5", "issue-3"]);
  const chunk = file.tasks.find((t) => t.id === "issue-3")!;
  // Offline, only the title: the body goes on to say how it was fixed.
  equal(chunk.statement, "Fix chunk() dropping the last partial chunk");
  ok(!/Round the number/.test(chunk.statement), chunk.statement);
  const wrap = file.tasks.find((t) => t.id === "issue-5")!;
  ok(!/use the width as given/.test(wrap.statement), wrap.statement);
  // "Fix typo in README" fixes no code: not a fix (before any reference is looked for).
  deepEqual(file.counts, { "not-a-fix": 6 });
  match(file.statementNote!, /No GitHub repository is known/);
});

Deno.test("a repository given as a URL is cloned once into BUGBOUT_HOME and mined", async () => {
  await using s = await miningSetup(buildMeasures);
  const outside = join(s.root, "config");
  await Deno.mkdir(outside);
  await Deno.writeTextFile(
    join(outside, "bugbout.toml"),
    configFor(s.fixture, { repository: `file://${s.fixture.dir}` }),
  );
  const project = await Project.load(outside, { home: s.home });
  ok(project.repository.startsWith(join(s.home, "repos")));
  const { file } = await mineAll(project, { env: NO_TOKENS });
  deepEqual(file.tasks.map((t) => [t.id, t.packageDir, t.pythonPath]), [
    ["issue-4", "src/measures", "src"],
    ["issue-2", "src/measures", "src"],
  ]);
  equal(file.repository.head, s.fixture.head);
});

Deno.test("mining a 3,000-commit history finds every fix and counts every other change", async () => {
  const root = await Deno.makeTempDir({ prefix: "bugbout-mine-large-" });
  try {
    const history = await buildLargeHistory(join(root, "repo"), { commits: 3000, fixEvery: 30 });
    await Deno.writeTextFile(
      join(history.dir, "bugbout.toml"),
      '[project]\nsource = "bigpkg"\n\n[tasks]\nlimit = 10000\n',
    );
    const project = await Project.load(history.dir, { home: join(root, "home") });
    const { file } = await mineAll(project, { env: NO_TOKENS });
    equal(file.examined, history.commits);
    equal(file.tasks.length, history.fixes);
    equal(file.counts["no-issue-reference"], history.unreferenced);
    equal(file.counts["no-test-added"], history.untested);
    ok(file.tasks.every((t) => t.newTests.length === 1 && t.sourceFiles.length === 1));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("an interrupted mine writes nothing and says it was interrupted", async () => {
  await using s = await miningSetup(buildDemo);
  const controller = new AbortController();
  controller.abort();
  await rejects(
    mineAll(s.project, { env: NO_TOKENS, signal: controller.signal }),
    InterruptedError,
  );
  await rejects(Deno.stat(join(s.fixture.dir, ".bugbout", "tasks.json")), Deno.errors.NotFound);
});
