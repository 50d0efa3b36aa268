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
 * In a Go module or a JavaScript project (`[project] language`, or found as `init` finds it: a
 * `go.mod`, a `package.json` with a test runner, and no Python package) the check is the same
 * with the project's test runner (`runner.ts`): its test files are the test part, its ids name
 * the tests, and its prepared environment runs them.
 *
 * Requires `--allow-run` (git, cp, uv, the sandbox, the interpreter), `--allow-read`,
 * `--allow-write` (`BUGBOUT_HOME`, temporary space) and `--allow-env`.
 *
 * @module
 */

import { join, resolve } from "node:path";
import { cachedTree, checkout, copyTree } from "../checkout.ts";
import { loadConfig } from "../config.ts";
import { BugboutError } from "../errors.ts";
import { removeIfExists, statIfExists } from "../fs.ts";
import { repositoryRoot, revParse } from "../git.ts";
import { bugboutHome } from "../home.ts";
import { detectLayout, pythonPathFor } from "../layout.ts";
import { ensureTestEnv, type TestEnv } from "../lang/python/mod.ts";
import type { Outcome } from "../records.ts";
import { detectOtherLanguages } from "../lang/mod.ts";
import { openSandbox, type SandboxSetting } from "../sandbox/mod.ts";
import type { Sandbox } from "../sandbox/types.ts";
import {
  authorGroup,
  type AuthorModule,
  authorModules,
  type FileChange,
  type FileState,
  installInPlace,
  lookupOutcome,
  rowIds,
  runGroups,
  RunLog,
  type SessionSettings,
  Slots,
  treeRules,
} from "../testbed/mod.ts";
import { defaultTestGlobs, type WorkingChange, workingChange } from "./change.ts";
import { ProcError } from "../proc.ts";
import { checkRunnerEvidence } from "./runner.ts";
import {
  closeReport,
  type EvidenceCheck,
  evidenceCheck,
  type EvidenceOptions,
  type EvidenceReport,
  type Settings,
  type Subject,
} from "./types.ts";

export { defaultTestGlobs, globRegExp, matchesGlobs, workingChange } from "./change.ts";
export { changeTests } from "./runner.ts";
export type {
  EvidenceCheck,
  EvidenceOptions,
  EvidenceReport,
  Settings,
  Standing,
  Subject,
} from "./types.ts";

async function settingsFor(root: string, options: EvidenceOptions): Promise<Settings> {
  const file = options.config ?? join(root, "bugbout.toml");
  if (options.config !== undefined || (await statIfExists(file))?.isFile) {
    const config = await loadConfig(resolve(file), { skipPathChecks: true });
    return {
      config,
      language: config.project.language,
      source: config.project.source,
      tests: config.project.tests,
      notes: [],
    };
  }
  const layout = await detectLayout(root);
  // As init decides: a Python package wins; without one, a go.mod or a package.json with a test
  // runner does.
  if (!layout.isPython || !layout.source) {
    const [other] = await detectOtherLanguages(root);
    if (other) {
      return {
        language: other.language,
        notes: [`No bugbout.toml: found ${other.runner}: ${other.evidence}.`],
      };
    }
  }
  return {
    language: "python",
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

/** Phase 1: the repository around `options.dir`, its settings and the revisions named. */
async function subjectOf(options: EvidenceOptions): Promise<Subject> {
  const dir = resolve(options.dir ?? ".");
  const root = await repositoryRoot(dir);
  if (!root) {
    throw new BugboutError(`${dir} is not inside a git repository.`, {
      hint: "Run bugbout evidence in a git working tree with uncommitted changes.",
    });
  }
  const commitOf = async (rev: string) => {
    try {
      return await revParse(root, rev);
    } catch (error) {
      if (!(error instanceof ProcError)) throw error;
      throw new BugboutError(`Cannot find the revision ${rev} in ${root}.`, {
        hint: "Name a commit, branch or tag of this repository.",
      });
    }
  };
  const base = options.base ?? "HEAD";
  return {
    root,
    home: options.home ?? bugboutHome(),
    settings: await settingsFor(root, options),
    base: { rev: base, commit: await commitOf(base) },
    against: options.against
      ? { rev: options.against, commit: await commitOf(options.against) }
      : null,
  };
}

/** The test environment for a check: the project's, or one with pytest for a bare repository. */
function environmentFor(subject: Subject, signal?: AbortSignal): Promise<TestEnv> {
  const { settings } = subject;
  const c = settings.config;
  return ensureTestEnv({
    home: subject.home,
    repository: subject.root,
    source: settings.source ?? ".",
    python: c?.project.python,
    interpreter: c?.project.interpreter,
    testDependencies: c?.project.testDependencies ?? ["pytest"],
    installProject: c ? c.project.installProject : settings.source !== undefined,
    cwd: c?.root,
    revision: subject.base.commit,
    signal,
  });
}

/** How the check's sessions run: the project's settings where there are some. */
function sessionsFor(
  subject: Subject,
  sandbox: Sandbox,
  env: TestEnv,
  scratch: string,
  signal?: AbortSignal,
): SessionSettings {
  const { settings } = subject;
  const c = settings.config;
  return {
    sandbox,
    env,
    pythonPath: settings.source ? pythonPathFor(settings.source) : ".",
    pytestArgs: c?.project.pytestArgs ?? [],
    extraEnv: c?.project.env ?? {},
    timeoutMs: (c?.run.testTimeout ?? 600) * 1000,
    memoryMb: c?.run.testMemory ?? 4096,
    deny: [subject.root, subject.home],
    scratch: join(scratch, "runs"),
    slots: new Slots(1),
    signal,
  };
}

/** Outcomes of the change's tests in each run on each side. */
interface Replays {
  onBase: Map<string, Outcome>[];
  onChange: Map<string, Outcome>[];
  onReference: Map<string, Outcome>[] | null;
}

/**
 * Phase 3: the tests alone on B (`reruns` times), the whole change as it is (S, once, when it has
 * a source part), and the tests alone on the reference fix (G, `reruns` times).
 */
async function replay(
  subject: Subject,
  change: WorkingChange,
  modules: AuthorModule[],
  run: { baseTree: string; scratch: string; session: SessionSettings; log: RunLog },
  options: EvidenceOptions,
): Promise<Replays> {
  const { signal } = options;
  const testPaths = change.files.filter((f) => f.part === "test")
    .flatMap((f) => (f.oldPath ? [f.oldPath, f.path] : [f.path]));
  const hasSource = change.files.some((f) => f.part === "source");
  const group = authorGroup("change", modules, { mode: "as-is" });
  const times = async (name: string, tree: string, n: number) => {
    const outcomes: Map<string, Outcome>[] = [];
    for (let i = 0; i < n; i++) {
      options.onProgress?.(`Running the tests on ${name}...`);
      const [result] = await runGroups(tree, [group], run.session, run.log.on(name));
      outcomes.push(result.status === "infra-error" ? new Map() : result.outcomes);
    }
    return outcomes;
  };
  const tree = async (name: string, files: readonly string[]) => {
    const dir = join(run.scratch, "trees", name);
    await copyTree(run.baseTree, dir, signal);
    await installInPlace(dir, after(change.states, files));
    return dir;
  };
  const reruns = subject.settings.config?.tasks.reruns ?? 2;
  const onBase = await times("base", await tree("B", testPaths), reruns);
  const onChange = hasSource
    ? await times("change", await tree("S", [...change.states.keys()]), 1)
    : [onBase[0]];
  let onReference: Map<string, Outcome>[] | null = null;
  if (subject.against) {
    const gDir = await checkout(
      subject.root,
      subject.against.commit,
      join(run.scratch, "trees", "G"),
      {
        home: subject.home,
        signal,
      },
    );
    await installInPlace(gDir, after(change.states, testPaths));
    onReference = await times("reference", gDir, reruns);
  }
  return { onBase, onChange, onReference };
}

/** Phase 4: each test's standing on every side, and its role with a reference fix. */
function checksOf(replays: Replays): EvidenceCheck[] {
  const { onBase, onChange, onReference } = replays;
  return rowIds([...onBase, ...onChange, ...(onReference ?? [])]).map((id) =>
    evidenceCheck(
      id,
      onBase.map((o) => lookupOutcome(o, id)),
      onChange.map((o) => lookupOutcome(o, id)),
      onReference?.map((o) => lookupOutcome(o, id)) ?? null,
    )
  );
}

/** Run the check on a working tree. Throws a {@linkcode BugboutError} when it cannot. */
export async function checkEvidence(options: EvidenceOptions = {}): Promise<EvidenceReport> {
  const { signal } = options;
  const subject = await subjectOf(options);
  const { root, settings } = subject;
  if (settings.language !== "python") {
    return await checkRunnerEvidence(subject, settings.language, options);
  }
  const globs = options.tests?.length ? [...options.tests] : defaultTestGlobs(settings.tests);
  const scratch = await Deno.makeTempDir({ prefix: "bugbout-evidence-" });
  const log = new RunLog();
  try {
    // Phase 2: the change, and the tests it adds or changes.
    const baseTree = await cachedTree(root, subject.base.commit, { home: subject.home, signal });
    options.onProgress?.("Reading the change...");
    const change = await workingChange(root, baseTree, { globs, scratch });
    const testFiles = change.files.filter((f) => f.part === "test");
    const testPaths = testFiles.flatMap((f) => (f.oldPath ? [f.oldPath, f.path] : [f.path]));
    const sourceFiles = change.files.filter((f) => f.part === "source").map((f) => f.path);
    const env = options.env ?? await environmentFor(subject, signal);
    const testStates = new Map([...change.states].filter(([p]) => testPaths.includes(p)));
    const modules = await authorModules(testStates, {
      python: env.python,
      rules: await treeRules(baseTree),
      signal,
    });
    const report: EvidenceReport = {
      repository: root,
      base: subject.base,
      against: subject.against,
      globs,
      testFiles: testFiles.map((f) => f.path),
      sourceFiles,
      tests: [],
      discriminating: 0,
      inadequateClosure: null,
      runs: log.runs,
      notes: settings.notes,
    };
    if (modules.length === 0) return report;
    const sandbox = options.sandbox ??
      await openSandbox((settings.config?.run.sandbox ?? "auto") as SandboxSetting);
    const session = sessionsFor(subject, sandbox, env, scratch, signal);
    const replays = await replay(
      subject,
      change,
      modules,
      { baseTree, scratch, session, log },
      options,
    );
    report.tests = checksOf(replays);
    closeReport(report, sourceFiles.length > 0);
    return report;
  } finally {
    await removeIfExists(scratch);
  }
}
