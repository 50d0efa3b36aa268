/**
 * Running groups of tests on a tree: one pytest session for everything that can share it, one
 * more for each author whose configuration must stay its own, and a fallback that keeps one
 * author's crash or hang from costing everyone else their outcomes.
 *
 * When a shared session does not end `ok` (pytest crashed, refused to start, timed out or ran out
 * of memory), each group whose tests did not all finish runs again on its own; a group whose tests
 * all finished before the trouble keeps its outcomes.
 *
 * Requires `--allow-run` (the sandbox, cp), `--allow-read` and `--allow-write` (the trees).
 *
 * @module
 */

import { copyTree, removeTree } from "../checkout.ts";
import { InterruptedError } from "../errors.ts";
import {
  type GroupRun,
  type GuardEvent,
  type PytestRun,
  runPytest,
  type TestPython,
} from "../lang/python/mod.ts";
import type { Outcome, RunStatus } from "../records.ts";
import type { Sandbox } from "../sandbox/types.ts";
import type { AuthorTests } from "./authors.ts";
import {
  authorGroup,
  installBeside,
  installInPlace,
  narrowed,
  suiteGroup,
  type TestGroup,
} from "./install.ts";
import type { OnSession } from "./runs.ts";
import type { Slots } from "./slots.ts";

/** How pytest sessions run. */
export interface SessionSettings {
  /** The sandbox every session runs in. */
  sandbox: Sandbox;
  /** The test environment's Python. */
  env: TestPython;
  /** The tree directory that goes on `PYTHONPATH` (`.` or `src`). */
  pythonPath: string;
  /** `[project] pytest-args`. */
  pytestArgs: readonly string[];
  /** `[project] env`. */
  extraEnv: Record<string, string>;
  /** `[run] test-timeout`, in milliseconds. */
  timeoutMs: number;
  /** `[run] test-memory`, in MiB. */
  memoryMb?: number;
  /** Host paths the tests must not read. */
  deny: readonly string[];
  /** Where sessions keep their run directories (the guard, its results channel). */
  scratch: string;
  /** Bounds how many sessions run at once. */
  slots: Slots;
  /** Stops every session. */
  signal?: AbortSignal;
}

/** What one group's tests did on one tree. */
export interface GroupResult {
  /** The author. */
  owner: string;
  /** How the group's pytest session ended (`tampered`: the grading was interfered with). */
  status: RunStatus;
  /** Why it is not `ok`, in words. */
  message?: string;
  /** Outcome of each of its tests, by matrix id (a module that failed to collect: its path). */
  outcomes: Map<string, Outcome>;
  /** What the code under test did to the grading in this group's session. */
  tamper: GuardEvent[];
  /** What it did that deserves a look without being tampering. */
  suspect: GuardEvent[];
}

function session(
  tree: string,
  groups: readonly TestGroup[],
  s: SessionSettings,
  onSession: OnSession,
): Promise<PytestRun> {
  return s.slots.use(() => {
    if (s.signal?.aborted) throw new InterruptedError();
    onSession.starting?.();
    return runPytest({
      sandbox: s.sandbox,
      env: s.env,
      tree,
      targets: [],
      groups: groups.map((g) => g.targets),
      pythonPath: [s.pythonPath],
      pytestArgs: s.pytestArgs,
      extraEnv: s.extraEnv,
      timeoutMs: s.timeoutMs,
      memoryMb: s.memoryMb,
      deny: [...s.deny],
      scratch: s.scratch,
      signal: s.signal,
    });
  });
}

function result(group: TestGroup, run: GroupRun): GroupResult {
  const outcomes = new Map<string, Outcome>();
  for (const [nodeId, outcome] of Object.entries(run.outcomes)) {
    const id = group.idOf(nodeId);
    if (id !== undefined) outcomes.set(id, outcome);
  }
  return {
    owner: group.owner,
    status: run.status,
    ...(run.message ? { message: run.message } : {}),
    outcomes,
    tamper: run.tamper,
    suspect: run.suspect,
  };
}

/**
 * Run `groups` on `tree` in one session, each group in a process of its own (so no author's tests
 * can reach another's), then each group that session never reached (an earlier group used up its
 * time) in a session of its own. When a group changed the files of the tree that decide what
 * Python runs, it is charged with tampering and `restore` puts the tree back before anything else
 * runs on it. Returns one result per group, in order.
 */
export async function runGroups(
  tree: string,
  groups: readonly TestGroup[],
  settings: SessionSettings,
  onSession: OnSession,
  restore?: () => Promise<void>,
): Promise<GroupResult[]> {
  const active = groups.filter((g) => g.targets.length > 0);
  const results = new Map<TestGroup, GroupResult>();
  const run = async (batch: readonly TestGroup[]) => {
    const ran = await session(tree, batch, settings, onSession);
    onSession(ran, batch.map((g) => g.owner));
    if (ran.treeChanged && restore) await restore();
    return ran;
  };
  if (active.length > 0) {
    const together = await run(active);
    for (const [i, group] of active.entries()) {
      const own = together.groups[i];
      if (!own.unreached || active.length === 1) results.set(group, result(group, own));
      else results.set(group, result(group, (await run([group])).groups[0]));
    }
  }
  return groups.map((g) =>
    results.get(g) ?? { owner: g.owner, status: "ok", outcomes: new Map(), tamper: [], suspect: [] }
  );
}

/** A tree with every author's tests installed: shared ones beside, in-place ones in copies. */
export interface PreparedTree {
  /** The tree itself, with shared authors' modules beside the originals. */
  dir: string;
  /** Shared authors with tests. */
  shared: AuthorTests[];
  /** Authors with configuration of their own, each with its private copy of the tree. */
  isolated: { author: AuthorTests; dir: string }[];
  /** Build the tree again from nothing (after tests changed its code). */
  rebuild: () => Promise<void>;
}

/**
 * Install every author's tests into the tree at `dir` (made by `build`): a private copy
 * (`<dir>~<author dir>`) with its files in place for each in-place author, then shared authors'
 * modules beside the originals. Authors without tests (or whose patch did not apply) are left out.
 * `build` makes the tree again whenever a session changed its code.
 */
export async function prepareTree(
  dir: string,
  authors: readonly AuthorTests[],
  build: (dir: string) => Promise<unknown>,
  signal?: AbortSignal,
): Promise<PreparedTree> {
  const withTests = authors.filter((a) => !a.problem && a.modules.length > 0);
  const shared = withTests.filter((a) => a.shared);
  const isolated = withTests.filter((a) => !a.shared).map((author) => ({
    author,
    dir: `${dir}~${author.dir}`,
  }));
  const install = async () => {
    for (const { author, dir: copy } of isolated) {
      await copyTree(dir, copy, signal);
      await installInPlace(copy, author.files);
    }
    for (const author of shared) await installBeside(dir, author);
  };
  await install();
  return {
    dir,
    shared,
    isolated,
    rebuild: async () => {
      for (const path of [dir, ...isolated.map((i) => i.dir)]) await removeTree(path);
      await build(dir);
      await install();
    },
  };
}

/** What {@linkcode runPrepared} runs of a prepared tree. */
export interface RunSelection {
  /** The repository's suite (its test modules), run as an author of its own. */
  suite?: readonly string[];
  /** Only these owners (authors, or the repository); by default every one. */
  only?: ReadonlySet<string>;
  /** For these owners, only these of their tests (matrix ids); an owner with none is left out. */
  select?: ReadonlyMap<string, ReadonlySet<string>>;
}

/**
 * Run a prepared tree once: the suite (when given) and shared authors in one session, each in a
 * process of its own, then each in-place author in its own session, as far as `selection` asks.
 * Results are per author, the repository after the shared authors.
 */
export async function runPrepared(
  tree: PreparedTree,
  settings: SessionSettings,
  onSession: OnSession,
  selection: RunSelection = {},
): Promise<GroupResult[]> {
  const { only, select } = selection;
  const chosen = (group: TestGroup): TestGroup[] => {
    if (only !== undefined && !only.has(group.owner)) return [];
    const ids = select?.get(group.owner);
    if (ids === undefined) return [group];
    return ids.size > 0 ? [narrowed(group, ids)] : [];
  };
  const groups = tree.shared.flatMap((a) =>
    chosen(authorGroup(a.agent, a.modules, { mode: "beside", dir: a.dir }))
  );
  if (selection.suite?.length) groups.push(...chosen(suiteGroup(selection.suite)));
  const results = await runGroups(tree.dir, groups, settings, onSession, tree.rebuild);
  for (const { author, dir } of tree.isolated) {
    const group = chosen(
      authorGroup(author.agent, author.modules, { mode: "in-place", dir: author.dir }),
    );
    if (group.length) {
      results.push(...await runGroups(dir, group, settings, onSession, tree.rebuild));
    }
  }
  return results;
}
