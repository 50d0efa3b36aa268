import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { cachedTree } from "../../lib/checkout.ts";
import { RepoBuilder } from "../../lib/demo/repo.ts";
import { commitPython, ensureCommitEnv, satisfies } from "../../lib/lang/python/commit_env.ts";
import { envRequest } from "../../lib/lang/python/env.ts";
import { python as pythonLanguage, pythonTools } from "../../lib/lang/python/mod.ts";
import { run } from "../../lib/proc.ts";
import { makeProject } from "../oracle/_fixture.ts";
import { tempDir, testCache } from "./_shared.ts";

async function python(env: { python: string }, code: string): Promise<string> {
  const result = await run([env.python, "-c", code], {
    clearEnv: true,
    env: { PATH: "/usr/bin:/bin" },
    cwd: "/",
    okCodes: "any",
  });
  return (result.stdout + result.stderr).trim();
}

Deno.test("satisfies() reads requires-python specifiers", () => {
  const cases: [string, string, boolean][] = [
    ["3.8.18", ">=3.8", true],
    ["3.8.18", ">=3.9", false],
    ["3.11.7", ">=3.6, !=3.7.*, <4", true],
    ["3.7.16", ">=3.6, !=3.7.*", false],
    ["3.9.18", "~=3.9", true],
    ["3.12.1", "~=3.9.0", false],
    ["3.10.13", "==3.10.*", true],
    ["3.10.13", "<3.10", false],
    ["3.13.0", ">3.12", true],
    ["3.11.7", "", true],
  ];
  for (const [version, spec, want] of cases) {
    equal(satisfies(version, spec), want, `${version} ${spec}`);
  }
});

Deno.test("commitPython() takes the oldest installed Python 3.8 or newer the commit admits", async () => {
  await using tmp = await tempDir();
  const write = (spec: string) =>
    Deno.writeTextFile(
      join(tmp.path, "pyproject.toml"),
      `[project]\nname = "x"\nversion = "1"\nrequires-python = "${spec}"\n`,
    );
  await write(">=3.6");
  const old = await commitPython(tmp.path);
  equal(old.asked, ">=3.6");
  match(old.choice.version, /^3\.8\./, "3.8 when pyenv has it");
  await write(">=3.10");
  match((await commitPython(tmp.path)).choice.version, /^3\.10\./);
  await write("<3.0");
  const none = await commitPython(tmp.path);
  match(none.note ?? "", /no installed Python 3\.8 or newer admits it/);
});

const JAN_2020 = Date.UTC(2020, 0, 10) / 1000;
const JAN_2024 = Date.UTC(2024, 0, 10) / 1000;

/** An old commit (2020) and a new one (2024) that declare the same unpinned dependency. */
async function buildHistory(dir: string) {
  const repo = new RepoBuilder();
  const pyproject = (extra: string) =>
    `[project]\nname = "calc"\nversion = "1.0"\nrequires-python = ">=3.8"\n` +
    `dependencies = ["six"]\n${extra}`;
  const old = repo.commit({
    message: "Old",
    time: JAN_2020,
    files: {
      // The test extra names a package the tests import: the commit's own environment has it.
      "pyproject.toml": pyproject(`\n[project.optional-dependencies]\ntest = ["pytest", "mock"]\n`),
      "calc/__init__.py": "",
    },
  });
  const now = repo.commit({
    message: "New",
    time: JAN_2024,
    files: { "pyproject.toml": pyproject(""), "calc/__init__.py": "" },
  });
  await repo.build(dir);
  return { old: old.sha, now: now.sha };
}

Deno.test("each commit gets its own declared dependencies as of its date", async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "repo");
  const commits = await buildHistory(repo);
  const home = join(tmp.path, "home");
  const project = await makeProject(join(tmp.path, "root"), repo, home, { sandbox: "none" });
  const request = { ...envRequest(project), envsDir: testCache("commit-envs") };
  const tree = (c: string) => cachedTree(repo, c, { home });
  const old = await ensureCommitEnv({
    request,
    tree: await tree(commits.old),
    date: new Date(JAN_2020 * 1000).toISOString(),
  });
  const now = await ensureCommitEnv({
    request,
    tree: await tree(commits.now),
    date: new Date(JAN_2024 * 1000).toISOString(),
  });
  // six 1.14.0 came out on 2020-01-15; 1.17.0 at the end of 2024.
  equal(await python(old, "import six; print(six.__version__)"), "1.13.0");
  equal(await python(now, "import six; print(six.__version__)"), "1.16.0");
  match(old.version, /^3\.8\./);
  equal(await python(old, "import mock; print('mock ok')"), "mock ok");
  match(await python(now, "import mock"), /ModuleNotFoundError/);
  ok(old.key !== now.key);
  equal(old.notes, undefined);
});

Deno.test("pythonTools() keys and opens each commit's environment; a date nothing resolves at falls back with a note", async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "repo");
  const commits = await buildHistory(repo);
  const home = join(tmp.path, "home");
  const project = await makeProject(join(tmp.path, "root"), repo, home, { sandbox: "none" });
  const tools = pythonTools(pythonLanguage, project);
  const [oldKey, nowKey] = await Promise.all([
    tools.envKey(commits.old),
    tools.envKey(commits.now),
  ]);
  ok(oldKey !== nowKey);
  const place = { packageDir: "calc", pythonPath: "." };
  const opened = await tools.open(await cachedTree(repo, commits.now, { home }), {
    task: { ...place, date: "2001-01-01T00:00:00Z" },
  });
  const notes = opened.env.notes ?? [];
  ok(notes.some((n) => /^Resolved with today's versions: as of 2001-01-01/.test(n)), `${notes}`);
  deepEqual(
    await python(opened.env as unknown as { python: string }, "import six; print('ok')"),
    "ok",
  );
});

Deno.test("ensureCommitEnv() keeps at most `keep` environments, the least recently used removed", async () => {
  await using tmp = await tempDir();
  const repo = join(tmp.path, "repo");
  const commits = await buildHistory(repo);
  const home = join(tmp.path, "home");
  const project = await makeProject(join(tmp.path, "root"), repo, home, { sandbox: "none" });
  const envsDir = join(tmp.path, "envs");
  const request = { ...envRequest(project), envsDir };
  const at = async (commit: string, time: number) =>
    await ensureCommitEnv({
      request,
      tree: await cachedTree(repo, commit, { home }),
      date: new Date(time * 1000).toISOString(),
      keep: 1,
    });
  await at(commits.old, JAN_2020);
  const now = await at(commits.now, JAN_2024);
  const left = [];
  for await (const entry of Deno.readDir(envsDir)) {
    if (entry.isDirectory && entry.name.startsWith("at-py")) left.push(join(envsDir, entry.name));
  }
  equal(left.length, 1);
  ok(now.python.startsWith(left[0] + "/"));
});
