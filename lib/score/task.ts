/**
 * Scoring one task, in four phases: the sanity gates (the empty patch must not resolve the task,
 * the gold patch must), every contestant's patch against the hidden tests, every agent's tests
 * replayed on G for their evidence roles, and the resolution that puts them together (see
 * `mod.ts` for the rules).
 *
 * Requires `--allow-run` (git, cp, the sandbox, the interpreter), `--allow-read`, `--allow-write`
 * and `--allow-env`.
 *
 * @module
 */

import { join } from "node:path";
import { cachedTree, checkout, installFiles, listFiles } from "../checkout.ts";
import { describeError, InterruptedError } from "../errors.ts";
import { git } from "../git.ts";
import { inputsKey } from "../hash.ts";
import type { Project } from "../project.ts";
import { describeEvent, type GuardEvent, type PytestRun, type TestEnv } from "../python/mod.ts";
import {
  type BoutAttempt,
  type Matrix,
  nameOf,
  type Oracle,
  type Resolution,
  type RunSummary,
  type Task,
  type Verdict,
} from "../records.ts";
import type { Sandbox } from "../sandbox/types.ts";
import {
  applySourceChanges,
  attemptsFingerprint,
  cellKey,
  classifyPath,
  hasCandidate,
  hiddenTestFiles,
  patchedFiles,
  type PathRules,
  Reuser,
  runGroups,
  RunLog,
  sessionInputs,
  type SessionSettings,
  sessionSettings,
  Slots,
  suiteGroup,
  taskAuthors,
  taskPathRules,
  treeRules,
} from "../testbed/mod.ts";
import { evidenceOf, replayOnGold } from "./evidence.ts";
import { reviewPatch } from "./flags.ts";
import { noFix, scoreRun, type TestScore } from "./outcome.ts";

/** Bumped when the way patches are scored changes, so saved results are recomputed. */
const SCORE_RULES = 2;

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
  /** A working directory of the task's own (removed by the caller). */
  work: string;
  /** Bounds sessions across tasks; by default `[run] jobs` for this task alone. */
  slots?: Slots;
  /** Called after every pytest session. */
  onRun?: (run: RunSummary) => void;
  /** Called as every pytest session starts, with its tree. */
  onStart?: (tree: string) => void;
  /** Stop: sessions in flight are killed, then {@linkcode InterruptedError} is thrown. */
  signal?: AbortSignal;
  /** The task's last resolution: its units and cells whose keys stand are not run again. */
  previous?: Resolution;
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

/** How the message of a patch whose run could not be trusted begins. */
const UNTRUSTED = "pytest gave no trustworthy result on this patch";

/**
 * What decides every scored tree besides its patch: the task, its hidden tests, its ground truth
 * and how sessions run. With a patch's identity, the key of that patch's score.
 */
function hiddenKey(project: Project, task: Task, oracle: Oracle, env: TestEnv): string {
  return inputsKey({
    rules: SCORE_RULES,
    task: [task.commit, task.parent, task.packageDir, task.pythonPath],
    hidden: [task.testFiles, task.supportFiles ?? []],
    oracle: [oracle.status, oracle.failToPass, oracle.passToPass],
    tests: project.config.project.tests,
    ...sessionInputs(project, env),
  });
}

/** The key of an author's tests in one repeat on G. */
function goldCellKey(project: Project, task: Task, env: TestEnv, index: number, author: string) {
  return cellKey(
    `G:${task.commit}#${index}`,
    author,
    inputsKey({
      rules: SCORE_RULES,
      task: [task.packageDir, task.pythonPath],
      tests: project.config.project.tests,
      ...sessionInputs(project, env),
    }),
  );
}

/** Everything the phases of one task's scoring share. */
interface Scoring {
  project: Project;
  task: Task;
  inputs: ScoreInputs;
  context: ScoreContext;
  settings: SessionSettings;
  paths: PathRules;
  log: RunLog;
  /** The hidden test modules on G. */
  targets: string[];
  /** Cells and units of the last resolution, and what this one keeps. */
  reuse: Reuser;
  /** See {@linkcode hiddenKey}. */
  hidden: string;
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
  const log = new RunLog(context.onRun, context.onStart);
  const reuse = new Reuser(context.previous?.reuse);
  const unscored = (reason: string, sanity?: Resolution["sanity"]): Resolution => ({
    task: task.id,
    inputsKey: key,
    scored: false,
    reason,
    ...(sanity ? { sanity } : {}),
    patches: {},
    evidence: {},
    pick: { agent: verdict?.pick ?? null, outcome: null },
    runs: log.sorted(),
    reuse: reuse.saved(),
  });
  if (oracle.status !== "scorable") {
    return unscored(`${oracle.status}: ${oracle.reason ?? "no fail-to-pass test"}`);
  }
  const s: Scoring = {
    project,
    task,
    inputs,
    context,
    log,
    paths: taskPathRules(project, task),
    settings: sessionSettings(project, task, {
      sandbox: context.sandbox,
      env: context.env,
      slots: context.slots ?? new Slots(project.config.run.jobs),
      scratch: join(context.work, "runs"),
      signal,
    }),
    targets: [],
    reuse,
    hidden: hiddenKey(project, task, oracle, context.env),
  };
  try {
    s.targets = await listFiles(project.repository, task.commit, task.testFiles);
    const sanity = await sanityGates(s);
    if (sanity.reason) return unscored(sanity.reason, sanity.gates);
    const base = await cachedTree(project.repository, task.parent, { home: project.home, signal });
    const patches = scorePatches(s, base);
    const gold = inputs.matrix ? replayAuthors(s, base) : Promise.resolve([]);
    const settled = await Promise.allSettled([patches, gold]);
    if (signal?.aborted) throw new InterruptedError();
    for (const result of settled) if (result.status === "rejected") throw result.reason;
    const scored = await patches;
    const pick = verdict?.pick ?? null;
    return {
      task: task.id,
      inputsKey: key,
      scored: true,
      sanity: sanity.gates,
      patches: scored,
      evidence: inputs.matrix
        ? evidenceOf(inputs.matrix, await gold, inputs.attempts.map((a) => nameOf(a.attempt)))
        : {},
      pick: { agent: pick, outcome: pick === null ? null : scored[pick]?.outcome ?? null },
      runs: log.sorted(),
      reuse: reuse.saved(),
    };
  } catch (error) {
    if (error instanceof InterruptedError || signal?.aborted) throw new InterruptedError();
    return unscored(`${INFRA_REASON}: ${describeError(error)}`);
  }
}

/** B in the work directory, changed by `change`, with the hidden tests installed. */
async function hiddenTree(
  s: Scoring,
  name: string,
  change: (dir: string) => Promise<string | undefined>,
): Promise<{ dir: string } | { problem: string }> {
  const { project, task, context } = s;
  const dir = await checkout(project.repository, task.parent, join(context.work, "trees", name), {
    home: project.home,
    signal: context.signal,
  });
  const problem = await change(dir);
  if (problem) return { problem };
  await installFiles(project.repository, task.commit, hiddenTestFiles(task), dir, context.signal);
  return { dir };
}

/**
 * Phase 1: the empty patch and the gold patch, scored like any other. A task where the empty
 * patch resolves, or the gold one does not, is not scored (`reason` says why).
 */
async function sanityGates(
  s: Scoring,
): Promise<{ gates: NonNullable<Resolution["sanity"]>; reason?: string }> {
  const { project, task, context } = s;
  const previous = context.previous;
  if (previous?.sanity && s.reuse.unitStands("sanity", s.hidden)) {
    s.reuse.unit("sanity", s.hidden);
    const failed = previous.sanity.emptyResolves || !previous.sanity.goldResolves;
    return { gates: previous.sanity, ...(failed ? { reason: previous.reason } : {}) };
  }
  const score = async (name: string, change: (dir: string) => Promise<undefined>) => {
    const tree = await hiddenTree(s, name, change);
    return scoreTree(s, (tree as { dir: string }).dir, name, false);
  };
  const [empty, gold] = await Promise.all([
    score("empty", () => Promise.resolve(undefined)),
    score("gold", async (dir) => {
      const sources = await goldSourcePaths(project, task, s.paths);
      await installFiles(project.repository, task.commit, sources, dir, context.signal);
      return undefined;
    }),
  ]);
  const gates = {
    emptyResolves: empty.outcome === "resolved",
    goldResolves: gold.outcome === "resolved",
  };
  s.reuse.unit("sanity", s.hidden);
  if (gates.emptyResolves) {
    return { gates, reason: "sanity gate: the unpatched code already passes every hidden test" };
  }
  if (!gates.goldResolves) {
    return {
      gates,
      reason: `sanity gate: the real fix does not resolve the task when scored (${
        gold.message ?? describeFailing(gold)
      })`,
    };
  }
  return { gates };
}

/** Phase 2: every contestant's patch, source changes only, against the hidden tests. */
async function scorePatches(s: Scoring, base: string): Promise<Resolution["patches"]> {
  const { inputs, context } = s;
  const patches: Resolution["patches"] = {};
  const contestants = inputs.attempts.filter((a) => a.attempt.role === "contestant");
  await Promise.all(contestants.map(async ({ attempt, patches: texts }) => {
    // A patch's score is decided by the patch and by what decides every scored tree.
    const name = nameOf(attempt);
    const unit = `patch:${name}`;
    const key = inputsKey({
      hidden: s.hidden,
      attempt: [attempt.status, attempt.files],
      patch: texts.full,
    });
    const before = context.previous?.patches[name];
    if (before && s.reuse.unitStands(unit, key)) {
      patches[name] = before;
      s.reuse.unit(unit, key);
      return;
    }
    patches[name] = await scorePatch(s, base, attempt, texts);
    // A patch whose run bugbout could not trust is scored again next time.
    if (!patches[name].message?.startsWith(UNTRUSTED)) s.reuse.unit(unit, key);
  }));
  // In the attempts' order, whatever order they finished in.
  return Object.fromEntries(
    inputs.attempts.filter((a) => patches[nameOf(a.attempt)]).map((a) => [
      nameOf(a.attempt),
      patches[nameOf(a.attempt)],
    ]),
  );
}

/** One contestant's patch against the hidden tests (its source changes only). */
async function scorePatch(
  s: Scoring,
  base: string,
  attempt: BoutAttempt["attempt"],
  texts: BoutAttempt["patches"],
): Promise<Resolution["patches"][string]> {
  const { inputs, context } = s;
  const review = attempt.status === "patch"
    ? reviewPatch(attempt.files, await filesOf(s, base, attempt, texts.full), s.paths)
    : { flags: [], ignored: [] };
  const named = { flags: review.flags, ignored: review.ignored };
  const none = (message: string) => ({ ...noFix(inputs.oracle), ...named, message });
  if (attempt.status !== "patch") return none(`the attempt ended: ${attempt.status}`);
  if (!hasCandidate(attempt, s.paths)) return none("the patch changes no source file");
  const name = nameOf(attempt);
  const tree = await hiddenTree(s, `p-${name.replace(/[^\w.-]+/g, "_")}`, async (d) => {
    const applied = await applySourceChanges(d, attempt, texts, s.paths, context.signal);
    return applied.ok ? undefined : applied.message;
  });
  if ("problem" in tree) return none(tree.problem);
  const { suspect, ...score } = await scoreTree(s, tree.dir, name, true);
  const noticed = [
    ...(score.tampering ?? []).map((e) => `tampered with the grading: ${describeEvent(e)}`),
    ...(suspect ?? []).map((e) => `worth a look: ${describeEvent(e)}`),
  ];
  return { ...score, ...named, flags: [...named.flags, ...noticed] };
}

/** What an attempt's patch makes of its files on B; a patch that does not apply says nothing. */
async function filesOf(
  s: Scoring,
  base: string,
  attempt: BoutAttempt["attempt"],
  patch: string,
): ReturnType<typeof patchedFiles> {
  try {
    return await patchedFiles(base, patch, attempt.files, {
      scratch: join(s.context.work, "scratch"),
      signal: s.context.signal,
    });
  } catch (error) {
    if (s.context.signal?.aborted) throw error;
    return new Map();
  }
}

/** Phase 3: every author's tests on G, for their evidence roles. */
async function replayAuthors(s: Scoring, base: string) {
  const { project, task, context } = s;
  const authors = await taskAuthors(project, s.inputs.attempts, {
    base,
    python: context.env.python,
    rules: await treeRules(base),
    scratch: join(context.work, "scratch"),
    signal: context.signal,
  });
  return replayOnGold(project, task, authors, {
    work: context.work,
    settings: s.settings,
    onSession: (i) => s.log.on(i === 0 ? "G" : `G#${i + 1}`),
    reuse: s.reuse,
    keyOf: (i, author) => goldCellKey(project, task, context.env, i, author.key),
  });
}

/**
 * Run the hidden tests on one prepared tree and score the run. A run the harness cannot trust
 * (its guard's channel missing, cut short or contradicting the exit code) is tried once more; if it fails again, a
 * candidate's patch is what broke the run (it is scored on no passing test, and says why), while
 * for the empty or gold patch — or when the sandbox itself could not start — it is an
 * infrastructure failure of the whole task.
 */
async function scoreTree(
  s: Scoring,
  tree: string,
  name: string,
  candidate: boolean,
): Promise<TestScore & { message?: string; tampering?: GuardEvent[]; suspect?: GuardEvent[] }> {
  const record = s.log.on(name);
  let untrusted: string | undefined;
  let sandboxFailed = false;
  let result;
  for (let attempt = 0; attempt < 2; attempt++) {
    untrusted = undefined;
    sandboxFailed = false;
    [result] = await runGroups(tree, [suiteGroup(s.targets)], s.settings, (run: PytestRun) => {
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
  const score = {
    ...scoreRun(result!.outcomes, s.inputs.oracle),
    ...(result!.suspect.length ? { suspect: result!.suspect } : {}),
  };
  if (result!.status === "tampered") {
    // Whatever the tests said, a patch whose code interfered with the grading resolves nothing.
    return {
      ...score,
      outcome: "tampered",
      failToPass: { ...score.failToPass, passed: 0, failing: [...s.inputs.oracle.failToPass] },
      message: result!.message,
      tampering: result!.tamper,
    };
  }
  if (untrusted !== undefined) return { ...score, message: `${UNTRUSTED}: ${untrusted}` };
  return result!.status === "ok" ? score : { ...score, message: result!.message ?? result!.status };
}

/** G's source changes relative to B (the gold patch's paths, classified like any patch's). */
async function goldSourcePaths(project: Project, task: Task, rules: PathRules): Promise<string[]> {
  const out = await git(
    ["diff", "--name-only", "--no-renames", "-z", task.parent, task.commit, "--"],
    { cwd: project.repository },
  );
  return out.split("\0").filter((p) => p && classifyPath(p, rules) === "source");
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
