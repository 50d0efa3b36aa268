/**
 * Running owners of rows — authors, and the repository's own suite — on a tree, each kept from
 * reaching another's outcomes, in whatever language.
 *
 * Where the runner allows it (`sharesTrees`: pytest under the guard), owners whose files are test
 * files only share the tree: one run, each owner's group in a process of its own, the tree watched
 * (a group that changes files of the tree that decide what runs is charged with tampering and the
 * tree is built again before anything else runs in it); a group that run never reached (an earlier
 * group used up its time) runs again on its own. Every other owner runs in a copy of the tree of
 * its own, made before anyone's tests are installed, with only its own files in it: Go compiles
 * every `_test.go` of a package into one binary, a JavaScript module can patch globals or rewrite
 * the tree, an author's `conftest.py` must reach its tests and nobody else's.
 *
 * Requires `--allow-run` (cp, the sandbox, the runner), `--allow-read` and `--allow-write` (the
 * trees).
 *
 * @module
 */

import { copyTree, removeTree } from "../checkout.ts";
import { InterruptedError } from "../errors.ts";
import type { RunnerEnv, RunnerGroupRun, RunnerRun, TestRunner } from "../lang/mod.ts";
import {
  type Coverage,
  type GuardEvent,
  type Outcome,
  REPOSITORY,
  type RunStatus,
} from "../records.ts";
import type { Sandbox } from "../sandbox/types.ts";
import {
  aloneLayout,
  authorEntries,
  type AuthorLayout,
  authorRows,
  type AuthorTests,
  installAuthor,
  staticRows,
} from "./authors.ts";
import type { OnSession } from "./runs.ts";
import type { Slots } from "./slots.ts";

/** What one owner's tests did on one tree. */
export interface GroupResult {
  /** The owner: an agent's name, or {@linkcode REPOSITORY}. */
  owner: string;
  /** How its run ended (`tampered`: the grading was interfered with). */
  status: RunStatus;
  /** Why it is not `ok`, in words. */
  message?: string;
  /** Outcome of each of its rows, by matrix id (a file that failed to load: its id). */
  outcomes: Map<string, Outcome>;
  /** What the code under test did to the grading in this owner's run. */
  tamper: GuardEvent[];
  /** What it did that deserves a look without being tampering. */
  suspect: GuardEvent[];
  /** What each of its tests reached of the tree's code, when asked for (`OwnersRun.cover`). */
  coverage?: Coverage;
}

/** One owner of rows, as {@linkcode runOwners} runs it. */
export interface RowOwner {
  /** An agent's name, or {@linkcode REPOSITORY}. */
  name: string;
  /** What identifies its tests, for reusing cells. */
  key: string;
  /** Whether it may share a tree with others (its files are test files only). */
  shareable: boolean;
  /** Rows known before anything runs. */
  statically: string[];
  /** Put its files into a tree. */
  install(tree: string, placing: { layout: AuthorLayout; alone: boolean }): Promise<void>;
  /** Its group, in `layout`: all of it, or with `select` only those rows (matrix ids). */
  entries(layout: AuthorLayout, select?: ReadonlySet<string>): string[];
  /** Its rows among what a run of its group reported, by matrix id. */
  rows(reported: Readonly<Record<string, Outcome>>, layout: AuthorLayout): Map<string, Outcome>;
}

/** An author with tests as an owner of rows. */
export function authorOwner(author: AuthorTests, runner: TestRunner): RowOwner {
  return {
    name: author.agent,
    key: author.key,
    shareable: author.shareable,
    statically: staticRows(author, runner),
    install: (tree, placing) => installAuthor(tree, author, runner, placing),
    entries: (layout, select) => authorEntries(author, runner, layout, select),
    rows: (reported, layout) => authorRows(author, runner, reported, layout),
  };
}

/**
 * The repository's own suite as an owner of rows: its entries (`runner.suite`), in place; its rows
 * every test a run of them reported, in the suite's order.
 */
export function suiteOwner(entries: readonly string[], key: string, runner: TestRunner): RowOwner {
  const at = new Map(entries.map((e, i) => [e, i]));
  const index = (id: string) => at.get(runner.fileOf(id)) ?? at.get(id) ?? entries.length;
  return {
    name: REPOSITORY,
    key,
    shareable: true,
    statically: [],
    install: () => Promise.resolve(),
    entries: (_layout, select) => (select ? [...select] : [...entries]),
    rows: (reported) =>
      new Map(
        Object.entries(reported).filter(([id]) => index(id) < entries.length)
          // A runner may report files as they finish: the suite's order, stable within a file.
          .sort(([a], [b]) => index(a) - index(b)),
      ),
  };
}

/** How every run of a stage is made. */
export interface RunSettings {
  /** The sandbox every run is made in. */
  sandbox: Sandbox;
  /** `[project] env`. */
  extraEnv: Record<string, string>;
  /** `[run] test-timeout`, in milliseconds. */
  timeoutMs: number;
  /** `[run] test-memory`, in MiB. */
  memoryMb?: number;
  /** Host paths the tests must not read. */
  deny: readonly string[];
  /** Where runs keep their scratch directories. */
  scratch: string;
  /** Bounds how many runs are made at once. */
  slots: Slots;
  /** Stops every run. */
  signal?: AbortSignal;
}

/** Builds a tree in a directory: false when it cannot be made (a patch does not apply). */
export type TreeBuild = (dir: string) => Promise<{ ok: true } | { ok: false; message: string }>;

/** What {@linkcode runOwners} runs. */
export interface OwnersRun {
  /** Where the tree is built (its copies go beside it, `<dir>~<n>`). */
  dir: string;
  /** Builds the tree in a directory. */
  build: TreeBuild;
  /** Who runs there, in order. */
  owners: readonly RowOwner[];
  /** The tree's runner and environment. */
  runner: TestRunner;
  env: RunnerEnv;
  settings: RunSettings;
  /** For some owners, only these of their rows (an owner with none is left out). */
  select?: ReadonlyMap<string, ReadonlySet<string>>;
  /** Told of every run as it starts and as it ends, with the owners it held. */
  onSession: OnSession;
  /**
   * The owner whose coverage by test to record (where the runner can), and who then runs first
   * among those sharing the tree, on the tree as built: nothing of another owner has run there.
   */
  cover?: string;
  /** The owner who runs first among those sharing the tree (as with `cover`). */
  first?: string;
}

/**
 * Build the tree and run every owner on it, each kept from reaching another's outcomes (see the
 * module's documentation). One result per owner, in order; `{failed}` when the tree cannot be
 * built. The tree and its copies are removed before this returns.
 */
export async function runOwners(run: OwnersRun): Promise<GroupResult[] | { failed: string }> {
  const { dir, runner, settings } = run;
  const { signal } = settings;
  const copies: string[] = [];
  try {
    const built = await run.build(dir);
    if (!built.ok) return { failed: built.message };
    const chosen = run.owners.filter((o) => run.select?.get(o.name)?.size !== 0);
    const shared = runner.sharesTrees ? chosen.filter((o) => o.shareable) : [];
    const alone = chosen.filter((o) => !shared.includes(o));
    const layout = aloneLayout(runner);
    // Copies first: none of them holds anything of the owners who share the tree.
    const places = new Map<RowOwner, string>();
    for (const [i, owner] of alone.entries()) {
      const copy = `${dir}~${i}`;
      copies.push(copy);
      await copyTree(dir, copy, signal);
      await owner.install(copy, { layout, alone: true });
      places.set(owner, copy);
    }
    const install = async () => {
      for (const owner of shared) await owner.install(dir, { layout: "beside", alone: false });
    };
    await install();
    const restore = async () => {
      await removeTree(dir);
      await run.build(dir);
      await install();
    };
    const results = new Map<RowOwner, GroupResult>();
    const settled = await Promise.allSettled([
      runShared(run, shared, restore, results),
      ...alone.map(async (owner) => {
        const [group] = await session(run, places.get(owner)!, [owner], layout);
        results.set(owner, resultOf(owner, group, layout));
      }),
    ]);
    if (signal?.aborted) throw new InterruptedError();
    for (const s of settled) if (s.status === "rejected") throw s.reason;
    return run.owners.map((o) =>
      results.get(o) ??
        { owner: o.name, status: "ok", outcomes: new Map(), tamper: [], suspect: [] }
    );
  } finally {
    for (const copy of copies) await removeTree(copy);
    await removeTree(dir);
  }
}

/** The owners who share the tree: one run, then each group that run never reached on its own. */
async function runShared(
  run: OwnersRun,
  shared: readonly RowOwner[],
  restore: () => Promise<void>,
  results: Map<RowOwner, GroupResult>,
) {
  const lead = run.cover ?? run.first;
  const active = shared.filter((o) => o.entries("beside", run.select?.get(o.name)).length > 0)
    .sort((a, b) => Number(b.name === lead) - Number(a.name === lead));
  if (active.length === 0) return;
  const together = await session(run, run.dir, active, "beside", restore);
  for (const [i, owner] of active.entries()) {
    const own = together[i];
    const group = !own.unreached || active.length === 1
      ? own
      : (await session(run, run.dir, [owner], "beside", restore))[0];
    results.set(owner, resultOf(owner, group, "beside"));
  }
}

/** One run of `owners`' groups on `tree`; the tree is put back when a group changed it. */
async function session(
  run: OwnersRun,
  tree: string,
  owners: readonly RowOwner[],
  layout: AuthorLayout,
  restore?: () => Promise<void>,
): Promise<RunnerGroupRun[]> {
  const s = run.settings;
  const ran: RunnerRun = await s.slots.use(() => {
    if (s.signal?.aborted) throw new InterruptedError();
    run.onSession.starting?.();
    return run.runner.run({
      sandbox: s.sandbox,
      env: run.env,
      tree,
      groups: owners.map((o) => o.entries(layout, run.select?.get(o.name))),
      ...(run.cover && owners.some((o) => o.name === run.cover)
        ? { cover: [owners.findIndex((o) => o.name === run.cover)] }
        : {}),
      extraEnv: s.extraEnv,
      timeoutMs: s.timeoutMs,
      memoryMb: s.memoryMb,
      deny: s.deny,
      scratch: s.scratch,
      signal: s.signal,
    });
  });
  if (s.signal?.aborted) throw new InterruptedError();
  run.onSession(ran, owners.map((o) => o.name));
  if (ran.treeChanged && restore) await restore();
  return owners.map((_, i) => ran.groups[i] ?? { ...ran, complete: false });
}

function resultOf(owner: RowOwner, group: RunnerGroupRun, layout: AuthorLayout): GroupResult {
  return {
    owner: owner.name,
    status: group.status,
    ...(group.message ? { message: group.message } : {}),
    outcomes: owner.rows(group.outcomes, layout),
    tamper: group.tamper,
    suspect: group.suspect,
    ...(group.coverage ? { coverage: group.coverage } : {}),
  };
}
