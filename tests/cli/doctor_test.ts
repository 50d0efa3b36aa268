/**
 * `bugbout doctor` on where the repository is: a remote (a `file://` URL or the path of a bare
 * repository, both local: no test reaches the network) before and after mining cloned it, a remote
 * that cannot be read, and a configured path that is not a git repository. Each git line names
 * what bugbout.toml names, never the current directory.
 */

import { equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { git } from "../../lib/git.ts";
import { buildDemo } from "../fixtures/projects.ts";
import { runBugbout, tempDir } from "../_helpers.ts";

const AGENT =
  `[[contestants]]\nagent = "command"\nname = "scripted"\ncommand = ["sh", "agent.sh"]\n`;

/** A directory (not a git repository) holding only a bugbout.toml for `repository`. */
async function boutDir(root: string, repository: string): Promise<string> {
  const dir = join(root, "bout");
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(
    join(dir, "bugbout.toml"),
    `[project]\nsource = "textkit"\nrepository = ${JSON.stringify(repository)}\n\n${AGENT}`,
  );
  return dir;
}

/** The demo project and a bare clone of it beside it, as a server would hold it. */
async function bareDemo(root: string): Promise<string> {
  const demo = await buildDemo(join(root, "textkit"));
  const bare = join(root, "textkit.git");
  await git(["clone", "--quiet", "--bare", "--", demo.dir, bare]);
  return bare;
}

/** The line of `check` in doctor's output, and the one after it (the fix, if any). */
function checkLines(stdout: string, check: string): [string, string] {
  const lines = stdout.split("\n");
  const at = lines.findIndex((l) => new RegExp(`^. ${check} `).test(l));
  ok(at >= 0, `no ${check} line in:\n${stdout}`);
  return [lines[at], lines[at + 1] ?? ""];
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

async function reposIn(home: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(join(home, "repos"))) names.push(entry.name);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return names;
}

for (const form of ["file:// URL", "path to a bare repository"] as const) {
  Deno.test(`doctor with a remote repository (a ${form}) says where it will be cloned, then checks that clone`, async () => {
    await using dir = await tempDir();
    const bare = await bareDemo(dir.path);
    const setting = form === "file:// URL" ? `file://${bare}` : "../textkit.git";
    const bout = await boutDir(dir.path, setting);
    const home = join(dir.path, "home");
    const env = { BUGBOUT_HOME: home };
    const what = form === "file:// URL"
      ? `file://${bare} \\(a remote\\)`
      : `${escape(bare)} \\(a bare repository\\)`;

    const before = await runBugbout(["doctor"], { cwd: bout, env });
    equal(before.code, 0, before.stdout + before.stderr);
    const [line] = checkLines(before.stdout, "git");
    match(
      line,
      new RegExp(
        `^✓ git +${what}: the first \`bugbout tasks\` or \`bugbout run\` clones it into ` +
          `${escape(home)}/repos/\\S+$`,
      ),
    );
    equal((await reposIn(home)).length, 0, "doctor itself clones nothing");

    const tasks = await runBugbout(["tasks"], { cwd: bout, env });
    equal(tasks.code, 0, tasks.stderr);
    match(tasks.stdout, /^\d+ tasks from 11 changes/);
    const [clone] = await reposIn(home);
    ok(clone, "tasks cloned the repository");

    const after = await runBugbout(["doctor"], { cwd: bout, env });
    equal(after.code, 0, after.stdout + after.stderr);
    match(
      checkLines(after.stdout, "git")[0],
      new RegExp(
        `^✓ git +${what}: mined from its clone ${escape(join(home, "repos", clone))} ` +
          `\\(fetched by each \`bugbout tasks\` and \`bugbout run\`\\), default branch main, ` +
          `11 commit\\(s\\) of first-parent history$`,
      ),
    );
  });
}

Deno.test("doctor with a remote that cannot be read names it and fails, cloning nothing", async () => {
  await using dir = await tempDir();
  const url = `file://${join(dir.path, "nowhere.git")}`;
  const bout = await boutDir(dir.path, url);
  const home = join(dir.path, "home");
  const run = await runBugbout(["doctor"], { cwd: bout, env: { BUGBOUT_HOME: home } });
  equal(run.code, 1, run.stdout + run.stderr);
  const [line, fix] = checkLines(run.stdout, "git");
  match(
    line,
    new RegExp(
      `^✗ git +Cannot read ${
        escape(url)
      } \\(a remote\\): '.*' does not appear to be a git repository$`,
    ),
  );
  match(fix, /→ Check the URL and your access to it/);
  ok(!line.includes(bout), `the current directory is not what is checked:\n${run.stdout}`);
  equal((await reposIn(home)).length, 0);
});

for (const kind of ["a directory that is not a git repository", "a path that does not exist"]) {
  Deno.test(`doctor names the configured repository when it is ${kind}, not the current directory`, async () => {
    await using dir = await tempDir();
    const target = join(dir.path, "notgit");
    if (kind.startsWith("a directory")) await Deno.mkdir(target);
    const bout = await boutDir(dir.path, "../notgit");
    const run = await runBugbout(["doctor"], {
      cwd: bout,
      env: { BUGBOUT_HOME: join(dir.path, "home") },
    });
    equal(run.code, 1, run.stdout + run.stderr);
    const [line, fix] = checkLines(run.stdout, "git");
    const why = kind.startsWith("a directory")
      ? "it is not a git repository"
      : "there is no such directory";
    equal(line.replace(/^(. git) +/, "$1 "), `✗ git Cannot mine ${target}: ${why}.`);
    match(fix, /→ .*set \[project\] repository in bugbout\.toml/);
    ok(!run.stdout.includes(`${bout}:`), `names the current directory:\n${run.stdout}`);
  });
}
