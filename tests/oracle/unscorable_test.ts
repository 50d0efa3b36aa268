/**
 * Tasks the ground truth leaves out for good, with a reason a person can act on: a tree today's
 * pytest refuses to start (not an infrastructure error to retry), a test dependency missing from
 * `[project] test-dependencies`, and a fix whose tests only fail on B because they use names that
 * do not exist yet (`new-api`). Real git history, real pytest, no sandbox (the sandbox is not
 * what is under test here).
 *
 * @module
 */

import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { RepoBuilder } from "../../lib/demo/repo.ts";
import { deterministicFailure, groundTruth, oneLine, oracleAll } from "../../lib/oracle/mod.ts";
import { configRefusal, mergeRepeats, pythonTruthAdvice } from "../../lib/lang/python/mod.ts";
import { ensureTestEnv, envRequest } from "../../lib/lang/python/env.ts";
import type { Oracle, Task } from "../../lib/records.ts";
import type { TaskProgress } from "../../lib/testbed/mod.ts";
import { ENVS_DIR, sandbox, tempDir, toolsWith } from "../python/_shared.ts";
import { makeProject, makeTask } from "./_fixture.ts";

const TEXT = "def shout(s):\n    return s.upper()\n";

async function buildHistory(dir: string): Promise<Task[]> {
  const repo = new RepoBuilder();
  repo.commit({
    message: "Initial",
    files: {
      "pyproject.toml": '[project]\nname = "calc"\nversion = "1.0"\n',
      // pytest has refused a [pytest] section in setup.cfg since 4.0.
      "setup.cfg": "[metadata]\nname = calc\n\n[pytest]\naddopts = -q\n",
      "calc/__init__.py": "",
      "calc/text.py": TEXT,
      "tests/test_text.py": "from calc.text import shout\n\n\ndef test_shout():\n" +
        "    assert shout('a') == 'A'\n",
    },
  });
  const old = repo.commit({
    message: "Fix shout of empty strings (#1)",
    files: {
      "calc/text.py": TEXT.replace("s.upper()", "(s or '').upper()"),
      "tests/test_text.py": "from calc.text import shout\n\n\ndef test_shout():\n" +
        "    assert shout('a') == 'A'\n\n\ndef test_empty():\n    assert shout(None) == ''\n",
    },
  });
  const modern = repo.commit({
    message: "Move pytest settings to [tool:pytest]",
    files: { "setup.cfg": "[metadata]\nname = calc\n\n[tool:pytest]\naddopts = -q\n" },
  });
  const base = TEXT.replace("s.upper()", "(s or '').upper()");
  const pretend = repo.commit({
    message: "Fix shout of bytes (#2)",
    files: {
      "calc/text.py": base.replace(
        "(s or '')",
        "(s.decode() if isinstance(s, bytes) else s or '')",
      ),
      "tests/test_bytes.py": "import pretend\nfrom calc.text import shout\n\n\n" +
        "def test_bytes():\n    assert shout(b'a') == 'A'\n",
    },
  });
  const withBytes = base.replace("(s or '')", "(s.decode() if isinstance(s, bytes) else s or '')");
  const newApi = repo.commit({
    message: "Fix whispering (#3)",
    files: {
      "calc/text.py": withBytes + "\n\ndef whisper(s):\n    return s.lower()\n",
      "tests/test_whisper.py": "from calc.text import whisper\n\n\ndef test_whisper():\n" +
        "    assert whisper('A') == 'a'\n",
    },
  });
  const bug = repo.commit({
    message: "Fix whisper of None (#4)",
    files: {
      "calc/text.py": withBytes + "\n\ndef whisper(s):\n    return (s or '').lower()\n",
      "tests/test_whisper.py": "from calc.text import whisper\n\n\ndef test_whisper():\n" +
        "    assert whisper('A') == 'a'\n\n\ndef test_none():\n    assert whisper(None) == ''\n",
    },
  });
  await repo.build(dir);
  const fix = (c: { sha: string }, parent: { sha: string }) => ({
    commit: c.sha,
    parent: parent.sha,
  });
  const task = (id: string, f: ReturnType<typeof fix>, tests: string[], statement?: string) => ({
    ...makeTask(id, f, tests, ["calc/text.py"]),
    ...(statement ? { statement } : {}),
  });
  return [
    task("old-config", fix(old, { sha: await first(dir) }), ["tests/test_text.py"]),
    task("pretend", fix(pretend, modern), ["tests/test_bytes.py"]),
    task("new-api", fix(newApi, pretend), ["tests/test_whisper.py"]),
    task(
      "named-api",
      fix(newApi, pretend),
      ["tests/test_whisper.py"],
      "Add whisper(): it is missing.",
    ),
    task("bug", fix(bug, newApi), ["tests/test_whisper.py"]),
  ];
}

async function first(dir: string): Promise<string> {
  const { git } = await import("../../lib/git.ts");
  return await git(["rev-list", "--max-parents=0", "HEAD"], { cwd: dir });
}

let computed:
  | Promise<{ oracles: Record<string, Oracle>; again: TaskProgress<Oracle>[] }>
  | undefined;
function computeAll() {
  computed ??= (async () => {
    const tmp = await tempDir("bugbout-unscorable-");
    globalThis.addEventListener("unload", () => Deno.removeSync(tmp.path, { recursive: true }));
    const tasks = await buildHistory(join(tmp.path, "repo"));
    const project = await makeProject(
      join(tmp.path, "root"),
      join(tmp.path, "repo"),
      join(tmp.path, "home"),
      { sandbox: "none", jobs: 2, testTimeout: 60 },
    );
    const env = await ensureTestEnv({ ...envRequest(project), envsDir: ENVS_DIR });
    const box = await sandbox("none");
    const { file } = await oracleAll(project, tasks, {
      tools: toolsWith(project, env),
      sandbox: box,
    });
    // A second run reuses every result: nothing here is an infrastructure error to retry.
    const again: TaskProgress<Oracle>[] = [];
    await oracleAll(project, tasks, {
      tools: toolsWith(project, env),
      sandbox: box,
      onProgress: (e) => again.push(e),
    });
    return { oracles: file.oracles, again };
  })();
  return computed;
}

Deno.test("a tree today's pytest refuses to start is unscorable with a one-line reason, and is not run again", async () => {
  const { oracles, again } = await computeAll();
  const o = oracles["old-config"];
  equal(o.status, "unscorable", o.reason);
  match(o.reason!, /^pytest cannot run the fix's tests on G: .*\[pytest\] section/);
  ok(!o.reason!.includes("\n"), o.reason);
  equal(again.filter((e) => e.event === "run").length, 0, JSON.stringify(again));
});

Deno.test("a test dependency that is not installed is named, with the key to set", async () => {
  const o = (await computeAll()).oracles["pretend"];
  equal(o.status, "unscorable", o.reason);
  match(o.reason!, /No module named 'pretend'/);
  match(o.reason!, /Add "pretend" to \[project\] test-dependencies/);
});

Deno.test("fail-to-pass tests that fail on B only for a name that does not exist yet are left out as new-api", async () => {
  const { oracles } = await computeAll();
  const o = oracles["new-api"];
  equal(o.status, "unscorable", o.reason);
  deepEqual(o.leftOut, { reason: "new-api", names: ["whisper"] });
  deepEqual(o.failToPass, ["tests/test_whisper.py::test_whisper"]);
  match(o.reason!, /^new-api: .*`whisper`/);
  // The same fix, when the statement names the function, is a task the agent can do.
  equal(oracles["named-api"].status, "scorable");
  // A test failing on B by its assertion is a bug, not a new API.
  equal(oracles["bug"].status, "scorable");
  deepEqual(oracles["bug"].failToPass, ["tests/test_whisper.py::test_none"]);
});

Deno.test("oneLine and deterministicFailure keep what a table needs", () => {
  equal(
    oneLine("Traceback (most recent call last):\n  File x\nFailed: [pytest] section in setup.cfg"),
    "Failed: [pytest] section in setup.cfg",
  );
  equal(
    oneLine("E   ModuleNotFoundError: No module named 'pretend'"),
    "ModuleNotFoundError: No module named 'pretend'",
  );
  const run = (message: string) => ({
    status: "infra-error" as const,
    cause: "harness" as const,
    exitCode: 1,
    outcomes: {},
    durations: {},
    message,
    durationMs: 1,
    tamper: [],
    suspect: [],
    groups: [],
  });
  equal(deterministicFailure([run("x\nFailed: no"), run("y\nFailed: no")]), "Failed: no");
  equal(deterministicFailure([run("Failed: no"), run("Failed: other")]), undefined);
  equal(deterministicFailure([run("pytest was killed by signal 9")]), undefined);
  // When the output says nothing, what the configuration says pytest refuses is the reason.
  const stuck = run("Infrastructure error: pytest exited with code 3 before its session was over.");
  const refusal = configRefusal({
    "setup.cfg": "[metadata]\nname = x\n\n[pytest]\naddopts = -q\n",
  });
  match(refusal!, /\[pytest\] section/);
  equal(deterministicFailure([stuck, stuck], refusal), refusal);
  equal(deterministicFailure([stuck, stuck]), undefined);
  equal(configRefusal({ "setup.cfg": "[tool:pytest]\naddopts = -q\n" }), undefined);
  // A conftest.py importing a package the environment lacks stops every run the same way.
  const conftest = {
    ...run("ImportError while loading conftest\nE   ModuleNotFoundError: No module named 'pytz'"),
    cause: "unrunnable" as const,
  };
  const truth = groundTruth(
    mergeRepeats([conftest, conftest]),
    mergeRepeats([conftest, conftest]),
    { runner: "pytest", advice: pythonTruthAdvice("calc") },
  );
  equal(truth.status, "unscorable");
  equal(
    truth.reason,
    "pytest cannot run the fix's tests on G: ModuleNotFoundError: No module named 'pytz' Add " +
      '"pytz" to [project] test-dependencies in bugbout.toml (the name on PyPI may differ).',
  );
});
