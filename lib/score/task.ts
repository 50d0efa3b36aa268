/**
 * Scoring one task: the sanity gates, every contestant's patch, the judge's pick and every
 * agent's evidence roles (see `mod.ts` for the rules).
 *
 * Requires `--allow-run` (git, cp, the sandbox, the interpreter), `--allow-read`, `--allow-write`
 * and `--allow-env`.
 *
 * @module
 */

import { join } from "node:path";
import { cachedTree, checkout, installFiles, listFiles, removeTree } from "../checkout.ts";
import { describeError, InterruptedError } from "../errors.ts";
import {
  attemptsFingerprint,
  type BoutAttempt,
  boutAuthors,
  sessionSettings,
  taskPathRules,
  taskWorkDir,
  treeRules,
} from "../testbed/context.ts";
import { patchedFiles } from "../testbed/patched.ts";
import { runGroups, type SessionSettings } from "../testbed/sessions.ts";
import { suiteGroup } from "../testbed/install.ts";
import { Slots } from "../testbed/slots.ts";
import { applySourceChanges, hasCandidate } from "../testbed/trees.ts";
import { git } from "../git.ts";
import { inputsKey } from "../hash.ts";
import { summarise } from "../oracle/ground_truth.ts";
import type { PytestRun } from "../python/classify.ts";
import type { Project } from "../project.ts";
import type { TestEnv } from "../python/env.ts";
import { classifyPath } from "../testbed/paths.ts";
import type { Matrix, Oracle, Resolution, RunSummary, Task, Verdict } from "../records.ts";
import type { Sandbox } from "../sandbox/types.ts";
import { evidenceOf, replayOnGold } from "./evidence.ts";
import { reviewPatch } from "./flags.ts";
import { noFix, scoreRun, type TestScore } from "./outcome.ts";
import { sessionInputs } from "../testbed/stage.ts";

/** Bumped when the way patches are scored changes, so saved results are recomputed. */
const SCORE_RULES = 1;

/** Marks a reason as an infrastructure failure (such a task is scored again next time). */
export const INFRA_REASON = "Infrastructure error";

/** What one task is scored from. */
export interface ScoreInputs {
  /** The task's ground truth. */
  oracle: Oracle;
  /** Its cross-examination matrix, if there is one (evidence roles need it). */
  matrix?: Matrix;
  /** The judge's verdict, if there is one (for the pick). */
  verdict?: Verdict;
  /** The attempts of configured agents. */
  attempts: readonly BoutAttempt[];
}

/** What {@linkcode scoreTask} needs besides the task. */
export interface ScoreContext {
  /** The sandbox every session runs in. */
  sandbox: Sandbox;
  /** The test environment. */
  env: TestEnv;
  /** Bounds sessions across tasks; by default `[run] jobs` for this task alone. */
  slots?: Slots;
  /** Called after every pytest session. */
  onRun?: (run: RunSummary) => void;
  /** Stop: sessions in flight are killed, then {@linkcode InterruptedError} is thrown. */
  signal?: AbortSignal;
}

/** The inputs that decide a task's resolution; a saved one with the same key is reused. */
export function resolutionInputsKey(
  project: Project,
  task: Task,
  inputs: ScoreInputs,
  env: TestEnv,
): string {
  return inputsKey({
    rules: SCORE_RULES,
    task: [task.id, task.commit, task.parent, task.packageDir, task.pythonPath],
    hidden: [task.testFiles, task.supportFiles ?? []],
    oracle: [
      inputs.oracle.inputsKey,
      inputs.oracle.status,
      inputs.oracle.failToPass,
      inputs.oracle.passToPass,
    ],
    matrix: inputs.matrix?.inputsKey ?? null,
    pick: inputs.verdict?.pick ?? null,
    attempts: attemptsFingerprint(inputs.attempts),
    tests: project.config.project.tests,
    ...sessionInputs(project, env),
  });
}

class InfraFailure extends Error {}

/**
 * Run the hidden tests on one prepared tree and score the run. A run the harness cannot trust
 * (no JUnit XML, or one contradicting the exit code) is tried once more; if it fails again, a
 * candidate's patch is what broke the run (it is scored on no passing test, and says why), while
 * for the empty or gold patch — or when the sandbox itself could not start — it is an
 * infrastructure failure of the whole task.
 */
async function scoreTree(
  tree: string,
  targets: readonly string[],
  oracle: Oracle,
  settings: SessionSettings,
  record: (run: PytestRun) => void,
  candidate: boolean,
): Promise<TestScore & { message?: string }> {
  let untrusted: string | undefined;
  let sandboxFailed = false;
  let result;
  for (let attempt = 0; attempt < 2; attempt++) {
    untrusted = undefined;
    sandboxFailed = false;
    [result] = await runGroups(tree, [suiteGroup(targets)], settings, (run) => {
      record(run);
      if (run.status === "infra-error" && run.cause !== "unrunnable") {
        untrusted = run.message ?? "pytest could not run";
        sandboxFailed ||= run.cause === "sandbox";
      }
    });
    if (untrusted === undefined) break;
  }
  // A sandbox that cannot start says nothing about the patch: the whole task waits for a rerun.
  if (untrusted !== undefined && (!candidate || sandboxFailed)) {
    throw new InfraFailure(untrusted);
  }
  const score = scoreRun(result!.outcomes, oracle);
  if (untrusted !== undefined) {
    return { ...score, message: `pytest gave no trustworthy result on this patch: ${untrusted}` };
  }
  return result!.status === "ok" ? score : { ...score, message: result!.message ?? result!.status };
}

function unscored(
  task: Task,
  key: string,
  reason: string,
  verdict: Verdict | undefined,
  runs: RunSummary[],
  sanity?: Resolution["sanity"],
): Resolution {
  return {
    task: task.id,
    inputsKey: key,
    scored: false,
    reason,
    ...(sanity ? { sanity } : {}),
    patches: {},
    evidence: {},
    pick: { agent: verdict?.pick ?? null, outcome: null },
    runs,
  };
}

/** G's source changes relative to B (the gold patch's paths, classified like any patch's). */
async function goldSourcePaths(project: Project, task: Task): Promise<string[]> {
  const out = await git(
    ["diff", "--name-only", "--no-renames", "-z", task.parent, task.commit, "--"],
    { cwd: project.repository },
  );
  const rules = taskPathRules(project, task);
  return out.split("\0").filter((p) => p && classifyPath(p, rules) === "source");
}

/**
 * Score one task: sanity gates, every contestant's patch, the judge's pick, and every agent's
 * evidence roles. Infrastructure failures become an unscored resolution whose reason says so.
 */
export async function scoreTask(
  project: Project,
  task: Task,
  inputs: ScoreInputs,
  context: ScoreContext,
): Promise<Resolution> {
  const { signal } = context;
  const { oracle, verdict } = inputs;
  const key = resolutionInputsKey(project, task, inputs, context.env);
  const runs: RunSummary[] = [];
  if (oracle.status !== "scorable") {
    return unscored(
      task,
      key,
      `${oracle.status}: ${oracle.reason ?? "no fail-to-pass test"}`,
      verdict,
      runs,
    );
  }
  const work = taskWorkDir(project, "score", task.id);
  const settings = sessionSettings(project, task, {
    sandbox: context.sandbox,
    env: context.env,
    slots: context.slots ?? new Slots(project.config.run.jobs),
    scratch: join(work, "runs"),
    signal,
  });
  const record = (tree: string) => {
    let index = 0;
    return (run: PytestRun) => {
      const summary = summarise(tree, index++, run);
      runs.push(summary);
      context.onRun?.(summary);
    };
  };
  const paths = taskPathRules(project, task);
  const hidden = [...task.testFiles, ...(task.supportFiles ?? [])];
  const home = { home: project.home, signal };
  try {
    const targets = await listFiles(project.repository, task.commit, task.testFiles);
    const tree = async (name: string, change: (dir: string) => Promise<string | undefined>) => {
      const dir = await checkout(project.repository, task.parent, join(work, "trees", name), home);
      const problem = await change(dir);
      if (problem) return problem;
      await installFiles(project.repository, task.commit, hidden, dir, signal);
      return dir;
    };
    const [empty, gold] = await Promise.all([
      tree("empty", () => Promise.resolve(undefined))
        .then((dir) => scoreTree(dir, targets, oracle, settings, record("empty"), false)),
      tree("gold", async (dir) => {
        const sources = await goldSourcePaths(project, task);
        await installFiles(project.repository, task.commit, sources, dir, signal);
        return undefined;
      }).then((dir) => scoreTree(dir, targets, oracle, settings, record("gold"), false)),
    ]);
    const sanity = {
      emptyResolves: empty.outcome === "resolved",
      goldResolves: gold.outcome === "resolved",
    };
    if (sanity.emptyResolves || !sanity.goldResolves) {
      const reason = sanity.emptyResolves
        ? "sanity gate: the unpatched code already passes every hidden test"
        : `sanity gate: the real fix does not resolve the task when scored (${
          gold.message ?? describeFailing(gold)
        })`;
      return unscored(task, key, reason, verdict, sortRuns(runs), sanity);
    }
    const base = await cachedTree(project.repository, task.parent, home);
    const rules = await treeRules(base);
    const patches: Resolution["patches"] = {};
    const scoring = inputs.attempts.filter((a) => a.attempt.role === "contestant").map(
      async ({ attempt, patches: texts }) => {
        const changes = attempt.status === "patch"
          ? await patchedFiles(base, texts.full, attempt.files, {
            scratch: join(work, "scratch"),
            signal,
          }).catch((error) => {
            if (signal?.aborted) throw error;
            return new Map();
          })
          : new Map();
        const review = attempt.status === "patch"
          ? reviewPatch(attempt.files, changes, paths)
          : { flags: [], ignored: [] };
        const named = { flags: review.flags, ignored: review.ignored };
        if (attempt.status !== "patch") {
          patches[attempt.agent] = {
            ...noFix(oracle),
            ...named,
            message: `the attempt ended: ${attempt.status}`,
          };
          return;
        }
        if (!hasCandidate(attempt, paths)) {
          patches[attempt.agent] = {
            ...noFix(oracle),
            ...named,
            message: "the patch changes no source file",
          };
          return;
        }
        let failure: string | undefined;
        const dir = await tree(`p-${attempt.agent.replace(/[^\w.-]+/g, "_")}`, async (d) => {
          const applied = await applySourceChanges(d, attempt, texts, paths, signal);
          if (!applied.ok) failure = applied.message;
          return failure;
        });
        if (failure) {
          patches[attempt.agent] = { ...noFix(oracle), ...named, message: failure };
          return;
        }
        const score = await scoreTree(
          dir,
          targets,
          oracle,
          settings,
          record(attempt.agent),
          true,
        );
        patches[attempt.agent] = { ...score, ...named };
      },
    );
    const authors = inputs.matrix
      ? await boutAuthors(project, inputs.attempts, {
        base,
        python: context.env.python,
        rules,
        scratch: join(work, "scratch"),
        signal,
      })
      : [];
    const goldRuns = inputs.matrix
      ? replayOnGold(project, task, authors, {
        work,
        settings,
        onSession: (i) => record(i === 0 ? "G" : `G#${i + 1}`),
      })
      : Promise.resolve([]);
    const settled = await Promise.allSettled([...scoring, goldRuns]);
    if (signal?.aborted) throw new InterruptedError();
    for (const s of settled) if (s.status === "rejected") throw s.reason;
    const ordered = Object.fromEntries(
      inputs.attempts.filter((a) => patches[a.attempt.agent]).map((
        a,
      ) => [a.attempt.agent, patches[a.attempt.agent]]),
    );
    const pick = verdict?.pick ?? null;
    return {
      task: task.id,
      inputsKey: key,
      scored: true,
      sanity,
      patches: ordered,
      evidence: inputs.matrix
        ? evidenceOf(inputs.matrix, await goldRuns, inputs.attempts.map((a) => a.attempt.agent))
        : {},
      pick: { agent: pick, outcome: pick === null ? null : ordered[pick]?.outcome ?? null },
      runs: sortRuns(runs),
    };
  } catch (error) {
    if (error instanceof InterruptedError || signal?.aborted) throw new InterruptedError();
    return unscored(task, key, `${INFRA_REASON}: ${describeError(error)}`, verdict, sortRuns(runs));
  } finally {
    await removeTree(work).catch(() => {});
  }
}

function describeFailing(score: TestScore): string {
  const parts: string[] = [];
  if (score.failToPass.failing.length) {
    parts.push(`fail-to-pass failing: ${score.failToPass.failing.join(", ")}`);
  }
  if (score.passToPass.failing.length) {
    parts.push(`pass-to-pass failing: ${score.passToPass.failing.join(", ")}`);
  }
  return parts.join("; ") || score.outcome;
}

function sortRuns(runs: RunSummary[]): RunSummary[] {
  const by = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return [...runs].sort((a, b) => by(a.tree, b.tree) || a.index - b.index);
}
