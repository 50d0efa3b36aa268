/**
 * Ground truth: for each task, run the test modules the fix touched on B (the parent, with the
 * fix's versions of those test files installed) and on G (the fix), each `[tasks] reruns` times,
 * sandboxed, and decide fail-to-pass, pass-to-pass and unstable tests (see `ground_truth.ts`).
 *
 * `.bugbout/oracles.json` is rewritten atomically after each task finishes, so an interrupt or a
 * kill keeps every finished task; a task whose inputs have not changed since it was saved is not
 * run again (an infrastructure error is always retried). Independent tasks run in parallel, up
 * to `[run] jobs` pytest sessions at a time. A Go or JavaScript project runs its runner instead of
 * pytest, on the same trees, as often, by the same rules (see `runners.ts`).
 *
 * Requires `--allow-run` (git, cp, uv, the sandbox), `--allow-read`, `--allow-write` (the results
 * directory, `BUGBOUT_HOME`) and `--allow-env`.
 *
 * @module
 */

import { basename, join } from "node:path";
import { checkout, installFiles } from "../checkout.ts";
import { describeError, InterruptedError } from "../errors.ts";
import { readTextIfExists, statIfExists } from "../fs.ts";
import { inputsKey } from "../hash.ts";
import type { Project } from "../project.ts";
import { type RepeatedRuns, runPytest, type TestEnv } from "../lang/python/mod.ts";
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
  RunLog,
  runTaskStage,
  sessionInputs,
  type StageOptions,
  type TaskContext,
} from "../testbed/mod.ts";
import { tally } from "../words.ts";
import { configRefusal, groundTruth, namesMissingOnB } from "./ground_truth.ts";
import { runnerOracleStage } from "./runners.ts";
import { blankOracle, durationsOnG, existing, runSide } from "./sides.ts";

export {
  configRefusal,
  deterministicFailure,
  failsOnB,
  type GroundTruth,
  groundTruth,
  type GroundTruthOptions,
  missingName,
  oneLine,
} from "./ground_truth.ts";
export { asPytestRun, type RunnerOracleInputs } from "./runners.ts";

/** The results file this stage writes, inside `.bugbout/`. */
export const ORACLES_FILE = "oracles.json";

/** Bumped when the oracle's rules change, so saved results are recomputed. */
const ORACLE_RULES = 2;

/** Options for {@linkcode oracleAll}. */
export type OracleOptions = StageOptions<Oracle>;

/** What the ground-truth stage did. */
export interface OracleStage {
  /** `oracles.json` as written (including tasks computed by earlier runs). */
  file: OraclesFile;
  /** One line for a person: the chosen tasks by status. */
  summary: string;
}

/** The inputs that decide a task's oracle; a saved oracle with the same key is reused. */
function oracleInputsKey(project: Project, task: Task, env: TestEnv): string {
  return inputsKey({
    rules: ORACLE_RULES,
    commit: task.commit,
    parent: task.parent,
    testFiles: task.testFiles,
    supportFiles: task.supportFiles ?? [],
    pythonPath: task.pythonPath,
    ...sessionInputs(project, env),
  });
}

/** Read `oracles.json`, or an empty file when there is none yet. */
export async function readOracles(project: Project): Promise<OraclesFile> {
  return (await project.results.read(ORACLES_FILE, oraclesFileSchema, "ground truth")) ??
    { version: RESULTS_VERSION, kind: "oracles", oracles: {} };
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
  if (project.config.project.language !== "python") {
    // A Go or JavaScript project: its runner on each tree, the same trees, runs and rules.
    const save = () => project.results.write(ORACLES_FILE, file);
    const { env: _python, ...rest } = options;
    await runTaskStage(project, tasks, runnerOracleStage(project, file, ORACLE_RULES, save), rest);
    const chosen = options.only ? tasks.filter((t) => options.only!.includes(t.id)) : tasks;
    const statuses = chosen.map((t) => file.oracles[t.id]?.status ?? "missing");
    return { file, summary: tally(statuses) || "no tasks" };
  }
  await runTaskStage(project, tasks, {
    name: "oracle",
    inputs: () => Promise.resolve(undefined),
    key: (task, _, env) => oracleInputsKey(project, task, env),
    saved: (task) => file.oracles[task.id],
    reusable: (saved) => saved.status !== "infra-error",
    run: (task, _, context) => oracleOf(project, task, context),
    save: (_, oracle) => {
      file.oracles[oracle.task] = oracle;
      return project.results.write(ORACLES_FILE, file);
    },
  }, options);
  const chosen = options.only ? tasks.filter((t) => options.only!.includes(t.id)) : tasks;
  const statuses = chosen.map((t) => file.oracles[t.id]?.status ?? "missing");
  return { file, summary: tally(statuses) || "no tasks" };
}

/** One task: build B and G, run each side `reruns` times (sides in parallel), decide. */
async function oracleOf(project: Project, task: Task, context: TaskContext): Promise<Oracle> {
  const { signal, work } = context;
  const log = new RunLog(context.onRun, context.onStart);
  const blank = blankOracle(task, context.key, log);
  try {
    const unsure = (task.unsureTests ?? []).map((u) => u.file);
    let collectedOnB: Set<string> | undefined;
    const [bTree, gTree] = await Promise.all([
      (async () => {
        const tree = await checkout(project.repository, task.parent, join(work, "B"), {
          home: project.home,
          signal,
        });
        // What static reading could not tell, collection does: B's own tests, before the fix's.
        if (unsure.length) {
          collectedOnB = await collectedIds(
            project,
            task,
            context,
            tree,
            unsure,
            log.on("B-collect"),
          );
        }
        await installFiles(project.repository, task.commit, hiddenTestFiles(task), tree, signal);
        return tree;
      })(),
      checkout(project.repository, task.commit, join(work, "G"), { home: project.home, signal }),
    ]);
    const targets = await existing(gTree, task.testFiles);
    if (targets.length === 0) {
      return blank("unscorable", "None of the fix's test files exists on G.");
    }
    const side = (tree: string, name: "B" | "G") =>
      runSide(context, log, name, project.config.tasks.reruns, () =>
        runPytest({
          sandbox: context.sandbox,
          env: context.env,
          tree,
          targets,
          pythonPath: [task.pythonPath],
          pytestArgs: project.config.project.pytestArgs,
          extraEnv: project.config.project.env,
          timeoutMs: project.config.run.testTimeout * 1000,
          memoryMb: project.config.run.testMemory,
          deny: [project.repository, project.home, project.results.path],
          scratch: join(work, "runs"),
          // The maintainers' own code and tests: what passed before a hang stands, and their
          // tests may write into the tree.
          trustPartial: true,
          watchTree: false,
          signal,
        }));
    const [b, g] = await Promise.all([side(bTree, "B"), side(gTree, "G")]);
    const refusal = async (tree: string) =>
      configRefusal({ "setup.cfg": await readTextIfExists(join(tree, "setup.cfg")) });
    const truth = groundTruth(b, g, {
      packageName: basename(task.packageDir).replace(/\.py$/, ""),
      refusal: { B: await refusal(bTree), G: await refusal(gTree) },
    });
    const newApi = truth.status === "scorable"
      ? await newApiNames(task, truth.failToPass, b, { bTree, gTree })
      : undefined;
    const gTests = new Set(Object.keys(g.stable).concat(g.unstable));
    const collected = collectedOnB
      ? {
        collectedNewTests: [...gTests].filter((id) =>
          unsure.includes(id.split("::")[0]) && id.includes("::") && !collectedOnB!.has(id)
        ).sort(),
      }
      : {};
    const durations = durationsOnG(g);
    if (newApi) {
      return {
        task: task.id,
        inputsKey: context.key,
        status: "unscorable",
        reason: `new-api: every fail-to-pass test fails on B only because ${
          newApi.map((n) => `\`${n}\``).join(", ")
        } ${newApi.length === 1 ? "does" : "do"} not exist yet, and the statement does not ` +
          `name ${
            newApi.length === 1 ? "it" : "them"
          }: the task needs an API the agent cannot know.`,
        leftOut: { reason: "new-api", names: newApi },
        failToPass: truth.failToPass,
        passToPass: truth.passToPass,
        unstable: truth.unstable,
        runs: log.sorted(),
        durations: {},
      };
    }
    return {
      task: task.id,
      inputsKey: context.key,
      status: truth.status,
      ...(truth.reason ? { reason: truth.reason } : {}),
      failToPass: truth.failToPass,
      passToPass: truth.passToPass,
      unstable: truth.unstable,
      runs: log.sorted(),
      durations,
      ...collected,
    };
  } catch (error) {
    if (error instanceof InterruptedError || signal?.aborted) throw new InterruptedError();
    return blank("infra-error", `Infrastructure error: ${describeError(error)}`);
  }
}

/**
 * The test ids pytest collects from `files` in `tree` (those that exist there), with
 * `--collect-only`: one session, logged with `onRun`.
 */
async function collectedIds(
  project: Project,
  task: Task,
  context: TaskContext,
  tree: string,
  files: string[],
  onRun: OnSession,
): Promise<Set<string>> {
  const present = await existing(tree, files);
  if (present.length === 0) return new Set();
  const run = await context.slots.use(() => {
    onRun.starting?.();
    return runPytest({
      sandbox: context.sandbox,
      env: context.env,
      tree,
      targets: present,
      pythonPath: [task.pythonPath],
      pytestArgs: [...project.config.project.pytestArgs, "--collect-only"],
      extraEnv: project.config.project.env,
      timeoutMs: project.config.run.testTimeout * 1000,
      memoryMb: project.config.run.testMemory,
      deny: [project.repository, project.home, project.results.path],
      scratch: join(context.work, "runs"),
      trustPartial: true,
      watchTree: false,
      signal: context.signal,
    });
  });
  onRun(run);
  return new Set(Object.keys(run.outcomes));
}

/**
 * The names a task needs that the agent cannot know: when every fail-to-pass test fails on B only
 * because a name is missing there, and each such name is new in the fix's source files (absent
 * from them on B, present on G) and unnamed by the statement. Undefined otherwise.
 */
async function newApiNames(
  task: Task,
  failToPass: readonly string[],
  b: RepeatedRuns,
  trees: { bTree: string; gTree: string },
): Promise<string[] | undefined> {
  const missing = namesMissingOnB(failToPass, b);
  if (!missing?.length) return undefined;
  const read = async (tree: string) =>
    (await Promise.all(task.sourceFiles.map((f) => readTextIfExists(join(tree, f))))).join("\n");
  const [before, after] = await Promise.all([read(trees.bTree), read(trees.gTree)]);
  const word = (name: string) => new RegExp(`(?<![\\w.])${name.replace(/\W/g, "")}(?!\\w)`);
  for (const { name, kind } of missing) {
    if (word(name.split(".").pop()!).test(task.statement)) return undefined;
    if (kind === "module") {
      const path = `${name.replaceAll(".", "/")}`;
      const isNew = task.sourceFiles.some((f) =>
        f.endsWith(`${path}.py`) || f.endsWith(`${path}/__init__.py`)
      );
      if (!isNew || (await statIfExists(join(trees.bTree, task.pythonPath, `${path}.py`)))) {
        return undefined;
      }
      continue;
    }
    if (!word(name).test(after) || word(name).test(before)) return undefined;
  }
  return missing.map((m) => m.name);
}
