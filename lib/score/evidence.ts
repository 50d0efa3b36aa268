/**
 * Evidence roles (BSG-VA) of the tests agents wrote: each test is replayed on B (the matrix's B
 * repeats), on the agent's own candidate S (the matrix's column of its patch) and on the gold fix
 * G (run here, once per `[tasks] reruns`, after the judge has ruled). Its B and G outcomes give
 * its role (`testbed/roles.ts`); B and S give the attempt's evidence-inadequate closure.
 *
 * `replayOnGold` requires what cross-examination requires; `evidenceOf` is pure.
 *
 * @module
 */

import { join } from "node:path";
import { checkout } from "../checkout.ts";
import type { Project } from "../project.ts";
import type { Matrix, Outcome, Resolution, Task } from "../records.ts";
import {
  type AuthorTests,
  evidenceTest,
  type GroupResult,
  inadequateClosure,
  lookupOutcome,
  type OnSession,
  type PreparedTree,
  prepareTree,
  type Reuser,
  runPrepared,
  type SessionSettings,
} from "../testbed/mod.ts";

/** Every author's tests on G, once per rerun: one list of group results per run. */
export type GoldRuns = GroupResult[][];

/**
 * Every author's tests on G, `[tasks] reruns` times (the repository's suite is not run): cells
 * `reuse` holds under their keys are taken from it; for the rest, G is checked out under `work`
 * once, with the tests of every author that must run installed as cross-examination installs them.
 */
export async function replayOnGold(
  project: Project,
  task: Task,
  authors: readonly AuthorTests[],
  options: {
    work: string;
    settings: SessionSettings;
    onSession: (index: number) => OnSession;
    reuse: Reuser;
    /** The key of the cell of `author`'s tests in repeat `index`. */
    keyOf: (index: number, author: AuthorTests) => string;
  },
): Promise<GoldRuns> {
  const { reuse, keyOf } = options;
  const signal = options.settings.signal;
  const withTests = authors.filter((a) => !a.problem && a.modules.length > 0);
  const repeats = Array.from({ length: project.config.tasks.reruns }, (_, i) => i);
  const missing = (i: number) => withTests.filter((a) => !reuse.has(keyOf(i, a)));
  const needed = withTests.filter((a) => repeats.some((i) => missing(i).includes(a)));
  let prepared: PreparedTree | undefined;
  if (needed.length > 0) {
    const build = (dir: string) =>
      checkout(project.repository, task.commit, dir, { home: project.home, signal });
    const dir = join(options.work, "G");
    await build(dir);
    prepared = await prepareTree(dir, needed, build, signal);
  }
  const runs: GoldRuns = [];
  for (const i of repeats) {
    const run = missing(i);
    const fresh = run.length === 0 ? [] : await runPrepared(
      prepared!,
      options.settings,
      options.onSession(i),
      { only: new Set(run.map((a) => a.agent)) },
    );
    for (const g of fresh) reuse.put(keyOf(i, withTests.find((a) => a.agent === g.owner)!), g);
    runs.push(
      withTests.flatMap((a) =>
        fresh.find((g) => g.owner === a.agent) ?? reuse.take(keyOf(i, a)) ?? []
      ),
    );
  }
  return runs;
}

function goldOutcome(run: readonly GroupResult[], owner: string, id: string): Outcome {
  const group = run.find((g) => g.owner === owner);
  if (!group || group.status === "infra-error") return "not-run";
  return lookupOutcome(group.outcomes, id);
}

/**
 * Each agent's evidence: every test of its in the matrix, replayed on B, S and G, with its role,
 * and whether the attempt closed on inadequate evidence (null without a candidate of its own, or
 * when its candidate's tree hit an infrastructure error).
 */
export function evidenceOf(
  matrix: Matrix,
  gold: GoldRuns,
  agents: readonly string[],
): Resolution["evidence"] {
  const bases = matrix.trees.filter((t) => t.kind === "base" && t.status === "ok");
  const evidence: Resolution["evidence"] = {};
  for (const agent of agents) {
    const own = matrix.trees.find((t) => t.kind === "patch" && t.id === agent);
    const tests = matrix.tests.filter((t) => t.author === agent).map((test) => {
      const row = matrix.cells[test.id] ?? {};
      return {
        id: test.id,
        // Repeats of B that left the test out on purpose (it passed everywhere) say nothing.
        B: bases.flatMap((t) => row[t.id] ?? []),
        S: own ? row[own.id] ?? "not-run" : "not-run",
        G: gold.map((run) => goldOutcome(run, agent, test.id)),
      };
    });
    evidence[agent] = {
      tests: tests.map((t) => evidenceTest(t.id, t)),
      // A tree bugbout could not run says nothing about the agent's closure.
      inadequateClosure: own?.status === "infra-error"
        ? null
        : inadequateClosure({ patch: own !== undefined, tests }),
    };
  }
  return evidence;
}
