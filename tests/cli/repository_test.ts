/**
 * Repository states a bout cannot start from, through the real CLI: a directory that is not a
 * git repository, one with no commits, a shallow clone, and a corrupt `tasks.json`. `doctor`,
 * `tasks` and `run` each say exactly what is wrong and what to do, naming the path.
 */

import { equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { git } from "../../lib/git.ts";
import { buildDemo, configFor } from "../fixtures/projects.ts";
import { runBugbout, tempDir } from "../_helpers.ts";

const AGENT =
  `[[contestants]]\nagent = "command"\nname = "scripted"\ncommand = ["sh", "agent.sh"]\n`;

/** A project directory with a package and a `bugbout.toml`, and no git at all. */
async function plainProject(dir: string) {
  await Deno.mkdir(join(dir, "pkg"), { recursive: true });
  await Deno.writeTextFile(join(dir, "pkg", "__init__.py"), "");
  await Deno.writeTextFile(join(dir, "bugbout.toml"), `[project]\nsource = "pkg"\n\n${AGENT}`);
}

/** What `doctor`, `tasks` and `run` print for the project in `dir`. */
async function threeCommands(dir: string, home: string) {
  const env = { BUGBOUT_HOME: home };
  return {
    doctor: await runBugbout(["doctor"], { cwd: dir, env }),
    tasks: await runBugbout(["tasks"], { cwd: dir, env }),
    run: await runBugbout(["run"], { cwd: dir, env }),
  };
}

/** Every command failed with `message` (and `hint`), and doctor's git check says the same. */
function allSay(
  runs: Awaited<ReturnType<typeof threeCommands>>,
  message: string,
  hint: RegExp,
) {
  for (const name of ["tasks", "run"] as const) {
    const r = runs[name];
    equal(r.code, 1, `${name}: ${r.stderr}`);
    const [first, second] = r.stderr.split("\n");
    equal(first, `error: ${message}`, name);
    match(second, hint, name);
  }
  equal(runs.doctor.code, 1, runs.doctor.stdout);
  const lines = runs.doctor.stdout.split("\n");
  const at = lines.findIndex((l) => l.startsWith("✗ git"));
  ok(at >= 0, runs.doctor.stdout);
  match(lines[at], new RegExp(`^✗ git\\s+${escape(message)}$`));
  match(lines[at + 1], hint);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

Deno.test("a directory that is not a git repository is named as such by doctor, tasks and run", async () => {
  await using dir = await tempDir();
  await using home = await tempDir();
  await plainProject(dir.path);
  allSay(
    await threeCommands(dir.path, home.path),
    `Cannot mine ${dir.path}: it is not a git repository.`,
    /Run bugbout in your project's repository, or set \[project\] repository/,
  );
});

Deno.test("a repository with no commits yet is named as such by doctor, tasks and run", async () => {
  await using dir = await tempDir();
  await using home = await tempDir();
  await plainProject(dir.path);
  await git(["init", "--quiet", "--initial-branch", "main"], { cwd: dir.path });
  allSay(
    await threeCommands(dir.path, home.path),
    `Cannot mine ${dir.path}: it has no commits yet.`,
    /commit the project first/,
  );
});

Deno.test("a shallow clone is refused with `git fetch --unshallow`, never mined into root commits", async () => {
  await using dir = await tempDir();
  await using home = await tempDir();
  const demo = await buildDemo(join(dir.path, "full"));
  const shallow = join(dir.path, "shallow");
  // At depth 2 the oldest commit kept looked parentless: it was mined as the first commit.
  await git(["clone", "--quiet", "--depth", "2", `file://${demo.dir}`, shallow]);
  await Deno.writeTextFile(join(shallow, "bugbout.toml"), configFor(demo, { extra: AGENT }));
  const runs = await threeCommands(shallow, home.path);
  allSay(
    runs,
    `Cannot mine ${shallow}: it is a shallow clone; run \`git fetch --unshallow\` in it first.`,
    /needs the full history/,
  );
  ok(!runs.tasks.stdout.includes("root-commit") && !runs.tasks.stdout.includes("first commit"));
  // After `git fetch --unshallow` the same clone mines.
  await git(["fetch", "--quiet", "--unshallow"], { cwd: shallow });
  const mined = await runBugbout(["tasks"], { cwd: shallow, env: { BUGBOUT_HOME: home.path } });
  equal(mined.code, 0, mined.stderr);
});

Deno.test("a corrupt tasks.json stops run with the same message report gives, and is kept", async () => {
  await using dir = await tempDir();
  await using home = await tempDir();
  const demo = await buildDemo(join(dir.path, "textkit"));
  await Deno.writeTextFile(join(demo.dir, "bugbout.toml"), configFor(demo, { extra: AGENT }));
  const file = join(demo.dir, ".bugbout", "tasks.json");
  await Deno.mkdir(join(demo.dir, ".bugbout"));
  await Deno.writeTextFile(file, "{ this is not json");
  const env = { BUGBOUT_HOME: home.path };
  const run = await runBugbout(["run"], { cwd: demo.dir, env });
  const report = await runBugbout(["report"], { cwd: demo.dir, env });
  equal(run.code, 1, run.stderr);
  equal(report.code, 1, report.stderr);
  const named = run.stderr.split("\n")[0];
  match(named, new RegExp(`^error: ${escape(file)} is corrupt: it is not valid JSON`));
  equal(report.stderr.split("\n")[0], named);
  // Named, not silently mined again over it.
  equal(await Deno.readTextFile(file), "{ this is not json");
});

Deno.test("doctor warns about another copy of the project where agents can read it", async () => {
  await using dir = await tempDir();
  await using home = await tempDir();
  const demo = await buildDemo(join(dir.path, "textkit"));
  // An agent installed npm-style, with a clone of the project inside its package directory.
  const pkg = join(dir.path, "npm", "lib", "node_modules", "tool");
  await Deno.mkdir(join(pkg, "bin"), { recursive: true });
  await Deno.writeTextFile(join(pkg, "package.json"), `{"name": "tool"}`);
  await Deno.writeTextFile(join(pkg, "bin", "tool.js"), "#!/usr/bin/env node\n", { mode: 0o755 });
  await Deno.mkdir(join(dir.path, "npm", "bin"));
  await Deno.symlink("../lib/node_modules/tool/bin/tool.js", join(dir.path, "npm", "bin", "tool"));
  await git(["clone", "--quiet", demo.dir, join(pkg, "vendor", "textkit")]);
  const agent = `[[contestants]]\nagent = "command"\nname = "installed"\n` +
    `command = [${JSON.stringify(join(dir.path, "npm", "bin", "tool"))}]\n`;
  await Deno.writeTextFile(join(demo.dir, "bugbout.toml"), configFor(demo, { extra: agent }));
  const doctor = await runBugbout(["doctor"], { cwd: demo.dir, env: { BUGBOUT_HOME: home.path } });
  const lines = doctor.stdout.split("\n");
  const at = lines.findIndex((l) => l.startsWith("! clones"));
  ok(at >= 0, doctor.stdout);
  match(
    lines[at],
    new RegExp(
      `another copy of the project, with its fixes: ${escape(join(pkg, "vendor", "textkit"))}$`,
    ),
  );
  match(lines[at + 1], /→ Move it out of the system's directories/);
});
