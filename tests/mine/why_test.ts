/**
 * Every decision visible (issue #23, class 6): tasks.json lists every left-out change compactly,
 * `bugbout tasks --why SHA` explains a task and a left-out commit, and the listing shows test ids
 * whole whatever their language.
 *
 * @module
 */

import { deepEqual, equal, match } from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "../../lib/cli/main.ts";
import type { Io } from "../../lib/cli/io.ts";
import { renderTasks } from "../../lib/cli/tasks.ts";
import { git } from "../../lib/git.ts";
import type { TasksFile } from "../../lib/records.ts";
import { palette } from "../../lib/style.ts";
import { buildDemo } from "../fixtures/projects.ts";
import { changelogSections, evidenceOverWords } from "../fixtures/shapes.ts";
import { gapToml } from "../fixtures/gaps.ts";
import { miningSetup } from "./_setup.ts";
import { mineHistory } from "./_history.ts";

function capture(): Io & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    out: (text) => stdout.push(text),
    err: (text) => stderr.push(text),
    color: false,
    interactive: false,
  };
}

Deno.test("`bugbout tasks --why` explains a task and a left-out commit, and every left-out change is in tasks.json", async () => {
  await using s = await miningSetup(buildDemo);
  const config = join(s.fixture.dir, "bugbout.toml");
  Deno.env.set("BUGBOUT_HOME", s.home);
  try {
    const io = capture();
    equal(await runCli(["tasks", "--json", "-c", config], io), 0);
    const file = JSON.parse(io.stdout.join("\n")) as TasksFile;
    // Every change is a task or left out, and every left-out one is listed (here compactly).
    const listed = file.excluded.length +
      Object.values(file.leftOut ?? {}).reduce((n, list) => n + list.length, 0);
    equal(file.tasks.length + listed, file.examined);
    const task = file.tasks[0];
    const kept = capture();
    equal(await runCli(["tasks", "--why", task.commit.slice(0, 8), "-c", config], kept), 0);
    const said = kept.stdout.join("\n");
    match(said, new RegExp(`^${task.commit.slice(0, 10)} is task ${task.id}: `));
    match(said, /a bug fix by its title: "Fix title_case/);
    match(said, /tests: test_title_case_keeps_apostrophes/);
    const [entry] = file.leftOut!["not-a-fix"];
    const other = capture();
    equal(await runCli(["tasks", "--why", entry.slice(0, 12), "-c", config], other), 0);
    const title = await git(["log", "-1", "--format=%s", entry.slice(0, 12)], {
      cwd: s.fixture.dir,
    });
    deepEqual(other.stdout.join("\n").split("\n").slice(0, 2), [
      `${entry.slice(0, 10)} was left out: not-a-fix (neither its title nor its changelog entry ` +
      "reads like a fix)",
      `  ${title}`,
    ]);
    const unknown = capture();
    equal(await runCli(["tasks", "--why", "zzz", "-c", config], unknown), 1);
    match(unknown.stderr.join("\n"), /"zzz" is no commit id/);
  } finally {
    Deno.env.delete("BUGBOUT_HOME");
  }
});

Deno.test("the tasks listing shows every language's test ids whole and names the project's language", () => {
  const sha = "a".repeat(40);
  const file: TasksFile = {
    version: 1,
    kind: "tasks",
    inputsKey: "k",
    repository: { head: sha, branch: "main" },
    examined: 2,
    tasks: [{
      id: "issue-3",
      ref: { kind: "issue", number: 3 },
      title: "Fix #3: trim",
      commit: sha,
      parent: "b".repeat(40),
      date: "2024-01-01T00:00:00.000Z",
      sourceFiles: ["trim.go"],
      testFiles: ["trim_test.go"],
      newTests: ["./TestTrim", "test/a.test.ts > trims"],
      packageDir: ".",
      pythonPath: ".",
      statement: "trim",
      statementSource: "commit",
    }],
    excluded: [],
    counts: { "no-source-change": 1 },
  };
  const text = renderTasks(file, {
    palette: palette(false),
    path: "tasks.json",
    cached: true,
    language: "Go",
  });
  match(text, /tests: \.\/TestTrim, test\/a\.test\.ts > trims/);
  // A task whose tests only collection will name says so, with the file (unjs/ufo's
  // test/base.test.ts, whose tests have computed names).
  const unsure = renderTasks({
    ...file,
    tasks: [{
      ...file.tasks[0],
      newTests: [],
      unsureTests: [{ file: "test/base.test.ts", why: "a test has a computed name" }],
    }],
  }, { palette: palette(false), path: "tasks.json", cached: true, language: "JavaScript" });
  match(unsure, /tests: what collection finds in test\/base\.test\.ts {2}statement:/);
  match(text, /no-source-change +changes no Go source file/);
});

Deno.test("`bugbout tasks --why` names the changelog entry and heading that decided a left-out commit", async () => {
  await using m = await mineHistory(changelogSections, { toml: gapToml() });
  const config = join(m.dir, "bugbout.toml");
  Deno.env.set("BUGBOUT_HOME", m.home);
  try {
    const why = async (key: string) => {
      const io = capture();
      equal(await runCli(["tasks", "--why", m.commits[key].slice(0, 9), "-c", config], io), 0);
      return io.stdout.join("\n").split("\n");
    };
    // A title that says no fix, an entry under "Behavior changes:": recorded compactly, with
    // the entry's words.
    const short = m.commits.neutral.slice(0, 12);
    deepEqual(
      m.result.file.leftOut?.["not-a-fix"]?.filter((e) => e.startsWith(short)),
      [`${short} its entry in CHANGES.rst says neither: "Totals add prices in ascending order."`],
    );
    deepEqual((await why("neutral")).slice(1), [
      "  Keep the order of totals (#42)",
      '  its entry in CHANGES.rst says neither: "Totals add prices in ascending order."',
    ]);
    // A "fix" whose entry is under "Features:": the heading is named.
    deepEqual((await why("feature")).slice(1), [
      "  Fix colours of the receipt (#43)",
      '  its entry in CHANGES.rst is under "Features"',
    ]);
    // A kept one names the heading too.
    match((await why("underFixes")).join("\n"), /under "Fixes for metadata and licenses"/);
  } finally {
    Deno.env.delete("BUGBOUT_HOME");
  }
});

Deno.test("`bugbout tasks --why` says in words which conventional-commit type left a commit out", async () => {
  await using m = await mineHistory(evidenceOverWords, { toml: gapToml() });
  Deno.env.set("BUGBOUT_HOME", m.home);
  try {
    const io = capture();
    const argv = [
      "tasks",
      "--why",
      m.commits.refactor.slice(0, 9),
      "-c",
      join(m.dir, "bugbout.toml"),
    ];
    equal(await runCli(argv, io), 0);
    deepEqual(io.stdout.join("\n").split("\n").slice(1), [
      "  refactor: fix naming in average (#37)",
      "  a conventional commit of type refactor, which fixes no bug",
    ]);
  } finally {
    Deno.env.delete("BUGBOUT_HOME");
  }
});
