/**
 * `bugbout evidence`: the B/S/G discipline outside a bout, for any working tree with uncommitted
 * changes (an agent's or a person's). The change is split into its test-only part and the rest;
 * the test-only part is replayed on the base revision in a history-free copy (B), the whole change
 * runs as it is (S), and with a reference fix the test-only part is replayed there too (G). Each
 * new or changed test then either fails on the base — it discriminates the bug — or passes there
 * and says nothing about the bug; with G it gets its full BSG-VA role.
 *
 * Works without a `bugbout.toml` (the layout is detected and a test environment with pytest is
 * built); with one, its tests directory, environment and run settings are used.
 *
 * Requires `--allow-run` (git, cp, uv, the sandbox, the interpreter), `--allow-read`,
 * `--allow-write` (`BUGBOUT_HOME`, temporary space) and `--allow-env`.
 *
 * @module
 */

import { join, resolve } from "node:path";
import { cachedTree, checkout, copyTree } from "../checkout.ts";
import { type Config, loadConfig } from "../config.ts";
import { BugboutError } from "../errors.ts";
import {
  type EvidenceRole,
  evidenceRole,
  inadequateClosure,
  replayClass,
} from "../testbed/roles.ts";
import { authorModules } from "../testbed/authors.ts";
import { treeRules } from "../testbed/context.ts";
import { lookupOutcome, rowIds } from "../testbed/cells.ts";
import { authorGroup, installInPlace } from "../testbed/install.ts";
import type { FileChange, FileState } from "../testbed/patched.ts";
import { runGroups, type SessionSettings } from "../testbed/sessions.ts";
import { Slots } from "../testbed/slots.ts";
import { repositoryRoot, revParse } from "../git.ts";
import { bugboutHome } from "../home.ts";
import { detectLayout } from "../layout.ts";
import { pythonPathFor } from "../mine/package.ts";
import { summarise } from "../oracle/ground_truth.ts";
import { ensureTestEnv, type TestEnv } from "../python/env.ts";
import type { Outcome, RunSummary } from "../records.ts";
import { openSandbox, type SandboxSetting } from "../sandbox/mod.ts";
import type { Sandbox } from "../sandbox/types.ts";
import { defaultTestGlobs, workingChange } from "./change.ts";

export { defaultTestGlobs, globRegExp, matchesGlobs, workingChange } from "./change.ts";

/** Options for {@linkcode checkEvidence}. */
export interface EvidenceOptions {
  /** The working tree (any directory inside it). Default: the current directory. */
  dir?: string;
  /** The revision before the change. Default `HEAD`. */
  base?: string;
  /** A reference fix to replay the tests on too. */
  against?: string;
  /** What counts as a test file (globs); default: {@linkcode defaultTestGlobs}. */
  tests?: readonly string[];
  /** A `bugbout.toml` to use; by default the one at the repository's top, if any. */
  config?: string;
  /** `BUGBOUT_HOME`; by default from the environment. */
  home?: string;
  /** The sandbox; by default `[run] sandbox` (or `auto`), checked. */
  sandbox?: Sandbox;
  /** The test environment; by default the project's, built on first use. */
  env?: TestEnv;
  /** Called with a line of progress now and then. */
  onProgress?: (message: string) => void;
  /** Stop the runs. */
  signal?: AbortSignal;
}

/** Where a test stands on one side: every run failed, every run passed, they disagree, or none. */
export type Standing = "fails" | "passes" | "unstable" | "none";

/** One new or changed test of the change. */
export interface EvidenceCheck {
  /** Its node id in the working tree. */
  test: string;
  /** Its outcome in each run on the base (B). */
  base: Outcome[];
  /** Its outcome on the working tree as it is (S). */
  change: Outcome[];
  /** Its outcome in each run on the reference fix (G), or null without `--against`. */
  reference: Outcome[] | null;
  /** Where it stands on the base. */
  onBase: Standing;
  /** Where it stands on the change. */
  onChange: Standing;
  /** Where it stands on the reference, or null. */
  onReference: Standing | null;
  /** It fails on the base in every run: it discriminates the bug. */
  discriminating: boolean;
  /** Its BSG-VA role with a reference fix, else null. */
  role: EvidenceRole | null;
}

/** What `bugbout evidence` found. */
export interface EvidenceReport {
  /** The repository's top directory. */
  repository: string;
  /** The base revision as given, and its commit. */
  base: { rev: string; commit: string };
  /** The reference fix as given, and its commit, or null. */
  against: { rev: string; commit: string } | null;
  /** The test globs used. */
  globs: string[];
  /** Changed paths in the test-only part. */
  testFiles: string[];
  /** Changed paths in the rest of the change. */
  sourceFiles: string[];
  /** Every new or changed test. */
  tests: EvidenceCheck[];
  /** Tests that fail on the base. */
  discriminating: number;
  /**
   * With a source change: true when no test both fails on the base and passes on the change
   * (evidence-inadequate closure). Null when the change has no source part.
   */
  inadequateClosure: boolean | null;
  /** Every pytest session. */
  runs: RunSummary[];
  /** Things worth knowing about how the check ran. */
  notes: string[];
}

function standing(outcomes: readonly Outcome[]): Standing {
  const c = replayClass(outcomes);
  return c === "fail" ? "fails" : c === "pass" ? "passes" : c;
}

interface Settings {
  config?: Config;
  source?: string;
  tests?: string;
  notes: string[];
}

async function settingsFor(root: string, options: EvidenceOptions): Promise<Settings> {
  const file = options.config ?? join(root, "bugbout.toml");
  const present = options.config !== undefined ||
    await Deno.stat(file).then((s) => s.isFile).catch(() => false);
  if (present) {
    const config = await loadConfig(resolve(file), { skipPathChecks: true });
    return { config, source: config.project.source, tests: config.project.tests, notes: [] };
  }
  const layout = await detectLayout(root);
  return {
    source: layout.source,
    tests: layout.tests,
    notes: [
      `No bugbout.toml: detected the package ${layout.source ?? "(none)"} and the tests in ${
        layout.tests ?? "(none)"
      }.`,
    ],
  };
}

function after(states: ReadonlyMap<string, FileChange>, paths: readonly string[]) {
  const out = new Map<string, FileState>();
  for (const path of paths) out.set(path, states.get(path)!.after);
  return out;
}

/** Run the check on a working tree. Throws a {@linkcode BugboutError} when it cannot. */
export async function checkEvidence(options: EvidenceOptions = {}): Promise<EvidenceReport> {
  const { signal } = options;
  const dir = resolve(options.dir ?? ".");
  const root = await repositoryRoot(dir);
  if (!root) {
    throw new BugboutError(`${dir} is not inside a git repository.`, {
      hint: "Run bugbout evidence in a git working tree with uncommitted changes.",
    });
  }
  const home = options.home ?? bugboutHome();
  const settings = await settingsFor(root, options);
  const c = settings.config;
  const commitOf = async (rev: string) => {
    try {
      return await revParse(root, rev);
    } catch {
      throw new BugboutError(`Cannot find the revision ${rev} in ${root}.`, {
        hint: "Name a commit, branch or tag of this repository.",
      });
    }
  };
  const base = { rev: options.base ?? "HEAD", commit: await commitOf(options.base ?? "HEAD") };
  const against = options.against
    ? { rev: options.against, commit: await commitOf(options.against) }
    : null;
  const globs = options.tests?.length ? [...options.tests] : defaultTestGlobs(settings.tests);
  const scratch = await Deno.makeTempDir({ prefix: "bugbout-evidence-" });
  const runs: RunSummary[] = [];
  try {
    const baseTree = await cachedTree(root, base.commit, { home, signal });
    options.onProgress?.("Reading the change...");
    const change = await workingChange(root, baseTree, { globs, scratch });
    const testFiles = change.files.filter((f) => f.part === "test");
    const testPaths = testFiles.flatMap((f) => (f.oldPath ? [f.oldPath, f.path] : [f.path]));
    const sourceFiles = change.files.filter((f) => f.part === "source").map((f) => f.path);
    const env = options.env ?? await ensureTestEnv({
      home,
      repository: root,
      source: settings.source ?? ".",
      python: c?.project.python,
      interpreter: c?.project.interpreter,
      testDependencies: c?.project.testDependencies ?? ["pytest"],
      installProject: c ? c.project.installProject : settings.source !== undefined,
      cwd: c?.root,
      revision: base.commit,
      signal,
    });
    const rules = await treeRules(baseTree);
    const testStates = new Map([...change.states].filter(([p]) => testPaths.includes(p)));
    const modules = await authorModules(testStates, { python: env.python, rules, signal });
    const report: EvidenceReport = {
      repository: root,
      base,
      against,
      globs,
      testFiles: testFiles.map((f) => f.path),
      sourceFiles,
      tests: [],
      discriminating: 0,
      inadequateClosure: null,
      runs,
      notes: settings.notes,
    };
    if (modules.length === 0) return report;
    const sandbox = options.sandbox ??
      await openSandbox((c?.run.sandbox ?? "auto") as SandboxSetting);
    const session: SessionSettings = {
      sandbox,
      env,
      pythonPath: settings.source ? pythonPathFor(settings.source) : ".",
      pytestArgs: c?.project.pytestArgs ?? [],
      extraEnv: c?.project.env ?? {},
      timeoutMs: (c?.run.testTimeout ?? 600) * 1000,
      memoryMb: c?.run.testMemory ?? 4096,
      deny: [root, home],
      scratch: join(scratch, "runs"),
      slots: new Slots(1),
      signal,
    };
    const group = authorGroup("change", modules, { mode: "as-is" });
    const replay = async (name: string, tree: string, times: number) => {
      const outcomes: Map<string, Outcome>[] = [];
      for (let i = 0; i < times; i++) {
        options.onProgress?.(`Running the tests on ${name}...`);
        const [result] = await runGroups(tree, [group], session, (run) => {
          runs.push(summarise(name, i, run));
        });
        outcomes.push(result.status === "infra-error" ? new Map() : result.outcomes);
      }
      return outcomes;
    };
    const reruns = c?.tasks.reruns ?? 2;
    const bDir = join(scratch, "trees", "B");
    await copyTree(baseTree, bDir, signal);
    await installInPlace(bDir, after(change.states, testPaths));
    const onBase = await replay("base", bDir, reruns);
    let onChange = [onBase[0]];
    if (sourceFiles.length > 0) {
      const sDir = join(scratch, "trees", "S");
      await copyTree(baseTree, sDir, signal);
      await installInPlace(sDir, after(change.states, [...change.states.keys()]));
      onChange = await replay("change", sDir, 1);
    }
    let onReference: Map<string, Outcome>[] | null = null;
    if (against) {
      const gDir = await checkout(root, against.commit, join(scratch, "trees", "G"), {
        home,
        signal,
      });
      await installInPlace(gDir, after(change.states, testPaths));
      onReference = await replay("reference", gDir, reruns);
    }
    for (const id of rowIds([...onBase, ...onChange, ...(onReference ?? [])])) {
      const b = onBase.map((o) => lookupOutcome(o, id));
      const s = onChange.map((o) => lookupOutcome(o, id));
      const g = onReference?.map((o) => lookupOutcome(o, id)) ?? null;
      report.tests.push({
        test: id,
        base: b,
        change: s,
        reference: g,
        onBase: standing(b),
        onChange: standing(s),
        onReference: g ? standing(g) : null,
        discriminating: standing(b) === "fails",
        role: g ? evidenceRole({ B: b, G: g }) : null,
      });
    }
    report.discriminating = report.tests.filter((t) => t.discriminating).length;
    report.inadequateClosure = sourceFiles.length > 0
      ? inadequateClosure({
        patch: true,
        tests: report.tests.map((t) => ({ B: t.base, S: t.change })),
      })
      : null;
    return report;
  } finally {
    await Deno.remove(scratch, { recursive: true }).catch(() => {});
  }
}
