/**
 * The guard against the code under test, for real: a package that tries, at import, to make a
 * failing test pass — by patching pytest, rewriting its results at exit, forging records on every
 * descriptor, stealing the channel's secret from memory, replacing test modules or test files —
 * and packages that merely use atexit, signal, threading and subprocesses for their own sake.
 * Every session runs under bubblewrap, as a bout runs it.
 *
 * @module
 */

import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import type { PytestOptions } from "../../lib/lang/python/pytest.ts";
import { runPytest } from "../../lib/lang/python/pytest.ts";
import { BUG, env, sandbox, TESTS } from "./_guard_fixture.ts";
import { tempDir, writeFiles } from "./_shared.ts";

async function session(
  calc: string,
  over: Partial<PytestOptions> = {},
  extra: Record<string, string> = {},
) {
  await using tmp = await tempDir();
  const tree = join(tmp.path, "tree");
  await writeFiles(tree, { "calc/__init__.py": calc, ...TESTS, ...extra });
  return await runPytest({
    sandbox: await sandbox(),
    env: await env(),
    tree,
    targets: ["tests/test_calc.py", "tests/test_more.py"],
    timeoutMs: 60_000,
    memoryMb: 1024,
    scratch: join(tmp.path, "runs"),
    ...over,
  });
}

function passes(run: { outcomes: Record<string, string> }): string[] {
  return Object.entries(run.outcomes).filter(([, o]) => o === "passed").map(([id]) => id);
}

const ATTACKS: [string, string, RegExp][] = [
  [
    "patching pytest's report class from the package (its name built from pieces)",
    BUG + "import sys\n_m = sys.modules['_py' + 'test.rep' + 'orts']\n" +
    "_orig = _m.TestReport.from_item_and_call\n" +
    "def _fake(cls, item, call):\n    r = _orig.__func__(cls, item, call)\n" +
    "    if r.when == 'call':\n        r.outcome = 'passed'\n        r.longrepr = None\n" +
    "    return r\n" +
    "_m.TestReport.from_item_and_call = classmethod(_fake)\n",
    /changed pytest's reporting machinery \(calc\/__init__\.py:\d+: _pytest\.reports\.TestReport\.from_item_and_call\)/,
  ],
  [
    "rewriting the results at exit, found through its command line, then exiting 0",
    BUG + "import atexit, os\n" +
    "def _rewrite():\n    args = open('/proc/self/cmdline', 'rb').read().split(b'\\0')\n" +
    "    for a in args:\n        if a.startswith(b'--junitxml='):\n" +
    "            p = a.split(b'=', 1)[1]\n            open(p, 'w').write('')\n" +
    "    os._exit(0)\n" +
    "atexit.register(_rewrite)\n",
    /read its own process from \/proc \(calc\/__init__\.py:\d+: \/proc\/self\/cmdline\)/,
  ],
  [
    "forging progress records on every descriptor, then killing its own process",
    BUG + "import json, os, signal\n" +
    "line = json.dumps({'k': 'done', 'id': 'tests/test_calc.py::test_add', 'o': 'passed'})\n" +
    "path = os.environ.get('BUGBOUT_PROGRESS_LOG')\n" +
    "if path:\n    open(path, 'a').write(line + '\\n')\n" +
    "for fd in range(3, 64):\n    try:\n        os.write(fd, (line + '\\n').encode())\n" +
    "    except OSError:\n        pass\n" +
    "os.kill(os.getpid(), signal.SIGKILL)\n",
    /killed its own test session|wrote to the results channel/,
  ],
  [
    "forging records and then hanging until the session's time is up",
    BUG + "import json, os, time\n" +
    "line = json.dumps({'k': 'done', 'id': 'tests/test_calc.py::test_add', 'o': 'passed'})\n" +
    "for fd in range(3, 64):\n    try:\n        os.write(fd, (line + '\\n').encode())\n" +
    "    except OSError:\n        pass\n" +
    "time.sleep(3600)\n",
    /wrote to the results channel/,
  ],
  [
    "stealing the channel's secret from memory to sign its own records",
    BUG + "import gc, json, os\n" +
    "for o in gc.get_objects():\n    if type(o).__name__ == 'HMAC':\n" +
    "        for n in range(1, 6):\n" +
    "            body = json.dumps({'k': 'done', 'id': 'tests/test_calc.py::test_add', " +
    "'o': 'passed', 'g': 0, 'n': n}, sort_keys=True, separators=(',', ':'))\n" +
    "            h = o.copy()\n            h.update(body.encode())\n" +
    "            for fd in range(3, 64):\n                try:\n" +
    "                    os.write(fd, (body + '\\t' + h.hexdigest() + '\\n').encode())\n" +
    "                except OSError:\n                    pass\n" +
    "        break\n",
    /looked through the interpreter's objects \(gc\.get_objects\) \(calc\/__init__\.py:\d+\)/,
  ],
  [
    "calling the guard's own reporting function from the tree",
    BUG + "import __main__, json\n" +
    "__main__._send({'k': 'done', 'id': 'tests/test_calc.py::test_add', 'o': 'passed'})\n",
    /called the guard's reporting/,
  ],
  [
    "reading its open descriptors from /proc/self/fd",
    BUG + "import os\nfor fd in os.listdir('/proc/self/fd'):\n    pass\n",
    /listed its own open files/,
  ],
  [
    "replacing a test module through an import hook of its own (no .pth file)",
    BUG + "import sys, os, importlib.abc, importlib.util\n" +
    "class F(importlib.abc.MetaPathFinder, importlib.abc.Loader):\n" +
    "    def find_spec(self, name, path, target=None):\n" +
    "        if name.endswith('test_more'):\n" +
    "            here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))\n" +
    "            return importlib.util.spec_from_file_location(name, " +
    "os.path.join(here, 'tests', 'test_more.py'), loader=self)\n" +
    "    def create_module(self, spec):\n        return None\n" +
    "    def exec_module(self, module):\n" +
    "        exec('def test_more():\\n    pass\\n', module.__dict__)\n" +
    "sys.meta_path.insert(0, F())\n",
    /imported a test module through a loader of its own \(calc\/__init__\.py/,
  ],
  [
    "rewriting a test file before pytest imports it",
    BUG + "import os\nhere = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))\n" +
    "open(os.path.join(here, 'tests', 'test_more.py'), 'w')" +
    ".write('def test_more():\\n    pass\\n')\n",
    /rewrote a test file before pytest imported it \(tests\/test_more\.py\)/,
  ],
  [
    "compiling code under a test file's name to pass for it",
    BUG + "import os, sys\n" +
    "here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))\n" +
    "code = compile('def test_add():\\n    pass\\n', os.path.join(here, 'tests', 'test_calc.py'), 'exec')\n",
    /compiled code under a test file's name/,
  ],
  [
    "replacing the code of a function",
    BUG + "def _ok(a, b):\n    return a + b\nadd.__code__ = _ok.__code__\n",
    /replaced the code of a function/,
  ],
  [
    "a faulthandler timer that ends the session early and claims success",
    BUG + "import faulthandler, os, atexit\n" +
    "atexit.register(lambda: os._exit(0))\n" +
    "faulthandler.dump_traceback_later(0.5, exit=True)\n" +
    "import time\n_t0 = time.time()\n",
    /exited with code \d+ before its session was over/,
  ],
];

for (const [name, calc, evidence] of ATTACKS) {
  Deno.test(`the guard stops a package ${name}`, async () => {
    const run = await session(calc, { timeoutMs: 20_000 });
    deepEqual(passes(run), [], `something passed: ${JSON.stringify(run.outcomes)}`);
    // Ending the session early is not tampering by itself: it only yields nothing. Nor is
    // looking through the interpreter's objects, which here finds nothing of the guard's.
    const early = name.startsWith("a faulthandler");
    const looked = name.startsWith("stealing");
    equal(run.status, early ? "infra-error" : looked ? "ok" : "tampered", run.message);
    const said = [run.message ?? "", ...run.suspect.map((e) => `${e.what} (${e.where})`)];
    match(said.join("\n"), evidence);
  });
}

Deno.test("the guard lets a package use atexit, signal, threading and subprocesses for its own sake", async () => {
  const calc = "import atexit, signal, subprocess, sys, threading, logging\n" +
    "_log = []\natexit.register(_log.clear)\n" +
    "signal.signal(signal.SIGUSR1, lambda *a: _log.append('usr1'))\n" +
    "logging.getLogger('calc').warning('loaded')\n" +
    "def add(a, b):\n    t = threading.Thread(target=_log.append, args=(a,))\n" +
    "    t.start()\n    t.join()\n" +
    "    out = subprocess.run([sys.executable, '-c', 'print(1)'], capture_output=True, text=True)\n" +
    "    return a + b + int(out.stdout) - 1\n";
  const extra = {
    "tests/test_signal.py": "import os, signal\nfrom calc import _log\n\n\n" +
      "def test_signal_to_itself():\n    os.kill(os.getpid(), signal.SIGUSR1)\n" +
      "    assert 'usr1' in _log\n",
  };
  const run = await session(calc, {
    targets: ["tests/test_calc.py", "tests/test_more.py", "tests/test_signal.py"],
  }, extra);
  equal(run.status, "ok", run.message);
  deepEqual(run.tamper, []);
  deepEqual(passes(run).sort(), [
    "tests/test_calc.py::test_add",
    "tests/test_more.py::test_more",
    "tests/test_signal.py::test_signal_to_itself",
  ]);
});

Deno.test("the guard reads unittest subtests: a failing one fails its test, passing ones are no forgery", async () => {
  const run = await session("def add(a, b):\n    return a + b\n", {
    targets: ["tests/test_sub.py"],
  }, {
    "tests/test_sub.py": "import unittest\nfrom calc import add\n\n\n" +
      "class T(unittest.TestCase):\n" +
      "    def test_all_pass(self):\n        for i in range(5):\n" +
      "            with self.subTest(i=i):\n                self.assertEqual(add(i, 0), i)\n\n" +
      "    def test_one_fails(self):\n        for i in range(3):\n" +
      "            with self.subTest(i=i):\n                self.assertNotEqual(i, 1)\n",
  });
  deepEqual(run.tamper, []);
  deepEqual(run.outcomes, {
    "tests/test_sub.py::T::test_all_pass": "passed",
    "tests/test_sub.py::T::test_one_fails": "failed",
  });
});

Deno.test("the guard runs each group in a process of its own: one group's sabotage reaches no other", async () => {
  await using tmp = await tempDir();
  const tree = join(tmp.path, "tree");
  await writeFiles(tree, {
    "calc/__init__.py": "def add(a, b):\n    return a + b\n",
    ...TESTS,
    // A saboteur's module: at import it makes every other test fail and its own pass.
    "tests/_bugbout_saboteur/__init__.py": "",
    "tests/_bugbout_saboteur/test_mine.py": "import calc\n" +
      "calc.add = lambda a, b: 0\n\n\ndef test_mine():\n    assert True\n",
  });
  const run = await runPytest({
    sandbox: await sandbox(),
    env: await env(),
    tree,
    targets: [],
    groups: [["tests/_bugbout_saboteur/test_mine.py"], ["tests/test_calc.py"], [
      "tests/test_more.py",
    ]],
    timeoutMs: 60_000,
    scratch: join(tmp.path, "runs"),
  });
  deepEqual(run.groups.map((g) => [g.status, passes(g)]), [
    ["ok", ["tests/_bugbout_saboteur/test_mine.py::test_mine"]],
    ["ok", ["tests/test_calc.py::test_add"]],
    ["ok", ["tests/test_more.py::test_more"]],
  ]);
});

Deno.test("the guard charges the group that changes the tree's code, and stops", async () => {
  await using tmp = await tempDir();
  const tree = join(tmp.path, "tree");
  await writeFiles(tree, {
    "calc/__init__.py": "def add(a, b):\n    return a + b\n",
    ...TESTS,
    "tests/test_writer.py": "import calc, os\n\n\ndef test_writes():\n" +
      "    open(calc.__file__, 'w').write('def add(a, b):\\n    return 0\\n')\n",
  });
  const run = await runPytest({
    sandbox: await sandbox(),
    env: await env(),
    tree,
    targets: [],
    groups: [["tests/test_writer.py"], ["tests/test_calc.py"]],
    timeoutMs: 60_000,
    scratch: join(tmp.path, "runs"),
  });
  equal(run.groups[0].status, "tampered");
  match(run.groups[0].message!, /changed files of the tree under test \(calc\/__init__\.py\)/);
  ok(run.groups[1].unreached);
  deepEqual(run.treeChanged, { group: 0, paths: ["calc/__init__.py"] });
});

Deno.test("a group that rewrites a data file of the tree and puts it back as it was changed nothing", async () => {
  await using tmp = await tempDir();
  const tree = join(tmp.path, "tree");
  await writeFiles(tree, {
    "calc/__init__.py": "def add(a, b):\n    return a + b\n",
    ...TESTS,
    "tests/examples/example.toml": "a = 1\n",
    // As tomlkit's own tests/test_toml_file.py does: write the example, read it, restore it.
    "tests/test_roundtrip.py": "import os\n\nPATH = os.path.join(os.path.dirname(__file__), " +
      "'examples', 'example.toml')\n\n\ndef test_roundtrip():\n" +
      "    original = open(PATH).read()\n    try:\n        open(PATH, 'w').write('a = 2\\n')\n" +
      "    finally:\n        open(PATH, 'w').write(original)\n",
  });
  const run = await runPytest({
    sandbox: await sandbox(),
    env: await env(),
    tree,
    targets: [],
    groups: [["tests/test_roundtrip.py"], ["tests/test_calc.py"]],
    timeoutMs: 60_000,
    scratch: join(tmp.path, "runs"),
  });
  deepEqual(run.groups.map((g) => [g.status, passes(g)]), [
    ["ok", ["tests/test_roundtrip.py::test_roundtrip"]],
    ["ok", ["tests/test_calc.py::test_add"]],
  ]);
  equal(run.treeChanged, undefined);
});

Deno.test("a group that changes a file's content and sets its size and times back is charged", async () => {
  await using tmp = await tempDir();
  const tree = join(tmp.path, "tree");
  await writeFiles(tree, {
    "calc/__init__.py": "def add(a, b):\n    return a + b\n",
    ...TESTS,
    "tests/test_sly.py": "import calc, os\n\n\ndef test_sly():\n    st = os.stat(calc.__file__)\n" +
      "    open(calc.__file__, 'w').write('def add(a, b):\\n    return a - b\\n')\n" +
      "    os.utime(calc.__file__, ns=(st.st_atime_ns, st.st_mtime_ns))\n",
  });
  const run = await runPytest({
    sandbox: await sandbox(),
    env: await env(),
    tree,
    targets: [],
    groups: [["tests/test_sly.py"], ["tests/test_calc.py"]],
    timeoutMs: 60_000,
    scratch: join(tmp.path, "runs"),
  });
  equal(run.groups[0].status, "tampered");
  deepEqual(run.treeChanged, { group: 0, paths: ["calc/__init__.py"] });
});
