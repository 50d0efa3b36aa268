import { deepEqual } from "node:assert/strict";
import { join } from "node:path";
import { run } from "../../lib/proc.ts";
import { findProjectClones } from "../../lib/sandbox/mod.ts";

const GIT_ENV = {
  PATH: "/usr/bin:/bin",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.invalid",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.invalid",
};

async function git(cwd: string, ...args: string[]) {
  await run(["git", ...args], { cwd, clearEnv: true, env: GIT_ENV });
}

async function repoWith(dir: string, file: string) {
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(join(dir, file), "x\n");
  await git(dir, "init", "-q", "-b", "main");
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", file);
}

Deno.test("findProjectClones finds a copy of the project where a sandbox shows it, and only there", async () => {
  const tmp = await Deno.realPath(await Deno.makeTempDir({ prefix: "bugbout-clones-" }));
  try {
    const repo = join(tmp, "repo");
    await repoWith(repo, "a.py");
    const toolchain = join(tmp, "toolchain");
    const hidden = join(tmp, "toolchain", "covered");
    await Deno.mkdir(join(toolchain, "lib"), { recursive: true });
    // A clone (with a later commit), a clone under a covered path, and an unrelated repository.
    await git(tmp, "clone", "-q", repo, join(toolchain, "lib", "copy"));
    await Deno.writeTextFile(join(toolchain, "lib", "copy", "b.py"), "y\n");
    await git(join(toolchain, "lib", "copy"), "add", "-A");
    await git(join(toolchain, "lib", "copy"), "commit", "-qm", "the fix");
    await git(tmp, "clone", "-q", repo, join(hidden, "copy"));
    await repoWith(join(toolchain, "other"), "c.py");

    const found = await findProjectClones({
      repository: repo,
      readable: [toolchain],
      deny: [hidden],
    });
    deepEqual(found, [join(toolchain, "lib", "copy")]);
    // Nothing shown, nothing found; a repository without commits has no clones.
    deepEqual(await findProjectClones({ repository: repo, readable: [join(tmp, "nowhere")] }), []);
    const empty = join(tmp, "empty");
    await Deno.mkdir(empty);
    await git(empty, "init", "-q");
    deepEqual(await findProjectClones({ repository: empty, readable: [toolchain] }), []);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
