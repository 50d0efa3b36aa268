/**
 * Benchmark: what the guard costs a pytest session. The same tree (one module of N parametrised
 * tests, each doing about a millisecond of work, as a real suite's tests do at the least) is run
 * in the same sandbox two ways, alternating, several rounds:
 *
 * - baseline: `python -m pytest` with bugbout's flags, as a person would run it;
 * - bugbout: `runPytest()`, the guard with its audit hook, integrity checks, witness and results
 *   channel, the channel read and checked afterwards.
 *
 * The two alternate, round by round, and the ratio is taken pair by pair (its median is quoted),
 * so that the machine's drift during the run does not move it. The goal is at most 1.05 (the
 * guard's overhead at most 5% of pytest's own time). Tests that do nothing at all show the
 * guard's fixed cost per test in the worst case, reported without a goal.
 *
 * Run: `deno run -A bench/guard.ts [--tests 1000] [--rounds 5] [--quick]` (`--quick`: 50 tests,
 * one round, goals reported but not judged). With `--tree DIR [--target tests]`, a real project's
 * suite instead (a checkout whose package imports from its root, e.g. a clone of more-itertools),
 * in an environment with pytest only: the same pairs, the same goal.
 *
 * @module
 */

import { join } from "node:path";
import { parseArgs } from "node:util";
import { pytestFlags, runPytest } from "../lib/lang/python/pytest.ts";
import { openSandbox } from "../lib/sandbox/mod.ts";
import { sharedEnv } from "../tests/python/_project.ts";
import { writeFiles } from "../tests/python/_shared.ts";
import { describeTimes, median, printRatio, timed } from "./_measure.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    tests: { type: "string" },
    rounds: { type: "string" },
    tree: { type: "string" },
    target: { type: "string", default: "tests" },
    quick: { type: "boolean", default: false },
  },
});
const quick = values.quick;
const TESTS = Number(values.tests ?? (quick ? 50 : 1000));
const ROUNDS = Number(values.rounds ?? (quick ? 1 : 5));

function module(work: string): string {
  return `import pytest\n\n\n@pytest.mark.parametrize("i", range(${TESTS}))\n` +
    `def test_p(i):\n${work}    assert i >= 0\n`;
}

const tmp = await Deno.realPath(await Deno.makeTempDir({ prefix: "bugbout-bench-guard-" }));
try {
  const env = await sharedEnv(join(tmp, "env"));
  const sandbox = await openSandbox("auto");
  const real = values.tree !== undefined;
  const tree = real ? await Deno.realPath(values.tree!) : join(tmp, "tree");
  if (!real) {
    await writeFiles(tree, {
      "tests/test_work.py": module("    sum(k * k for k in range(20000))\n"),
      "tests/test_empty.py": module(""),
    });
  }
  await Deno.chmod(tree, 0o777);
  let expected: number | undefined = real ? undefined : TESTS;
  const plain = async (target: string) => {
    const result = await sandbox.run([
      env.python,
      "-m",
      "pytest",
      ...pytestFlags(tree),
      "-q",
      "--",
      target,
    ], {
      workdir: tree,
      writable: [],
      readable: [...env.readable],
      network: "none",
      env: {
        PATH: "/usr/bin:/bin",
        LANG: "C.UTF-8",
        PYTHONDONTWRITEBYTECODE: "1",
        ...(real ? { PYTHONPATH: tree } : {}),
      },
      timeoutMs: 600_000,
      maxOutputBytes: 64 * 1024,
    });
    if (result.code !== 0) throw new Error(`plain pytest failed: ${result.stdout.slice(-500)}`);
  };
  const guarded = async (target: string) => {
    const run = await runPytest({
      sandbox,
      env,
      tree,
      targets: [target],
      pythonPath: real ? ["."] : [],
      timeoutMs: 600_000,
      scratch: join(tmp, "runs"),
    });
    const passed = Object.values(run.outcomes).filter((o) => o === "passed").length;
    expected ??= passed;
    if (run.status !== "ok" || passed !== expected) {
      throw new Error(`guarded run: ${run.status}, ${passed} passed: ${run.message ?? ""}`);
    }
  };
  const measure = async (target: string) => {
    const base: number[] = [];
    const ours: number[] = [];
    await plain(target);
    await guarded(target);
    for (let round = 0; round < ROUNDS; round++) {
      base.push((await timed(() => plain(target))).ms);
      ours.push((await timed(() => guarded(target))).ms);
    }
    return { base, ours };
  };
  if (real) {
    const suite = await measure(values.target!);
    console.log(`guard bench: the suite of ${tree} (${expected} tests), ${ROUNDS} round(s)`);
    console.log(`${"pytest alone:".padEnd(40)} ${describeTimes(suite.base)}`);
    console.log(`${"bugbout's guard:".padEnd(40)} ${describeTimes(suite.ours)}`);
    const pairs = suite.ours.map((ms, i) => ms / suite.base[i]);
    const missed = printRatio("guarded / plain pytest (median of pairs)", median(pairs), {
      atMost: 1.05,
      quick,
    });
    if (missed) Deno.exitCode = 1;
  } else {
    const work = await measure("tests/test_work.py");
    const empty = await measure("tests/test_empty.py");
    console.log(
      `guard bench: ${TESTS} tests per session, ${ROUNDS} round(s), sandbox ${sandbox.kind}`,
    );
    const row = (label: string, ms: number[]) =>
      console.log(`${label.padEnd(40)} ${describeTimes(ms)}`);
    row("pytest alone, tests doing ~1 ms of work:", work.base);
    row("bugbout's guard, the same tests:", work.ours);
    row("pytest alone, tests doing nothing:", empty.base);
    row("bugbout's guard, the same tests:", empty.ours);
    const perTest = (median(empty.ours) - median(empty.base)) / TESTS * 1000;
    console.log(`the guard's fixed cost: about ${perTest.toFixed(0)} µs per test`);
    const pairs = work.ours.map((ms, i) => ms / work.base[i]);
    const missed = printRatio("guarded / plain pytest (median of pairs)", median(pairs), {
      atMost: 1.05,
      quick,
    });
    if (missed) Deno.exitCode = 1;
  }
} finally {
  await Deno.remove(tmp, { recursive: true });
}
