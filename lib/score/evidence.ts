/**
 * Evidence roles (BSG-VA) of the tests agents wrote: each test is replayed on B (the matrix's B
 * repeats), on the agent's own candidate S (the matrix's column of its patch) and on the gold fix
 * G (run here, once per `[tasks] reruns`, after the judge has ruled). Its B and G outcomes give
 * its role (`lib/roles.ts`); B and S give the attempt's evidence-inadequate closure.
 *
 * On G, every author's tests are installed as cross-examination installs them (the same owners,
 * the same ids the matrix uses, each kept from reaching another's as the runner allows), with G's
 * own environment (a fix may change its dependency files). An author's cell on G is reused while
 * its key stands.
 *
 * `replayOnGold` requires what cross-examination requires; `evidenceOf` is pure.
 *
 * @module
 */

import { checkout } from "../checkout.ts";
import type { RunnerTree, TestRunner } from "../lang/mod.ts";
import type { Project } from "../project.ts";
import type { Matrix, Outcome, Resolution, Task } from "../records.ts";
import { evidenceTest, inadequateClosure } from "../roles.ts";
import {
  authorOwner,
  type AuthorTests,
  type FileOf,
  type GroupResult,
  hasTests,
  lookupOutcome,
  type OnSession,
  type Reuser,
  runOwners,
  type RunSettings,
} from "../testbed/mod.ts";
import { join } from "node:path";

/** Every author's tests on G, once per rerun: one list of group results per run. */
export type GoldRuns = GroupResult[][];

/**
 * Every author's tests on G, `[tasks] reruns` times (the repository's suite is not run): cells
 * `reuse` holds under their keys are taken from it; for the rest, G is checked out under `work`
 * for each repeat with the tests of every author that must run installed as cross-examination
 * installs them.
 */
export async function replayOnGold(
  project: Project,
  task: Task,
  authors: readonly AuthorTests[],
  options: {
    work: string;
    /** B's runner: the one the authors' tests and the matrix's ids were read with. */
    reader: TestRunner;
    /** G's runner and environment. */
    gold: RunnerTree;
    settings: RunSettings;
    onSession: (index: number) => OnSession;
    reuse: Reuser;
    /** The key of the cell of `author`'s tests in repeat `index`. */
    keyOf: (index: number, author: AuthorTests) => string;
  },
): Promise<GoldRuns> {
  const { reuse, keyOf, gold } = options;
  const signal = options.settings.signal;
  const withTests = authors.filter(hasTests);
  const runs: GoldRuns = [];
  for (let i = 0; i < project.config.tasks.reruns; i++) {
    const missing = withTests.filter((a) => !reuse.has(keyOf(i, a)));
    const fresh = missing.length === 0 ? [] : await runOwners({
      dir: join(options.work, "gold", `${i}`),
      build: async (dir) => {
        await checkout(project.repository, task.commit, dir, { home: project.home, signal });
        return { ok: true };
      },
      owners: missing.map((a) => authorOwner(a, options.reader)),
      runner: gold.runner,
      env: gold.env,
      settings: options.settings,
      onSession: options.onSession(i),
    });
    if ("failed" in fresh) throw new Error(fresh.failed);
    for (const g of fresh) reuse.put(keyOf(i, withTests.find((a) => a.agent === g.owner)!), g);
    runs.push(
      withTests.flatMap((a) =>
        fresh.find((g) => g.owner === a.agent) ?? reuse.take(keyOf(i, a)) ?? []
      ),
    );
  }
  return runs;
}

function goldOutcome(
  run: readonly GroupResult[],
  owner: string,
  id: string,
  fileOf: FileOf,
): Outcome {
  const group = run.find((g) => g.owner === owner);
  if (!group || group.status === "infra-error") return "not-run";
  return lookupOutcome(group.outcomes, id, fileOf);
}

/**
 * Each agent's evidence: every test of its in the matrix, replayed on B, S and G, with its role,
 * and whether the attempt closed on inadequate evidence (null without a candidate of its own, or
 * when its candidate's tree hit an infrastructure error). `fileOf` is the runner's.
 */
export function evidenceOf(
  matrix: Matrix,
  gold: GoldRuns,
  agents: readonly string[],
  fileOf: FileOf,
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
        G: gold.map((run) => goldOutcome(run, agent, test.id, fileOf)),
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
