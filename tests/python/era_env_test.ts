/**
 * A commit of 2023 in a project shaped like many older ones: its conftest implements a hook with
 * the `path` argument that pytest 9 refuses, its `requirements-test.txt` pins the pytest of its
 * day beside tooling no test imports (`tox<3.0`, `coverage`), and bugbout.toml (written by init
 * at HEAD) asks for a newer pytest. Run through the real oracle with real uv and pytest: the
 * commit's own pytest must be used, the tooling left out, and where only today's pytest can run
 * the tree the task must read as the environment's fault, saying what failed.
 *
 * @module
 */

import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { RepoBuilder } from "../../lib/demo/repo.ts";
import { python, pythonTools } from "../../lib/lang/python/mod.ts";
import { oracleAll } from "../../lib/oracle/mod.ts";
import { makeProject, makeTask } from "../oracle/_fixture.ts";
import { sandbox, tempDir } from "./_shared.ts";

const JUNE_2023 = Date.UTC(2023, 5, 10) / 1000;

/** The hook as pytest < 9 still accepts it (py.path's `path`, gone in pytest 9). */
const CONFTEST = "def pytest_ignore_collect(path, config):\n" +
  "    return path.basename.startswith('skip_')\n";

async function buildHistory(dir: string, requirements: string, time = JUNE_2023) {
  const repo = new RepoBuilder();
  const bug = repo.commit({
    message: "Initial",
    time,
    files: {
      "setup.py": "from setuptools import setup\n\nsetup(name='calc', version='1.0', " +
        "packages=['calc'])\n",
      "requirements-test.txt": requirements,
      "calc/__init__.py": "def add(a, b):\n    return a - b\n",
      "tests/conftest.py": CONFTEST,
      // pytest-cov must be there (and coverage with it, though the tooling pin is left out).
      "pytest.ini": "[pytest]\naddopts = --cov=calc --cov-report=\n",
      "tests/test_old.py": "def test_old():\n    assert True\n",
    },
  });
  const fix = repo.commit({
    message: "Fix add (#1)",
    time: time + 60,
    files: {
      "calc/__init__.py": "def add(a, b):\n    return a + b\n",
      "tests/test_add.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    },
  });
  await repo.build(dir);
  const task = makeTask("add", { parent: bug.sha, commit: fix.sha }, ["tests/test_add.py"], [
    "calc/__init__.py",
  ]);
  return { ...task, date: new Date((time + 60) * 1000).toISOString() };
}

async function oracleOf(tmp: string, requirements: string, time?: number) {
  const task = await buildHistory(join(tmp, "repo"), requirements, time);
  const project = await makeProject(join(tmp, "root"), join(tmp, "repo"), join(tmp, "home"), {
    sandbox: "none",
    reruns: 2,
  });
  // What init writes at HEAD today: a pytest the 2023 commit's own pin contradicts.
  project.config.project.testDependencies = ["pytest>=8", "pytest-cov==4.1.0"];
  const { file } = await oracleAll(project, [task], {
    tools: pythonTools(python, project),
    sandbox: await sandbox("none"),
  });
  return file.oracles.add;
}

Deno.test("a 2023 commit runs on its own pytest, without the tooling its test requirements pin", async () => {
  await using tmp = await tempDir();
  const oracle = await oracleOf(
    tmp.path,
    "coverage==7.2.7\npytest==7.3.1\npytest-cov==4.1.0\ntox<3.0\n",
  );
  equal(oracle.status, "scorable", oracle.reason);
  deepEqual(oracle.failToPass, ["tests/test_add.py::test_add"]);
  const notes = (oracle.environmentNotes ?? []).join("\n");
  match(
    notes,
    /Left out of the test requirements as tooling no test imports: coverage==7\.2\.7, tox<3\.0 \(requirements-test\.txt\)/,
  );
  match(notes, /test-dependencies pytest>=8 gave way to this commit's own declaration/);
  ok(!/today's versions|Resolved at HEAD/.test(notes), notes);
});

Deno.test("a tree only today's pytest is given, which refuses its conftest, is the environment's fault and says what failed", async () => {
  await using tmp = await tempDir();
  // Nothing pins pytest and the commit is of today: pytest 9, which refuses the `path` hook.
  const oracle = await oracleOf(
    tmp.path,
    "pytest\npytest-cov==4.1.0\n",
    Math.floor(Date.now() / 1000) - 120,
  );
  equal(oracle.status, "environment", oracle.reason);
  match(
    oracle.reason ?? "",
    /^environment: this pytest refuses the tree's `pytest_ignore_collect` hook, whose argument\(s\) \{'path'\} it no longer passes/,
  );
  match(oracle.reason ?? "", /pytest cannot run the fix's tests on G: .*PluginValidationError/);
});
