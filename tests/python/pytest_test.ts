import { deepEqual, equal, match, ok, rejects } from "node:assert/strict";
import { join } from "node:path";
import { InterruptedError } from "../../lib/errors.ts";
import type { TestEnv } from "../../lib/lang/python/env.ts";
import { type PytestOptions, runPytest } from "../../lib/lang/python/pytest.ts";
import { runRepeated } from "../../lib/lang/python/repeats.ts";
import { sharedEnv } from "./_project.ts";
import { sandbox, SANDBOX_KINDS, tempDir, writeFiles } from "./_shared.ts";

let envPromise: Promise<TestEnv> | undefined;
let envTmp: string | undefined;
/** The environment, built (or found in the test cache) once for this file. */
function env(): Promise<TestEnv> {
  envPromise ??= (async () => {
    envTmp = await Deno.realPath(await Deno.makeTempDir({ prefix: "bugbout-env-" }));
    return await sharedEnv(envTmp);
  })();
  return envPromise;
}
globalThis.addEventListener("unload", () => {
  if (envTmp) Deno.removeSync(envTmp, { recursive: true });
});

const CALC = { "calc/__init__.py": `WHERE = "tree"\n\ndef add(a, b):\n    return a + b\n` };

async function runIn(
  kind: "bubblewrap" | "none",
  files: Record<string, string>,
  over: Partial<PytestOptions> & { targets: string[] },
) {
  await using tmp = await tempDir();
  const tree = join(tmp.path, "tree");
  await writeFiles(tree, { ...CALC, ...files });
  const run = await runPytest({
    sandbox: await sandbox(kind),
    env: await env(),
    tree,
    timeoutMs: 60_000,
    memoryMb: 1024,
    scratch: join(tmp.path, "runs"),
    ...over,
  });
  const left: string[] = [];
  for await (const e of Deno.readDir(tree)) left.push(e.name);
  return { run, left: left.sort() };
}

for (const kind of SANDBOX_KINDS) {
  const test = (name: string, fn: () => Promise<void>) =>
    Deno.test({ name: `${name} (sandbox: ${kind})`, fn });

  test("runPytest() tests the tree's code although the environment has another calc", async () => {
    const { run } = await runIn(kind, {
      "tests/test_where.py": "import calc, six\n\n" +
        "def test_where():\n    assert calc.WHERE == 'tree'\n\n" +
        "def test_runtime_dependency():\n    assert six.PY3\n",
    }, { targets: ["tests/test_where.py"] });
    equal(run.status, "ok", run.message);
    equal(run.exitCode, 0);
    deepEqual(run.outcomes, {
      "tests/test_where.py::test_where": "passed",
      "tests/test_where.py::test_runtime_dependency": "passed",
    });
  });

  test("runPytest() reports every outcome under its exact node id, with durations", async () => {
    const { run } = await runIn(kind, {
      "tests/test_all.py": `import time, pytest
from calc import add

def test_pass():
    time.sleep(0.05)
    assert add(1, 2) == 3

def test_fail():
    assert add(1, 2) == 4

@pytest.fixture
def broken():
    raise RuntimeError("setup")

def test_error(broken):
    pass

@pytest.mark.skip(reason="not today")
def test_skip():
    pass

@pytest.mark.xfail(reason="known")
def test_xfail():
    assert False

@pytest.mark.parametrize("x", [1, "a.b::c"])
def test_param(x):
    pass

class TestOuter:
    class TestInner:
        def test_deep(self):
            pass
`,
      "tests/test_new.py": "from calc import subtract\n\ndef test_subtract():\n    pass\n",
    }, { targets: ["tests/test_all.py", "tests/test_new.py"] });
    equal(run.status, "ok", run.message);
    equal(run.exitCode, 1);
    deepEqual(run.outcomes, {
      "tests/test_new.py": "error",
      "tests/test_all.py::test_pass": "passed",
      "tests/test_all.py::test_fail": "failed",
      "tests/test_all.py::test_error": "error",
      "tests/test_all.py::test_skip": "skipped",
      "tests/test_all.py::test_xfail": "xfailed",
      "tests/test_all.py::test_param[1]": "passed",
      "tests/test_all.py::test_param[a.b::c]": "passed",
      "tests/test_all.py::TestOuter::TestInner::test_deep": "passed",
    });
    ok(run.durations["tests/test_all.py::test_pass"] >= 50);
  });

  test("runPytest() ignores addopts, applies pytest-args and env, writes no file in the tree", async () => {
    const { run, left } = await runIn(kind, {
      "pytest.ini": "[pytest]\naddopts = --no-such-plugin-option -p no_such_plugin\n",
      "tests/test_env.py": "import os\n\n" +
        "def test_env():\n    assert os.environ['CALC_MODE'] == 'strict'\n\n" +
        "def test_deselected_by_k():\n    assert False\n",
    }, {
      targets: ["tests/test_env.py"],
      pytestArgs: ["-k", "not deselected"],
      extraEnv: { CALC_MODE: "strict" },
    });
    equal(run.status, "ok", run.message);
    deepEqual(run.outcomes, { "tests/test_env.py::test_env": "passed" });
    // No JUnit XML, cache or bytecode written into the tree.
    deepEqual(left, ["calc", "pytest.ini", "tests"]);
  });

  test("a test that never ends is a timeout of the tree, with the tests not reached not-run", async () => {
    const files = {
      "tests/test_loop.py": "def test_first():\n    pass\n\n" +
        "def test_loop():\n    while True:\n        pass\n\n" +
        "def test_after():\n    pass\n",
    };
    // The maintainers' code is trusted: what passed before the hang stands.
    const { run } = await runIn(kind, files, {
      targets: ["tests/test_loop.py"],
      timeoutMs: 15_000,
      trustPartial: true,
    });
    equal(run.status, "timeout");
    deepEqual(run.outcomes, {
      "tests/test_loop.py::test_first": "passed",
      "tests/test_loop.py::test_loop": "not-run",
      "tests/test_loop.py::test_after": "not-run",
    });
    match(run.message!, /while running tests\/test_loop\.py::test_loop/);
    // Anyone else's session cut short passes nothing.
    const { run: untrusted } = await runIn(kind, files, {
      targets: ["tests/test_loop.py"],
      timeoutMs: 15_000,
    });
    equal(untrusted.status, "timeout");
    equal(untrusted.outcomes["tests/test_loop.py::test_first"], "not-run");
  });

  test("a test that eats memory is out-of-memory under the cap, not an infrastructure error", async () => {
    const { run } = await runIn(kind, {
      "tests/test_mem.py": "def test_small():\n    pass\n\n" +
        "def test_grow():\n    chunks = []\n    while True:\n" +
        "        chunks.append(bytearray(50 * 1024 * 1024))\n",
    }, { targets: ["tests/test_mem.py"], memoryMb: 512 });
    equal(run.status, "out-of-memory", run.message);
    equal(run.outcomes["tests/test_mem.py::test_small"], "passed");
    equal(run.outcomes["tests/test_mem.py::test_grow"], "failed");
  });

  test("a session that exits in the middle is an infrastructure error, not all-failed", async () => {
    const { run } = await runIn(kind, {
      "tests/conftest.py": "import os\n\ndef pytest_unconfigure(config):\n    os._exit(0)\n",
      "tests/test_x.py": "def test_fails():\n    assert False\n",
    }, { targets: ["tests/test_x.py"] });
    equal(run.status, "infra-error");
    equal(run.cause, "harness");
    equal(run.exitCode, 0);
    deepEqual(run.outcomes, {});
    match(run.message!, /exited with code 0 before its session was over/);
  });

  test("a test that writes results to every descriptor makes its session tampered", async () => {
    const { run } = await runIn(kind, {
      "tests/test_x.py": "import json, os\n\n" +
        "def test_fails():\n" +
        "    line = json.dumps({'k': 'done', 'id': 'tests/test_x.py::test_fails', 'o': 'passed'})\n" +
        "    for fd in range(3, 64):\n" +
        "        try:\n            os.write(fd, (line + '\\n').encode())\n" +
        "        except OSError:\n            pass\n" +
        "    assert False\n",
    }, { targets: ["tests/test_x.py"] });
    equal(run.status, "tampered");
    deepEqual(run.outcomes, {});
    match(run.message!, /wrote to the results channel/);
  });

  test("a conftest that cannot be imported makes the tree unrunnable", async () => {
    const { run } = await runIn(kind, {
      "tests/conftest.py": "from calc import not_there\n",
      "tests/test_x.py": "def test_ok():\n    pass\n",
    }, { targets: ["tests/test_x.py"] });
    equal(run.status, "infra-error");
    equal(run.cause, "unrunnable");
    equal(run.exitCode, 4);
    match(run.message!, /refused to run this tree/);
  });

  test("a tree that breaks one of pytest's own dependencies is reported as such", async () => {
    const { run } = await runIn(kind, {
      "pluggy/__init__.py": "raise ImportError('this pluggy is broken')\n",
      "tests/test_x.py": "def test_ok():\n    pass\n",
    }, { targets: ["tests/test_x.py"] });
    equal(run.status, "infra-error");
    equal(run.cause, "unrunnable");
    match(run.message!, /pytest itself crashed.*`pluggy`/s);
  });

  test("runRepeated() sets aside a test whose outcome differs between runs", async () => {
    await using tmp = await tempDir();
    const tree = join(tmp.path, "tree");
    await writeFiles(tree, {
      ...CALC,
      "tests/test_flaky.py": `import os
COUNTER = os.path.join(os.path.dirname(__file__), "count.txt")

def test_flaky():
    n = int(open(COUNTER).read()) if os.path.exists(COUNTER) else 0
    open(COUNTER, "w").write(str(n + 1))
    assert n % 2 == 1

def test_steady():
    pass
`,
    });
    const repeated = await runRepeated({
      sandbox: await sandbox(kind),
      env: await env(),
      tree,
      targets: ["tests/test_flaky.py"],
      timeoutMs: 60_000,
    }, 2);
    deepEqual(repeated.unstable, ["tests/test_flaky.py::test_flaky"]);
    deepEqual(repeated.stable, { "tests/test_flaky.py::test_steady": "passed" });
    deepEqual(repeated.runs.map((r) => r.outcomes["tests/test_flaky.py::test_flaky"]), [
      "failed",
      "passed",
    ]);
  });

  test("runPytest() throws InterruptedError when its signal aborts", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 1500);
    await rejects(
      runIn(kind, {
        "tests/test_slow.py": "import time\n\ndef test_slow():\n    time.sleep(30)\n",
      }, { targets: ["tests/test_slow.py"], signal: controller.signal }),
      InterruptedError,
    );
  });
}

if (SANDBOX_KINDS.includes("bubblewrap")) {
  Deno.test("tests run with no network, even to a listener on the host's loopback", async () => {
    using listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const { port } = listener.addr as Deno.NetAddr;
    const { run } = await runIn("bubblewrap", {
      "tests/test_net.py": `import socket, pytest

def test_no_connection():
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", ${port}), timeout=2)
`,
    }, { targets: ["tests/test_net.py"] });
    equal(run.status, "ok", run.message);
    deepEqual(run.outcomes, { "tests/test_net.py::test_no_connection": "passed" });
  });
}
