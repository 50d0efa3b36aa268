/**
 * `bugbout evidence` in a Go module or a JavaScript project: the same check as Python's
 * (`mod.ts`) with the project's {@linkcode TestRunner}.
 *
 * The change's test part is what the runner counts as test code (`_test.go` files and
 * `testdata/`; the JavaScript runner's test files, setup files aside), or what `--tests` globs
 * name; everything else — configuration (`go.mod`, `package.json`, lockfiles, runner configs)
 * included — is the rest, applied only where the whole change runs (S). The tests it adds or
 * changes are the runner's reading of each test file before and after the change
 * ({@linkcode TestRunner.changedTests}), under their own ids: the test part is installed in place
 * in a history-free copy of the base (B, `[tasks] reruns` times), and of the reference fix (G),
 * and only those tests run there (JavaScript: in one runner process; Go: each test in a process
 * of its own, since a panic ends a test binary). Every run is in the sandbox, on a fresh copy of
 * its tree, with the environment the runner prepares from that tree's own dependency files.
 *
 * Requires `--allow-run` (git, cp, the sandbox, the toolchains), `--allow-read`, `--allow-write`
 * (`BUGBOUT_HOME`, temporary space) and `--allow-env`.
 *
 * @module
 */

import { join } from "node:path";
import { cachedTree, checkout, copyTree, removeTree } from "../checkout.ts";
import { BugboutError, InterruptedError } from "../errors.ts";
import { removeIfExists } from "../fs.ts";
import type { Language, Outcome, RunSummary } from "../records.ts";
import { openRunner, type RunnerEnv, type TestRunner } from "../lang/mod.ts";
import { openSandbox, type SandboxSetting } from "../sandbox/mod.ts";
import type { Sandbox } from "../sandbox/types.ts";
import {
  authorEntries,
  authorOutcomes,
  countOutcomes,
  type FileState,
  fillRows,
  installInPlace,
  type RunnerAuthor,
  type RunnerAuthorFile,
  stateText,
} from "../testbed/mod.ts";
import { matchesGlobs, type WorkingChange, workingChange } from "./change.ts";
import {
  closeReport,
  evidenceCheck,
  type EvidenceOptions,
  type EvidenceReport,
  type Subject,
} from "./types.ts";

/** A file the runner would run, not a helper or data (judged by its name). */
function looksLikeTests(runner: TestRunner, path: string): boolean {
  return runner.language === "go"
    ? path.endsWith("_test.go")
    : /\.(test|spec)\.[cm]?[jt]sx?$/.test(path) || /(^|\/)__tests__\//.test(path);
}

/**
 * The tests the change adds or changes, in its own test files, as the runner reads them (at the
 * files' own paths: nothing is copied beside anything). A new file whose tests static reading
 * cannot all name runs whole (JavaScript); one it cannot read at all is one row, its path.
 */
export function changeTests(
  change: WorkingChange,
  runner: TestRunner,
): RunnerAuthor {
  const author: RunnerAuthor = {
    agent: "change",
    role: "contestant",
    tag: "",
    files: new Map(),
    tests: [],
    inPlace: [],
    ignored: [],
    key: "",
  };
  const paths = change.files.filter((f) => f.part === "test").map((f) => f.path).sort();
  for (const path of paths) {
    const { before, after } = change.states.get(path)!;
    author.files.set(path, after);
    const text = stateText(after);
    if (after.kind !== "file" || text === undefined || !runner.isTestFile(path)) continue;
    const old = before.kind === "file" ? stateText(before) ?? null : null;
    const found = runner.changedTests(path, old, text);
    const file: RunnerAuthorFile = { path, beside: path, ids: [], whole: false };
    if ("error" in found) {
      if (looksLikeTests(runner, path)) author.tests.push({ ...file, unreadable: found.error });
    } else if (old === null) {
      const whole = found.unsure !== undefined && runner.language !== "go";
      if (found.tests.length > 0 || whole) author.tests.push({ ...file, ids: found.tests, whole });
    } else if (found.changed.length > 0) {
      author.tests.push({ ...file, ids: found.changed });
    }
  }
  return author;
}

/** One side's tree, ready: its runner and its environment. */
interface Side {
  name: string;
  dir: string;
  runner: TestRunner;
  env: RunnerEnv;
}

/** Run the check in a Go or JavaScript project (see the module's documentation). */
export async function checkRunnerEvidence(
  subject: Subject,
  language: Exclude<Language, "python">,
  options: EvidenceOptions,
): Promise<EvidenceReport> {
  const { signal } = options;
  const { root, settings } = subject;
  const c = settings.config;
  const cache = options.runnerCache ?? join(subject.home, "runners", language);
  const scratch = await Deno.makeTempDir({ prefix: "bugbout-evidence-" });
  const runs: RunSummary[] = [];
  try {
    const baseTree = await cachedTree(root, subject.base.commit, { home: subject.home, signal });
    const runner = await openRunner(language, baseTree);
    const globs = options.tests?.length ? [...options.tests] : [];
    options.onProgress?.("Reading the change...");
    const change = await workingChange(root, baseTree, {
      globs,
      scratch,
      isTest: globs.length
        ? (path) => matchesGlobs(path, globs)
        : (path) => runner.isTestFile(path) && !runner.isConfig(path),
    });
    const testFiles = change.files.filter((f) => f.part === "test");
    const testPaths = testFiles.flatMap((f) => (f.oldPath ? [f.oldPath, f.path] : [f.path]));
    const sourceFiles = change.files.filter((f) => f.part === "source").map((f) => f.path);
    const config = sourceFiles.filter((p) => runner.isConfig(p));
    const author = changeTests(change, runner);
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
      runs,
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
    if (author.tests.length === 0) return report;
    const sandbox: Sandbox = options.sandbox ??
      await openSandbox((c?.run.sandbox ?? "auto") as SandboxSetting);
    // A Go test that panics ends its binary: each test of the change runs in a process of its
    // own, so one that panics on the base says nothing about the others.
    const entries = authorEntries(author);
    const groups = language === "go" ? entries.map((e) => [e]) : [entries];
    const reruns = c?.tasks.reruns ?? 2;

    /** A side's tree under scratch: `from`, with `files` written over it. */
    const side = async (
      name: string,
      from: (dir: string) => Promise<unknown>,
      files: readonly string[],
    ): Promise<Side> => {
      const dir = join(scratch, "trees", name);
      await from(dir);
      const states = new Map<string, FileState>();
      for (const path of files) states.set(path, change.states.get(path)!.after);
      await installInPlace(dir, states);
      const own = await openRunner(language, dir);
      return { name, dir, runner: own, env: await own.prepare(dir, cache, signal) };
    };
    const fromBase = (dir: string) => copyTree(baseTree, dir, signal);

    /** The change's tests on a fresh copy of a side's tree, `n` times. */
    const times = async (s: Side, n: number): Promise<Map<string, Outcome>[]> => {
      const out: Map<string, Outcome>[] = [];
      for (let i = 0; i < n; i++) {
        options.onProgress?.(`Running the tests on ${s.name}...`);
        const copy = `${s.dir}~${i}`;
        try {
          await copyTree(s.dir, copy, signal);
          const ran = await s.runner.run({
            sandbox,
            env: s.env,
            tree: copy,
            groups,
            extraEnv: c?.project.env ?? {},
            timeoutMs: (c?.run.testTimeout ?? 600) * 1000,
            memoryMb: c?.run.testMemory ?? 4096,
            deny: [root, subject.home],
            scratch: join(scratch, "runs"),
            signal,
          });
          if (signal?.aborted) throw new InterruptedError();
          const reported = Object.assign({}, ...ran.groups.map((g) => g.outcomes));
          const outcomes = ran.status !== "infra-error"
            ? authorOutcomes(author, runner, reported)
            : new Map<string, Outcome>();
          runs.push({
            tree: s.name,
            index: i,
            status: ran.status,
            exitCode: null,
            durationMs: Math.max(0, Math.round(ran.durationMs)),
            counts: countOutcomes(Object.fromEntries(outcomes)),
            ...(ran.message ? { message: ran.message } : {}),
          });
          out.push(outcomes);
        } finally {
          await removeTree(copy);
        }
      }
      return out;
    };

    const onBase = await times(await side("base", fromBase, testPaths), reruns);
    let onChange = [onBase[0]];
    if (sourceFiles.length > 0) {
      // The whole change brings its own dependency files: when they cannot be prepared, the
      // change says nothing on S, and the check still says what the base says.
      let whole: Side | undefined;
      try {
        whole = await side("change", fromBase, [...change.states.keys()]);
      } catch (error) {
        if (!(error instanceof BugboutError) || signal?.aborted) throw error;
        report.notes.push(
          `The change as it is could not be prepared, so its tests did not run on it: ${
            error.message.split("\n")[0]
          }`,
        );
      }
      onChange = whole ? await times(whole, 1) : [new Map()];
    }
    let onReference: Map<string, Outcome>[] | null = null;
    if (subject.against) {
      const against = subject.against.commit;
      const fromReference = (dir: string) =>
        checkout(root, against, dir, { home: subject.home, signal });
      onReference = await times(await side("reference", fromReference, testPaths), reruns);
    }
    const statically = author.tests.flatMap((f) => f.unreadable ? [f.beside] : f.ids);
    const all = [...onBase, ...(onChange[0] === onBase[0] ? [] : onChange), ...onReference ?? []];
    const rows = fillRows(all, runner, statically);
    report.tests = rows.map((id) =>
      evidenceCheck(
        id,
        onBase.map((o) => o.get(id)!),
        onChange.map((o) => o.get(id)!),
        onReference?.map((o) => o.get(id)!) ?? null,
      )
    );
    closeReport(report, sourceFiles.length > 0);
    return report;
  } finally {
    await removeIfExists(scratch);
  }
}
