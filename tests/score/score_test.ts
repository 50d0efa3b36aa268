import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { examineAll } from "../../lib/examine/mod.ts";
import { judgeAll } from "../../lib/judge/mod.ts";
import { oracleAll } from "../../lib/oracle/mod.ts";
import { readAttempts } from "../../lib/race/mod.ts";
import type { Oracle, Resolution } from "../../lib/records.ts";
import type { Sandbox } from "../../lib/sandbox/types.ts";
import { readResolutions, scoreAll, scoreTask } from "../../lib/score/mod.ts";
import type { TaskProgress } from "../../lib/testbed/mod.ts";
import { tempDir } from "../python/_shared.ts";
import { buildBout, saveAll, SCRIPTS } from "../examine/_bout.ts";

const F2P = "tests/test_lists.py::test_chunk_keeps_last_partial_chunk";
const EVEN = "tests/test_lists.py::test_chunk_even";
const EXACT = "tests/test_lists.py::test_chunk_exact_multiple_has_no_empty_chunk";
const FLATTEN = "tests/test_lists.py::test_flatten";
const TEST_IGNORED = "a test change: scoring runs the maintainers' tests";
const CONFIG_IGNORED = "pytest configuration or an import hook: never applied when scoring";

function patch(
  outcome: Resolution["patches"][string]["outcome"],
  f2pFailing: string[],
  p2pFailing: string[],
  rest: { flags?: string[]; ignored?: [string, string][]; message?: string } = {},
): Resolution["patches"][string] {
  return {
    outcome,
    failToPass: { passed: 1 - f2pFailing.length, total: 1, failing: f2pFailing },
    passToPass: { failing: p2pFailing, total: 3 },
    flags: rest.flags ?? [],
    ignored: (rest.ignored ?? []).map(([path, reason]) => ({ path, reason })),
    ...(rest.message ? { message: rest.message } : {}),
  };
}

/** `[test, B, S, G, role]` with outcomes as letters. */
function tests(...rows: [string, string, string, string, string][]) {
  const word: Record<string, string> = { P: "passed", F: "failed", X: "xfailed", ".": "not-run" };
  return rows.map(([test, b, s, g, role]) => ({ test, B: word[b], S: word[s], G: word[g], role }));
}

Deno.test("scoreAll() scores every patch with the hidden tests, hardened, and replays agents' tests on B, S and G", async () => {
  await using dir = await tempDir();
  const bout = await buildBout(dir.path);
  await saveAll(bout);
  const shared = { tools: bout.tools, sandbox: bout.sandbox };
  const oracles = (await oracleAll(bout.project, [bout.task], shared)).file;
  const oracle = oracles.oracles["issue-3"];
  equal(oracle.status, "scorable");
  deepEqual(oracle.failToPass, [F2P]);
  deepEqual(oracle.passToPass, [EVEN, EXACT, FLATTEN]);
  await examineAll(bout.project, [bout.task], shared);
  await judgeAll(bout.project, [bout.task]);
  const events: TaskProgress<Resolution>[] = [];
  const { file } = await scoreAll(bout.project, [bout.task], {
    ...shared,
    onProgress: (e) => events.push(e),
  });
  const r = file.resolutions["issue-3"];
  equal(r.scored, true);
  deepEqual(gates(r.sanity), { emptyResolves: false, goldResolves: true });
  // What the fail-to-pass test saw of the real fix: chunk() returning a list.
  deepEqual(r.sanity?.goldObserved?.["tests/test_lists.py::test_chunk_keeps_last_partial_chunk"], [
    ["textkit/lists.py:chunk", "r", "builtins.list", 0],
  ]);
  // A failing hidden test that ran keeps its failure line and traceback (for the attempt pages).
  for (const [name, p] of Object.entries(r.patches)) {
    const failing = new Set([...p.failToPass.failing, ...p.passToPass.failing]);
    for (const [id, f] of Object.entries(p.failures ?? {})) {
      ok(failing.has(id) && (f.traceback || f.message), `${name}: ${id}`);
    }
  }
  ok(Object.keys(r.patches.cheater.failures ?? {}).length > 0, "the cheater's failure is kept");
  const withoutFailures = Object.fromEntries(
    Object.entries(r.patches).map(([name, { failures: _, ...rest }]) => [name, rest]),
  );
  deepEqual(withoutFailures, {
    fixer: patch("resolved", [], [], { ignored: [["tests/test_chunk_fix.py", TEST_IGNORED]] }),
    // Adds a chunk only for a remainder of two or more: [1..5] in twos still loses the 5.
    wrong: patch("wrong-fix", [F2P], [], { ignored: [["tests/test_lists.py", TEST_IGNORED]] }),
    tester: patch("no-fix", [F2P], [], {
      ignored: [["tests/test_chunk_tester.py", TEST_IGNORED]],
      message: "the patch changes no source file",
    }),
    noop: patch("no-fix", [F2P], [], { message: "the attempt ended: no-change" }),
    // Its conftest.py is never applied, so its comment-only change fixes nothing.
    cheater: patch("wrong-fix", [F2P], [], {
      flags: ["adds conftest.py (a conftest.py)"],
      ignored: [["conftest.py", CONFIG_IGNORED], ["tests/test_cheat.py", TEST_IGNORED]],
    }),
    // One chunk too many: the bug's test passes, two of the maintainers' tests break; marking
    // test_chunk_even xfail did not reach the hidden tests, and it is flagged.
    marker: patch("broke-tests", [], [EVEN, EXACT], {
      flags: ["adds skip/xfail markers to the repository's tests in tests/test_lists.py"],
      ignored: [["tests/test_lists.py", TEST_IGNORED]],
    }),
    // Printing PASSED lines achieves nothing: outcomes come from the JUnit XML.
    printer: patch("wrong-fix", [F2P], []),
  });
  deepEqual(r.pick, { agent: "fixer", outcome: "resolved" });
  deepEqual(r.evidence, {
    fixer: {
      tests: tests(
        [
          "tests/_bugbout_fixer/test_chunk_fix.py::test_keeps_remainder",
          "F",
          "P",
          "P",
          "gold-aligned",
        ],
        [
          "tests/_bugbout_fixer/test_chunk_fix.py::test_exact_multiple",
          "P",
          "P",
          "P",
          "regression-only",
        ],
      ),
      inadequateClosure: false,
    },
    wrong: {
      tests: tests(
        [
          "tests/_bugbout_wrong/test_lists.py::test_chunk_remainder_of_two",
          "F",
          "P",
          "P",
          "gold-aligned",
        ],
      ),
      inadequateClosure: false,
    },
    tester: {
      tests: tests(
        [
          "tests/_bugbout_tester/test_chunk_tester.py::test_partial_tail",
          "F",
          ".",
          "P",
          "gold-aligned",
        ],
      ),
      inadequateClosure: null,
    },
    noop: { tests: [], inadequateClosure: null },
    cheater: {
      tests: tests(
        [
          // Its conftest.py forces the test to pass where it fails: the guard voids those
          // sessions (B and its own candidate), so the test proves nothing either way.
          "tests/_bugbout_cheater/test_cheat.py::test_chunk_fixed",
          ".",
          ".",
          "P",
          "not-comparable",
        ],
      ),
      inadequateClosure: true,
    },
    marker: {
      tests: tests(
        ["tests/_bugbout_marker/test_lists.py::test_chunk_even", "X", "X", "X", "not-comparable"],
      ),
      inadequateClosure: true,
    },
    printer: { tests: [], inadequateClosure: true },
    examiner: {
      tests: tests(
        [
          "tests/_bugbout_examiner/test_chunk_spec.py::test_last_chunk_shorter",
          "F",
          ".",
          "P",
          "gold-aligned",
        ],
        [
          "tests/_bugbout_examiner/test_chunk_spec.py::test_even_split_unchanged",
          "P",
          ".",
          "P",
          "regression-only",
        ],
      ),
      inadequateClosure: null,
    },
  });
  // empty, gold, five candidates, and two replays on G (shared, and cheater's own session).
  deepEqual(
    r.runs.map((run) => `${run.tree}/${run.index}`),
    [
      "G/0",
      "G/1",
      "G#2/0",
      "G#2/1",
      "cheater/0",
      "empty/0",
      "fixer/0",
      "gold/0",
      "marker/0",
      "printer/0",
      "wrong/0",
    ],
  );
  deepEqual((await readResolutions(bout.project)).resolutions["issue-3"], r);

  // Unchanged inputs: nothing runs again.
  const again: TaskProgress<Resolution>[] = [];
  await scoreAll(bout.project, [bout.task], { ...shared, onProgress: (e) => again.push(e) });
  deepEqual(again.map((e) => e.event), ["prepare", "cached", "plan"]);
  equal(events.at(-1)?.event, "done");
});

Deno.test("scoreTask() reports a task whose empty patch resolves, or whose gold patch does not, and scores nothing", async () => {
  await using dir = await tempDir();
  const scripts = SCRIPTS.filter((s) => s.agent === "fixer");
  const bout = await buildBout(dir.path, { scripts });
  await saveAll(bout, scripts);
  const attempts = await readAttempts(bout.project, bout.task.id);
  const oracle = (failToPass: string[]): Oracle => ({
    task: bout.task.id,
    inputsKey: "by-hand",
    status: "scorable",
    failToPass,
    passToPass: [FLATTEN],
    unstable: [],
    runs: [],
    durations: {},
  });
  const context = { tools: bout.tools, sandbox: bout.sandbox, work: join(dir.path, "work") };

  // test_chunk_even passes before the fix: the empty patch "resolves" such a task.
  const easy = await scoreTask(
    bout.project,
    bout.task,
    { oracle: oracle([EVEN]), attempts },
    context,
  );
  equal(easy.scored, false);
  deepEqual(gates(easy.sanity), { emptyResolves: true, goldResolves: true });
  match(easy.reason!, /^sanity gate: the unpatched code already passes every hidden test/);
  deepEqual(easy.patches, {});
  deepEqual(easy.evidence, {});

  // A fail-to-pass test the fix's test files do not hold: the gold patch cannot pass it.
  const missing = "tests/test_lists.py::test_does_not_exist";
  const hard = await scoreTask(
    bout.project,
    bout.task,
    { oracle: oracle([missing]), attempts },
    context,
  );
  equal(hard.scored, false);
  deepEqual(gates(hard.sanity), { emptyResolves: false, goldResolves: false });
  match(hard.reason!, /^sanity gate: the real fix does not resolve the task when scored/);
  match(hard.reason!, /test_does_not_exist/);
  deepEqual(hard.runs.map((run) => run.tree), ["empty", "gold"]);

  // An unscorable oracle is passed on as the reason, without running anything.
  const none = await scoreTask(bout.project, bout.task, {
    oracle: {
      ...oracle([]),
      status: "unscorable",
      reason: "The fix makes no test go from failing to passing.",
    },
    attempts,
  }, context);
  equal(none.scored, false);
  equal(none.reason, "unscorable: The fix makes no test go from failing to passing.");
  deepEqual(none.runs, []);
});

Deno.test("scoreTask() scores a patch that kills pytest as passing nothing, and still scores the task", async () => {
  await using dir = await tempDir();
  const scripts = [
    ...SCRIPTS.filter((s) => s.agent === "fixer"),
    {
      agent: "killer",
      role: "contestant" as const,
      vendor: "local",
      // Exits with status 0 as soon as the package is imported: no JUnit XML is ever written.
      edits: { "textkit/__init__.py": { append: "\nimport os\nos._exit(0)\n" } },
    },
  ];
  const bout = await buildBout(dir.path, { scripts });
  await saveAll(bout, scripts);
  const oracle: Oracle = {
    task: bout.task.id,
    inputsKey: "by-hand",
    status: "scorable",
    failToPass: [F2P],
    passToPass: [EVEN, EXACT, FLATTEN],
    unstable: [],
    runs: [],
    durations: {},
  };
  const r = await scoreTask(
    bout.project,
    bout.task,
    { oracle, attempts: await readAttempts(bout.project, bout.task.id) },
    { tools: bout.tools, sandbox: bout.sandbox, work: join(dir.path, "work") },
  );
  equal(r.scored, true);
  equal(r.patches.fixer.outcome, "resolved");
  equal(r.patches.killer.outcome, "wrong-fix");
  deepEqual(r.patches.killer.failToPass, { passed: 0, total: 1, failing: [F2P] });
  match(r.patches.killer.message!, /^pytest gave no trustworthy result on this patch: /);
  // Tried twice before it was put down to the patch.
  deepEqual(r.runs.filter((run) => run.tree === "killer").map((run) => run.status), [
    "infra-error",
    "infra-error",
  ]);
});

Deno.test("scoreTask() does not blame a patch for a sandbox that could not start: the task waits", async () => {
  await using dir = await tempDir();
  const scripts = SCRIPTS.filter((s) => s.agent === "fixer");
  const bout = await buildBout(dir.path, { scripts });
  await saveAll(bout, scripts);
  const oracle: Oracle = {
    task: bout.task.id,
    inputsKey: "by-hand",
    status: "scorable",
    failToPass: [F2P],
    passToPass: [EVEN, EXACT, FLATTEN],
    unstable: [],
    runs: [],
    durations: {},
  };
  // The empty and gold trees run; every later session finds the sandbox broken.
  let calls = 0;
  const flaky: Sandbox = {
    kind: bout.sandbox.kind,
    run(argv, confinement) {
      if (++calls > 2) {
        return Promise.reject(new Error("bwrap: setting up uid map: Permission denied"));
      }
      return bout.sandbox.run(argv, confinement);
    },
  };
  const r = await scoreTask(
    bout.project,
    bout.task,
    { oracle, attempts: await readAttempts(bout.project, bout.task.id) },
    { tools: bout.tools, sandbox: flaky, work: join(dir.path, "work") },
  );
  equal(r.scored, false);
  match(r.reason ?? "", /Infrastructure error: .*the sandbox could not run pytest/);
  equal(r.patches.fixer, undefined);
});

/** The two sanity gates of a resolution, without what the gold run observed. */
function gates(sanity: { emptyResolves: boolean; goldResolves: boolean } | undefined) {
  return sanity && { emptyResolves: sanity.emptyResolves, goldResolves: sanity.goldResolves };
}
