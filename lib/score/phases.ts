/**
 * The phases of scoring one task, the same in every language: the sanity gates (the empty patch
 * must not resolve the task, the gold patch must), every contestant's patch against the hidden
 * tests, every agent's tests replayed on G for their evidence roles, the judge's pick, and the
 * resolution that puts them together, with the units a later resolution may reuse.
 *
 * What differs per language is a {@linkcode ScoringLanguage}: how a tree's hidden tests run and
 * what a run says, the path rules, the review of a patch's files and the replay on G. Python's is
 * in `task.ts`, Go's and JavaScript's (the project's test runner) in `runner.ts`.
 *
 * Requires `--allow-run` (git, cp, the sandbox, the language's tools), `--allow-read`,
 * `--allow-write` and `--allow-env`.
 *
 * @module
 */

import { join } from "node:path";
import { checkout, installFiles } from "../checkout.ts";
import { describeError, InterruptedError } from "../errors.ts";
import { git } from "../git.ts";
import { inputsKey } from "../hash.ts";
import type { Project } from "../project.ts";
import { describeEvent, type GuardEvent } from "../lang/python/mod.ts";
import type { Sandbox } from "../sandbox/types.ts";
import {
  type BoutAttempt,
  type Matrix,
  nameOf,
  type Oracle,
  type Outcome,
  type PatchFile,
  type Resolution,
  type RunStatus,
  type RunSummary,
  type Task,
  type Verdict,
} from "../records.ts";
import {
  applySourceChanges,
  classifyPath,
  type FileChange,
  hasCandidate,
  hiddenTestFiles,
  patchedFiles,
  type PathRules,
  Reuser,
  type Slots,
} from "../testbed/mod.ts";
import { evidenceOf, type GoldRuns } from "./evidence.ts";
import type { PatchReview } from "./flags.ts";
import { noFix, scoreRun, type TestScore } from "./outcome.ts";

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

/** What one run of the hidden tests on a tree said. */
export interface HiddenRun {
  /** How the run ended (`tampered`: the grading was interfered with). */
  status: RunStatus;
  /** Why it is not `ok`, in words. */
  message?: string;
  /** Outcome of each test, by id. */
  outcomes: ReadonlyMap<string, Outcome>;
  /** What the code under test did to the grading. */
  tamper: GuardEvent[];
  /** What it did that deserves a look without being tampering. */
  suspect: GuardEvent[];
  /** Why the run cannot be trusted (absent: it can). */
  untrusted?: string;
  /** The sandbox itself could not start: the run says nothing about the patch. */
  sandboxFailed?: boolean;
}

/** What scoring does differently in each language. */
export interface ScoringLanguage {
  /** How the message of a patch whose run could not be trusted begins. */
  readonly untrusted: string;
  /** Read what the phases need before the sanity gates. */
  prepare(): Promise<void>;
  /** B, read only (asked for once the sanity gates have passed). */
  base(): Promise<string>;
  /** The rules that classify a patch's paths (once prepared). */
  paths(): PathRules;
  /** What scoring makes of a patch's files (`changes` from `patchedFiles`). */
  review(files: readonly PatchFile[], changes: ReadonlyMap<string, FileChange>): PatchReview;
  /** A scored patch's flags: the review's, then what its run noticed. */
  flags(reviewed: string[], noticed: string[]): string[];
  /** Run the hidden tests once on a prepared tree, named `name` in the runs. */
  runHidden(tree: string, name: string): Promise<HiddenRun>;
  /** What the record of a tampered run says besides its outcome and tampering. */
  tamperedNote(run: HiddenRun): { message?: string };
  /** Every author's tests on G, as `evidenceOf` reads them (only asked for with a matrix). */
  replay(base: string, reuse: Reuser): Promise<GoldRuns>;
  /** The runs so far, as the results file records them. */
  runs(): RunSummary[];
}

/**
 * What scoring one task needs besides the task, in a language whose test environment is `Env`
 * (Python's `TestEnv`, or the project's runners for Go and JavaScript).
 */
export interface TaskScoreContext<Env> {
  /** The sandbox every run of the tests is made in. */
  sandbox: Sandbox;
  /** The test environment. */
  env: Env;
  /** A working directory of the task's own (removed by the caller). */
  work: string;
  /** Bounds runs across tasks; by default `[run] jobs` for this task alone. */
  slots?: Slots;
  /** Called after every run of the tests on a tree (a pytest session for Python). */
  onRun?: (run: RunSummary) => void;
  /** Called as every run starts, with its tree. */
  onStart?: (tree: string) => void;
  /** Stop: runs in flight are killed, then {@linkcode InterruptedError} is thrown. */
  signal?: AbortSignal;
  /** The task's last resolution: its units and cells whose keys stand are not run again. */
  previous?: Resolution;
}

/** What {@linkcode scorePhases} needs of the context. */
type PhaseContext = Pick<TaskScoreContext<unknown>, "work" | "signal" | "previous">;

/** The keys of one task's scoring. */
export interface PhaseKeys {
  /** The inputs that decide the resolution. */
  resolution: string;
  /** What decides every scored tree besides its patch (with a patch's identity, its key). */
  hidden: string;
}

class InfraFailure extends Error {}

/** Everything the phases of one task's scoring share. */
interface Scoring {
  project: Project;
  task: Task;
  inputs: ScoreInputs;
  context: PhaseContext;
  language: ScoringLanguage;
  /** Cells and units of the last resolution, and what this one keeps. */
  reuse: Reuser;
  /** See {@linkcode PhaseKeys}. */
  hidden: string;
}

/**
 * Score one task: sanity gates, every contestant's patch, the judge's pick, and (with a matrix)
 * every agent's evidence roles. Infrastructure failures become an unscored resolution whose
 * reason says so.
 */
export async function scorePhases(
  project: Project,
  task: Task,
  inputs: ScoreInputs,
  context: PhaseContext,
  keys: PhaseKeys,
  language: ScoringLanguage,
): Promise<Resolution> {
  const { signal } = context;
  const { oracle, verdict } = inputs;
  const key = keys.resolution;
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
    runs: language.runs(),
    reuse: reuse.saved(),
  });
  if (oracle.status !== "scorable") {
    return unscored(`${oracle.status}: ${oracle.reason ?? "no fail-to-pass test"}`);
  }
  const s: Scoring = { project, task, inputs, context, language, reuse, hidden: keys.hidden };
  try {
    await language.prepare();
    const sanity = await sanityGates(s);
    if (sanity.reason) return unscored(sanity.reason, sanity.gates);
    const base = await language.base();
    const patches = scorePatches(s, base);
    const gold = inputs.matrix ? language.replay(base, reuse) : Promise.resolve([]);
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
      runs: language.runs(),
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
      const sources = await goldSourcePaths(project, task, s.language.paths());
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
    // A patch whose run could not be trusted is scored again next time.
    if (!patches[name].message?.startsWith(s.language.untrusted)) s.reuse.unit(unit, key);
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
  const { inputs, context, language } = s;
  const rules = language.paths();
  const review = attempt.status === "patch"
    ? language.review(attempt.files, await filesOf(s, base, attempt, texts.full))
    : { flags: [], ignored: [] };
  const named = { flags: review.flags, ignored: review.ignored };
  const none = (message: string) => ({ ...noFix(inputs.oracle), ...named, message });
  if (attempt.status !== "patch") return none(`the attempt ended: ${attempt.status}`);
  if (!hasCandidate(attempt, rules)) return none("the patch changes no source file");
  const name = nameOf(attempt);
  const tree = await hiddenTree(s, `p-${name.replace(/[^\w.-]+/g, "_")}`, async (d) => {
    const applied = await applySourceChanges(d, attempt, texts, rules, context.signal);
    return applied.ok ? undefined : applied.message;
  });
  if ("problem" in tree) return none(tree.problem);
  const { suspect, ...score } = await scoreTree(s, tree.dir, name, true);
  const noticed = [
    ...(score.tampering ?? []).map((e) => `tampered with the grading: ${describeEvent(e)}`),
    ...(suspect ?? []).map((e) => `worth a look: ${describeEvent(e)}`),
  ];
  return { ...score, ...named, flags: language.flags(named.flags, noticed) };
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

/**
 * Run the hidden tests on one prepared tree and score the run. A run the harness cannot trust
 * (the language's {@linkcode HiddenRun.untrusted}) is tried once more; if it fails again, a
 * candidate's patch is what broke the run (it is scored on no passing test, says why, and is
 * scored again next time), while for the empty or gold patch — or when the sandbox itself could
 * not start — it is an infrastructure failure of the whole task.
 */
async function scoreTree(
  s: Scoring,
  tree: string,
  name: string,
  candidate: boolean,
): Promise<TestScore & { message?: string; tampering?: GuardEvent[]; suspect?: GuardEvent[] }> {
  const oracle = s.inputs.oracle;
  let result: HiddenRun | undefined;
  for (let attempt = 0; attempt < 2; attempt++) {
    result = await s.language.runHidden(tree, name);
    if (result.untrusted === undefined) break;
  }
  const run = result!;
  const { untrusted } = run;
  // A sandbox that cannot start says nothing about the patch: the whole task waits for a rerun.
  if (untrusted !== undefined && (!candidate || run.sandboxFailed)) {
    throw new InfraFailure(untrusted);
  }
  const score = {
    ...scoreRun(run.outcomes, oracle),
    ...(run.suspect.length ? { suspect: run.suspect } : {}),
  };
  if (run.status === "tampered") {
    // Whatever the tests said, a patch whose code interfered with the grading resolves nothing.
    return {
      ...score,
      outcome: "tampered",
      failToPass: { ...score.failToPass, passed: 0, failing: [...oracle.failToPass] },
      ...s.language.tamperedNote(run),
      tampering: run.tamper,
    };
  }
  if (untrusted !== undefined) {
    return { ...score, message: `${s.language.untrusted}: ${untrusted}` };
  }
  return run.status === "ok" ? score : { ...score, message: run.message ?? run.status };
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
