/**
 * Ground truth against the same pytest commands run by hand.
 *
 * bugbout: `oracleAll()` on a generated repository (checkouts, sandboxed runs, JUnit XML
 * reading, the oracle file written after every task), tasks in parallel up to `[run] jobs`.
 * By hand: the very same pytest command lines, in the same environment, on the same modules,
 * the same number of times with `Deno.Command`, on trees prepared beforehand (their preparation
 * is not timed), a task's two trees one after another and `--jobs` tasks at a time, as bugbout
 * does with `[run] jobs`. Both sides are warmed once, then run in pairs of alternating order;
 * prints both sides' times, the load, and the median of the pairs' ratios with their range and
 * count. The goal is at most 1.1; a full run that misses it exits non-zero.
 *
 * Usage: `deno run -A bench/oracle.ts [--tasks 6] [--rounds 5] [--sandbox auto] [--jobs 1]
 * [--quick]` (`--quick`: one task of 5 tests, one pair, no warm-up, the goal reported but not
 * judged).
 *
 * @module
 */

import { python, pythonTools } from "../lib/lang/python/mod.ts";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { checkout, installFiles } from "../lib/checkout.ts";
import { oracleAll } from "../lib/oracle/mod.ts";
import { ensureTestEnv, envRequest } from "../lib/lang/python/env.ts";
import { pytestFlags } from "../lib/lang/python/pytest.ts";
import { openSandbox } from "../lib/sandbox/mod.ts";
import type { Task } from "../lib/records.ts";
import { makeProject, makeTask } from "../tests/oracle/_fixture.ts";
import { RepoBuilder } from "../lib/demo/repo.ts";
import { ENVS_DIR } from "../tests/python/_shared.ts";
import { median, pairedRuns, printPairs, printRatio } from "./_measure.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    tasks: { type: "string" },
    rounds: { type: "string" },
    sandbox: { type: "string", default: "auto" },
    jobs: { type: "string" },
    quick: { type: "boolean", default: false },
  },
});
const quick = values.quick;
const TASKS = Number(values.tasks ?? (quick ? 1 : 6));
const ROUNDS = Number(values.rounds ?? (quick ? 1 : 5));
const TESTS = quick ? 5 : 40;
const SANDBOX = values.sandbox as "auto" | "bubblewrap" | "none";
/** Tasks at once, on both sides: 1 by default, the overhead per session without parallelism. */
const JOBS = Number(values.jobs ?? 1);

/** A module of `TESTS` tests, a few milliseconds each, that pass once `value()` is fixed. */
function testModule(i: number): string {
  return `import time
import pytest
from calc.m${i} import value


@pytest.mark.parametrize("n", range(${TESTS}))
def test_value(n):
    time.sleep(0.003)
    assert value() == ${i}
`;
}

async function buildRepo(dir: string): Promise<Task[]> {
  const repo = new RepoBuilder();
  const files: Record<string, string> = {
    "pyproject.toml": `[project]\nname = "calc"\nversion = "1.0"\n`,
    "calc/__init__.py": "",
  };
  for (let i = 0; i < TASKS; i++) files[`calc/m${i}.py`] = `def value():\n    return -1\n`;
  const commits = [repo.commit({ message: "Initial", files })];
  for (let i = 0; i < TASKS; i++) {
    commits.push(repo.commit({
      message: `Fix m${i} (#${i + 1})`,
      files: {
        [`calc/m${i}.py`]: `def value():\n    return ${i}\n`,
        [`tests/test_m${i}.py`]: testModule(i),
      },
    }));
  }
  await repo.build(dir);
  return commits.slice(1).map((fix, i) =>
    makeTask(`task-${i}`, { parent: commits[i].sha, commit: fix.sha }, [`tests/test_m${i}.py`])
  );
}

/** pytest as a person would run it, with bugbout's flags but without its guard. */
function handArgv(junit: string, rootdir: string, targets: string[]): string[] {
  return ["-m", "pytest", ...pytestFlags(rootdir), `--junitxml=${junit}`, "--", ...targets];
}

const tmp = await Deno.realPath(await Deno.makeTempDir({ prefix: "bugbout-bench-" }));
try {
  const repo = join(tmp, "repo");
  const tasks = await buildRepo(repo);
  const sandboxKind = SANDBOX === "auto" ? "bubblewrap" : SANDBOX;
  const project = await makeProject(join(tmp, "root"), repo, join(tmp, "home"), {
    sandbox: sandboxKind,
    jobs: JOBS,
  });
  const env = await ensureTestEnv({ ...envRequest(project), envsDir: ENVS_DIR });
  const sandbox = await openSandbox(SANDBOX);
  const reruns = project.config.tasks.reruns;

  // By hand: trees prepared (untimed), then the same commands.
  type HandTree = { tree: string; targets: string[] };
  const trees: { b: HandTree; g: HandTree }[] = [];
  for (const task of tasks) {
    const b = await checkout(repo, task.parent, join(tmp, "hand", task.id, "B"), {
      home: project.home,
    });
    await installFiles(repo, task.commit, task.testFiles, b);
    const g = await checkout(repo, task.commit, join(tmp, "hand", task.id, "G"), {
      home: project.home,
    });
    trees.push({
      b: { tree: b, targets: task.testFiles },
      g: { tree: g, targets: task.testFiles },
    });
  }
  // A task's two trees one after another, as bugbout runs a task's sessions; `JOBS` tasks at once.
  const handTask = async ({ b, g }: { b: HandTree; g: HandTree }, slot: number) => {
    for (const { tree, targets } of [b, g]) {
      for (let i = 0; i < reruns; i++) {
        const junit = join(tmp, `hand-junit-${slot}.xml`);
        const out = await new Deno.Command(env.python, {
          args: handArgv(junit, tree, targets),
          cwd: tree,
          clearEnv: true,
          env: { PATH: "/usr/bin:/bin", PYTHONPATH: tree, PYTHONDONTWRITEBYTECODE: "1" },
          stdout: "null",
          stderr: "null",
        }).output();
        if (out.code !== 0 && out.code !== 1) throw new Error(`pytest exited ${out.code}`);
      }
    }
  };
  const byHand = async () => {
    const started = performance.now();
    let next = 0;
    await Promise.all(Array.from({ length: Math.min(JOBS, trees.length) }, async (_, slot) => {
      while (next < trees.length) await handTask(trees[next++], slot);
    }));
    return performance.now() - started;
  };
  const withBugbout = async () => {
    await Deno.remove(project.results.file("oracles.json")).catch(() => {});
    const started = performance.now();
    const file =
      (await oracleAll(project, tasks, { tools: pythonTools(python, project, { env }), sandbox }))
        .file;
    const ms = performance.now() - started;
    const scorable = Object.values(file.oracles).filter((o) => o.status === "scorable").length;
    if (scorable !== tasks.length) throw new Error(`only ${scorable} tasks scorable`);
    return ms;
  };

  // Fair: both sides warmed once, then pairs in alternating order, the same parallelism.
  const pairs = await pairedRuns(ROUNDS, withBugbout, byHand, { warm: !quick });
  console.log(
    `ground truth, ${tasks.length} tasks x ${reruns} runs x 2 sides, ${TESTS} tests each, ` +
      `sandbox ${sandbox.kind}, jobs ${JOBS} on both sides`,
  );
  printPairs({ a: "bugbout oracleAll", b: `by hand, ${JOBS} at a time` }, pairs);
  if (printRatio("bugbout / by hand", median(pairs.ratios), { atMost: 1.1, quick })) {
    Deno.exitCode = 1;
  }
} finally {
  await Deno.remove(tmp, { recursive: true });
}
