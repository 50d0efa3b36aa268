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
import { cachedTree, checkout, copyTree, listFiles, removeTree } from "../checkout.ts";
import { InterruptedError } from "../errors.ts";
import { readTextIfExists } from "../fs.ts";
import { inputsKey } from "../hash.ts";
import type { Project } from "../project.ts";
import {
  type BoutAttempt,
  type Matrix,
  nameOf,
  type Outcome,
  REPOSITORY,
  RESULTS_VERSION,
  type RunSummary,
  type Task,
} from "../records.ts";
import type { RunnerEnv, TestRunner } from "../runner/mod.ts";
import type { Sandbox } from "../sandbox/types.ts";
import {
  applySourceChanges,
  assembleCells,
  attemptNames,
  attemptsFingerprint,
  authorEntries,
  authorOutcomes,
  authorTags,
  cellKey,
  countOutcomes,
  fillRows,
  type GroupResult,
  hasCandidate,
  hasRunnerTests,
  installRunnerAuthor,
  type Owner,
  type PathRules,
  readRunnerAuthor,
  Reuser,
  type RunnerAuthor,
  Slots,
  type TreeResult,
  type TreeRunners,
} from "../testbed/mod.ts";

/** Bumped when the way a Go or JavaScript project's matrices are made changes. */
const RUNNER_EXAMINE_RULES = 1;

/** What {@linkcode examineRunnerTask} needs besides the task. */
export interface RunnerExamineContext {
  /** The sandbox every run happens in. */
  sandbox: Sandbox;
  /** The project's runners (each tree's environment). */
  env: TreeRunners;
  /** A working directory of the task's own (removed by the caller). */
  work: string;
  /** Bounds runs across tasks; by default `[run] jobs` for this task alone. */
  slots?: Slots;
  /** Called after every run (one owner on one tree). */
  onRun?: (run: RunSummary) => void;
  /** Called as every run starts, with its tree. */
  onStart?: (tree: string) => void;
  /** Stop: runs in flight are killed, then {@linkcode InterruptedError} is thrown. */
  signal?: AbortSignal;
  /** The task's last matrix: its cells whose keys stand are not run again. */
  previous?: Matrix;
}

/** The inputs that decide a Go or JavaScript task's matrix. */
export function runnerMatrixInputsKey(
  project: Project,
  task: Task,
  attempts: readonly BoutAttempt[],
  runners: TreeRunners,
): string {
  const c = project.config;
  return inputsKey({
    rules: RUNNER_EXAMINE_RULES,
    runners: runners.key,
    task: task.id,
    commit: task.commit,
    parent: task.parent,
    tests: c.project.tests,
    agents: project.agents.map((a) => [a.name, a.role]),
    attempts: attemptsFingerprint(attempts),
    runSuite: c.judge.runSuite,
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

type MatrixTree = Matrix["trees"][number];

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
 * candidate, run every owner's tests in a copy of each tree of its own, and assemble the matrix.
 * Never looks at G or at the hidden tests.
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
  const tags = authorTags(attemptNames(project));
  const authors: RunnerAuthor[] = [];
  for (const { attempt, patches } of attempts) {
    if (attempt.status !== "patch") continue;
    const name = nameOf(attempt);
    authors.push(
      await readRunnerAuthor({
        agent: name,
        role: attempt.role,
        tag: tags.get(name) ?? authorTags([name]).get(name)!,
        patch: patches.tests,
        files: attempt.files,
      }, { base, runner, scratch: join(work, "scratch"), signal }),
    );
  }
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
  const reuse = new Reuser(context.previous?.reuse);
  const slots = context.slots ?? new Slots(c.run.jobs);
  const log: RunSummary[] = [];
  const keyOf = (tree: string, owner: string, ids?: ReadonlySet<string>) =>
    cellKey(
      tree,
      ids ? inputsKey([owners.get(owner)!.key, [...ids].sort()]) : owners.get(owner)!.key,
      sessions,
    );

  /** One owner's tests on a copy of the prepared tree `dir`. */
  const runOwner = async (
    tree: MatrixTree,
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

  /**
   * A tree's cells: those that must run are run on copies of the tree `build` makes, the rest
   * reused; with `select`, only those rows of each owner. A tree that cannot be made runs nothing.
   */
  const run = async (
    tree: MatrixTree,
    treeKey: string,
    build: (dir: string) => Promise<{ ok: true } | { ok: false; message: string }>,
    options: { build?: boolean; select?: ReadonlyMap<string, ReadonlySet<string>> } = {},
  ): Promise<TreeResult> => {
    const { select } = options;
    const names = [...owners.keys()].filter((o) => select?.get(o)?.size !== 0);
    const key = (owner: string) => keyOf(treeKey, owner, select?.get(owner));
    const missing = names.filter((o) => !reuse.has(key(o)));
    const fresh: GroupResult[] = [];
    if (missing.length > 0 || options.build) {
      const dir = join(work, "trees", tree.id.replace(/[^A-Za-z0-9._-]+/g, "_"));
      try {
        const built = await build(dir);
        if (!built.ok) {
          return { tree: { ...tree, status: "patch-failed", message: built.message }, groups: [] };
        }
        const settled = await Promise.allSettled(
          missing.map((o, i) => runOwner(tree, dir, owners.get(o)!, i, select?.get(o))),
        );
        if (signal?.aborted) throw new InterruptedError();
        for (const s of settled) {
          if (s.status === "rejected") throw s.reason;
          fresh.push(s.value);
        }
      } finally {
        await removeTree(dir);
      }
    }
    for (const g of fresh) reuse.put(key(g.owner), g);
    const groups = names.flatMap((owner) =>
      fresh.find((g) => g.owner === owner) ?? reuse.take(key(owner)) ?? []
    );
    return {
      tree: { ...tree, ...treeStatus(groups) },
      groups,
      ...(select ? { only: select } : {}),
    };
  };

  const checkoutBase = async (dir: string) => {
    await checkout(project.repository, task.parent, dir, { home: project.home, signal });
    return { ok: true as const };
  };
  const baseKey = inputsKey({ tree: "B", parent: task.parent });
  const repeatKey = (i: number) => `${baseKey}#${i}`;
  const firstBase = run({ id: "B", kind: "base", status: "ok" }, repeatKey(0), checkoutBase);
  const patchRuns = Promise.all(
    attempts.filter(({ attempt }) => hasCandidate(attempt, paths)).map(
      async ({ attempt, patches }): Promise<TreeResult> => {
        const tree: MatrixTree = {
          id: nameOf(attempt),
          kind: "patch",
          agent: attempt.agent,
          status: "ok",
        };
        const treeKey = inputsKey({
          parent: task.parent,
          patch: patches.full,
          files: attempt.files,
          language: runner.language,
        });
        const unit = `tree:${tree.id}`;
        const known = reuse.unitStands(unit, treeKey);
        reuse.unit(unit, treeKey);
        const before = context.previous?.trees.find((t) => t.id === tree.id);
        if (known && before?.status === "patch-failed") return { tree: before, groups: [] };
        return await run(tree, treeKey, async (dir) => {
          await checkout(project.repository, task.parent, dir, { home: project.home, signal });
          return await applySourceChanges(dir, attempt, patches, paths, signal);
        }, { build: !known });
      },
    ),
  );
  const settled = await Promise.allSettled([firstBase, patchRuns]);
  if (signal?.aborted) throw new InterruptedError();
  for (const s of settled) if (s.status === "rejected") throw s.reason;
  const first = await firstBase;
  const candidates = await patchRuns;
  const select = runnerRepeatSelection(first, candidates, [...owners.values()], runner);
  const repeats: TreeResult[] = [];
  for (let i = 1; i < c.tasks.reruns; i++) {
    const id = `B#${i + 1}`;
    repeats.push(
      await run({ id, kind: "base", status: "ok" }, repeatKey(i), checkoutBase, { select }),
    );
  }
  const results = [first, ...repeats, ...candidates];
  const listed: Owner[] = [
    ...authors.map((a) => ({ name: a.agent, role: a.role })),
    { name: REPOSITORY, role: "repository" as const },
  ];
  // Reused cells are kept as they ran; the matrix gets every row filled on every tree.
  const filled = results.map((r) => ({
    ...r,
    groups: r.groups.map((g) => ({ ...g, outcomes: new Map(g.outcomes) })),
  }));
  for (const owner of listed) {
    fillRows(
      filled.flatMap((r) => r.groups.filter((g) => g.owner === owner.name).map((g) => g.outcomes)),
      runner,
      owners.get(owner.name)?.statically,
    );
  }
  const order = results.map((r) => r.tree.id);
  return {
    version: RESULTS_VERSION,
    kind: "matrix",
    task: task.id,
    inputsKey: runnerMatrixInputsKey(project, task, attempts, context.env),
    trees: results.map((r) => r.tree),
    ...assembleCells(listed, filled),
    tampering: results.flatMap((r) =>
      r.groups.filter((g) => g.tamper.length > 0 || g.suspect.length > 0).map((g) => ({
        tree: r.tree.id,
        author: g.owner,
        events: g.tamper,
        suspect: g.suspect,
        blame: [],
      }))
    ),
    runs: log.sort((a, b) => order.indexOf(a.tree) - order.indexOf(b.tree) || a.index - b.index),
    reuse: reuse.saved(),
  };
}

function treeStatus(groups: readonly GroupResult[]): Pick<MatrixTree, "status" | "message"> {
  const main = groups.find((g) => g.owner === REPOSITORY) ?? groups[0];
  if (!main) return { status: "ok" };
  return { status: main.status, ...(main.message ? { message: main.message } : {}) };
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
