/**
 * Cross-examination: before anything looks at the hidden tests or the gold fix, every test written
 * by every author — each contestant's regression tests, each examiner's tests — runs on B (no
 * patch, `[tasks] reruns` times) and on every contestant's candidate, and the repository's own
 * suite runs on all of them too (`[judge] run-suite`). Every owner of rows is kept from reaching
 * another's outcomes as the tree's runner allows (`testbed/owners.ts`: one run for the owners who
 * may share a tree, a copy of the tree for each of the others). The result,
 * `matrices/<task>.json`, is what the judge reads; it is the same record in every language.
 *
 * Each task's matrix is written atomically as soon as it is done, and is not computed again while
 * its inputs (the task, the attempts, the settings) are unchanged; a matrix with a tree that hit an
 * infrastructure error is always computed again. A cell (one owner on one tree) is reused while
 * its key stands, so adding an agent runs only its tree against every owner and its tests on every
 * tree.
 *
 * Only tasks whose ground truth is scorable are examined.
 *
 * Requires `--allow-run` (git, cp, the sandbox, the runners), `--allow-read`, `--allow-write`
 * (the results directory, `BUGBOUT_HOME`) and `--allow-env`.
 *
 * @module
 */

import { join } from "node:path";
import { cachedTree, listFiles } from "../checkout.ts";
import { BugboutError, describeError } from "../errors.ts";
import { readTextIfExists } from "../fs.ts";
import { inputsKey } from "../hash.ts";
import {
  CAPABILITY_RULES,
  languageOf,
  type LanguageSpec,
  type PackageBaseline,
  type TestRunner,
} from "../lang/mod.ts";
import { readOracles } from "../oracle/mod.ts";
import type { Project } from "../project.ts";
import { readAttempts } from "../race/mod.ts";
import {
  type BoutAttempt,
  type GuardEvent,
  type Matrix,
  REPOSITORY,
  type RunSummary,
  type Task,
} from "../records.ts";
import {
  attemptsFingerprint,
  authorOwner,
  type AuthorTests,
  cellOn,
  hasTests,
  packageBaseline,
  reuseSummary,
  reviewAttemptCapabilities,
  rowIds,
  type RowOwner,
  runInputs,
  runSettings,
  runTaskStage,
  Slots,
  type StageOptions,
  suiteOwner,
  taskAuthors,
  type TaskContext,
  type TreeResult,
} from "../testbed/mod.ts";
import { plural } from "../words.ts";
import { type ExaminedTree, examineTrees, matrixFile, readMatrix } from "./matrix.ts";
import { patchChanges, type SuiteSelection } from "./selection.ts";

export { MATRICES_DIR, readMatrices, readMatrix } from "./matrix.ts";

/** Bumped when the way matrices are made changes, so saved ones are recomputed. */
const EXAMINE_RULES = 4;

/** What cross-examining one task needs besides the task. */
export interface ExamineContext extends Omit<TaskContext, "key" | "slots" | "onRun" | "onStart"> {
  /**
   * The matrix's inputs key as the stage computed it, which its reuse check compares with (by
   * default: from B's environment as opened).
   */
  key?: string;
  /** Bounds runs across tasks; by default `[run] jobs` for this task alone. */
  slots?: Slots;
  /** Called after every run. */
  onRun?: (run: RunSummary) => void;
  /** Called as every run starts, with its tree. */
  onStart?: (tree: string) => void;
  /** The task's last matrix: its cells whose keys stand are not run again. */
  previous?: Matrix;
  /** Told of the suite's selection on each candidate (`[judge] select-suite`). */
  onSelect?: (tree: string, selection: SuiteSelection) => void;
}

/** Options for the examine stage. */
export type ExamineOptions = StageOptions<Matrix>;

/** What the examine stage did. */
export interface ExamineStage {
  /** The matrices of the tasks examined (new or reused), in task order. */
  matrices: Matrix[];
  /** One line for a person. */
  summary: string;
}

/** What a task's matrix is made from besides the task: its attempts and B's environment. */
export interface ExamineInputs {
  /** The attempts of configured agents. */
  attempts: BoutAttempt[];
  /** The key of B's environment (or why it could not be prepared). */
  env: string;
}

/** What decides a task's matrix. */
export function matrixInputsKey(
  project: Project,
  task: Task,
  { attempts, env }: ExamineInputs,
  context: Pick<TaskContext, "tools">,
): string {
  const c = project.config;
  return inputsKey({
    rules: EXAMINE_RULES,
    task: task.id,
    commit: task.commit,
    parent: task.parent,
    packageDir: task.packageDir,
    pythonPath: task.pythonPath,
    tests: c.project.tests,
    agents: project.agents.map((a) => [a.name, a.role]),
    attempts: attemptsFingerprint(attempts),
    capabilities: CAPABILITY_RULES,
    runSuite: c.judge.runSuite,
    selectSuite: c.judge.selectSuite,
    env,
    ...runInputs(project, context.tools),
  });
}

/**
 * Cross-examine one task: build B and every contestant's candidate, run every owner's tests on
 * them and assemble the matrix (see `examineTrees`). Never looks at G or at the hidden tests.
 * Cells whose key stands in `context.previous` are taken from it, and a tree none of whose cells
 * must run is never built.
 */
export async function examineTask(
  project: Project,
  task: Task,
  attempts: readonly BoutAttempt[],
  context: ExamineContext,
): Promise<Matrix> {
  const { signal, work, tools } = context;
  const c = project.config;
  const base = await cachedTree(project.repository, task.parent, { home: project.home, signal });
  const { runner, env } = await tools.open(base, { task, signal });
  const authors = await taskAuthors(project, tools.language, attempts, {
    base,
    runner,
    env,
    scratch: join(work, "scratch"),
    signal,
  });
  // B's package, read once for the capability review of every patch.
  const rules = { packageDir: task.packageDir, runner };
  let read: Promise<PackageBaseline> | undefined;
  const baseline = () => read ??= packageBaseline(project.repository, task.parent, base, rules);
  // Who runs on every tree: each author with tests, then the repository's suite.
  const owners = new Map<string, RowOwner>();
  for (const a of authors.filter(hasTests)) owners.set(a.agent, authorOwner(a, runner));
  if (c.judge.runSuite) {
    const files = await listFiles(project.repository, task.parent);
    const suite = await runner.suite(files, (path) => readTextIfExists(join(base, path)));
    if (suite.length > 0) {
      owners.set(REPOSITORY, suiteOwner(suite, inputsKey(["suite", suite]), runner));
    }
  }
  return await examineTrees(project, task, attempts, {
    ...context,
    inputsKey: context.key ??
      matrixInputsKey(project, task, { attempts: [...attempts], env: env.key }, context),
    runner,
    env,
    authors,
    owners,
    sessions: inputsKey({
      rules: EXAMINE_RULES,
      task: [task.packageDir, task.pythonPath],
      tests: c.project.tests,
      env: env.key,
      selectSuite: c.judge.selectSuite,
      ...runInputs(project, tools),
    }),
    settings: runSettings(project, {
      sandbox: context.sandbox,
      slots: context.slots ?? new Slots(c.run.jobs),
      scratch: join(work, "runs"),
      signal,
    }),
    review: async (attempt, patch) =>
      reviewAttemptCapabilities(attempt, patch, {
        base,
        rules,
        baseline: await baseline(),
        scratch: join(work, "scratch"),
        signal,
      }),
    ...(c.judge.selectSuite && runner.changedCode
      ? {
        selection: {
          changes: (attempt, patches) =>
            patchChanges(attempt, patches, {
              base,
              rules,
              runner,
              env,
              scratch: join(work, "scratch"),
              signal,
            }),
          ...(context.onSelect ? { onSelect: context.onSelect } : {}),
        },
      }
      : {}),
    repeatSelection: (first, candidates) =>
      repeatSelection(first, candidates, [...owners.values()], runner),
    blame: (events, owner) =>
      blameOf(events, authors.find((a) => a.agent === owner), tools.language),
  });
}

/**
 * What a repeat of B runs, by owner: the tests that fail on B's first run, or whose outcome on some
 * candidate differs from it. A test that passes on B and on every candidate decides nothing
 * whether or not it is stable, so it is not run again: neither a reproduction (it passes on B) nor
 * a breakage (no patch breaks it) can come of it.
 */
export function repeatSelection(
  base: TreeResult,
  candidates: readonly TreeResult[],
  owners: readonly Pick<RowOwner, "name" | "statically">[],
  runner: Pick<TestRunner, "fileOf">,
): Map<string, Set<string>> {
  const select = new Map<string, Set<string>>();
  const ran = candidates.filter((c) => c.groups.length > 0);
  const fileOf = (id: string) => runner.fileOf(id);
  for (const owner of owners) {
    const ids = new Set<string>();
    const observations = [base, ...ran].flatMap((r) =>
      r.groups.filter((g) => g.owner === owner.name && g.status !== "infra-error").map((g) =>
        g.outcomes
      )
    );
    for (const id of rowIds(observations, fileOf, owner.statically)) {
      const onBase = cellOn(base, owner.name, id, fileOf);
      if (onBase !== "passed" || ran.some((c) => cellOn(c, owner.name, id, fileOf) !== onBase)) {
        ids.add(id);
      }
    }
    select.set(owner.name, ids);
  }
  return select;
}

/**
 * Whose code tampering events point to: the author's own files (its copies beside the
 * originals, or its files in place), or the tree's. Events that name no file (a test's id, an
 * object) are what happened, not who did it.
 */
function blameOf(
  events: readonly GuardEvent[],
  author: AuthorTests | undefined,
  language: Pick<LanguageSpec, "originOf">,
): ("author" | "tree")[] {
  const own = (path: string) =>
    author !== undefined &&
    (author.files.has(path) || author.tests.some((f) => f.beside === path));
  const origins = events.map((e) => language.originOf?.(e)).filter((o) => o !== undefined);
  const blame: ("author" | "tree")[] = [];
  if (origins.some(own)) blame.push("author");
  if (origins.some((o) => !own(o))) blame.push("tree");
  return blame;
}

/**
 * Cross-examine the scorable ones among `tasks` that have at least one attempt by a configured
 * agent, and save each matrix in `.bugbout/matrices/<task>.json` as it is done.
 */
export async function examineAll(
  project: Project,
  tasks: readonly Task[],
  options: ExamineOptions = {},
): Promise<ExamineStage> {
  const oracles = (await readOracles(project)).oracles;
  const scorable = tasks.filter((t) => oracles[t.id]?.status === "scorable");
  const saved = new Map<string, Matrix | undefined>();
  // For progress only: the trees' runner classifies paths again when the trees are built.
  const candidates = (attempts: readonly BoutAttempt[]) =>
    attempts.filter(({ attempt: a }) =>
      a.status === "patch" && a.role === "contestant" && a.files.some((f) => f.kind === "source")
    ).length;
  const stage = await runTaskStage<ExamineInputs, Matrix>(project, scorable, {
    name: "examine",
    inputs: async (task, tools) => {
      const attempts = await readAttempts(project, task.id);
      saved.set(task.id, await readMatrix(project, task.id));
      if (attempts.length === 0) return "no attempts";
      // A tree whose dependencies cannot be installed is this task's trouble (its matrix says so).
      const env = await tools.envKey(task.parent, undefined, { date: task.date }).catch((error) => {
        if (error instanceof BugboutError) return `unprepared: ${describeError(error)}`;
        throw error;
      });
      return { attempts, env };
    },
    key: (task, inputs, tools) => matrixInputsKey(project, task, inputs, { tools }),
    saved: (task) => saved.get(task.id),
    reusable: (matrix) => !matrix.trees.some((t) => t.status === "infra-error"),
    trees: (_task, inputs) => project.config.tasks.reruns + candidates(inputs.attempts),
    run: (task, inputs, context) =>
      examineTask(project, task, inputs.attempts, { ...context, previous: saved.get(task.id) }),
    save: (task, matrix) => project.results.write(matrixFile(task.id), matrix),
  }, options);
  const matrices = [...stage.results.values()];
  const made = matrices.filter((m) => stage.made.has(m.task));
  return {
    matrices,
    summary: `${plural(matrices.length, "matrix", "matrices")} (${made.length} new, ${
      matrices.length - made.length
    } unchanged): ${reuseSummary(made.map((m) => m.reuse))}, ${
      plural(stage.sessions, languageOf(project.config.project.language).runWord)
    }`,
  };
}

export type { ExaminedTree };
export { type FileChangeReach, selectSuite, type SuiteSelection } from "./selection.ts";
