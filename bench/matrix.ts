/**
 * Cross-examination against the per-cell approach.
 *
 * bugbout: `examineTask()` on a scripted bout with 5 agents (the demo project's chunk fix; the
 * contestants fixer, wrong, tester and marker and one examiner): one pytest session per tree — B
 * twice, then each candidate — with every author's tests and the repository's suite in it.
 * Per cell: the same trees, prepared the same way, and one pytest session per matrix cell (every
 * test row, agents' and the repository's, on every tree). Both count the sessions the sandbox
 * actually started, run up to `--jobs` sessions at a time, and time everything from building the
 * trees on. Prints both, the ratios, and how many cells the two approaches agree on; exits
 * non-zero when they disagree on any.
 *
 * Usage: `deno run -A bench/matrix.ts [--rounds 1] [--jobs 2] [--quick]` (`--quick`: the fixer
 * and the examiner only, without the repository's suite).
 *
 * @module
 */

import { join } from "node:path";
import { parseArgs } from "node:util";
import { cachedTree, checkout, removeTree } from "../lib/checkout.ts";
import { examineTask } from "../lib/examine/mod.ts";
import { readAttempts } from "../lib/race/mod.ts";
import type { Matrix, Outcome } from "../lib/records.ts";
import {
  applySourceChanges,
  hasCandidate,
  installAuthor,
  lookupOutcome,
  Slots,
  taskAuthors,
} from "../lib/testbed/mod.ts";
import type { Confinement, Sandbox } from "../lib/sandbox/types.ts";
import { buildBout, saveAll, SCRIPTS } from "../tests/examine/_bout.ts";
import { median } from "./_measure.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    rounds: { type: "string", default: "1" },
    jobs: { type: "string", default: "2" },
    quick: { type: "boolean", default: false },
  },
});
const ROUNDS = Number(values.rounds);
const JOBS = Number(values.jobs);
const QUICK = values.quick;
const AGENTS = QUICK ? ["fixer", "examiner"] : ["fixer", "wrong", "tester", "marker", "examiner"];

/** The real sandbox, counting the commands it starts. */
class CountingSandbox implements Sandbox {
  readonly kind;
  sessions = 0;
  #inner: Sandbox;
  constructor(inner: Sandbox) {
    this.#inner = inner;
    this.kind = inner.kind;
  }
  run(argv: string[], confinement: Confinement) {
    this.sessions++;
    return this.#inner.run(argv, confinement);
  }
}

const root = await Deno.makeTempDir({ prefix: "bugbout-bench-matrix-" });
try {
  const scripts = SCRIPTS.filter((s) => AGENTS.includes(s.agent));
  const bout = await buildBout(root, {
    scripts,
    settings: `\n[judge]\nrun-suite = ${!QUICK}\n`,
  });
  await saveAll(bout, scripts);
  const { project, task, tools } = bout;
  const attempts = await readAttempts(project, task.id);

  const ours: { ms: number; sessions: number; matrix: Matrix }[] = [];
  const perCell: {
    ms: number;
    sessions: number;
    agree: number;
    cells: number;
    disagree: string[];
  }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const counting = new CountingSandbox(bout.sandbox);
    let started = performance.now();
    const matrix = await examineTask(project, task, attempts, {
      sandbox: counting,
      tools,
      work: join(root, `ours-${round}`),
      slots: new Slots(JOBS),
    });
    ours.push({ ms: performance.now() - started, sessions: counting.sessions, matrix });

    const cellSandbox = new CountingSandbox(bout.sandbox);
    started = performance.now();
    const work = join(root, `cells-${round}`);
    try {
      const base = await cachedTree(project.repository, task.parent, { home: project.home });
      const { runner, env } = await tools.open(base, { task });
      const authors = await taskAuthors(project, tools.language, attempts, {
        base,
        runner,
        env,
        scratch: join(work, "scratch"),
      });
      const slots = new Slots(JOBS);
      const install = async (dir: string) => {
        for (const a of authors) {
          await installAuthor(dir, a, runner, { layout: "beside", alone: false });
        }
      };
      const rules = { packageDir: task.packageDir, runner };
      const dirs = new Map<string, string>();
      const baseDir = await checkout(project.repository, task.parent, join(work, "B"), {
        home: project.home,
      });
      await install(baseDir);
      for (const tree of matrix.trees) {
        if (tree.kind === "base") {
          dirs.set(tree.id, baseDir);
          continue;
        }
        const found = attempts.find((a) => a.attempt.agent === tree.agent)!;
        if (!hasCandidate(found.attempt, rules)) continue;
        const dir = await checkout(project.repository, task.parent, join(work, tree.id), {
          home: project.home,
        });
        await applySourceChanges(dir, found.attempt, found.patches, rules);
        await install(dir);
        dirs.set(tree.id, dir);
      }
      let agree = 0, cells = 0;
      const disagree: string[] = [];
      // The B repeats share one directory, so their cells run one after another, like bugbout's:
      // two pytest sessions at once in one tree see each other's writes.
      const sharing = Map.groupBy(
        matrix.trees.filter((t) => dirs.has(t.id)),
        (t) => dirs.get(t.id)!,
      );
      const cellsOf = async (tree: (typeof matrix.trees)[number]) => {
        const outcomes: [string, Outcome][] = [];
        for (const test of matrix.tests) {
          // A repeat of B leaves out the tests that pass everywhere: no cell to compare.
          if (matrix.cells[test.id][tree.id] === undefined) continue;
          const run = await slots.use(() =>
            runner.run({
              sandbox: cellSandbox,
              env,
              tree: dirs.get(tree.id)!,
              groups: [[test.id]],
              timeoutMs: 120_000,
              memoryMb: 2048,
              deny: [project.repository, project.home, project.results.path],
              scratch: join(work, "runs"),
            })
          );
          const observed = new Map(Object.entries(run.outcomes));
          outcomes.push([test.id, lookupOutcome(observed, test.id, (id) => runner.fileOf(id))]);
        }
        return { tree, outcomes };
      };
      const byTree = (await Promise.all([...sharing.values()].map(async (trees) => {
        const done = [];
        for (const tree of trees) done.push(await cellsOf(tree));
        return done;
      }))).flat();
      for (const { tree, outcomes } of byTree) {
        for (const [id, outcome] of outcomes) {
          cells++;
          if (matrix.cells[id][tree.id] === outcome) agree++;
          else disagree.push(`${id} on ${tree.id}: ${matrix.cells[id][tree.id]} vs ${outcome}`);
        }
      }
      perCell.push({
        ms: performance.now() - started,
        sessions: cellSandbox.sessions,
        agree,
        cells,
        disagree,
      });
    } finally {
      await removeTree(work);
    }
  }

  const matrix = ours[0].matrix;
  const bases = matrix.trees.filter((t) => t.kind === "base").length;
  const line = (label: string, sessions: number, ms: number) =>
    `${label.padEnd(36)} ${String(sessions).padStart(4)} pytest sessions  ${
      (ms / 1000).toFixed(2).padStart(7)
    } s`;
  const oursMs = median(ours.map((o) => o.ms));
  const cellMs = median(perCell.map((p) => p.ms));
  console.log(
    `matrix bench: ${task.id} of the demo project, ${AGENTS.length} agents, ${matrix.trees.length} trees ` +
      `(${bases} runs of B, ${
        matrix.trees.length - bases
      } candidates), ${matrix.tests.length} test rows ` +
      `(${matrix.tests.filter((t) => t.authorRole !== "repository").length} by agents), ` +
      `jobs ${JOBS}, median of ${ROUNDS} round(s)`,
  );
  console.log(line("bugbout (one session per tree):", ours[0].sessions, oursMs));
  console.log(line("per cell (one session per cell):", perCell[0].sessions, cellMs));
  console.log(
    `ratio: ${(perCell[0].sessions / ours[0].sessions).toFixed(1)}x fewer sessions, ` +
      `${(cellMs / oursMs).toFixed(1)}x less wall time`,
  );
  console.log(`cells on which both approaches agree: ${perCell[0].agree}/${perCell[0].cells}`);
  for (const line of perCell.flatMap((p) => p.disagree)) console.log(`  disagree: ${line}`);
  if (perCell.some((p) => p.agree !== p.cells)) Deno.exitCode = 1;
} finally {
  await Deno.remove(root, { recursive: true }).catch(() => {});
}
