/**
 * `bugbout doctor` on a Go module and a JavaScript project: one line names the language's
 * toolchain and runner, with a ✗ and what to install when something is missing or too old;
 * Python's uv and interpreter checks are not asked for.
 *
 * @module
 */

import { match, ok } from "node:assert/strict";
import { join } from "node:path";
import { git } from "../lib/git.ts";
import { buildGoProject } from "./fixtures/go_project.ts";
import { buildTallyProject, PLAIN_PACKAGE } from "./fixtures/node_project.ts";
import { LOCKS } from "./node/_shared.ts";
import { commitOnTop } from "./mine/_runner.ts";
import { tempDir, writeFiles } from "./python/_shared.ts";
import { runBugbout } from "./_helpers.ts";

const CONTESTANT = `[[contestants]]\nagent = "command"\nname = "scripted"\n` +
  `command = ["sh", "agent.sh"]\n`;

async function configure(dir: string, language: string): Promise<void> {
  await Deno.writeTextFile(
    join(dir, "bugbout.toml"),
    `[project]\nlanguage = "${language}"\n\n${CONTESTANT}`,
  );
}

/** The line of check `name` in doctor's output, with the fix line under it when there is one. */
function lineOf(stdout: string, name: string): string {
  const lines = stdout.split("\n");
  const at = lines.findIndex((l) => new RegExp(`^. ${name} `).test(l));
  ok(at >= 0, `no ${name} line in:\n${stdout}`);
  const next = lines[at + 1] ?? "";
  return /^ +→/.test(next) ? `${lines[at]}\n${next}` : lines[at];
}

/**
 * PATH without the programs named: each directory on it that holds one is replaced by a
 * directory under `scratch` of links to everything else in it; `first`, when given, comes before.
 */
async function pathWithout(scratch: string, names: string[], first?: string): Promise<string> {
  const dirs: string[] = first ? [first] : [];
  for (const [i, dir] of (Deno.env.get("PATH") ?? "").split(":").filter(Boolean).entries()) {
    const holds = await Promise.all(
      names.map((n) => Deno.lstat(join(dir, n)).then(() => true, () => false)),
    );
    if (!holds.some(Boolean)) {
      dirs.push(dir);
      continue;
    }
    const shadow = join(scratch, `path-${i}`);
    await Deno.mkdir(shadow, { recursive: true });
    for await (const entry of Deno.readDir(dir)) {
      if (!names.includes(entry.name)) {
        await Deno.symlink(join(dir, entry.name), join(shadow, entry.name));
      }
    }
    dirs.push(shadow);
  }
  return dirs.join(":");
}

Deno.test("doctor in a Go module names go's version and go test, and no uv or Python", async () => {
  await using tmp = await tempDir("bugbout-doctor-go-");
  const go = await buildGoProject(join(tmp.path, "repo"));
  await configure(go.dir, "go");
  const run = await runBugbout(["doctor"], { cwd: go.dir });
  match(
    lineOf(run.stdout, "go"),
    /^✓ go +go1\.\d+(\.\d+)? \(\/\S+\/go\), tests run with go test; go\.mod asks for go 1\.23$/,
  );
  ok(!/^. (uv|python|test-dependencies) /m.test(run.stdout), run.stdout);
  match(run.stdout, /^✓ config +\S+bugbout\.toml: 1 contestant\(s\)/m);

  // Without go on PATH: a ✗ that says what to install.
  const path = await pathWithout(join(tmp.path, "no-go"), ["go"]);
  const bare = await runBugbout(["doctor"], { cwd: go.dir, env: { PATH: path } });
  match(
    lineOf(bare.stdout, "go"),
    /^✗ go +Cannot test a Go module: go is not installed or not on PATH\.\n +→ Install Go from https:\/\/go\.dev\/dl\//,
  );
  match(bare.stdout, /^Not ready/m);

  // A go.mod that asks for a Go newer than this one.
  await commitOnTop(go.dir, "Go 1.99", { "go.mod": "module example.com/shelf\n\ngo 1.99\n" });
  const old = await runBugbout(["doctor"], { cwd: go.dir });
  match(
    lineOf(old.stdout, "go"),
    /^✗ go +go1\S+ \(\S+\), tests run with go test; go\.mod asks for go 1\.99, newer than this Go\n +→ Install Go 1\.99 or later/,
  );
});

Deno.test("doctor in a JavaScript project names node, the package manager and the runner", async () => {
  await using tmp = await tempDir("bugbout-doctor-node-");
  const tally = await buildTallyProject(join(tmp.path, "repo"), LOCKS);
  await configure(tally.dir, "node");
  const run = await runBugbout(["doctor"], { cwd: tally.dir });
  match(
    lineOf(run.stdout, "node"),
    /^✓ node +node v\d+\.\d+\.\d+ \(\S+\); npm \d+\.\d+\.\d+ \(package-lock\.json\); tests run with vitest \(package\.json scripts\.test: vitest run\)$/,
  );
  ok(!/^. (uv|python|test-dependencies) /m.test(run.stdout), run.stdout);

  // A node older than 20.
  const bin = join(tmp.path, "old");
  await Deno.mkdir(bin);
  await Deno.writeTextFile(join(bin, "node"), "#!/bin/sh\necho v18.19.0\n");
  await Deno.chmod(join(bin, "node"), 0o755);
  const old = `${bin}:${Deno.env.get("PATH")}`;
  const older = await runBugbout(["doctor"], { cwd: tally.dir, env: { PATH: old } });
  match(
    lineOf(older.stdout, "node"),
    /^✗ node +node v18\.19\.0 \(\S+\) is older than Node\.js 20\n +→ Install Node\.js 20 or later/,
  );
});

Deno.test("doctor says when a lockfile's package manager is missing, and warns without a lockfile", async () => {
  await using tmp = await tempDir("bugbout-doctor-node-");
  const dir = join(tmp.path, "repo");
  await writeFiles(dir, {
    "package.json": PLAIN_PACKAGE,
    "pnpm-lock.yaml": "lockfileVersion: '9.0'\n",
    "test/a.test.js": "require('node:test')('a', () => {});\n",
  });
  await git(["init", "--quiet", "--initial-branch=main"], { cwd: dir });
  await commitOnTop(dir, "Start", { "package.json": PLAIN_PACKAGE });
  await commitOnTop(dir, "Lock", { "pnpm-lock.yaml": "lockfileVersion: '9.0'\n" });
  await configure(dir, "node");
  // node and git, but neither pnpm nor corepack.
  const path = await pathWithout(join(tmp.path, "no-pnpm"), ["pnpm", "corepack"]);
  const run = await runBugbout(["doctor"], { cwd: dir, env: { PATH: path } });
  match(
    lineOf(run.stdout, "node"),
    /^✗ node +node v\S+ \(\S+\); pnpm \(pnpm-lock\.yaml\) is not installed, nor corepack; tests run with node --test .*\n +→ Install pnpm \(`npm install -g pnpm`\), or run `corepack enable`\./,
  );

  await commitOnTop(dir, "No lock", { "pnpm-lock.yaml": null });
  const unlocked = await runBugbout(["doctor"], { cwd: dir });
  match(
    lineOf(unlocked.stdout, "node"),
    /^! node +node v\S+ \(\S+\); npm \S+ \(no lockfile\); tests run with node --test .*\n +→ Without a lockfile npm resolves versions/,
  );
});
