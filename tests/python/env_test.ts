import { equal, match, ok, rejects } from "node:assert/strict";
import { join } from "node:path";
import { dependencyFile } from "../../lib/lang/python/dependencies.ts";
import { ensureTestEnv } from "../../lib/lang/python/env.ts";
import { run } from "../../lib/proc.ts";
import { buildEnvRepo, envRequestFor } from "./_project.ts";
import { tempDir, writeFiles } from "./_shared.ts";

const CONFIG = new URL("../../deno.json", import.meta.url).pathname;

async function python(env: { python: string }, code: string): Promise<string> {
  const result = await run([env.python, "-c", code], {
    clearEnv: true,
    env: { PATH: "/usr/bin:/bin" },
    cwd: "/",
    okCodes: "any",
  });
  return (result.stdout + result.stderr).trim();
}

Deno.test("ensureTestEnv() holds the test and runtime dependencies, not the project itself", async () => {
  await using tmp = await tempDir();
  const repo = await buildEnvRepo(join(tmp.path, "repo"));
  const request = await envRequestFor(repo, join(tmp.path, "home"));
  const env = await ensureTestEnv(request);
  equal(env.kind, "uv");
  equal(env.dependencies, "pyproject.toml");
  match(env.pytestVersion, /^\d+\./);
  ok(env.pytestImports.includes("pluggy"), `pytest imports: ${env.pytestImports}`);
  ok(env.readable.includes(env.prefix), "the environment itself is readable");
  // The runtime dependency from pyproject.toml is there; the project's own distribution is not:
  // `calc` in the environment is the other one (9.9) from the test dependencies.
  equal(await python(env, "import six; print('six ok')"), "six ok");
  equal(await python(env, "import calc; print(calc.WHERE)"), "environment");
  const dists = await python(env, "import importlib.metadata as m; print(m.version('calc'))");
  equal(dists, "9.9");
  // Reused: the same key, the same directory, not rebuilt.
  const manifest = join(env.prefix, "bugbout-env.json");
  const before = await Deno.readTextFile(manifest);
  const again = await ensureTestEnv(request);
  equal(again.key, env.key);
  equal(await Deno.readTextFile(manifest), before);
});

Deno.test("install-project = false leaves the project's runtime dependencies out", async () => {
  await using tmp = await tempDir();
  const repo = await buildEnvRepo(join(tmp.path, "repo"));
  const env = await ensureTestEnv(
    await envRequestFor(repo, join(tmp.path, "home"), {
      installProject: false,
      testDependencies: ["pytest"],
    }),
  );
  equal(env.dependencies, null);
  match(await python(env, "import six"), /ModuleNotFoundError/);
  match(await python(env, "import calc"), /ModuleNotFoundError/);
});

Deno.test("interpreter uses an existing Python as it is, building nothing", async () => {
  await using tmp = await tempDir();
  const repo = await buildEnvRepo(join(tmp.path, "repo"));
  const built = await ensureTestEnv(await envRequestFor(repo, join(tmp.path, "home")));
  const home = join(tmp.path, "home2");
  const env = await ensureTestEnv(
    await envRequestFor(repo, home, { interpreter: built.python, envsDir: join(home, "envs") }),
  );
  equal(env.kind, "interpreter");
  equal(env.python, built.python);
  equal(env.pytestVersion, built.pytestVersion);
  ok(env.readable.includes(built.prefix));
  await rejects(Deno.stat(join(home, "envs")));
});

Deno.test("an unresolvable dependency ends with uv's output and what to change", async () => {
  await using tmp = await tempDir();
  const repo = await buildEnvRepo(join(tmp.path, "repo"));
  const error = await ensureTestEnv(
    await envRequestFor(repo, join(tmp.path, "home"), {
      testDependencies: ["pytest", "six==0.0.0.1"],
      envsDir: join(tmp.path, "envs"),
    }),
  ).then(() => undefined, (e) => e);
  ok(error, "building must fail");
  match(error.message, /uv could not install the test dependencies/);
  match(error.message, /six==0\.0\.0\.1/);
  match(error.hint, /test-dependencies in bugbout\.toml/);
  // Nothing half-built is left to be mistaken for an environment.
  for await (const entry of Deno.readDir(join(tmp.path, "envs"))) {
    ok(entry.name.endsWith(".lock"), `left behind: ${entry.name}`);
  }
});

Deno.test("a Python this machine lacks is refused with a hint, never downloaded", async () => {
  await using tmp = await tempDir();
  const repo = await buildEnvRepo(join(tmp.path, "repo"));
  await rejects(
    ensureTestEnv(
      await envRequestFor(repo, join(tmp.path, "home"), {
        python: "3.1",
        envsDir: join(tmp.path, "envs"),
      }),
    ),
    (e: Error & { hint?: string }) =>
      /No Python on this machine satisfies 3\.1/.test(e.message) &&
      /\[project\] python/.test(e.hint ?? ""),
  );
});

Deno.test("two bugbout processes building the same environment build it once, and only the builder says it builds", async () => {
  await using tmp = await tempDir();
  const repo = await buildEnvRepo(join(tmp.path, "repo"));
  const envs = join(tmp.path, "envs");
  const script = join(tmp.path, "build.ts");
  const request = await envRequestFor(repo, join(tmp.path, "home"), {
    envsDir: envs,
    testDependencies: ["pytest"],
  });
  await Deno.writeTextFile(
    script,
    `import { ensureTestEnv } from ${
      JSON.stringify(new URL("../../lib/lang/python/env.ts", import.meta.url).href)
    };\n` +
      `let built = false;\n` +
      `const env = await ensureTestEnv({ ...${
        JSON.stringify(request)
      }, onBuilding: () => built = true });\n` +
      `const manifest = JSON.parse(await Deno.readTextFile(env.prefix + "/bugbout-env.json"));\n` +
      `console.log(JSON.stringify({ built, created: manifest.created }));\n`,
  );
  const spawn = () =>
    run([Deno.execPath(), "run", "-A", "--quiet", `--config=${CONFIG}`, script], {
      env: { DENO_NO_UPDATE_CHECK: "1" },
      timeoutMs: 300_000,
    });
  const [a, b] = await Promise.all([spawn(), spawn()]);
  // Same manifest, same creation time: one built it, the other waited and reused it.
  equal(JSON.parse(a.stdout).created, JSON.parse(b.stdout).created);
  // Only the one that built it says it builds one (the progress note "Building the test
  // environment"); a reuse says nothing.
  equal([JSON.parse(a.stdout).built, JSON.parse(b.stdout).built].filter(Boolean).length, 1);
  const third = await spawn();
  equal(JSON.parse(third.stdout).built, false);
});

Deno.test("dependencyFile() finds the packaging file nearest above the package", async () => {
  const table: [string, Record<string, string>, string, string | null][] = [
    [
      "pyproject with [project]",
      { "pyproject.toml": "[project]\nname='x'\n" },
      "src/x",
      "pyproject.toml",
    ],
    [
      "tool-only pyproject beside setup.py",
      { "pyproject.toml": "[tool.black]\n", "setup.py": "" },
      "x",
      "setup.py",
    ],
    ["setup.cfg metadata", { "setup.cfg": "[metadata]\nname = x\n" }, "x", "setup.cfg"],
    ["a build backend only", { "pyproject.toml": "[build-system]\n" }, "x", "pyproject.toml"],
    ["requirements only", { "requirements.txt": "six\n" }, "x", "requirements.txt"],
    [
      "a monorepo",
      { "python/pyproject.toml": "[project]\n" },
      "python/src/x",
      "python/pyproject.toml",
    ],
    ["nothing", { "README": "" }, "x", null],
  ];
  for (const [what, files, source, expected] of table) {
    await using tmp = await tempDir();
    await writeFiles(tmp.path, files);
    equal(await dependencyFile(tmp.path, source), expected, what);
  }
});
