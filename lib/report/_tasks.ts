/**
 * The "How the tasks were found" and "Tasks" sections, with each task's compact matrix.
 *
 * @module
 */

import { firstTampering, tamperers } from "../../judge/mod.ts";
import {
  agentOfName,
  type CapabilityFinding,
  type Matrix,
  nameOf,
  REPOSITORY,
} from "../records.ts";
import {
  type Discovery,
  MATRIX_ROW_CAP,
  type MatrixView,
  OUTCOME_LETTERS,
  type TaskAgent,
  type TaskRow,
} from "./types.ts";
import { attempted, attemptsOf, type Context, countedNames, outcomeOf } from "./_context.ts";
import { reproduces, unstableOnB } from "./_authors.ts";
import { taskReasons } from "./_reasons.ts";

/** From history to scored tasks: what was examined, left out, unscorable or broken, and why. */
export function discovery(ctx: Context): Discovery {
  const { tasks, oracles, resolutions } = ctx.input;
  const reasons = Object.entries(tasks.counts)
    .map(([reason, count]) => ({ reason, count }))
    .sort((x, y) => y.count - x.count || x.reason.localeCompare(y.reason));

  const unscored: Discovery["unscored"] = [];
  const sanity: Discovery["sanity"] = [];
  for (const task of tasks.tasks) {
    const resolution = resolutions[task.id];
    const gate = resolution?.sanity;
    if (gate && (gate.emptyResolves || !gate.goldResolves)) {
      sanity.push({ task: task.id, ...gate });
    }
    if (resolution?.scored) continue;
    const oracle = oracles.oracles[task.id];
    const kind: Discovery["unscored"][number]["kind"] = oracle?.leftOut?.reason === "new-api"
      ? "new-api"
      : oracle?.status === "unscorable"
      ? "unscorable"
      : oracle?.status === "infra-error" || oracle?.status === "environment"
      ? "infra-error"
      : gate && (gate.emptyResolves || !gate.goldResolves)
      ? "sanity"
      : "not-scored";
    // The ground truth's own words when it is the reason (the kind column already names it).
    const fromOracle = oracle && oracle.status !== "scorable" ? oracle.reason : undefined;
    const reason = fromOracle ?? resolution?.reason ?? oracle?.reason ??
      (oracle ? "not scored yet" : "no ground truth yet");
    // A table cell holds one line: a traceback's first line, never the traceback.
    unscored.push({ task: task.id, title: task.title, kind, reason: firstLine(reason) });
  }

  const items: Discovery["infraErrors"]["items"] = [];
  let unstableOracle = 0, unstableMatrix = 0;
  for (const id of ctx.taskIds) {
    const oracle = oracles.oracles[id];
    unstableOracle += oracle?.unstable.length ?? 0;
    for (const run of oracle?.runs ?? []) {
      if (run.status !== "infra-error") continue;
      items.push({
        stage: "oracle",
        task: id,
        what: `${run.tree} run ${run.index + 1}`,
        message: run.message ?? null,
      });
    }
  }
  for (const id of ctx.taskIds) {
    for (const attempt of ctx.attempts.get(id)?.values() ?? []) {
      if (attempt.status !== "infra-error") continue;
      items.push({
        stage: "attempt",
        task: id,
        what: nameOf(attempt),
        message: attempt.error ?? null,
      });
    }
  }
  for (const id of ctx.taskIds) {
    const matrix = ctx.matrices.get(id);
    unstableMatrix += matrix?.unstableOnB.length ?? 0;
    for (const tree of matrix?.trees ?? []) {
      if (tree.status !== "infra-error") continue;
      items.push({ stage: "matrix", task: id, what: tree.id, message: tree.message ?? null });
    }
  }

  const source = (s: string) => tasks.tasks.filter((t) => t.statementSource === s).length;
  return {
    examined: tasks.examined,
    tasks: tasks.tasks.length,
    scored: ctx.scored.length,
    excluded: { total: reasons.reduce((sum, r) => sum + r.count, 0), reasons },
    statementNote: tasks.statementNote ?? null,
    statements: {
      issue: source("issue"),
      pullRequest: source("pull-request"),
      commitTitle: source("commit"),
    },
    features: {
      title: tasks.counts["not-a-fix"] ?? 0,
      changelog: tasks.counts["feature-in-changelog"] ?? 0,
      label: tasks.counts["feature-label"] ?? 0,
      newApi: tasks.tasks.filter((t) => oracles.oracles[t.id]?.leftOut?.reason === "new-api")
        .length,
    },
    unscored,
    sanity,
    unstable: { oracle: unstableOracle, matrix: unstableMatrix },
    infraErrors: {
      oracleRuns: items.filter((i) => i.stage === "oracle").length,
      attempts: items.filter((i) => i.stage === "attempt").length,
      matrixTrees: items.filter((i) => i.stage === "matrix").length,
      items,
    },
  };
}

function firstLine(text: string): string {
  const line = text.split("\n").find((l) => l.trim()) ?? "";
  return line.length > 240 ? `${line.slice(0, 239)}…` : line.trim();
}

/**
 * Every task: each agent's attempts at it and how many resolved it, the judge's pick (an attempt,
 * and its agent), and the compact matrix.
 */
export function taskRows(ctx: Context): TaskRow[] {
  const agents = [...ctx.contestants, ...ctx.examiners];
  return ctx.input.tasks.tasks.map((task) => {
    const resolution = ctx.input.resolutions[task.id];
    const verdict = ctx.input.verdicts[task.id];
    const oracle = ctx.input.oracles.oracles[task.id];
    const scored = resolution?.scored === true;
    const pickAgent = scored ? resolution.pick.agent : verdict?.pick ?? null;
    const pickOutcome = scored && pickAgent !== null
      ? resolution.pick.outcome ?? outcomeOf(ctx, task.id, pickAgent)
      : null;
    const matrix = ctx.matrices.get(task.id);
    const blamed = matrix ? tamperers(matrix) : undefined;
    return {
      id: task.id,
      title: task.title,
      ref: { kind: task.ref.kind, number: task.ref.number, url: task.ref.url ?? null },
      scored,
      reason: scored ? null : resolution?.reason ?? oracle?.reason ?? null,
      failToPass: oracle?.failToPass.length ?? 0,
      passToPass: oracle?.passToPass.length ?? 0,
      date: task.date,
      agents: agents.map((agent): TaskAgent => {
        const counts = scored && agent.role === "contestant";
        const counted = counts ? countedNames(ctx, task.id, agent.name) : [];
        return {
          agent: agent.name,
          role: agent.role,
          resolved: counts && counted.length
            ? counted.filter((name) => outcomeOf(ctx, task.id, name) === "resolved").length
            : null,
          counted: counts && counted.length ? counted.length : null,
          attempts: attemptsOf(ctx, task.id, agent.name).map(({ name, attempt }) => ({
            name,
            repeat: attempt.repeat ?? 1,
            status: attempt.status,
            durationMs: attempt.durationMs,
            outcome: counts && attempted(ctx, task.id, name) ? outcomeOf(ctx, task.id, name) : null,
            approved: verdict?.patches[name]?.approved ?? null,
            ...suspectOf(
              resolution?.patches[name]?.suspect ??
                matrix?.trees.find((t) => t.id === name)?.suspect,
            ),
            flags: [
              ...resolution?.patches[name]?.flags ?? [],
              ...(blamed?.authors.has(name)
                ? [
                  `its tests tampered with the grading: ${
                    firstTampering(blamed.authors.get(name)!)
                  }`,
                ]
                : []),
            ],
          })),
        };
      }),
      pick: {
        agent: pickAgent === null ? null : agentOfName(pickAgent),
        attempt: pickAgent,
        outcome: pickOutcome,
        reason: verdict?.reason ?? null,
      },
      matrix: matrix ? matrixView(matrix, pickAgent) : null,
      why: taskReasons(ctx, task.id, pickAgent),
    };
  });
}

/**
 * A matrix in compact form: one letter per cell, and rows only for the tests whose outcome
 * differs between the trees that ran (a tree that did not run has no outcomes to compare); the
 * others are counted, per author and in all, in `same`. At most {@linkcode MATRIX_ROW_CAP} rows
 * are kept: agents' tests first, then the repository's; the rows kept stay in matrix order.
 */
export function matrixView(matrix: Matrix, pick: string | null): MatrixView {
  const trees = matrix.trees.map((t) => ({
    id: t.id,
    kind: t.kind,
    agent: t.agent ?? null,
    status: t.status,
    // The pick names an attempt, as the tree's id does (`codex#2`; its agent is `codex`).
    picked: t.kind === "patch" && pick !== null && t.id === pick,
  }));
  const ran = trees.flatMap((t, i) => t.status === "ok" ? [i] : []);
  const authors: MatrixView["authors"] = [];
  const byAuthor = new Map<string, MatrixView["authors"][number]>();
  const differing: { index: number; priority: number; row: MatrixView["rows"][number] }[] = [];
  matrix.tests.forEach((test, index) => {
    let entry = byAuthor.get(test.author);
    if (!entry) {
      entry = {
        author: test.author,
        role: test.authorRole,
        tests: 0,
        reproducing: 0,
        shown: 0,
        same: 0,
      };
      byAuthor.set(test.author, entry);
      authors.push(entry);
    }
    entry.tests++;
    if (reproduces(matrix, test.id)) entry.reproducing++;
    const cells = matrix.cells[test.id] ?? {};
    const outcomes = trees.map((t) => OUTCOME_LETTERS[cells[t.id] ?? "not-run"]).join("");
    // A repeat of B without a cell left the test out on purpose: it passed everywhere.
    const seen = ran.filter((i) => cells[trees[i].id] !== undefined);
    if (new Set(seen.map((i) => outcomes[i])).size <= 1) {
      entry.same++;
      return;
    }
    differing.push({
      index,
      priority: test.authorRole === REPOSITORY ? 1 : 0,
      row: { test: test.id, author: test.author, unstable: unstableOnB(matrix, test.id), outcomes },
    });
  });
  const kept = [...differing].sort((x, y) => x.priority - y.priority || x.index - y.index)
    .slice(0, MATRIX_ROW_CAP)
    .sort((x, y) => x.index - y.index);
  for (const { row } of kept) byAuthor.get(row.author)!.shown++;
  const same = authors.reduce((sum, a) => sum + a.same, 0);
  return {
    tests: matrix.tests.length,
    trees,
    authors,
    rows: kept.map((k) => k.row),
    same,
    omitted: differing.length - kept.length,
  };
}

/** A patch's capability findings, as a task's attempt carries them (nothing when there is none). */
function suspectOf(findings: readonly CapabilityFinding[] | undefined) {
  return findings?.length ? { suspect: [...findings] } : {};
}
