/**
 * Cross-examination of a Go or JavaScript project: the same stage as Python's (`mod.ts`), run
 * through the project's {@linkcode TestRunner}. Every author's tests and the repository's suite
 * (`[judge] run-suite`) run on B (`[tasks] reruns` times) and on every contestant's candidate,
 * and the result is the same {@linkcode Matrix} record, so the judge works unchanged.
 *
 * **Each owner's tests run in a copy of the tree of its own.** Go compiles every `_test.go` file
 * of a package into one test binary, so an author's file in a tree is part of every binary built
 * there (its `init()` runs in everyone's process); a JavaScript author's module can patch globals
 * or rewrite the tree's files before another's run; and both runners leave the tree writable to
 * the tests. So for each tree (built once, never run in), every owner gets a fresh copy with only
 * its own tests installed (see `testbed/runner_authors.ts`), run as one group: nothing an author
 * writes can reach another's outcomes. Copies are cheap next to compiling and starting runners.
 *
 * A cell is one owner on one tree, so cells are reused exactly as Python's are: adding an agent
 * runs only the new tree against every owner and the new author on every tree. B's repeats run
 * only the tests whose stability can change a verdict.
 *
 * Tampering: the runners report what they can see (a forged result, a run that stopped itself);
 * whether it was the author's code or the tree's is left to the judge's rule (the tree's when
 * more than one owner's run on that tree suffered it).
 *
 * Requires `--allow-run` (git, cp, the sandbox, the toolchains), `--allow-read`, `--allow-write`
 * and `--allow-env`.
 *
 * @module
 */

import { join } from "node:path";
import { cachedTree, copyTree, listFiles, removeTree } from "../checkout.ts";
import { InterruptedError } from "../errors.ts";
import { readTextIfExists } from "../fs.ts";
import { inputsKey } from "../hash.ts";
import type { Project } from "../project.ts";
import {
  type BoutAttempt,
  type Matrix,
  type Outcome,
  REPOSITORY,
  type RunSummary,
  type Task,
} from "../records.ts";
import type { RunnerEnv, TestRunner } from "../lang/mod.ts";
import type { Sandbox } from "../sandbox/types.ts";
import {
  authorEntries,
  authorOutcomes,
  countOutcomes,
  fillRows,
  type GroupResult,
  hasRunnerTests,
  installRunnerAuthor,
  type PathRules,
  Slots,
  taskRunnerAuthors,
  type TreeResult,
  TreeRunners,
} from "../testbed/mod.ts";
import {
  type ExamineContext,
  type ExaminedTree,
  type ExamineOptions,
  type ExamineStage,
  examineWith,
  matrixInputs,
  runExamineStage,
} from "./matrix.ts";

/** Bumped when the way a Go or JavaScript project's matrices are made changes. */
const RUNNER_EXAMINE_RULES = 1;

/** What {@linkcode examineRunnerTask} needs besides the task: the project's runners as `env`. */
export type RunnerExamineContext = ExamineContext<TreeRunners>;

/** Options for {@linkcode examineRunnerAll}. */
export type RunnerExamineOptions = ExamineOptions<TreeRunners>;

/** The inputs that decide a Go or JavaScript task's matrix. */
export function runnerMatrixInputsKey(
  project: Project,
  task: Task,
  attempts: readonly BoutAttempt[],
  runners: TreeRunners,
): string {
  return inputsKey({
    rules: RUNNER_EXAMINE_RULES,
    runners: runners.key,
    ...matrixInputs(project, task, attempts),
    ...runInputs(project),
  });
}

/** What shapes every run, besides the environment. */
function runInputs(project: Project) {
  const c = project.config;
  return {
    testEnv: c.project.env,
    reruns: c.tasks.reruns,
    testTimeout: c.run.testTimeout,
    testMemory: c.run.testMemory,
  };
}

/** A task's path rules with the tree's runner: it alone says what is test code. */
export function runnerPathRules(project: Project, task: Task, runner: TestRunner): PathRules {
  return { packageDir: task.packageDir, testsDir: project.config.project.tests, runner };
}

/**
 * What the repository's suite runs on a tree: Go, every package with a `_test.go` file; JavaScript,
 * every test file with tests in it. Read from B.
 */
async function suiteEntries(
  project: Project,
  task: Task,
  base: string,
  runner: TestRunner,
): Promise<string[]> {
  const files = (await listFiles(project.repository, task.parent)).filter((p) =>
    runner.isTestFile(p) && !runner.isConfig(p)
  );
  if (runner.language === "go") {
    const dirs = files.filter((p) => p.endsWith("_test.go") && !/(^|\/)testdata\//.test(p))
      .map((p) => runner.fileOf(p));
    return [...new Set(dirs)];
  }
  const entries: string[] = [];
  for (const path of files) {
    if (!/\.[cm]?[jt]sx?$/.test(path)) continue;
    const text = await readTextIfExists(join(base, path));
    if (text === undefined) continue;
    const found = runner.changedTests(path, null, text);
    if ("error" in found || found.tests.length > 0 || found.unsure) entries.push(path);
  }
  return entries;
}

/** One owner of rows: an author, or the repository's suite. */
interface RowOwner {
  name: string;
  key: string;
  /** The group to run, all of it or only some of its rows. */
  entries(select?: ReadonlySet<string>): string[];
  /** Its rows among what a run reported. */
  rows(reported: Readonly<Record<string, Outcome>>): Map<string, Outcome>;
  /** Put its tests into a copy of the tree. */
  install(tree: string): Promise<void>;
  /** Rows known before anything runs. */
  statically: string[];
}

/**
 * Cross-examine one task of a Go or JavaScript project: build B and every contestant's
 * candidate, run every owner's tests in a copy of each tree of its own, and assemble the matrix
 * (see `examineWith`). Never looks at G or at the hidden tests.
 */
export async function examineRunnerTask(
  project: Project,
  task: Task,
  attempts: readonly BoutAttempt[],
  context: RunnerExamineContext,
): Promise<Matrix> {
  const { signal, work } = context;
  const c = project.config;
  const base = await cachedTree(project.repository, task.parent, { home: project.home, signal });
  const { runner, env } = await context.env.open(base, signal);
  const paths = runnerPathRules(project, task, runner);
  const authors = await taskRunnerAuthors(project, attempts, {
    base,
    runner,
    scratch: join(work, "scratch"),
    signal,
  });
  const owners = new Map<string, RowOwner>();
  for (const a of authors.filter(hasRunnerTests)) {
    owners.set(a.agent, {
      name: a.agent,
      key: a.key,
      entries: (select) => select ? [...select] : authorEntries(a),
      rows: (reported) => authorOutcomes(a, runner, reported),
      install: (tree) => installRunnerAuthor(tree, a, runner),
      statically: a.tests.flatMap((f) => f.unreadable ? [f.beside] : f.ids),
    });
  }
  if (c.judge.runSuite) {
    const suite = await suiteEntries(project, task, base, runner);
    if (suite.length > 0) {
      owners.set(REPOSITORY, {
        name: REPOSITORY,
        key: inputsKey(["suite", suite]),
        entries: (select) => select ? [...select] : suite,
        // In the suite's order (a runner may report files as they finish).
        rows: (reported) => {
          const at = (id: string) => {
            const i = suite.indexOf(runner.fileOf(id));
            return i < 0 ? suite.length : i;
          };
          return new Map(Object.entries(reported).sort(([a], [b]) => at(a) - at(b)));
        },
        install: () => Promise.resolve(),
        statically: [],
      });
    }
  }
  const sessions = inputsKey({
    rules: RUNNER_EXAMINE_RULES,
    runners: context.env.key,
    env: env.key,
    ...runInputs(project),
  });
  const slots = context.slots ?? new Slots(c.run.jobs);
  const log: RunSummary[] = [];

  /** One owner's tests on a copy of the prepared tree `dir`. */
  const runOwner = async (
    tree: ExaminedTree,
    dir: string,
    owner: RowOwner,
    index: number,
    select?: ReadonlySet<string>,
  ): Promise<GroupResult> => {
    const copy = `${dir}~${index}`;
    try {
      await copyTree(dir, copy, signal);
      await owner.install(copy);
      const ran = await slots.use(() => {
        if (signal?.aborted) throw new InterruptedError();
        context.onStart?.(tree.id);
        return runTests(runner, env, project, copy, owner.entries(select), {
          sandbox: context.sandbox,
          scratch: join(work, "runs"),
          signal,
        });
      });
      const group = ran.groups[0];
      const outcomes = group ? owner.rows(group.outcomes) : new Map<string, Outcome>();
      const summary: RunSummary = {
        tree: tree.id,
        index,
        status: ran.status,
        exitCode: null,
        durationMs: ran.durationMs,
        counts: countOutcomes(Object.fromEntries(outcomes)),
        ...(ran.message ? { message: ran.message } : {}),
      };
      log.push(summary);
      context.onRun?.(summary);
      return {
        owner: owner.name,
        status: group?.status ?? ran.status,
        ...(group?.message ?? ran.message ? { message: group?.message ?? ran.message } : {}),
        outcomes,
        tamper: group?.tamper ?? ran.tamper,
        suspect: group?.suspect ?? ran.suspect,
      };
    } finally {
      await removeTree(copy);
    }
  };

  return await examineWith(project, task, attempts, context, {
    inputsKey: runnerMatrixInputsKey(project, task, attempts, context.env),
    paths,
    treeInputs: { language: runner.language },
    authors,
    owners: new Map([...owners].map(([name, o]) => [name, o.key])),
    sessions,
    treeDir: (tree) => join(work, "trees", tree.id.replace(/[^A-Za-z0-9._-]+/g, "_")),
    // The tree, built once and never run in; each owner runs on a copy of its own.
    runTree: async (tree, dir, build, names, select) => {
      try {
        const built = await build(dir);
        if (!built.ok) return { failed: built.message };
        const settled = await Promise.allSettled(
          names.map((o, i) => runOwner(tree, dir, owners.get(o)!, i, select?.get(o))),
        );
        if (signal?.aborted) throw new InterruptedError();
        const fresh: GroupResult[] = [];
        for (const s of settled) {
          if (s.status === "rejected") throw s.reason;
          fresh.push(s.value);
        }
        return fresh;
      } finally {
        await removeTree(dir);
      }
    },
    repeatSelection: (first, candidates) =>
      runnerRepeatSelection(first, candidates, [...owners.values()], runner),
    // Reused cells are kept as they ran; the matrix gets every row filled on every tree.
    filled: (results, listed) => {
      const filled = results.map((r) => ({
        ...r,
        groups: r.groups.map((g) => ({ ...g, outcomes: new Map(g.outcomes) })),
      }));
      for (const owner of listed) {
        fillRows(
          filled.flatMap((r) =>
            r.groups.filter((g) => g.owner === owner.name).map((g) => g.outcomes)
          ),
          runner,
          owners.get(owner.name)?.statically,
        );
      }
      return filled;
    },
    blame: () => [],
    runs: (order) =>
      log.sort((a, b) => order.indexOf(a.tree) - order.indexOf(b.tree) || a.index - b.index),
  });
}

/**
 * The examine stage of a Go or JavaScript project: the same tasks, the same matrices and files,
 * each task through {@linkcode examineRunnerTask} (every owner's tests in a copy of each tree of
 * its own).
 */
export async function examineRunnerAll(
  project: Project,
  tasks: readonly Task[],
  options: RunnerExamineOptions = {},
): Promise<ExamineStage> {
  // For progress only: the runner classifies paths again when the trees are built.
  const candidates = (attempts: readonly BoutAttempt[]) =>
    attempts.filter(({ attempt: a }) =>
      a.status === "patch" && a.role === "contestant" && a.files.some((f) => f.kind === "source")
    ).length;
  return await runExamineStage(project, tasks, options, {
    environment: () => Promise.resolve(new TreeRunners(project)),
    key: (task, attempts, env) => runnerMatrixInputsKey(project, task, attempts, env),
    candidates: (_task, attempts) => candidates(attempts),
    examine: (task, attempts, context) => examineRunnerTask(project, task, attempts, context),
    runs: "test run",
  });
}

/** Run one group on a tree with the project's settings. */
function runTests(
  runner: TestRunner,
  env: RunnerEnv,
  project: Project,
  tree: string,
  group: string[],
  shared: { sandbox: Sandbox; scratch: string; signal?: AbortSignal },
) {
  const c = project.config;
  return runner.run({
    sandbox: shared.sandbox,
    env,
    tree,
    groups: [group],
    extraEnv: c.project.env,
    timeoutMs: c.run.testTimeout * 1000,
    memoryMb: c.run.testMemory,
    deny: [project.repository, project.home, project.results.path],
    scratch: shared.scratch,
    signal: shared.signal,
  });
}

/**
 * What a repeat of B runs, by owner: the rows that fail on B's first run, or whose outcome on
 * some candidate differs from it (see `repeatSelection` in `mod.ts`), with rows filled as the
 * matrix fills them.
 */
function runnerRepeatSelection(
  base: TreeResult,
  candidates: readonly TreeResult[],
  owners: readonly RowOwner[],
  runner: TestRunner,
): Map<string, Set<string>> {
  const select = new Map<string, Set<string>>();
  const ran = candidates.filter((c) => c.groups.length > 0);
  const seen = (g: GroupResult | undefined) =>
    g && g.status !== "infra-error" ? new Map(g.outcomes) : new Map<string, Outcome>();
  for (const owner of owners) {
    const onBase = seen(base.groups.find((g) => g.owner === owner.name));
    const others = ran.map((c) => seen(c.groups.find((g) => g.owner === owner.name)));
    const rows = fillRows([onBase, ...others], runner, owner.statically);
    const ids = new Set<string>();
    for (const id of rows) {
      const b = onBase.get(id);
      if (b !== "passed" || others.some((o) => o.get(id) !== b)) ids.add(id);
    }
    select.set(owner.name, ids);
  }
  return select;
}
