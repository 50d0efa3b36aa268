/**
 * `bugbout evidence`: the B/S/G discipline outside a bout, for any working tree with uncommitted
 * changes (an agent's or a person's). The change is split into its test-only part and the rest;
 * the test-only part is replayed on the base revision in a history-free copy (B), the whole change
 * runs as it is (S), and with a reference fix the test-only part is replayed there too (G). Each
 * new or changed test then either fails on the base — it discriminates the bug — or passes there
 * and says nothing about the bug; with G it gets its full BSG-VA role.
 *
 * Works without a `bugbout.toml` (the language and layout are found as `init` finds them); with
 * one, its language, tests directory, environment and run settings are used. The test part is what
 * `--tests` globs name, else the language's own globs (Python: the tests directory, `test_*.py`,
 * ...), else its runner's test files; the tests it adds or changes are the runner's reading of each
 * test file before and after the change (Python compares syntax trees), under their own ids,
 * installed in place. Every run is in the sandbox on a fresh copy of its tree, with the environment
 * the language prepares for that tree; where a failing test can end the whole process (Go's panic)
 * each test runs in a process of its own.
 *
 * Requires `--allow-run` (git, cp, the sandbox, the runners), `--allow-read`, `--allow-write`
 * (`BUGBOUT_HOME`, temporary space) and `--allow-env`.
 *
 * @module
 */

import { join, resolve } from "node:path";
import { cachedTree, checkout, copyTree, removeTree } from "../checkout.ts";
import { loadConfig } from "../config.ts";
import { BugboutError, InterruptedError } from "../errors.ts";
import { removeIfExists, statIfExists } from "../fs.ts";
import { repositoryRoot, revParse } from "../git.ts";
import { bugboutHome } from "../home.ts";
import {
  detectProject,
  languageOf,
  type ProjectTools,
  type RunnerTree,
  type TreePlace,
} from "../lang/mod.ts";
import { ProcError } from "../proc.ts";
import type { Outcome } from "../records.ts";
import { openSandbox, type SandboxSetting } from "../sandbox/mod.ts";
import type { Sandbox } from "../sandbox/types.ts";
import {
  authorEntries,
  authorFromChanges,
  authorRows,
  type AuthorTests,
  lookupOutcome,
  rowIds,
  RunLog,
  staticRows,
  writeState,
} from "../testbed/mod.ts";
import { matchesGlobs, type WorkingChange, workingChange } from "./change.ts";
import {
  closeReport,
  type EvidenceCheck,
  evidenceCheck,
  type EvidenceOptions,
  type EvidenceReport,
  type Settings,
  type Subject,
} from "./types.ts";

export { globRegExp, matchesGlobs, workingChange } from "./change.ts";
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
  const found = await detectProject(root);
  const { source, tests } = found.detected ?? {};
  return {
    language: found.language,
    source,
    tests,
    notes: [
      source === undefined && found.detected
        ? `No bugbout.toml: found ${found.detected.runner}: ${found.detected.evidence}.`
        : `No bugbout.toml: detected the package ${source ?? "(none)"} and the tests in ${
          tests ?? "(none)"
        }.`,
    ],
  };
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

/**
 * The tools for a check: the project's, or, for a repository without a `bugbout.toml`, the
 * language's with its defaults (an environment with the runner, the package installed when one
 * was found); a shared environment is built from the base's dependency declarations.
 */
export function evidenceTools(subject: Subject, options: EvidenceOptions = {}): ProjectTools {
  const { settings } = subject;
  const c = settings.config;
  return languageOf(settings.language).tools({
    repository: subject.root,
    home: subject.home,
    config: {
      root: c?.root ?? subject.root,
      project: {
        source: settings.source ?? ".",
        tests: settings.tests ?? "tests",
        python: c?.project.python,
        interpreter: c?.project.interpreter,
        testDependencies: c?.project.testDependencies ?? ["pytest"],
        installProject: c ? c.project.installProject : settings.source !== undefined,
        pytestArgs: c?.project.pytestArgs ?? [],
        env: c?.project.env ?? {},
      },
    },
  }, { revision: subject.base.commit, cache: options.runnerCache });
}

/** One side of the check: its tree, ready, with its runner and environment. */
interface Side extends RunnerTree {
  name: string;
  dir: string;
}

/** What one check works with once the change is read. */
interface Check {
  subject: Subject;
  options: EvidenceOptions;
  tools: ProjectTools;
  /** Where the project's package lies in every tree. */
  place: TreePlace;
  /** The base's tree (read only), runner and environment. */
  baseTree: string;
  base: RunnerTree;
  change: WorkingChange;
  /** The change's test part as the only author there is. */
  author: AuthorTests;
  scratch: string;
  log: RunLog;
  /** The sandbox every run is made in (opened once there is something to run). */
  sandbox?: Sandbox;
}

/** Run the check on a working tree. Throws a {@linkcode BugboutError} when it cannot. */
export async function checkEvidence(options: EvidenceOptions = {}): Promise<EvidenceReport> {
  const subject = await subjectOf(options);
  const scratch = await Deno.makeTempDir({ prefix: "bugbout-evidence-" });
  try {
    const { check, report } = await readChange(subject, options, scratch);
    if (check.author.tests.length === 0) return report;
    const c = subject.settings.config;
    check.sandbox = options.sandbox ??
      await openSandbox((c?.run.sandbox ?? "auto") as SandboxSetting);
    const replays = await replay(check, report);
    report.tests = checksOf(check, replays);
    closeReport(report, report.sourceFiles.length > 0);
    return report;
  } finally {
    await removeIfExists(scratch);
  }
}

/** Phase 2: the change, the tests it adds or changes, and the report's frame. */
async function readChange(
  subject: Subject,
  options: EvidenceOptions,
  scratch: string,
): Promise<{ check: Check; report: EvidenceReport }> {
  const { signal } = options;
  const { root, settings } = subject;
  const language = languageOf(settings.language);
  const tools = options.tools ?? evidenceTools(subject, options);
  const baseTree = await cachedTree(root, subject.base.commit, { home: subject.home, signal });
  const place = language.placeOf(settings.source);
  const base = await tools.open(baseTree, { task: place, signal });
  const { runner } = base;
  const globs = options.tests?.length
    ? [...options.tests]
    : language.testGlobs?.(settings.tests) ?? [];
  options.onProgress?.("Reading the change...");
  const change = await workingChange(root, baseTree, {
    globs,
    scratch,
    isTest: globs.length
      ? (path) => matchesGlobs(path, globs)
      : (path) => runner.isTestFile(path) && !runner.isConfig(path),
  });
  const testFiles = change.files.filter((f) => f.part === "test");
  const sourceFiles = change.files.filter((f) => f.part === "source").map((f) => f.path);
  const config = sourceFiles.filter((p) => runner.isConfig(p));
  const log = new RunLog();
  const report: EvidenceReport = {
    repository: root,
    base: subject.base,
    against: subject.against,
    globs: globs.length ? globs : [`${runner.name}'s test files`],
    testFiles: testFiles.map((f) => f.path),
    sourceFiles,
    tests: [],
    discriminating: 0,
    inadequateClosure: null,
    runs: log.runs,
    notes: [
      ...settings.notes,
      ...(config.length
        ? [
          `The change's ${runner.name} configuration (${
            config.join(", ")
          }) runs only with the whole change: the tests run on the base with the base's.`,
        ]
        : []),
    ],
  };
  const author = await changeAuthor(change, base, signal);
  return {
    check: { subject, options, tools, place, baseTree, base, change, author, scratch, log },
    report,
  };
}

/** Outcomes of the change's tests in each run on each side. */
interface Replays {
  onBase: Map<string, Outcome>[];
  onChange: Map<string, Outcome>[];
  onReference: Map<string, Outcome>[] | null;
}

/**
 * Phase 3: the tests alone on the base (`reruns` times), the whole change as it is (once, when it
 * has a source part), and the tests alone on the reference fix (`reruns` times).
 */
async function replay(check: Check, report: EvidenceReport): Promise<Replays> {
  const { subject, options, change } = check;
  const { signal } = options;
  const c = subject.settings.config;
  const testPaths = change.files.filter((f) => f.part === "test")
    .flatMap((f) => (f.oldPath ? [f.oldPath, f.path] : [f.path]));
  const reruns = c?.tasks.reruns ?? 2;
  const fromBase = (dir: string) => copyTree(check.baseTree, dir, signal);
  const onBase = await times(check, await side(check, "base", fromBase, testPaths), reruns);
  let onChange = [onBase[0]];
  if (report.sourceFiles.length > 0) {
    // The whole change brings its own dependency files: when they cannot be prepared, the
    // change says nothing on S, and the check still says what the base says.
    let whole: Side | undefined;
    try {
      whole = await side(check, "change", fromBase, [...change.states.keys()]);
    } catch (error) {
      if (!(error instanceof BugboutError) || signal?.aborted) throw error;
      report.notes.push(
        `The change as it is could not be prepared, so its tests did not run on it: ${
          error.message.split("\n")[0]
        }`,
      );
    }
    onChange = whole ? await times(check, whole, 1) : [new Map()];
  }
  let onReference: Map<string, Outcome>[] | null = null;
  if (subject.against) {
    const against = subject.against.commit;
    const fromReference = (dir: string) =>
      checkout(subject.root, against, dir, { home: subject.home, signal });
    const reference = await side(check, "reference", fromReference, testPaths);
    onReference = await times(check, reference, reruns);
  }
  return { onBase, onChange, onReference };
}

/** A side's tree under scratch: `from`, with the working tree's `files` written over it. */
async function side(
  check: Check,
  name: string,
  from: (dir: string) => Promise<unknown>,
  files: readonly string[],
): Promise<Side> {
  const dir = join(check.scratch, "trees", name);
  await from(dir);
  for (const path of files) await writeState(dir, path, check.change.states.get(path)!.after);
  return {
    name,
    dir,
    ...(await check.tools.open(dir, { task: check.place, signal: check.options.signal })),
  };
}

/** The change's tests on a fresh copy of a side's tree, `n` times. */
async function times(check: Check, s: Side, n: number): Promise<Map<string, Outcome>[]> {
  const { subject, options, author } = check;
  const { signal } = options;
  const c = subject.settings.config;
  const { runner } = check.base;
  const entries = authorEntries(author, runner, "as-is");
  // Where a failing test can end its process (Go's panic), each test runs in one of its own, so
  // one that dies on the base says nothing about the others.
  const groups = runner.panicEndsRun ? entries.map((e) => [e]) : [entries];
  const out: Map<string, Outcome>[] = [];
  for (let i = 0; i < n; i++) {
    options.onProgress?.(`Running the tests on ${s.name}...`);
    const copy = `${s.dir}~${i}`;
    try {
      await copyTree(s.dir, copy, signal);
      const record = check.log.on(s.name);
      record.starting?.();
      const ran = await s.runner.run({
        sandbox: check.sandbox!,
        env: s.env,
        tree: copy,
        groups,
        extraEnv: c?.project.env ?? {},
        timeoutMs: (c?.run.testTimeout ?? 600) * 1000,
        memoryMb: c?.run.testMemory ?? 4096,
        deny: [subject.root, subject.home],
        scratch: join(check.scratch, "runs"),
        signal,
      });
      if (signal?.aborted) throw new InterruptedError();
      record(ran);
      const reported = Object.assign({}, ...ran.groups.map((g) => g.outcomes));
      out.push(
        ran.status === "infra-error" ? new Map() : authorRows(author, runner, reported, "as-is"),
      );
    } finally {
      await removeTree(copy);
    }
  }
  return out;
}

/** Phase 4: each test's standing on every side, and its role with a reference fix. */
function checksOf(check: Check, { onBase, onChange, onReference }: Replays): EvidenceCheck[] {
  const { runner } = check.base;
  const fileOf = (id: string) => runner.fileOf(id);
  const all = [...onBase, ...(onChange[0] === onBase[0] ? [] : onChange), ...onReference ?? []];
  return rowIds(all, fileOf, staticRows(check.author, runner, "as-is")).map((id) =>
    evidenceCheck(
      id,
      onBase.map((o) => lookupOutcome(o, id, fileOf)),
      onChange.map((o) => lookupOutcome(o, id, fileOf)),
      onReference?.map((o) => lookupOutcome(o, id, fileOf)) ?? null,
    )
  );
}

/**
 * The change's test part as an author's tests, read by the runner at the files' own paths (the
 * check installs nothing beside anything).
 */
export async function changeAuthor(change: WorkingChange, base: RunnerTree, signal?: AbortSignal) {
  const tests = new Set(
    change.files.filter((f) => f.part === "test").flatMap((f) => [f.path, f.oldPath ?? f.path]),
  );
  return await authorFromChanges(
    {
      agent: "change",
      role: "contestant",
      tag: "",
      files: new Map(),
      tests: [],
      helpers: [],
      ignored: [],
      shareable: false,
      key: "",
    },
    new Map([...change.states].filter(([path]) => tests.has(path))),
    { ...base, signal },
  );
}
