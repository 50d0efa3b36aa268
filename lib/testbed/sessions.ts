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

import { copyTree } from "../checkout.ts";
import { InterruptedError } from "../errors.ts";
import { type PytestRun, runPytest, type TestPython } from "../python/mod.ts";
import type { Outcome, RunStatus } from "../records.ts";
import type { Sandbox } from "../sandbox/types.ts";
import type { AuthorTests } from "./authors.ts";
import {
  authorGroup,
  installBeside,
  installInPlace,
  suiteGroup,
  type TestGroup,
} from "./install.ts";
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
  /** Where sessions keep their JUnit XML. */
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
  /** How the session that ran them ended. */
  status: RunStatus;
  /** Why it is not `ok`, in words. */
  message?: string;
  /** Outcome of each of its tests, by matrix id (a module that failed to collect: its path). */
  outcomes: Map<string, Outcome>;
}

/** Called for every session: the run and the authors whose tests it held. */
export type OnSession = (run: PytestRun, owners: string[]) => void;

function session(tree: string, targets: string[], s: SessionSettings): Promise<PytestRun> {
  return s.slots.use(() => {
    if (s.signal?.aborted) throw new InterruptedError();
    return runPytest({
      sandbox: s.sandbox,
      env: s.env,
      tree,
      targets,
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

function distribute(run: PytestRun, groups: readonly TestGroup[]): Map<string, Outcome>[] {
  const shares = groups.map(() => new Map<string, Outcome>());
  for (const [nodeId, outcome] of Object.entries(run.outcomes)) {
    for (let i = 0; i < groups.length; i++) {
      const id = groups[i].idOf(nodeId);
      if (id !== undefined) {
        shares[i].set(id, outcome);
        break;
      }
    }
  }
  return shares;
}

function result(owner: string, run: PytestRun, outcomes: Map<string, Outcome>): GroupResult {
  return { owner, status: run.status, ...(run.message ? { message: run.message } : {}), outcomes };
}

/**
 * Run `groups` on `tree` in one session, falling back to one session per group for the groups the
 * shared session left unfinished. Returns one result per group, in order.
 */
export async function runGroups(
  tree: string,
  groups: readonly TestGroup[],
  settings: SessionSettings,
  onSession: OnSession,
): Promise<GroupResult[]> {
  const active = groups.filter((g) => g.targets.length > 0);
  const results = new Map<TestGroup, GroupResult>();
  if (active.length > 0) {
    const combined = await session(tree, active.flatMap((g) => g.targets), settings);
    onSession(combined, active.map((g) => g.owner));
    const shares = distribute(combined, active);
    for (const [i, group] of active.entries()) {
      const share = shares[i];
      const finished = combined.status !== "infra-error" && share.size > 0 &&
        [...share.values()].every((o) => o !== "not-run");
      if (combined.status === "ok" || active.length === 1) {
        results.set(group, result(group.owner, combined, share));
      } else if (finished) {
        results.set(group, { owner: group.owner, status: "ok", outcomes: share });
      } else {
        const alone = await session(tree, group.targets, settings);
        onSession(alone, [group.owner]);
        results.set(group, result(group.owner, alone, distribute(alone, [group])[0]));
      }
    }
  }
  return groups.map((g) => results.get(g) ?? { owner: g.owner, status: "ok", outcomes: new Map() });
}

/** A tree with every author's tests installed: shared ones beside, in-place ones in copies. */
export interface PreparedTree {
  /** The tree itself, with shared authors' modules beside the originals. */
  dir: string;
  /** Shared authors with tests. */
  shared: AuthorTests[];
  /** Authors with configuration of their own, each with its private copy of the tree. */
  isolated: { author: AuthorTests; dir: string }[];
}

/**
 * Install every author's tests into the tree at `dir`: a private copy (`<dir>~<author dir>`) with
 * its files in place for each in-place author, then shared authors' modules beside the originals.
 * Authors without tests (or whose patch did not apply) are left out.
 */
export async function prepareTree(
  dir: string,
  authors: readonly AuthorTests[],
  signal?: AbortSignal,
): Promise<PreparedTree> {
  const withTests = authors.filter((a) => !a.problem && a.modules.length > 0);
  const isolated: PreparedTree["isolated"] = [];
  for (const author of withTests.filter((a) => !a.shared)) {
    const copy = `${dir}~${author.dir}`;
    await copyTree(dir, copy, signal);
    await installInPlace(copy, author.files);
    isolated.push({ author, dir: copy });
  }
  const shared = withTests.filter((a) => a.shared);
  for (const author of shared) await installBeside(dir, author);
  return { dir, shared, isolated };
}

/**
 * Run a prepared tree once: the suite (when given) and shared authors in one session, then each
 * in-place author in its own. Results are per author, the repository last.
 */
export async function runPrepared(
  tree: PreparedTree,
  suite: readonly string[] | null,
  settings: SessionSettings,
  onSession: OnSession,
): Promise<GroupResult[]> {
  const groups = tree.shared.map((a) =>
    authorGroup(a.agent, a.modules, { mode: "beside", dir: a.dir })
  );
  if (suite && suite.length > 0) groups.push(suiteGroup(suite));
  const results = await runGroups(tree.dir, groups, settings, onSession);
  for (const { author, dir } of tree.isolated) {
    const group = authorGroup(author.agent, author.modules, { mode: "in-place", dir: author.dir });
    results.push(...await runGroups(dir, [group], settings, onSession));
  }
  return results;
}
