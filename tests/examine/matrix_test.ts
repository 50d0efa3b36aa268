import { deepEqual, equal, ok } from "node:assert/strict";
import { examineAll, readMatrix } from "../../lib/examine/mod.ts";
import { judgeAll, readVerdicts } from "../../lib/judge/mod.ts";
import { oracleAll } from "../../lib/oracle/mod.ts";
import type { Matrix } from "../../lib/records.ts";
import type { TaskProgress } from "../../lib/testbed/mod.ts";
import { tempDir } from "../python/_shared.ts";
import { ALL_ROWS, buildBout, rows, saveAll, type Script } from "./_bout.ts";

Deno.test("examineAll() runs every author's tests on B and on every candidate, one session per tree", async () => {
  await using dir = await tempDir();
  const bout = await buildBout(dir.path);
  await saveAll(bout);
  // Only tasks whose ground truth is scorable are examined.
  await oracleAll(bout.project, [bout.task], { tools: bout.tools, sandbox: bout.sandbox });
  const events: TaskProgress<Matrix>[] = [];
  const { matrices: [matrix] } = await examineAll(bout.project, [bout.task], {
    tools: bout.tools,
    sandbox: bout.sandbox,
    onProgress: (e) => events.push(e),
  });

  // B twice ([tasks] reruns), then one tree per contestant with a source change: tester wrote
  // tests only and noop changed nothing, so neither is a candidate.
  deepEqual(matrix.trees, [
    { id: "B", kind: "base", status: "ok" },
    { id: "B#2", kind: "base", status: "ok" },
    { id: "fixer", kind: "patch", agent: "fixer", status: "ok" },
    { id: "wrong", kind: "patch", agent: "wrong", status: "ok" },
    { id: "cheater", kind: "patch", agent: "cheater", status: "ok" },
    { id: "marker", kind: "patch", agent: "marker", status: "ok" },
    { id: "printer", kind: "patch", agent: "printer", status: "ok" },
  ]);
  deepEqual(rows(matrix), ALL_ROWS);
  deepEqual(
    [...new Set(matrix.tests.map((t) => `${t.author}:${t.authorRole}`))],
    [
      "fixer:contestant",
      "wrong:contestant",
      "tester:contestant",
      "cheater:contestant",
      "marker:contestant",
      "examiner:examiner",
      "repository:repository",
    ],
  );
  deepEqual(matrix.unstableOnB, []);
  // Every cell ran: 7 authors with tests (the repository's suite among them) on 7 trees, but for
  // the suite on cheater's tree: its patch (a comment) reaches no function and every suite test
  // passes on B, so suite selection runs none of it there and its cells are B's.
  deepEqual([matrix.reuse?.ran, matrix.reuse?.reused], [48, 0]);
  // One shared session per tree, plus one per tree for cheater, whose conftest.py is its own.
  equal(matrix.runs.length, 14);
  deepEqual(
    matrix.runs.map((r) => `${r.tree}/${r.index}`),
    [
      "B/0",
      "B/1",
      "B#2/0",
      "B#2/1",
      "fixer/0",
      "fixer/1",
      "wrong/0",
      "wrong/1",
      "cheater/0",
      "cheater/1",
      "marker/0",
      "marker/1",
      "printer/0",
      "printer/1",
    ],
  );
  // Every session ran cleanly but cheater's own where its conftest forced a failing test to pass.
  deepEqual(
    matrix.runs.filter((r) => r.status !== "ok").map((r) => `${r.tree}/${r.status}`),
    ["B/tampered", "B#2/tampered", "wrong/tampered", "cheater/tampered", "printer/tampered"],
  );
  deepEqual(await readMatrix(bout.project, "issue-3"), matrix);

  // Unchanged inputs: the saved matrix is reused and nothing runs.
  const again: TaskProgress<Matrix>[] = [];
  const { matrices: [reused] } = await examineAll(bout.project, [bout.task], {
    tools: bout.tools,
    sandbox: bout.sandbox,
    onProgress: (e) => again.push(e),
  });
  deepEqual(again.map((e) => e.event), ["prepare", "cached", "plan"]);
  deepEqual(reused, matrix);
  ok(events.some((e) => e.event === "done"));

  // The judge picks the real fix: every other author's reproductions pass on it. marker's patch
  // passes them too but breaks a repository test that the other four patches keep passing.
  const verdicts = (await judgeAll(bout.project, [bout.task])).file;
  const verdict = verdicts.verdicts["issue-3"];
  equal(verdict.pick, "fixer");
  deepEqual(
    Object.fromEntries(
      Object.entries(verdict.patches).map(([a, p]) => [a, [p.approved, p.support]]),
    ),
    {
      fixer: [true, 1],
      wrong: [false, 0],
      cheater: [false, 0],
      marker: [false, 1],
      printer: [false, 0],
    },
  );
  deepEqual((await readVerdicts(bout.project))?.verdicts["issue-3"], verdict);
});

const SAME_PATH: Script[] = [
  {
    agent: "alpha",
    role: "examiner",
    vendor: "a",
    edits: {
      "tests/test_bug.py": "from textkit.lists import chunk\n\n\n" +
        "def test_bug():\n    assert chunk([1, 2, 3], 2) == [[1, 2], [3]]\n",
    },
  },
  {
    agent: "beta",
    role: "examiner",
    vendor: "b",
    edits: {
      "tests/test_bug.py": "from textkit.lists import chunk\n\n\n" +
        "def test_bug():\n    assert chunk([1, 2], 2) == [[1, 2]]\n",
    },
  },
  {
    agent: "gamma",
    role: "examiner",
    vendor: "c",
    edits: {
      // Breaks every test it reaches; it must reach only gamma's.
      "tests/conftest.py": "import pytest\n\n\n@pytest.fixture(autouse=True)\n" +
        "def sabotage():\n    raise RuntimeError('gamma was here')\n",
      "tests/test_bug.py": "def test_bug():\n    assert True\n",
    },
  },
];

Deno.test("examineTask() keeps same-named test modules of different authors apart, and each conftest.py to its author", async () => {
  await using dir = await tempDir();
  const bout = await buildBout(dir.path, {
    scripts: SAME_PATH,
    settings: "\n[judge]\nrun-suite = false\n",
  });
  await saveAll(bout, SAME_PATH);
  await oracleAll(bout.project, [bout.task], { tools: bout.tools, sandbox: bout.sandbox });
  const { matrices: [matrix] } = await examineAll(bout.project, [bout.task], {
    tools: bout.tools,
    sandbox: bout.sandbox,
  });
  deepEqual(matrix.trees.map((t) => t.id), ["B", "B#2"]);
  deepEqual(rows(matrix), [
    ["tests/_bugbout_alpha/test_bug.py::test_bug", "alpha", "FF"],
    // Passing on B with no candidate to differ on, it is not run again.
    ["tests/_bugbout_beta/test_bug.py::test_bug", "beta", "P-"],
    ["tests/_bugbout_gamma/test_bug.py::test_bug", "gamma", "EE"],
  ]);
  // Two repeats of B, each one shared session (alpha and beta, then alpha alone) and one for
  // gamma; no suite.
  equal(matrix.runs.length, 4);
});
