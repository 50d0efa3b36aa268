/**
 * Benchmark: mining a 20,000-commit history against a bare `git log --first-parent
 * --name-status` over the same history. Prints the median of several runs of each and the ratio;
 * the goal is at most 2×. Exits non-zero when a fix is missed or, in a full run, the goal is.
 *
 * Run: `deno run -A bench/mine.ts [--commits 20000] [--runs 5] [--quick]` (`--quick`: 300
 * commits, one run, the goal reported but not judged; it still fails when a fix is missed).
 *
 * @module
 */

import { join } from "node:path";
import { parseArgs } from "node:util";
import { gitRun } from "../lib/git.ts";
import { mineAll } from "../lib/mine/mine.ts";
import { Project } from "../lib/project.ts";
import { buildLargeHistory } from "../tests/fixtures/history.ts";
import { median, printRatio } from "./_measure.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    commits: { type: "string" },
    runs: { type: "string" },
    quick: { type: "boolean", default: false },
  },
});
const quick = values.quick;
const commits = Number(values.commits ?? (quick ? 300 : 20_000));
const runs = Number(values.runs ?? (quick ? 1 : 5));

const root = await Deno.makeTempDir({ prefix: "bugbout-bench-mine-" });
try {
  let started = performance.now();
  const history = await buildLargeHistory(join(root, "repo"), { commits });
  console.log(
    `history: ${history.commits} commits, ${history.fixes} fixes to find, ${history.unreferenced} ` +
      `without an issue, ${history.untested} without a test (built in ${
        ((performance.now() - started) / 1000).toFixed(1)
      } s)`,
  );
  await Deno.writeTextFile(
    join(history.dir, "bugbout.toml"),
    '[project]\nsource = "bigpkg"\n\n[tasks]\nlimit = 100000\n',
  );
  const project = await Project.load(history.dir, { home: join(root, "home") });
  const env = new Map<string, string>();

  const bare: number[] = [];
  const mined: number[] = [];
  let tasks = 0;
  // Warm the page cache once, then alternate so both see the same conditions.
  await gitRun(["log", "--first-parent", "--name-status", "main"], {
    cwd: history.dir,
    maxOutputBytes: 1 << 16,
  });
  for (let i = 0; i < runs; i++) {
    started = performance.now();
    await gitRun(["log", "--first-parent", "--name-status", "main"], {
      cwd: history.dir,
      maxOutputBytes: 1 << 16,
    });
    bare.push(performance.now() - started);
    started = performance.now();
    const result = await mineAll(project, { refresh: true, env });
    mined.push(performance.now() - started);
    tasks = result.file.tasks.length;
    if (result.file.examined !== history.commits) {
      throw new Error(`examined ${result.file.examined}`);
    }
  }
  const ratio = median(mined) / median(bare);
  console.log(
    `bare git log --first-parent --name-status: median ${median(bare).toFixed(0)} ms (${
      bare.map((x) => x.toFixed(0)).join(", ")
    })`,
  );
  console.log(
    `bugbout mining (${tasks} tasks):           median ${median(mined).toFixed(0)} ms (${
      mined.map((x) => x.toFixed(0)).join(", ")
    })`,
  );
  if (printRatio("bugbout mining / bare git log", ratio, { atMost: 2, quick })) Deno.exitCode = 1;
  if (tasks !== history.fixes) {
    console.log(`FAIL: mined ${tasks} tasks, expected ${history.fixes}`);
    Deno.exitCode = 1;
  }
} finally {
  await Deno.remove(root, { recursive: true });
}
