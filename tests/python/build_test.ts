import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { RepoBuilder } from "../../lib/demo/repo.ts";
import { buildTree, materialize } from "../../lib/lang/python/build.ts";
import { ensureTestEnv, envRequest } from "../../lib/lang/python/env.ts";
import { oracleAll } from "../../lib/oracle/mod.ts";
import { makeProject, makeTask } from "../oracle/_fixture.ts";
import { sharedEnv } from "./_project.ts";
import { ENVS_DIR, sandbox, SANDBOX_KINDS, tempDir, toolsWith, writeFiles } from "./_shared.ts";

/** hatch-vcs writes `calc/_version.py` at build time; `calc-add` is the console script. */
const HATCH = `[build-system]
requires = ["hatchling", "hatch-vcs"]
build-backend = "hatchling.build"

[project]
name = "calc"
dynamic = ["version"]

[project.scripts]
calc-add = "calc.cli:main"

[tool.hatch.version]
source = "vcs"

[tool.hatch.build.hooks.vcs]
version-file = "calc/_version.py"
`;

const CLI = "import sys\nfrom calc.arith import add\n\n\ndef main():\n" +
  "    print(add(int(sys.argv[1]), int(sys.argv[2])))\n";

/** A history whose package imports a generated version file and whose tests call its script. */
async function buildHistory(dir: string) {
  const repo = new RepoBuilder();
  const bug = repo.commit({
    message: "Initial",
    files: {
      "pyproject.toml": HATCH,
      ".gitignore": "calc/_version.py\n",
      "calc/__init__.py": "from calc._version import version as __version__\n",
      "calc/arith.py": "def add(a, b):\n    return a - b\n",
      "calc/cli.py": CLI,
      "tests/test_version.py": "import calc\n\n\ndef test_version():\n" +
        "    assert calc.__version__\n",
    },
  });
  const fix = repo.commit({
    message: "Fix add (#1)",
    files: {
      "calc/arith.py": "def add(a, b):\n    return a + b\n",
      "tests/test_cli.py": "import subprocess\nimport calc\n\n\ndef test_add():\n" +
        "    out = subprocess.run(['calc-add', '2', '3'], capture_output=True, text=True)\n" +
        "    assert out.stdout.strip() == '5', out.stderr\n",
    },
  });
  await repo.build(dir);
  return makeTask("cli", { parent: bug.sha, commit: fix.sha }, ["tests/test_cli.py"], [
    "calc/arith.py",
  ]);
}

for (const kind of SANDBOX_KINDS) {
  Deno.test(`a task needing its generated version file and console script is scorable (sandbox: ${kind})`, async () => {
    await using tmp = await tempDir();
    const task = await buildHistory(join(tmp.path, "repo"));
    const project = await makeProject(
      join(tmp.path, "root"),
      join(tmp.path, "repo"),
      join(tmp.path, "home"),
      { sandbox: kind, reruns: 2 },
    );
    const env = await ensureTestEnv({ ...envRequest(project), envsDir: ENVS_DIR });
    const { file } = await oracleAll(project, [task], {
      tools: toolsWith(project, env),
      sandbox: await sandbox(kind),
    });
    const oracle = file.oracles.cli;
    equal(oracle.status, "scorable", oracle.reason);
    deepEqual(oracle.failToPass, ["tests/test_cli.py::test_add"]);
  });
}

Deno.test("the same task on the bare tree is the environment's fault, not unscorable", async () => {
  await using tmp = await tempDir();
  const task = await buildHistory(join(tmp.path, "repo"));
  const project = await makeProject(
    join(tmp.path, "root"),
    join(tmp.path, "repo"),
    join(tmp.path, "home"),
    { sandbox: "none", reruns: 2 },
  );
  // install-project = false: nothing of the project is installed, so nothing is built.
  project.config.project.installProject = false;
  const env = await ensureTestEnv({ ...envRequest(project), envsDir: ENVS_DIR });
  const { file } = await oracleAll(project, [task], {
    tools: toolsWith(project, env),
    sandbox: await sandbox("none"),
  });
  const oracle = file.oracles.cli;
  equal(oracle.status, "environment", oracle.reason);
  match(oracle.reason ?? "", /cannot import `calc\._version`/);
});

Deno.test("buildTree() keeps setuptools-scm's version file and the scripts; the tree is untouched", async () => {
  await using tmp = await tempDir();
  const tree = join(tmp.path, "tree");
  await writeFiles(tree, {
    "pyproject.toml": `[build-system]
requires = ["setuptools>=64", "setuptools-scm>=8"]
build-backend = "setuptools.build_meta"

[project]
name = "calc"
dynamic = ["version"]

[project.scripts]
calc-add = "calc.cli:main"

[tool.setuptools_scm]
write_to = "calc/_version.py"
`,
    "calc/__init__.py": "from calc._version import version\n",
    "calc/cli.py": CLI,
  });
  const env = await sharedEnv(tmp.path);
  const request = {
    tree,
    source: "calc",
    python: env.python,
    envKey: env.key,
    buildsDir: join(tmp.path, "builds"),
  };
  const built = await buildTree(request);
  ok(built?.overlay, built?.note);
  deepEqual(built.generated, ["calc/_version.py"]);
  ok(await Deno.stat(join(built.overlay, "bin", "calc-add")));
  // The build ran on a copy: the tree itself gains the file only from materialize().
  equal(await Deno.stat(join(tree, "calc", "_version.py")).catch(() => null), null);
  const other = join(tmp.path, "other");
  await Deno.mkdir(other);
  deepEqual(await materialize(built, other), ["calc/_version.py"]);
  match(await Deno.readTextFile(join(other, "calc", "_version.py")), /0\.0\.0/);
  // The same packaging files: the same build, not built again.
  const again = await buildTree(request);
  equal(again?.dir, built.dir);
  equal(again?.key, built.key);
});

Deno.test("a tree whose build fails runs bare, with a note saying so", async () => {
  await using tmp = await tempDir();
  const tree = join(tmp.path, "tree");
  await writeFiles(tree, {
    "pyproject.toml": `[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "calc"
version = "1.0"
`,
    "setup.py": "raise SystemExit('this setup.py refuses to build')\n",
    "calc/__init__.py": "",
  });
  const env = await sharedEnv(tmp.path);
  const built = await buildTree({
    tree,
    source: "calc",
    python: env.python,
    envKey: env.key,
    buildsDir: join(tmp.path, "builds"),
  });
  equal(built?.overlay, null);
  match(built?.note ?? "", /could not be built.*bare tree on PYTHONPATH/);
});
