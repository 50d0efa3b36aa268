/**
 * The sections about tests and who wrote them: "Which tests tell a right fix from a wrong one"
 * and "Evidence".
 *
 * @module
 */

import { agentEvidence } from "../roles.ts";
import { agentOfName, type Matrix, type Outcome, REPOSITORY } from "../records.ts";
import { separation, type SeparationSample } from "./stats.ts";
import type { EvidenceRow, SeparationRow } from "./types.ts";
import { attemptNamesOf, type Context, outcomeOf } from "./_context.ts";

/** The ids of a matrix's runs of the unfixed tree. */
export function baseTrees(matrix: Matrix): string[] {
  return matrix.trees.filter((t) => t.kind === "base").map((t) => t.id);
}

/** Whether a test gives `want` on every run of the unfixed tree (and there is at least one). */
export function onEveryBase(matrix: Matrix, test: string, want: (o: Outcome) => boolean): boolean {
  const row = matrix.cells[test] ?? {};
  // A repeat of B that left the test out on purpose (it passed everywhere) has no cell for it.
  const bases = baseTrees(matrix).filter((b) => row[b] !== undefined);
  return bases.length > 0 && bases.every((b) => want(row[b]));
}

const unstableSets = new WeakMap<Matrix, Set<string>>();

/** Whether a test's outcome on B differed between repeats (a set per matrix, built once). */
export function unstableOnB(matrix: Matrix, test: string): boolean {
  let set = unstableSets.get(matrix);
  if (!set) {
    set = new Set(matrix.unstableOnB);
    unstableSets.set(matrix, set);
  }
  return set.has(test);
}

/** Whether a stable test fails (failed or error) on every run of the unfixed tree. */
export function reproduces(matrix: Matrix, test: string): boolean {
  return !unstableOnB(matrix, test) &&
    onEveryBase(matrix, test, (o) => o === "failed" || o === "error");
}

/**
 * Per author (each contestant, each examiner, then the repository's suite), how well their tests
 * separate resolved patches from wrong ones over the scored tasks. An agent's tests that count on
 * a task are its reproductions (stable, failing on every run of B), judged on every other agent's
 * patch; the repository's are its stable tests that pass on every run of B, judged on every patch.
 * A patch passes an author when all of those tests pass on it. An agent's repeats are one author:
 * the tests of all its attempts count as its own, and are never judged on its own patches.
 */
export function separationRows(ctx: Context): SeparationRow[] {
  const samples: SeparationSample[] = [];
  for (const task of ctx.scored) {
    const matrix = ctx.matrices.get(task);
    if (!matrix) continue;
    // A patch tree is named after its attempt (`codex#2`), and its agent is `codex`.
    const patches = matrix.trees.filter((t) =>
      t.kind === "patch" && ctx.input.resolutions[task].patches[t.id] !== undefined
    );
    const authors = [...new Set(matrix.tests.map((t) => t.author))];
    for (const author of authors) {
      const counted = matrix.tests.filter((t) =>
        t.author === author &&
        (author === REPOSITORY
          ? !unstableOnB(matrix, t.id) && onEveryBase(matrix, t.id, (o) => o === "passed")
          : reproduces(matrix, t.id))
      );
      for (const tree of patches) {
        if (agentOfName(tree.agent ?? tree.id) === agentOfName(author)) continue;
        samples.push({
          author: agentOfName(author),
          resolved: outcomeOf(ctx, task, tree.id) === "resolved",
          outcomes: counted.map((t) => matrix.cells[t.id]?.[tree.id] ?? "not-run"),
        });
      }
    }
  }
  const roles = new Map<string, SeparationRow["role"]>([
    ...ctx.contestants.map((a) => [a.name, "contestant"] as const),
    ...ctx.examiners.map((a) => [a.name, "examiner"] as const),
  ]);
  roles.set(REPOSITORY, "repository");
  const order = [...roles.keys()];
  const rows = separation(samples)
    .filter((s) => roles.has(s.author))
    .map((s) => ({ ...s, role: roles.get(s.author)! }));
  return rows.sort((x, y) => order.indexOf(x.author) - order.indexOf(y.author));
}

/**
 * Per agent (contestants, then examiners), the evidence roles of the tests it wrote on scored
 * tasks, over all of its attempts, and its evidence-inadequate closure rate.
 */
export function evidenceRows(ctx: Context): EvidenceRow[] {
  return [...ctx.contestants, ...ctx.examiners].map((agent) => {
    const attempts = ctx.scored.flatMap((task) =>
      attemptNamesOf(ctx, agent.name).flatMap((name) => {
        const entry = ctx.input.resolutions[task].evidence[name];
        return entry ? [entry] : [];
      })
    );
    return { agent: agent.name, role: agent.role, ...agentEvidence(attempts) };
  });
}
