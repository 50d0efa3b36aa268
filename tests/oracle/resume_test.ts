import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { join } from "node:path";
import { InterruptedError } from "../../lib/errors.ts";
import { oracleAll, readOracles } from "../../lib/oracle/mod.ts";
import type { Oracle } from "../../lib/records.ts";
import type { TaskProgress } from "../../lib/testbed/mod.ts";
import { ensureTestEnv, envRequest } from "../../lib/lang/python/env.ts";
import { RepoBuilder } from "../../lib/demo/repo.ts";
import { ENVS_DIR, sandbox, SANDBOX_KINDS, tempDir, toolsWith } from "../python/_shared.ts";
import { makeProject, makeTask } from "./_fixture.ts";

const CONFIG = new URL("../../deno.json", import.meta.url).pathname;
const CHILD = new URL("./_resume_child.ts", import.meta.url).pathname;

async function history(dir: string) {
  const repo = new RepoBuilder();
  const base = repo.commit({
    message: "Initial",
    files: {
      "pyproject.toml": `[project]\nname = "calc"\nversion = "1.0"\n`,
      "calc/__init__.py": "def one():\n    return 0\n\n\ndef two():\n    return 0\n",
    },
  });
  const quick = repo.commit({
    message: "Fix one (#1)",
    files: {
      "calc/__init__.py": "def one():\n    return 1\n\n\ndef two():\n    return 0\n",
      "tests/test_one.py": "from calc import one\n\n\ndef test_one():\n    assert one() == 1\n",
    },
  });
  const slow = repo.commit({
    message: "Fix two (#2)",
    files: {
      "calc/__init__.py": "def one():\n    return 1\n\n\ndef two():\n    return 2\n",
      "tests/test_two.py": "import time\nfrom calc import two\n\n\ndef test_two():\n" +
        "    time.sleep(1.5)\n    assert two() == 2\n",
    },
  });
  await repo.build(dir);
  return [
    makeTask("quick", { parent: base.sha, commit: quick.sha }, ["tests/test_one.py"]),
    makeTask("slow", { parent: quick.sha, commit: slow.sha }, ["tests/test_two.py"]),
  ];
}

const kind = SANDBOX_KINDS[0] ?? "bubblewrap";

Deno.test(`a killed oracle run keeps finished tasks, and resuming does not rerun them (sandbox: ${kind})`, async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "repo");
  const root = join(tmp.path, "root");
  const home = join(tmp.path, "home");
  const tasks = await history(repo);
  const project = await makeProject(root, repo, home, { sandbox: kind, jobs: 1 });
  const env = await ensureTestEnv({ ...envRequest(project), envsDir: ENVS_DIR });
  const settings = join(tmp.path, "settings.json");
  await Deno.writeTextFile(
    settings,
    JSON.stringify({ root, repo, home, envsDir: ENVS_DIR, sandbox: kind, tasks }),
  );
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", `--config=${CONFIG}`, CHILD, settings],
    env: { DENO_NO_UPDATE_CHECK: "1" },
    stdout: "null",
    stderr: "piped",
    detached: true,
  }).spawn();
  const results = join(root, ".bugbout", "oracles.json");
  let saved: string[] = [];
  const deadline = Date.now() + 120_000;
  try {
    while (Date.now() < deadline) {
      try {
        saved = Object.keys(JSON.parse(await Deno.readTextFile(results)).oracles);
      } catch {
        saved = [];
      }
      if (saved.length > 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    try {
      Deno.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
    await child.stderr.cancel();
    await child.status;
  }
  // Killed after the first task was saved and before the second one finished.
  deepEqual(saved, ["quick"]);
  const killed = await readOracles(project);
  deepEqual(Object.keys(killed.oracles), ["quick"]);
  equal(killed.oracles.quick.status, "scorable");

  const events: TaskProgress<Oracle>[] = [];
  const file = (await oracleAll(project, tasks, {
    tools: toolsWith(project, env),
    sandbox: await sandbox(kind),
    onProgress: (e) => events.push(e),
  })).file;
  deepEqual(
    events.filter((e) => e.event !== "run" && e.event !== "session").map((e) =>
      "task" in e ? `${e.event}:${e.task}` : `${e.event}:${e.run} to run, ${e.cached} reused`
    ),
    [
      "prepare:quick",
      "prepare:slow",
      "cached:quick",
      "plan:1 to run, 1 reused",
      "start:slow",
      "done:slow",
    ],
  );
  // Every session says where it runs before it ends.
  deepEqual(
    events.filter((e) => e.event === "session" || e.event === "run").map((e) =>
      e.event === "session" ? `start ${e.tree}` : `end ${e.run.tree}`
    ).sort(),
    ["end B", "end B", "end G", "end G", "start B", "start B", "start G", "start G"],
  );
  deepEqual(file.oracles.quick, killed.oracles.quick);
  deepEqual(file.oracles.slow.failToPass, ["tests/test_two.py::test_two"]);
  ok(
    events.every((e) =>
      !("task" in e) || e.task !== "quick" || e.event === "cached" || e.event === "prepare"
    ),
  );
  // The killed run's working trees are gone too.
  const left = [];
  for await (const e of Deno.readDir(project.cacheDir("oracle"))) left.push(e.name);
  deepEqual(left, []);
});

Deno.test(`an aborted oracle run (Ctrl-C) keeps finished tasks and says it was interrupted (sandbox: ${kind})`, async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "repo");
  const tasks = await history(repo);
  const project = await makeProject(join(tmp.path, "root"), repo, join(tmp.path, "home"), {
    sandbox: kind,
    jobs: 1,
  });
  const env = await ensureTestEnv({ ...envRequest(project), envsDir: ENVS_DIR });
  const controller = new AbortController();
  await rejects(
    oracleAll(project, tasks, {
      tools: toolsWith(project, env),
      sandbox: await sandbox(kind),
      signal: controller.signal,
      onProgress: (e) => {
        if (e.event === "done") controller.abort();
      },
    }),
    InterruptedError,
  );
  deepEqual(Object.keys((await readOracles(project)).oracles), ["quick"]);
  const left = [];
  for await (const e of Deno.readDir(project.cacheDir("oracle"))) left.push(e.name);
  deepEqual(left, []);
});
