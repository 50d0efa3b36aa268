import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { oracleAll, readOracles } from "../../lib/oracle/mod.ts";
import type { Oracle, OraclesFile } from "../../lib/records.ts";
import type { TaskProgress } from "../../lib/testbed/mod.ts";
import { ensureTestEnv, envRequest } from "../../lib/lang/python/env.ts";
import { RepoBuilder } from "../../lib/demo/repo.ts";
import { ENVS_DIR, sandbox, SANDBOX_KINDS, toolsWith } from "../python/_shared.ts";
import { makeProject, makeTask } from "./_fixture.ts";

const PYPROJECT = `[project]
name = "calc"
version = "1.0"
dependencies = ["six>=1.16"]
`;

/** A history with one fix per scenario; returns the tasks. */
async function buildHistory(dir: string) {
  const repo = new RepoBuilder();
  repo.commit({
    message: "Initial",
    files: {
      "pyproject.toml": PYPROJECT,
      // The runtime dependency from PyPI: nothing imports without it.
      "calc/__init__.py": "import six\n\nVERSION = six.text_type('1.0')\n",
      "calc/arith.py": "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n",
      "calc/text.py":
        "def shout(s):\n    return s.upper()\n\n\ndef lower(s):\n    return s.lower()\n",
      "calc/loops.py":
        "def halve(n):\n    while n != 1:\n        n = n // 2 if n % 2 == 0 else n\n" +
        "    return True\n",
      "calc/memory.py": "def repeat(s, n):\n    out = []\n    while n <= 0 or len(out) < n:\n" +
        "        out.append(s * 10000000)\n        if len(out) == n:\n            break\n" +
        "    return out\n",
      "tests/test_arith.py": "from calc.arith import mul\n\n\ndef test_mul():\n" +
        "    assert mul(2, 3) == 6\n",
      "tests/weird/conftest.py": "import os\n\n\ndef pytest_unconfigure(config):\n" +
        "    os._exit(0)\n",
    },
  });
  repo.commit({ message: "Tidy", files: { "README": "calc\n" } });
  const flakyTest = `
import os
from calc.arith import add, mul

COUNTER = os.path.join(os.path.dirname(__file__), ".flaky-count")


def test_mul():
    assert mul(2, 3) == 6


def test_add():
    assert add(2, 3) == 5


def test_flaky():
    n = int(open(COUNTER).read()) if os.path.exists(COUNTER) else 0
    open(COUNTER, "w").write(str(n + 1))
    assert n % 2 == 1
`;
  const p1 = repo.commit({ message: "Prepare", files: { "NOTES": "1\n" } });
  const fixAdd = repo.commit({
    message: "Fix add (#1)",
    files: {
      "calc/arith.py": "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n",
      "tests/test_arith.py": flakyTest,
    },
  });
  const fixNothing = repo.commit({
    message: "Fix docs of mul (#2)",
    files: {
      "calc/arith.py": "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n" +
        '    """Multiply."""\n    return a * b\n',
      "tests/test_arith.py": flakyTest.replace(
        "import os\n",
        "import os\n\n\ndef test_mul_zero():\n" +
          "    from calc.arith import mul\n    assert mul(0, 5) == 0\n",
      ),
    },
  });
  const fixShout = repo.commit({
    message: "Fix shout (#3)",
    files: {
      "calc/text.py": "def shout(s):\n    return s.upper() + '!'\n\n\ndef lower(s):\n" +
        "    return s.lower()\n",
      "tests/test_text.py": "from calc.text import lower, shout\n\n\ndef test_shout():\n" +
        "    assert shout('a') == 'A!'\n\n\ndef test_lower():\n    assert lower('A') == 'a'\n",
    },
  });
  const fixDiv = repo.commit({
    message: "Add div (#4)",
    files: {
      "calc/arith.py": "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n" +
        '    """Multiply."""\n    return a * b\n\n\ndef div(a, b):\n    return a / b\n',
      "tests/test_div.py": "import pytest\nfrom calc.arith import div\n\n\ndef test_div():\n" +
        "    assert div(6, 3) == 2\n\n\ndef test_div_zero():\n" +
        "    with pytest.raises(ZeroDivisionError):\n        div(1, 0)\n",
    },
  });
  const fixLoop = repo.commit({
    message: "Fix halve hanging on odd numbers (#5)",
    files: {
      "calc/loops.py": "def halve(n):\n    while n > 1:\n        n = n // 2\n    return True\n",
      "tests/test_loops.py": "from calc.loops import halve\n\n\ndef test_even():\n" +
        "    assert halve(8)\n\n\ndef test_odd():\n    assert halve(7)\n\n\n" +
        "def test_after():\n    assert halve(1)\n",
    },
  });
  const fixMemory = repo.commit({
    message: "Fix repeat eating memory for n=0 (#6)",
    files: {
      "calc/memory.py": "def repeat(s, n):\n    return [s * 10000000 for _ in range(max(n, 0))]\n",
      "tests/test_memory.py": "from calc.memory import repeat\n\n\ndef test_some():\n" +
        "    assert len(repeat('x', 2)) == 2\n\n\ndef test_none():\n" +
        "    assert repeat('x', 0) == []\n",
    },
  });
  const fixWeird = repo.commit({
    message: "Fix lower on the weird path (#7)",
    files: {
      "calc/text.py": "def shout(s):\n    return s.upper() + '!'\n\n\ndef lower(s):\n" +
        "    return s.lower().strip()\n",
      "tests/weird/test_weird.py": "from calc.text import lower\n\n\ndef test_strip():\n" +
        "    assert lower(' A ') == 'a'\n",
    },
  });
  await repo.build(dir);
  const fix = (c: { sha: string }, parent: { sha: string }) => ({
    commit: c.sha,
    parent: parent.sha,
  });
  return [
    makeTask("flaky", fix(fixAdd, p1), ["tests/test_arith.py"], ["calc/arith.py"]),
    makeTask("nothing", fix(fixNothing, fixAdd), ["tests/test_arith.py"]),
    makeTask("new-module", fix(fixShout, fixNothing), ["tests/test_text.py"]),
    makeTask("collection", fix(fixDiv, fixShout), ["tests/test_div.py"]),
    makeTask("loop", fix(fixLoop, fixDiv), ["tests/test_loops.py"]),
    makeTask("memory", fix(fixMemory, fixLoop), ["tests/test_memory.py"]),
    makeTask("disagree", fix(fixWeird, fixMemory), ["tests/weird/test_weird.py"]),
  ];
}

interface Outcome {
  file: OraclesFile;
  events: TaskProgress<Oracle>[];
  reread: OraclesFile;
}

const cleanups: string[] = [];
globalThis.addEventListener("unload", () => {
  for (const dir of cleanups) Deno.removeSync(dir, { recursive: true });
});

const computed = new Map<string, Promise<Outcome>>();
function computeAll(kind: "bubblewrap" | "none"): Promise<Outcome> {
  let found = computed.get(kind);
  if (!found) {
    found = (async () => {
      const tmp = await Deno.realPath(await Deno.makeTempDir({ prefix: "bugbout-oracle-" }));
      cleanups.push(tmp);
      const tasks = await buildHistory(join(tmp, "repo"));
      const project = await makeProject(join(tmp, "root"), join(tmp, "repo"), join(tmp, "home"), {
        sandbox: kind,
        jobs: 2,
        // Long enough for every healthy session on a busy machine; the loop task waits it out.
        testTimeout: 15,
        // Small, so the memory blow-up reaches the cap in a few large steps even when busy.
        testMemory: 512,
      });
      const env = await ensureTestEnv({ ...envRequest(project), envsDir: ENVS_DIR });
      const events: TaskProgress<Oracle>[] = [];
      const file = (await oracleAll(project, tasks, {
        tools: toolsWith(project, env),
        sandbox: await sandbox(kind),
        onProgress: (e) => events.push(e),
      })).file;
      return { file, events, reread: await readOracles(project) };
    })();
    computed.set(kind, found);
  }
  return found;
}

async function oracle(kind: "bubblewrap" | "none", task: string): Promise<Oracle> {
  const found = (await computeAll(kind)).file.oracles[task];
  ok(found, `no oracle for ${task}`);
  return found;
}

for (const kind of SANDBOX_KINDS) {
  const test = (name: string, fn: () => Promise<void>) =>
    Deno.test({ name: `${name} (sandbox: ${kind})`, fn });

  test("oracleAll() saves every task in oracles.json", async () => {
    const { file, reread, events } = await computeAll(kind);
    deepEqual(Object.keys(reread.oracles).sort(), Object.keys(file.oracles).sort());
    equal(Object.keys(file.oracles).length, 7);
    equal(events.filter((e) => e.event === "done").length, 7);
    // Two runs of each side per task.
    equal(events.filter((e) => e.event === "run").length, 7 * 4);
  });

  test("a flaky test is set aside, the real fix is fail-to-pass", async () => {
    const o = await oracle(kind, "flaky");
    equal(o.status, "scorable", o.reason);
    deepEqual(o.failToPass, ["tests/test_arith.py::test_add"]);
    deepEqual(o.passToPass, ["tests/test_arith.py::test_mul"]);
    deepEqual(o.unstable, ["tests/test_arith.py::test_flaky"]);
    ok(o.durations["tests/test_arith.py::test_add"] >= 0);
    deepEqual(o.runs.map((r) => `${r.tree}${r.index}:${r.status}`), [
      "B0:ok",
      "B1:ok",
      "G0:ok",
      "G1:ok",
    ]);
  });

  test("a fix that makes no test go from failing to passing is unscorable, with the reason", async () => {
    const o = await oracle(kind, "nothing");
    equal(o.status, "unscorable");
    deepEqual(o.failToPass, []);
    ok(o.passToPass.includes("tests/test_arith.py::test_mul_zero"));
    match(o.reason!, /no test go from failing to passing/);
  });

  test("a fix that adds a new test module: its failing tests are fail-to-pass", async () => {
    const o = await oracle(kind, "new-module");
    equal(o.status, "scorable", o.reason);
    deepEqual(o.failToPass, ["tests/test_text.py::test_shout"]);
    deepEqual(o.passToPass, ["tests/test_text.py::test_lower"]);
  });

  test("a module that cannot be collected on B makes all its tests fail-to-pass", async () => {
    const o = await oracle(kind, "collection");
    equal(o.status, "scorable", o.reason);
    deepEqual(o.failToPass, ["tests/test_div.py::test_div", "tests/test_div.py::test_div_zero"]);
    deepEqual(o.passToPass, []);
    const b = o.runs.find((r) => r.tree === "B")!;
    deepEqual(b.counts, { error: 1 });
  });

  test("an infinite loop on B is a timeout outcome, not an error", async () => {
    const o = await oracle(kind, "loop");
    equal(o.status, "scorable", o.reason);
    deepEqual(o.runs.filter((r) => r.tree === "B").map((r) => r.status), ["timeout", "timeout"]);
    deepEqual(o.runs.filter((r) => r.tree === "G").map((r) => r.status), ["ok", "ok"]);
    // Not reached on B counts as failing.
    deepEqual(o.failToPass, ["tests/test_loops.py::test_after", "tests/test_loops.py::test_odd"]);
    deepEqual(o.passToPass, ["tests/test_loops.py::test_even"]);
  });

  test("a memory blow-up on B is an out-of-memory outcome", async () => {
    const o = await oracle(kind, "memory");
    equal(o.status, "scorable", o.reason);
    deepEqual(o.runs.filter((r) => r.tree === "B").map((r) => r.status), [
      "out-of-memory",
      "out-of-memory",
    ]);
    deepEqual(o.failToPass, ["tests/test_memory.py::test_none"]);
    deepEqual(o.passToPass, ["tests/test_memory.py::test_some"]);
  });

  test("a session that exits before it is over makes the task an infrastructure error", async () => {
    const o = await oracle(kind, "disagree");
    equal(o.status, "infra-error");
    match(o.reason!, /^On B: Infrastructure error: pytest exited with code 0 before its session/);
    deepEqual(o.failToPass, []);
    ok(o.runs.some((r) => r.tree === "B" && r.status === "infra-error"));
  });
}
