/**
 * Scoring one task, the same in every language: the sanity gates (the empty patch must not
 * resolve the task, the gold patch must), every contestant's patch against the hidden tests (its
 * source changes only, the runner's review of its files, and the capability review against B's
 * package: a patch whose source uses what B's never did is `suspect`), every agent's tests replayed on G for
 * their evidence roles, the judge's pick, and the resolution that puts them together, with the
 * units a later resolution may reuse. The tree's runner says how its tests run, what its paths
 * are and what a patch may not do.
 *
 * Requires `--allow-run` (git, cp, the sandbox, the runner), `--allow-read`, `--allow-write` and
 * `--allow-env`.
 *
 * @module
 */

import { join } from "node:path";
import { cachedTree, checkout, installFiles, listFiles } from "../checkout.ts";
import { describeError, InterruptedError } from "../errors.ts";
import { git } from "../git.ts";
import { inputsKey } from "../hash.ts";
import type { RunnerTree, TestRunner } from "../lang/mod.ts";
import type { Project } from "../project.ts";
import {
  type BoutAttempt,
  describeEvent,
  type GuardEvent,
  type Matrix,
  nameOf,
  type Observation,
  type Oracle,
  type Outcome,
  type Resolution,
  type RunStatus,
  type RunSummary,
  type Task,
  type Verdict,
} from "../records.ts";
import {
  applySourceChanges,
  capabilityFindings,
  cellKey,
  classifyPath,
  hasCandidate,
  hiddenTestFiles,
  packageBaseline,
  patchedFiles,
  type PathRules,
  Reuser,
  RunLog,
  type RunSettings,
  runSettings,
  Slots,
  taskAuthors,
  type TaskContext,
} from "../testbed/mod.ts";
import { divergences } from "./divergence.ts";
import { evidenceOf, replayOnGold } from "./evidence.ts";
import { noFix, scoreRun, type TestScore } from "./outcome.ts";
import { reviewedPaths } from "./review.ts";
import { CAPABILITY_RULES, type PackageBaseline } from "../lang/mod.ts";

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
  /** The key of B's environment (or why it could not be prepared), when the stage read it. */
  env?: string;
}

/** What scoring one task needs besides the task. */
export interface ScoreContext extends Omit<TaskContext, "key" | "slots" | "onRun" | "onStart"> {
  /** Bounds runs across tasks; by default `[run] jobs` for this task alone. */
  slots?: Slots;
  /** Called after every run of the tests on a tree. */
  onRun?: (run: RunSummary) => void;
  /** Called as every run starts, with its tree. */
  onStart?: (tree: string) => void;
  /** The task's last resolution: its units and cells whose keys stand are not run again. */
  previous?: Resolution;
}

/** What one run of the hidden tests on a tree said. */
interface HiddenRun {
  status: RunStatus;
  message?: string;
  outcomes: ReadonlyMap<string, Outcome>;
  tamper: GuardEvent[];
  suspect: GuardEvent[];
  /** What each test saw of the code under test, where the runner observes. */
  observed?: Record<string, Observation[]>;
  /** Why the run cannot be trusted (absent: it can). */
  untrusted?: string;
  /** The sandbox itself could not start: the run says nothing about the patch. */
  sandboxFailed?: boolean;
  /** The failure's first line, by test id (a file that failed to load: by its id). */
  failures: Record<string, string>;
  /** The failure's whole report, where the runner keeps it. */
  tracebacks: Record<string, string>;
}

class InfraFailure extends Error {}

/** Bumped when the way patches are scored changes, so saved results are recomputed. */
export const SCORE_RULES = 4;

/** Everything the phases of one task's scoring share. */
interface Scoring {
  project: Project;
  task: Task;
  inputs: ScoreInputs;
  context: ScoreContext;
  /** B, read only, and its runner and environment. */
  base: string;
  tree: RunnerTree;
  paths: PathRules;
  settings: RunSettings;
  log: RunLog;
  /** Cells and units of the last resolution, and what this one keeps. */
  reuse: Reuser;
  /** What decides every scored tree besides its patch (with a patch's identity, its key). */
  hidden: string;
  /** What the hidden tests are run by: the fix's test files, or the oracle's ids. */
  targets: string[];
  /** What the hidden tests saw of the real fix's code (set by the sanity gates). */
  goldObserved?: Record<string, Observation[]>;
  /** What B's own run was worth a look for ({@linkcode noticedKey}; set by the sanity gates). */
  baseNoticed?: ReadonlySet<string>;
  /** B's package, read once: what the capability review compares each patch with. */
  baseline: () => Promise<PackageBaseline>;
}

/** What decides every scored tree besides its patch. */
function hiddenKey(s: Pick<Scoring, "task" | "inputs">, shape: Record<string, unknown>): string {
  const { task, inputs: { oracle } } = s;
  return inputsKey({
    rules: SCORE_RULES,
    task: [task.commit, task.parent, task.packageDir, task.pythonPath],
    hidden: [task.testFiles, task.supportFiles ?? []],
    oracle: [oracle.status, oracle.failToPass, oracle.passToPass],
    env: s.inputs.env,
    ...shape,
  });
}

/** The message of a patch whose run could not be trusted begins with this. */
function untrustedPrefix(runner: Pick<TestRunner, "name">): string {
  return `${runner.name} gave no trustworthy result on this patch`;
}

/**
 * Score one task: sanity gates, every contestant's patch, the judge's pick, and (with a matrix)
 * every agent's evidence roles. Infrastructure failures become an unscored resolution whose
 * reason says so. `key` is the resolution's inputs key; `shape` what shapes every run (part of
 * every unit's and cell's key).
 */
export async function scorePhases(
  project: Project,
  task: Task,
  inputs: ScoreInputs,
  context: ScoreContext,
  keys: { resolution: string; shape: Record<string, unknown> },
): Promise<Resolution> {
  const { signal } = context;
  const { oracle, verdict } = inputs;
  const reuse = new Reuser(context.previous?.reuse);
  const log = new RunLog(context.onRun, context.onStart);
  const unscored = (reason: string, sanity?: Resolution["sanity"]): Resolution => ({
    task: task.id,
    inputsKey: keys.resolution,
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
  try {
    const base = await cachedTree(project.repository, task.parent, { home: project.home, signal });
    const tree = await context.tools.open(base, { task, signal });
    const s: Scoring = {
      project,
      task,
      inputs,
      context,
      base,
      tree,
      paths: { packageDir: task.packageDir, runner: tree.runner },
      settings: runSettings(project, {
        sandbox: context.sandbox,
        slots: context.slots ?? new Slots(project.config.run.jobs),
        scratch: join(context.work, "runs"),
        signal,
      }),
      log,
      reuse,
      hidden: hiddenKey({ task, inputs }, keys.shape),
      baseline: once(() =>
        packageBaseline(project.repository, task.parent, base, {
          packageDir: task.packageDir,
          runner: tree.runner,
        })
      ),
      targets: tree.runner.runsByFile
        ? await listFiles(project.repository, task.commit, task.testFiles)
        : [...new Set([...oracle.failToPass, ...oracle.passToPass])],
    };
    const sanity = await sanityGates(s);
    if (sanity.reason) return unscored(sanity.reason, sanity.gates);
    const patches = scorePatches(s);
    const gold = inputs.matrix ? replayAuthors(s, keys.shape) : Promise.resolve([]);
    const settled = await Promise.allSettled([patches, gold]);
    if (signal?.aborted) throw new InterruptedError();
    for (const result of settled) if (result.status === "rejected") throw result.reason;
    const scored = await patches;
    const pick = verdict?.pick ?? null;
    const fileOf = (id: string) => tree.runner.fileOf(id);
    return {
      task: task.id,
      inputsKey: keys.resolution,
      scored: true,
      sanity: sanity.gates,
      patches: scored,
      evidence: inputs.matrix
        ? evidenceOf(
          inputs.matrix,
          await gold,
          inputs.attempts.map((a) => nameOf(a.attempt)),
          fileOf,
        )
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
    s.goldObserved = previous.sanity.goldObserved;
    s.baseNoticed = new Set(previous.sanity.baseNoticed ?? []);
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
  s.goldObserved = gold.observed;
  const baseNoticed = [...new Set((empty.suspect ?? []).map(noticedKey))].sort();
  s.baseNoticed = new Set(baseNoticed);
  const gates = {
    emptyResolves: empty.outcome === "resolved",
    goldResolves: gold.outcome === "resolved",
    ...(gold.observed ? { goldObserved: gold.observed } : {}),
    ...(baseNoticed.length ? { baseNoticed } : {}),
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
async function scorePatches(s: Scoring): Promise<Resolution["patches"]> {
  const { inputs, context } = s;
  const patches: Resolution["patches"] = {};
  const contestants = inputs.attempts.filter((a) => a.attempt.role === "contestant");
  const untrusted = untrustedPrefix(s.tree.runner);
  await Promise.all(contestants.map(async ({ attempt, patches: texts }) => {
    // A patch's score is decided by the patch and by what decides every scored tree.
    const name = nameOf(attempt);
    const unit = `patch:${name}`;
    const key = inputsKey({
      hidden: s.hidden,
      attempt: [attempt.status, attempt.files],
      patch: texts.full,
      capabilities: CAPABILITY_RULES,
    });
    const before = context.previous?.patches[name];
    if (before && s.reuse.unitStands(unit, key)) {
      patches[name] = before;
      s.reuse.unit(unit, key);
      return;
    }
    patches[name] = await scorePatch(s, attempt, texts);
    // A patch whose run could not be trusted is scored again next time.
    if (!patches[name].message?.startsWith(untrusted)) s.reuse.unit(unit, key);
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
  attempt: BoutAttempt["attempt"],
  texts: BoutAttempt["patches"],
): Promise<Resolution["patches"][string]> {
  const { inputs, context, paths } = s;
  const files = attempt.status === "patch"
    ? reviewedPaths(attempt.files, await filesOf(s, attempt, texts.full), paths)
    : [];
  const baseline = await s.baseline();
  const review = attempt.status === "patch"
    ? s.tree.runner.review(files, baseline)
    : { flags: [], ignored: [] };
  // What the patch's source uses that B's package never did: such a patch is never resolved.
  const findings = capabilityFindings(files, paths, baseline);
  const named = {
    flags: review.flags,
    ignored: review.ignored,
    ...(findings.length > 0 ? { suspect: findings } : {}),
  };
  const none = (message: string) => suspectOf({ ...noFix(inputs.oracle), ...named, message });
  if (attempt.status !== "patch") return none(`the attempt ended: ${attempt.status}`);
  if (!hasCandidate(attempt, paths)) return none("the patch changes no source file");
  const name = nameOf(attempt);
  const tree = await hiddenTree(s, `p-${name.replace(/[^\w.-]+/g, "_")}`, async (d) => {
    const applied = await applySourceChanges(d, attempt, texts, paths, context.signal);
    return applied.ok ? undefined : applied.message;
  });
  if ("problem" in tree) return none(tree.problem);
  const { suspect, observed: _, ...score } = await scoreTree(s, tree.dir, name, true);
  const noticed = [
    ...(score.tampering ?? []).map((e) => `tampered with the grading: ${describeEvent(e)}`),
    // What B's own code does on the same tests (a project that walks frames itself) is the
    // project's, not the patch's.
    ...(suspect ?? []).filter((e) => !s.baseNoticed?.has(noticedKey(e))).map((e) =>
      `worth a look: ${describeEvent(e)}`
    ),
  ];
  return suspectOf({ ...score, ...named, flags: [...new Set([...named.flags, ...noticed])] });
}

/**
 * A patch with capability findings is never `resolved`: what would resolve is `suspect`. One the
 * hidden tests fail anyway keeps that outcome (`wrong-fix`, `broke-tests`, `tampered`, ...), so
 * the report still says what the tests said; its findings are kept and shown all the same.
 */
function suspectOf(score: Resolution["patches"][string]): Resolution["patches"][string] {
  return score.suspect?.length && score.outcome === "resolved"
    ? { ...score, outcome: "suspect" }
    : score;
}

/** A runtime "worth a look" event by what it was and the file it came from (its line aside). */
function noticedKey(e: GuardEvent): string {
  return `${e.what}\0${e.where.replace(/:\d+$/, "")}`;
}

/** `make`, called the first time only. */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => made ??= make();
}

/** What an attempt's patch makes of its files on B; a patch that does not apply says nothing. */
async function filesOf(
  s: Scoring,
  attempt: BoutAttempt["attempt"],
  patch: string,
): ReturnType<typeof patchedFiles> {
  try {
    return await patchedFiles(s.base, patch, attempt.files, {
      scratch: join(s.context.work, "scratch"),
      signal: s.context.signal,
    });
  } catch (error) {
    if (s.context.signal?.aborted) throw error;
    return new Map();
  }
}

/**
 * The hidden tests, once, on one prepared tree: a run the harness cannot trust is one that ended
 * in an infrastructure error other than the tree itself refusing to run.
 */
async function runHidden(s: Scoring, tree: string, name: string): Promise<HiddenRun> {
  const record = s.log.on(name);
  const { settings } = s;
  const run = await settings.slots.use(() => {
    if (settings.signal?.aborted) throw new InterruptedError();
    record.starting?.();
    return s.tree.runner.run({
      sandbox: settings.sandbox,
      env: s.tree.env,
      tree,
      groups: [s.targets],
      extraEnv: settings.extraEnv,
      observe: s.inputs.oracle.failToPass,
      timeoutMs: settings.timeoutMs,
      memoryMb: settings.memoryMb,
      deny: settings.deny,
      scratch: settings.scratch,
      signal: settings.signal,
    });
  });
  if (settings.signal?.aborted) throw new InterruptedError();
  record(run);
  const untrusted = run.status === "infra-error" && run.cause !== "unrunnable"
    ? run.message ?? `${s.tree.runner.name} could not run`
    : undefined;
  return {
    status: run.status,
    ...(run.message ? { message: run.message } : {}),
    outcomes: new Map(Object.entries(run.outcomes)),
    tamper: run.tamper,
    suspect: run.suspect,
    ...(run.observed ? { observed: run.observed } : {}),
    ...(untrusted !== undefined ? { untrusted } : {}),
    sandboxFailed: run.cause === "sandbox",
    failures: run.failures ?? {},
    tracebacks: run.tracebacks ?? {},
  };
}

/** Failing hidden tests whose failure the report shows in full, at most, per patch. */
const FAILURES_KEPT = 50;

/**
 * What each failing hidden test's run said: its first line and its traceback, looked up by the
 * test's id or else its file's (a module that failed to load fails every test in it).
 */
function failuresOf(
  run: HiddenRun,
  score: TestScore,
  fileOf: (id: string) => string,
): NonNullable<Resolution["patches"][string]["failures"]> {
  const out: NonNullable<Resolution["patches"][string]["failures"]> = {};
  const failing = [...score.failToPass.failing, ...score.passToPass.failing];
  for (const id of failing.slice(0, FAILURES_KEPT)) {
    const key = id in run.failures || id in run.tracebacks ? id : fileOf(id);
    const message = run.failures[key];
    const traceback = run.tracebacks[key];
    if (message === undefined && traceback === undefined) continue;
    out[id] = {
      ...(message !== undefined ? { message } : {}),
      ...(traceback !== undefined ? { traceback } : {}),
    };
  }
  return out;
}

/**
 * Run the hidden tests on one prepared tree and score the run. A run the harness cannot trust is
 * tried once more; if it fails again, a candidate's patch is what broke the run (it is scored on
 * no passing test, says why, and is scored again next time), while for the empty or gold patch —
 * or when the sandbox itself could not start — it is an infrastructure failure of the whole task.
 */
async function scoreTree(
  s: Scoring,
  tree: string,
  name: string,
  candidate: boolean,
): Promise<
  TestScore & {
    message?: string;
    tampering?: GuardEvent[];
    suspect?: GuardEvent[];
    divergence?: { test: string; detail: string }[];
    observed?: Record<string, Observation[]>;
    failures?: Resolution["patches"][string]["failures"];
  }
> {
  const oracle = s.inputs.oracle;
  let result: HiddenRun | undefined;
  for (let attempt = 0; attempt < 2; attempt++) {
    result = await runHidden(s, tree, name);
    if (result.untrusted === undefined) break;
  }
  const run = result!;
  const { untrusted } = run;
  // A sandbox that cannot start says nothing about the patch: the whole task waits for a rerun.
  if (untrusted !== undefined && (!candidate || run.sandboxFailed)) {
    throw new InfraFailure(untrusted);
  }
  const scored = scoreRun(run.outcomes, oracle, (id) => s.tree.runner.fileOf(id));
  const failures = failuresOf(run, scored, (id) => s.tree.runner.fileOf(id));
  const score = {
    ...scored,
    ...(Object.keys(failures).length ? { failures } : {}),
    ...(run.suspect.length ? { suspect: run.suspect } : {}),
  };
  if (run.status === "tampered") {
    // Whatever the tests said, a patch whose code interfered with the grading resolves nothing.
    return {
      ...score,
      outcome: "tampered",
      failToPass: { ...score.failToPass, passed: 0, failing: [...oracle.failToPass] },
      ...(run.message ? { message: run.message } : {}),
      tampering: run.tamper,
    };
  }
  if (untrusted !== undefined) {
    return { ...score, message: `${untrustedPrefix(s.tree.runner)}: ${untrusted}` };
  }
  const seen = run.observed ? { observed: run.observed } : {};
  const diverged = candidate && s.goldObserved && run.observed
    ? divergences(s.goldObserved, run.observed, (id) => run.outcomes.get(id) === "passed")
    : [];
  if (diverged.length) {
    // The tests passed, but not on what the real fix gives them: no pass for the patch.
    return {
      ...score,
      ...seen,
      outcome: "divergent",
      divergence: diverged,
      message: `the tests passed, but the patch's code gave them something else than the real ` +
        `fix's: ${diverged[0].test}: ${diverged[0].detail}`,
    };
  }
  return run.status === "ok"
    ? { ...score, ...seen }
    : { ...score, ...seen, message: run.message ?? run.status };
}

/** Phase 3: every author's tests on G, for their evidence roles. */
async function replayAuthors(s: Scoring, shape: Record<string, unknown>) {
  const { project, task, inputs, context } = s;
  const authors = await taskAuthors(project, context.tools.language, inputs.attempts, {
    base: s.base,
    runner: s.tree.runner,
    env: s.tree.env,
    scratch: join(context.work, "scratch"),
    signal: context.signal,
  });
  const goldTree = await cachedTree(project.repository, task.commit, {
    home: project.home,
    signal: context.signal,
  });
  const gold = await context.tools.open(goldTree, { task, signal: context.signal });
  const sessions = inputsKey({
    rules: SCORE_RULES,
    task: [task.packageDir, task.pythonPath],
    env: gold.env.key,
    ...shape,
  });
  return replayOnGold(project, task, authors, {
    work: context.work,
    // G's runner runs the tests; B's reads which of them are the authors' (the matrix's ids).
    reader: s.tree.runner,
    gold,
    settings: s.settings,
    onSession: (i) => s.log.on(i === 0 ? "G" : `G#${i + 1}`),
    reuse: s.reuse,
    keyOf: (i, author) => cellKey(`G:${task.commit}#${i}`, author.key, sessions),
  });
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
