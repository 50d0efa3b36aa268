/**
 * Ground truth: for each task, run the test files the fix touched on B (the parent, with the
 * fix's versions of those test files installed) and on G (the fix), each `[tasks] reruns` times,
 * sandboxed, and decide fail-to-pass, pass-to-pass and unstable tests (see `ground_truth.ts`).
 * Every language runs the same trees, as often, by the same rules, with its own runner and each
 * tree's environment (the project's language's tools, `lib/lang/`).
 *
 * `.bugbout/oracles.json` is rewritten atomically after each task finishes, so an interrupt or a
 * kill keeps every finished task; a task whose inputs have not changed since it was saved is not
 * run again (an infrastructure error is always retried). Independent tasks run in parallel, up
 * to `[run] jobs` test runs at a time.
 *
 * Requires `--allow-run` (git, cp, the toolchains, the sandbox), `--allow-read`, `--allow-write`
 * (the results directory, `BUGBOUT_HOME`) and `--allow-env`.
 *
 * @module
 */

import { join } from "node:path";
import { checkout, installFiles } from "../checkout.ts";
import { BugboutError, describeError, InterruptedError } from "../errors.ts";
import { inputsKey } from "../hash.ts";
import type {
  ProjectTools,
  RepeatedRuns,
  RunnerRunOptions,
  RunnerTree,
  TestRunner,
} from "../lang/mod.ts";
import type { Project } from "../project.ts";
import {
  type Oracle,
  type OraclesFile,
  oraclesFileSchema,
  RESULTS_VERSION,
  type Task,
} from "../records.ts";
import {
  hiddenTestFiles,
  type OnSession,
  runInputs,
  RunLog,
  runTaskStage,
  type StageOptions,
  type TaskContext,
} from "../testbed/mod.ts";
import { tally } from "../words.ts";
import { groundTruth } from "./ground_truth.ts";
import { blankOracle, durationsOnG, existing, runSide } from "./sides.ts";

export {
  deterministicFailure,
  failsOnB,
  type GroundTruth,
  groundTruth,
  type GroundTruthOptions,
  oneLine,
} from "./ground_truth.ts";

/** The results file this stage writes, inside `.bugbout/`. */
export const ORACLES_FILE = "oracles.json";

/** Bumped when the oracle's rules change, so saved results are recomputed. */
const ORACLE_RULES = 3;

/** Options for {@linkcode oracleAll}. */
export type OracleOptions = StageOptions<Oracle> & {
  /** Compute again the tasks whose environment failed (`environment`), not only those new. */
  retryFailed?: boolean;
};

/** What the ground-truth stage did. */
export interface OracleStage {
  /** `oracles.json` as written (including tasks computed by earlier runs). */
  file: OraclesFile;
  /** One line for a person: the chosen tasks by status. */
  summary: string;
}

/** What a task's ground truth depends on besides the task: its trees' environments. */
export type OracleInputs =
  | {
    /** The environment keys of B (the parent's dependency files) and G. */
    envs: { B: string; G: string };
  }
  | {
    /** Why an environment could not be prepared (the task is an infrastructure error). */
    error: string;
  };

/** Read `oracles.json`, or an empty file when there is none yet. */
export async function readOracles(project: Project): Promise<OraclesFile> {
  return (await project.results.read(ORACLES_FILE, oraclesFileSchema, "ground truth")) ??
    { version: RESULTS_VERSION, kind: "oracles", oracles: {} };
}

/** The environment keys of a task's two sides (prepared with the network open, cached). */
async function inputsOf(tools: ProjectTools, task: Task): Promise<OracleInputs> {
  try {
    const at = { date: task.date };
    const [B, G] = await Promise.all([
      tools.envKey(task.parent, undefined, at),
      tools.envKey(task.commit, undefined, at),
    ]);
    return { envs: { B, G } };
  } catch (error) {
    // A tree whose dependencies cannot be installed is this task's trouble, not the stage's.
    if (error instanceof BugboutError) {
      return { error: describeError(error) + (error.hint ? `\nhint: ${error.hint}` : "") };
    }
    throw error;
  }
}

/** The inputs that decide a task's oracle; a saved oracle with the same key is reused. */
function oracleInputsKey(
  project: Project,
  task: Task,
  inputs: OracleInputs,
  tools: ProjectTools,
): string {
  return inputsKey({
    rules: ORACLE_RULES,
    commit: task.commit,
    parent: task.parent,
    testFiles: task.testFiles,
    supportFiles: task.supportFiles ?? [],
    pythonPath: task.pythonPath,
    envs: "envs" in inputs ? inputs.envs : { error: inputs.error },
    ...runInputs(project, tools),
  });
}

/**
 * Compute the ground truth of `tasks` (or of `options.only` among them) and save it in
 * `.bugbout/oracles.json` after each task.
 */
export async function oracleAll(
  project: Project,
  tasks: readonly Task[],
  options: OracleOptions = {},
): Promise<OracleStage> {
  const file = await readOracles(project);
  await runTaskStage(project, tasks, {
    name: "oracle",
    inputs: (task, tools) => inputsOf(tools, task),
    key: (task, inputs, tools) => oracleInputsKey(project, task, inputs, tools),
    saved: (task) => file.oracles[task.id],
    reusable: (saved) =>
      saved.status !== "infra-error" && !(options.retryFailed && saved.status === "environment"),
    run: (task, inputs, context) => oracleOf(project, task, inputs, context),
    save: (_, oracle) => {
      file.oracles[oracle.task] = oracle;
      return project.results.write(ORACLES_FILE, file);
    },
  }, options);
  const chosen = options.only ? tasks.filter((t) => options.only!.includes(t.id)) : tasks;
  const statuses = chosen.map((t) => file.oracles[t.id]?.status ?? "missing");
  return { file, summary: tally(statuses) || "no tasks" };
}

/** What every run of a task's tests shares: the sandbox, the settings, trusted code. */
function runSettings(project: Project, context: TaskContext) {
  const c = project.config;
  return {
    sandbox: context.sandbox,
    extraEnv: c.project.env,
    timeoutMs: c.run.testTimeout * 1000,
    memoryMb: c.run.testMemory,
    deny: [project.repository, project.home, project.results.path],
    scratch: join(context.work, "runs"),
    // The maintainers' own code and tests: what passed before a hang stands, and their tests
    // may write into the tree.
    trustPartial: true,
    watchTree: false,
    signal: context.signal,
  } satisfies Partial<RunnerRunOptions>;
}

/** One task: build B and G, run each side `reruns` times (sides in parallel), decide. */
async function oracleOf(
  project: Project,
  task: Task,
  inputs: OracleInputs,
  context: TaskContext,
): Promise<Oracle> {
  const { signal, work } = context;
  const language = context.tools.language;
  const log = new RunLog(context.onRun, context.onStart);
  const blank = blankOracle(task, context.key, log);
  if ("error" in inputs) {
    const error = inputs.error.replace(/^Cannot prepare the test environment: /, "");
    return blank("environment", `Cannot prepare the test environment: ${error}`);
  }
  try {
    const home = { home: project.home, signal };
    const unsure = (task.unsureTests ?? []).map((u) => u.file);
    let collectedOnB: Set<string> | undefined;
    const [[bTree, bSide], [gTree, gSide]] = await Promise.all([
      (async () => {
        const tree = await checkout(project.repository, task.parent, join(work, "B"), home);
        const side = await context.tools.open(tree, { task, signal });
        // What static reading could not tell, collection does: B's own tests, before the fix's.
        if (unsure.length && side.runner.collect) {
          collectedOnB = await collected(project, context, side, tree, unsure, log.on("B-collect"));
        }
        await installFiles(project.repository, task.commit, hiddenTestFiles(task), tree, signal);
        return [tree, side] as const;
      })(),
      (async () => {
        const tree = await checkout(project.repository, task.commit, join(work, "G"), home);
        return [tree, await context.tools.open(tree, { task, signal })] as const;
      })(),
    ]);
    const targets = await existing(gTree, task.testFiles);
    if (targets.length === 0) {
      return blank("unscorable", "None of the fix's test files exists on G.");
    }
    const side = (tree: string, name: "B" | "G", opened: RunnerTree) =>
      runSide(context, log, name, project.config.tasks.reruns, () =>
        opened.runner.run({
          ...runSettings(project, context),
          env: opened.env,
          tree,
          groups: [targets],
        }));
    const [b, g] = await Promise.all([side(bTree, "B", bSide), side(gTree, "G", gSide)]);
    const truth = groundTruth(b, g, {
      runner: gSide.runner.name,
      refusal: {
        B: await language.configRefusal?.(bTree),
        G: await language.configRefusal?.(gTree),
      },
      advice: language.truthAdvice?.(task),
    });
    const notes = [...new Set([...bSide.env.notes ?? [], ...gSide.env.notes ?? []])];
    const decided = {
      task: task.id,
      inputsKey: context.key,
      failToPass: truth.failToPass,
      passToPass: truth.passToPass,
      unstable: truth.unstable,
      runs: log.sorted(),
      ...(notes.length ? { environmentNotes: notes } : {}),
    };
    const newApi = truth.status === "scorable"
      ? await language.newApiNames?.(task, truth.failToPass, b, { B: bTree, G: gTree })
      : undefined;
    if (newApi) return { ...decided, ...newApiRecord(newApi), durations: {} };
    // The environment's fault: what stood in for what the commit declared is part of why.
    const stoodIn = truth.status === "environment"
      ? notes.filter((n) => /^Resolved |was used\.$/.test(n))
      : [];
    const reason = [truth.reason ?? "", ...stoodIn].filter(Boolean).join(" ");
    return {
      ...decided,
      status: truth.status,
      ...(reason ? { reason } : {}),
      durations: durationsOnG(g),
      ...(collectedOnB
        ? { collectedNewTests: newlyCollected(gSide.runner, g, unsure, collectedOnB) }
        : {}),
    };
  } catch (error) {
    if (error instanceof InterruptedError || signal?.aborted) throw new InterruptedError();
    // A tree's environment that cannot be made (its dependencies, its build) says what to fix.
    if (error instanceof BugboutError && /environment/i.test(error.message)) {
      return blank(
        "environment",
        describeError(error) + (error.hint ? `\nhint: ${error.hint}` : ""),
      );
    }
    return blank("infra-error", `Infrastructure error: ${describeError(error)}`);
  }
}

/** A scorable task left out because it needs names the agent cannot know. */
function newApiRecord(names: string[]): Pick<Oracle, "status" | "reason" | "leftOut"> {
  const one = names.length === 1;
  return {
    status: "unscorable",
    reason: `new-api: every fail-to-pass test fails on B only because ${
      names.map((n) => `\`${n}\``).join(", ")
    } ${one ? "does" : "do"} not exist yet, and the statement does not name ${
      one ? "it" : "them"
    }: the task needs an API the agent cannot know.`,
    leftOut: { reason: "new-api", names },
  };
}

/** The tests G ran in the unsure files that B's own collection did not have: the fix's new ones. */
function newlyCollected(
  runner: Pick<TestRunner, "fileOf">,
  g: RepeatedRuns,
  unsure: readonly string[],
  onB: ReadonlySet<string>,
): string[] {
  const gTests = new Set(Object.keys(g.stable).concat(g.unstable));
  return [...gTests].filter((id) => {
    const file = runner.fileOf(id);
    return file !== id && unsure.includes(file) && !onB.has(id);
  }).sort();
}

/**
 * The test ids the runner collects from `files` in `tree` (those that exist there): one run,
 * logged with `onRun`.
 */
async function collected(
  project: Project,
  context: TaskContext,
  side: RunnerTree,
  tree: string,
  files: string[],
  onRun: OnSession,
): Promise<Set<string>> {
  const present = await existing(tree, files);
  if (present.length === 0) return new Set();
  const run = await context.slots.use(() => {
    onRun.starting?.();
    return side.runner.collect!({
      ...runSettings(project, context),
      env: side.env,
      tree,
      files: present,
    });
  });
  onRun(run);
  return new Set(Object.keys(run.outcomes));
}
