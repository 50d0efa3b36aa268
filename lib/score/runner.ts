/**
 * Scoring one task of a Go or JavaScript project: the same phases and rules as Python's
 * (`task.ts`), with the project's test runner (`lib/runner/`) in place of pytest.
 *
 * Every tree is B, changed (nothing for the empty patch, G's source changes for the gold patch, a
 * contestant's source changes only), with G's test files and support files put in place; the
 * oracle's fail-to-pass and pass-to-pass tests run on it by id, in one group of their own (one
 * process per package for Go, one runner process for JavaScript), never trusted with a partial
 * run. Paths are classified by the runner (`classifyPath` with `runner`): its configuration
 * (`go.mod`, `package.json`, lockfiles, runner configs) and test files are never applied, and a
 * patch touching its configuration, or doing what the runner's `patchFlags` finds, is flagged
 * (`runner_review.ts`). A run the runner found tampered with is never resolved.
 *
 * Every tree keeps B's dependency files (a patch's or G's changes to them are configuration, not
 * applied), so the runner and environment are those of B, prepared once per task.
 *
 * With a matrix, every agent's tests are replayed on G for their evidence roles, as Python's are
 * (`runner_evidence.ts`): B and S from the matrix, G run here, the same pure `evidenceOf`.
 *
 * Requires `--allow-run` (git, cp, the sandbox, the toolchain), `--allow-read`, `--allow-write`
 * and `--allow-env`.
 *
 * @module
 */

import { join } from "node:path";
import { cachedTree, checkout, installFiles } from "../checkout.ts";
import { describeError, InterruptedError } from "../errors.ts";
import { git } from "../git.ts";
import { inputsKey } from "../hash.ts";
import type { Project } from "../project.ts";
import { describeEvent, type GuardEvent } from "../python/mod.ts";
import { type BoutAttempt, nameOf, type Oracle, type Resolution, type Task } from "../records.ts";
import type { RunnerEnv, RunnerRun, TestRunner } from "../runner/mod.ts";
import type { Sandbox } from "../sandbox/types.ts";
import {
  applySourceChanges,
  attemptsFingerprint,
  classifyPath,
  countOutcomes,
  hasCandidate,
  hiddenTestFiles,
  patchedFiles,
  type PathRules,
  Reuser,
  Slots,
  type TreeRunners,
} from "../testbed/mod.ts";
import type { RunSummary } from "../records.ts";
import { evidenceOf } from "./evidence.ts";
import { noFix, scoreRun, type TestScore } from "./outcome.ts";
import { goldRows, replayRunnerOnGold } from "./runner_evidence.ts";
import { reviewRunnerPatch } from "./runner_review.ts";
import { INFRA_REASON, type ScoreInputs } from "./task.ts";

/** Bumped when the way Go and JavaScript patches are scored changes. */
const RUNNER_SCORE_RULES = 2;

/** How the message of a patch whose run could not be trusted begins. */
const UNTRUSTED = "the test runner gave no trustworthy result on this patch";

/** What {@linkcode scoreTaskWithRunner} needs besides the task. */
export interface RunnerScoreContext {
  /** The sandbox every run is made in. */
  sandbox: Sandbox;
  /** The project's runners (each tree's environment is prepared and cached by them). */
  env: TreeRunners;
  /** A working directory of the task's own (removed by the caller). */
  work: string;
  /** Bounds runs across tasks; by default `[run] jobs` for this task alone. */
  slots?: Slots;
  /** Called after every run of the tests on a tree. */
  onRun?: (run: RunSummary) => void;
  /** Called as every run starts, with its tree. */
  onStart?: (tree: string) => void;
  /** Stop: runs in flight are killed, then {@linkcode InterruptedError} is thrown. */
  signal?: AbortSignal;
  /** The task's last resolution: its units whose keys stand are not run again. */
  previous?: Resolution;
}

/** What shapes every run of the hidden tests besides the tree. */
function runInputs(project: Project, runners: TreeRunners) {
  const c = project.config;
  return {
    runners: runners.key,
    testEnv: c.project.env,
    testTimeout: c.run.testTimeout,
    testMemory: c.run.testMemory,
  };
}

/** The inputs that decide a Go or JavaScript task's resolution. */
export function runnerResolutionKey(
  project: Project,
  task: Task,
  inputs: ScoreInputs,
  runners: TreeRunners,
): string {
  return inputsKey({
    rules: RUNNER_SCORE_RULES,
    task: [task.id, task.commit, task.parent],
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
    ...runInputs(project, runners),
  });
}

/** What decides every scored tree besides its patch. */
function hiddenKey(project: Project, task: Task, oracle: Oracle, runners: TreeRunners): string {
  return inputsKey({
    rules: RUNNER_SCORE_RULES,
    task: [task.commit, task.parent],
    hidden: [task.testFiles, task.supportFiles ?? []],
    oracle: [oracle.status, oracle.failToPass, oracle.passToPass],
    ...runInputs(project, runners),
  });
}

class InfraFailure extends Error {}

/** The runs of one task, numbered per tree, as the results files record them. */
class Runs {
  readonly runs: RunSummary[] = [];
  #next = new Map<string, number>();
  constructor(
    private onRun?: (run: RunSummary) => void,
    private onStart?: (tree: string) => void,
  ) {}

  starting(tree: string): void {
    this.onStart?.(tree);
  }

  record(tree: string, run: RunnerRun): void {
    const index = this.#next.get(tree) ?? 0;
    this.#next.set(tree, index + 1);
    const summary: RunSummary = {
      tree,
      index,
      status: run.status,
      // A run is one process per group or package: no single exit code says how it ended.
      exitCode: null,
      durationMs: Math.max(0, Math.round(run.durationMs)),
      counts: countOutcomes(run.outcomes),
      ...(run.message ? { message: run.message } : {}),
    };
    this.runs.push(summary);
    this.onRun?.(summary);
  }

  sorted(): RunSummary[] {
    const by = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
    return [...this.runs].sort((a, b) => by(a.tree, b.tree) || a.index - b.index);
  }
}

/** Everything the phases of one task's scoring share. */
interface Scoring {
  project: Project;
  task: Task;
  inputs: ScoreInputs;
  context: RunnerScoreContext;
  slots: Slots;
  runs: Runs;
  reuse: Reuser;
  hidden: string;
  /** B's runner and environment (set once B is read). */
  runner?: TestRunner;
  env?: RunnerEnv;
  /** B, checked out read-only (set once read). */
  base?: string;
}

/** The runner's rules for classifying paths. */
function rulesOf(s: Scoring): PathRules & { runner: TestRunner } {
  return {
    packageDir: ".",
    testsDir: s.project.config.project.tests,
    runner: s.runner!,
  };
}

/**
 * Score one task of a Go or JavaScript project: sanity gates, every contestant's patch and the
 * judge's pick. Infrastructure failures become an unscored resolution whose reason says so.
 */
export async function scoreTaskWithRunner(
  project: Project,
  task: Task,
  inputs: ScoreInputs,
  context: RunnerScoreContext,
): Promise<Resolution> {
  const { signal } = context;
  const { oracle, verdict } = inputs;
  const key = runnerResolutionKey(project, task, inputs, context.env);
  const runs = new Runs(context.onRun, context.onStart);
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
    runs: runs.sorted(),
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
    slots: context.slots ?? new Slots(project.config.run.jobs),
    runs,
    reuse,
    hidden: hiddenKey(project, task, oracle, context.env),
  };
  try {
    s.base = await cachedTree(project.repository, task.parent, { home: project.home, signal });
    const opened = await context.env.open(s.base, signal);
    s.runner = opened.runner;
    s.env = opened.env;
    const sanity = await sanityGates(s);
    if (sanity.reason) return unscored(sanity.reason, sanity.gates);
    const patches = scorePatches(s);
    const gold = inputs.matrix ? replayAuthors(s) : Promise.resolve([]);
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
        ? evidenceOf(
          inputs.matrix,
          goldRows(inputs.matrix, await gold, s.runner),
          inputs.attempts.map((a) => nameOf(a.attempt)),
        )
        : {},
      pick: { agent: pick, outcome: pick === null ? null : scored[pick]?.outcome ?? null },
      runs: runs.sorted(),
      reuse: reuse.saved(),
    };
  } catch (error) {
    if (error instanceof InterruptedError || signal?.aborted) throw new InterruptedError();
    return unscored(`${INFRA_REASON}: ${describeError(error)}`);
  }
}

/** Phase 3: every author's tests on G, for their evidence roles. */
function replayAuthors(s: Scoring) {
  const { project, task, context } = s;
  return replayRunnerOnGold(project, task, s.inputs.attempts, {
    base: s.base!,
    runner: s.runner!,
    runners: context.env,
    sandbox: context.sandbox,
    work: context.work,
    slots: s.slots,
    reuse: s.reuse,
    onStart: (tree) => s.runs.starting(tree),
    onRun: (tree, run) => s.runs.record(tree, run),
    signal: context.signal,
  });
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

/** Phase 1: the empty patch and the gold patch, scored like any other. */
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
      const sources = await goldSourcePaths(project, task, rulesOf(s));
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
async function scorePatches(s: Scoring): Promise<Resolution["patches"]> {
  const { inputs, context } = s;
  const patches: Resolution["patches"] = {};
  const contestants = inputs.attempts.filter((a) => a.attempt.role === "contestant");
  await Promise.all(contestants.map(async ({ attempt, patches: texts }) => {
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
    patches[name] = await scorePatch(s, attempt, texts);
    // A patch whose run could not be trusted is scored again next time.
    if (!patches[name].message?.startsWith(UNTRUSTED)) s.reuse.unit(unit, key);
  }));
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
  const { inputs, context } = s;
  const rules = rulesOf(s);
  const review = attempt.status === "patch"
    ? reviewRunnerPatch(attempt.files, await filesOf(s, attempt, texts.full), rules)
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
  return { ...score, ...named, flags: [...new Set([...named.flags, ...noticed])] };
}

/** What an attempt's patch makes of its files on B; a patch that does not apply says nothing. */
async function filesOf(s: Scoring, attempt: BoutAttempt["attempt"], patch: string) {
  try {
    return await patchedFiles(s.base!, patch, attempt.files, {
      scratch: join(s.context.work, "scratch"),
      signal: s.context.signal,
    });
  } catch (error) {
    if (s.context.signal?.aborted) throw error;
    return new Map();
  }
}

/** The ids the hidden tests are run by: the oracle's fail-to-pass, then pass-to-pass. */
function hiddenIds(oracle: Oracle): string[] {
  return [...new Set([...oracle.failToPass, ...oracle.passToPass])];
}

/**
 * Run the hidden tests on one prepared tree and score the run. A run that ends in an
 * infrastructure error is tried once more; if it fails again, a candidate's patch is what broke
 * the run (scored on no passing test, saying why, and scored again next time), while for the empty
 * or gold patch it is an infrastructure failure of the whole task.
 */
async function scoreTree(
  s: Scoring,
  tree: string,
  name: string,
  candidate: boolean,
): Promise<TestScore & { message?: string; tampering?: GuardEvent[]; suspect?: GuardEvent[] }> {
  const { project, context } = s;
  const c = project.config;
  const oracle = s.inputs.oracle;
  let run: RunnerRun | undefined;
  for (let attempt = 0; attempt < 2; attempt++) {
    run = await s.slots.use(async () => {
      if (context.signal?.aborted) throw new InterruptedError();
      s.runs.starting(name);
      return await s.runner!.run({
        sandbox: context.sandbox,
        env: s.env!,
        tree,
        groups: [hiddenIds(oracle)],
        extraEnv: c.project.env,
        timeoutMs: c.run.testTimeout * 1000,
        memoryMb: c.run.testMemory,
        deny: [project.repository, project.home, project.results.path],
        scratch: join(context.work, "runs"),
        signal: context.signal,
      });
    });
    if (context.signal?.aborted) throw new InterruptedError();
    s.runs.record(name, run);
    if (run.status !== "infra-error") break;
  }
  const result = run!;
  const untrusted = result.status === "infra-error"
    ? result.message ?? `${s.runner!.name} could not run`
    : undefined;
  if (untrusted !== undefined && !candidate) throw new InfraFailure(untrusted);
  const score = {
    ...scoreRun(new Map(Object.entries(result.outcomes)), oracle),
    ...(result.suspect.length ? { suspect: result.suspect } : {}),
  };
  if (result.status === "tampered") {
    // Whatever the tests said, a patch whose code interfered with the grading resolves nothing.
    return {
      ...score,
      outcome: "tampered",
      failToPass: { ...score.failToPass, passed: 0, failing: [...oracle.failToPass] },
      ...(result.message ? { message: result.message } : {}),
      tampering: result.tamper,
    };
  }
  if (untrusted !== undefined) return { ...score, message: `${UNTRUSTED}: ${untrusted}` };
  return result.status === "ok" ? score : { ...score, message: result.message ?? result.status };
}

/** G's source changes relative to B, classified by the runner. */
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
