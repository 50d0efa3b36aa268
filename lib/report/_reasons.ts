/**
 * Why each task went the way it did where it did not go the ordinary way: the judge's abstention,
 * every patch the merge gate stopped, every tree or session whose cells were set aside, every
 * tampering and every infrastructure error, each naming the file, test or rule (see
 * {@linkcode TaskReason}). Every renderer prints these under the task, so no format hides one.
 *
 * @module
 */

import { tamperers } from "../../judge/mod.ts";
import {
  type CapabilityFinding,
  describeEvent,
  describeFinding,
  type GuardEvent,
  type Matrix,
  nameOf,
  REPOSITORY,
} from "../records.ts";
import type { TaskReason } from "./types.ts";
import type { Context } from "./_context.ts";

/** Most tests named in one reason; the rest are counted. */
const NAMED = 5;

/**
 * Every reason of a task, in this order: abstention, stops, set-aside, tampering, capability
 * findings (suspect patches), what scoring said, infra errors.
 */
export function taskReasons(ctx: Context, task: string, pick: string | null): TaskReason[] {
  const reasons: TaskReason[] = [];
  const verdict = ctx.input.verdicts[task];
  const resolution = ctx.input.resolutions[task];
  const matrix = ctx.matrices.get(task);

  if (pick === null && (verdict || matrix || resolution?.scored)) {
    reasons.push({
      kind: "abstained",
      subject: null,
      text: verdict
        ? verdict.reason.replace(/^abstained: /, "")
        : "the judge has not judged this task yet (no verdict in verdicts.json)",
    });
  }
  for (const [name, judged] of Object.entries(verdict?.patches ?? {})) {
    if (!judged.approved) {
      reasons.push({ kind: "stopped", subject: name, text: judged.reason });
    }
  }
  if (matrix) reasons.push(...matrixReasons(matrix));
  // The capability review: scoring's, or the matrix's before the task is scored.
  const reviewed = new Map<string, readonly CapabilityFinding[]>();
  for (const tree of matrix?.trees ?? []) {
    if (tree.suspect?.length) reviewed.set(tree.id, tree.suspect);
  }
  for (const [name, score] of Object.entries(resolution?.patches ?? {})) {
    if (score.suspect?.length) reviewed.set(name, score.suspect);
  }
  for (const [name, findings] of reviewed) {
    reasons.push({
      kind: "suspect",
      subject: name,
      text: `capability review: its source uses what B's package never did, so it is never ` +
        `counted resolved nor picked: ${named(findings.map(describeFinding))}`,
    });
  }
  for (const [name, score] of Object.entries(resolution?.patches ?? {})) {
    if (score.outcome === "suspect") continue;
    if (score.outcome === "tampered") {
      reasons.push({
        kind: "tampered",
        subject: name,
        text: `scoring: its code tampered with the grading: ${
          eventsText(score.tampering ?? []) || score.message || "no detail recorded"
        }`,
      });
    } else if (score.message && score.outcome !== "resolved") {
      reasons.push({ kind: "scoring", subject: name, text: `scoring: ${score.message}` });
    }
  }
  for (const run of ctx.input.oracles.oracles[task]?.runs ?? []) {
    if (run.status !== "infra-error") continue;
    reasons.push({
      kind: "infra-error",
      subject: `${run.tree} run ${run.index + 1}`,
      text: `ground truth: ${run.message ?? "no message recorded"}`,
    });
  }
  for (const attempt of ctx.attempts.get(task)?.values() ?? []) {
    if (attempt.status !== "infra-error") continue;
    reasons.push({
      kind: "infra-error",
      subject: nameOf(attempt),
      text: `the race: ${attempt.error ?? "no message recorded"} (the attempt does not count)`,
    });
  }
  return reasons;
}

/**
 * What a matrix set aside: trees that did not run, sessions whose code interfered with the
 * grading (and whom that is blamed on), and the tests unstable on the unfixed tree.
 */
function matrixReasons(matrix: Matrix): TaskReason[] {
  const reasons: TaskReason[] = [];
  const blamed = tamperers(matrix);
  for (const tree of matrix.trees) {
    if (tree.status === "ok") continue;
    const what = tree.kind === "base" ? `the unfixed tree (${tree.id})` : `${tree.id}'s patch`;
    reasons.push({
      kind: tree.status === "infra-error" ? "infra-error" : "set-aside",
      subject: tree.id,
      text: `cross-examination: ${what} did not run (${tree.status}${
        tree.message ? `: ${tree.message}` : ""
      }); every cell on it is set aside`,
    });
  }
  for (const session of matrix.tampering ?? []) {
    if (session.events.length === 0) continue;
    const whose = session.author === REPOSITORY
      ? "the repository's tests"
      : `${session.author}'s tests`;
    const onTree = matrix.trees.find((t) => t.id === session.tree);
    const tree = onTree?.kind === "base" ? `the unfixed tree (${session.tree})` : session.tree;
    const blame = [
      ...(blamed.trees.has(session.tree) ? [`${session.tree}'s code`] : []),
      ...(blamed.authors.has(session.author) ? [`${session.author}'s tests`] : []),
    ];
    reasons.push({
      kind: "tampered",
      subject: session.tree,
      text: `cross-examination: ${whose} on ${tree} gave no outcome, their cells are set ` +
        `aside: ${eventsText(session.events)}; blamed on ${
          blame.length ? blame.join(" and ") : "no contestant (the same happens without a patch)"
        }`,
    });
  }
  if (matrix.unstableOnB.length > 0) {
    reasons.push({
      kind: "set-aside",
      subject: null,
      text: `cross-examination: ${matrix.unstableOnB.length} ${
        matrix.unstableOnB.length === 1 ? "test is" : "tests are"
      } set aside as unstable on the unfixed tree (an outcome that differed between its runs): ${
        named(matrix.unstableOnB)
      }`,
    });
  }
  return reasons;
}

/** Guard events in words: the first few, then how many more. */
function eventsText(events: readonly GuardEvent[]): string {
  return named(events.map(describeEvent));
}

function named(items: readonly string[]): string {
  const shown = items.slice(0, NAMED).join("; ");
  return items.length > NAMED ? `${shown}; and ${items.length - NAMED} more` : shown;
}
