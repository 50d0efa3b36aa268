/**
 * Run groups of Go tests on a tree in the sandbox and read what happened.
 *
 * For each package of a group, two sandboxed commands, both with no network: `go test -c`
 * compiles the package's test binary (vet included, as `go test` does; build tags as the
 * project's `[project] env` `GOFLAGS` sets them) into the run's own directory, with a build cache
 * of the run's own (a copy of the environment's warm seed: compiling runs no code of the tree,
 * and still no run can leave anything in a cache another run reads); then the binary runs in the
 * package's directory with `-test.v=test2json -test.paniconexit0 -test.count=1`, a
 * `-test.timeout` a little under what the group has left, and a `-test.run` pattern anchored on
 * each requested test's name. During that second command only the tree is writable; the binary
 * and the module cache are read-only.
 *
 * A group's entries are test ids (`pkg/TestX/case`), test files (`pkg/x_test.go`: its top-level
 * tests) or package directories (`pkg`, `.`: every test of the package). Outcomes are read from
 * the binary's framed output weighed against its exit status (see `report.ts`); a package that
 * does not build gives `error` to each requested test and to its directory, whose failure is the
 * compiler's first line. Requested tests that never reported are `not-run`.
 *
 * Requires `--allow-run` (the sandbox, cp), `--allow-read` and `--allow-write` (the tree, the
 * scratch directory).
 *
 * @module
 */

import { join } from "node:path";
import { copyTree } from "../../checkout.ts";
import { InterruptedError } from "../../errors.ts";
import { readTextIfExists, removeIfExists, statIfExists } from "../../fs.ts";
import { infraCause } from "../results.ts";
import type { RunStatus } from "../../records.ts";
import type { RunnerGroupRun, RunnerRun, RunnerRunOptions } from "../types.ts";
import type { SandboxResult } from "../../sandbox/types.ts";
import { makeId, packageDirOf, parseId, runPattern } from "./ids.ts";
import { judgeBinary, readOutput } from "./report.ts";
import { topLevelTests } from "./tests.ts";

/** The most of a binary's output kept on disk. */
const OUTPUT_CAP = 256 * 1024 * 1024;
/** Time the testing package's own timeout leaves before the sandbox's (to report what ran). */
const GRACE_MS = 15_000;
/** Compiling is the toolchain's work, not the tests': it gets at least this long. */
const COMPILE_MS = 600_000;

const SEVERITY: Record<RunStatus, number> = {
  ok: 0,
  timeout: 1,
  "out-of-memory": 2,
  "infra-error": 3,
  tampered: 4,
};

/** What a group asks of one package. */
interface PackageRequest {
  dir: string;
  /** Test name paths to run; empty with `all`. */
  paths: string[][];
  /** Every test of the package. */
  all: boolean;
  /** Ids that must get an outcome. */
  ids: string[];
  /** Entries that name nothing runnable (a missing file), with why. */
  missing: [string, string][];
}

/** Sort a group's entries by package, in the order they first appear. */
async function requests(tree: string, group: readonly string[]): Promise<PackageRequest[]> {
  const byDir = new Map<string, PackageRequest>();
  const of = (dir: string) => {
    let r = byDir.get(dir);
    if (!r) {
      r = { dir, paths: [], all: false, ids: [], missing: [] };
      byDir.set(dir, r);
    }
    return r;
  };
  for (const entry of group) {
    const parsed = parseId(entry);
    if (parsed) {
      const r = of(parsed.dir);
      r.paths.push(parsed.path);
      r.ids.push(makeId(parsed.dir, parsed.path));
    } else if (entry.endsWith(".go")) {
      const r = of(packageDirOf(entry));
      const text = await readTextIfExists(join(tree, entry));
      if (text === undefined) {
        r.missing.push([entry, `${entry} does not exist in the tree`]);
        continue;
      }
      let names: string[];
      try {
        names = topLevelTests(text);
      } catch {
        names = []; // the compiler will say what is wrong with it
        r.all = true;
      }
      for (const n of names) {
        r.paths.push([n]);
        r.ids.push(makeId(r.dir, [n]));
      }
    } else {
      of(entry === "" || entry === "./" ? "." : entry.replace(/^\.\/|\/$/g, "")).all = true;
    }
  }
  return [...byDir.values()];
}

/** The first line of a failed build that says what is wrong (the compiler's, usually). */
export function firstCompilerLine(output: string): string {
  const lines = output.split("\n").map((l) => l.trim()).filter(Boolean);
  return lines.find((l) => /\.go:\d+(:\d+)?: /.test(l)) ??
    lines.find((l) => !l.startsWith("#") && !l.startsWith("FAIL")) ??
    lines[0] ?? "the package does not build";
}

function emptyGroup(): RunnerGroupRun {
  return { status: "ok", complete: true, outcomes: {}, durations: {}, tamper: [], suspect: [] };
}

/**
 * Run `options.groups` on `options.tree`. Never throws for what the tree does; throws
 * {@linkcode InterruptedError} when `options.signal` aborts.
 */
export async function runGo(options: RunnerRunOptions): Promise<RunnerRun> {
  const started = performance.now();
  const tree = await Deno.realPath(options.tree);
  if (options.scratch) await Deno.mkdir(options.scratch, { recursive: true });
  const runDir = await Deno.realPath(
    await Deno.makeTempDir({ dir: options.scratch, prefix: "go-run-" }),
  );
  try {
    // Readable (the binaries) by whichever user the sandbox runs the tests as.
    await Deno.chmod(runDir, 0o755);
    const gocache = join(runDir, "gocache");
    const seed = options.env.env.GOCACHE;
    if (seed && await statIfExists(seed)) await copyTree(seed, gocache, options.signal);
    else await Deno.mkdir(gocache);
    const groups: RunnerGroupRun[] = [];
    for (const [index, group] of options.groups.entries()) {
      groups.push(await runGroup(options, tree, runDir, gocache, index, group));
    }
    return merge(groups, Math.round(performance.now() - started));
  } finally {
    await removeIfExists(runDir);
  }
}

function merge(groups: RunnerGroupRun[], durationMs: number): RunnerRun {
  const run: RunnerRun = {
    status: "ok",
    outcomes: {},
    durations: {},
    tamper: [],
    suspect: [],
    exitCode: null,
    durationMs,
    groups,
  };
  const failures: Record<string, string> = {};
  for (const g of groups) {
    Object.assign(run.outcomes, g.outcomes);
    Object.assign(run.durations, g.durations);
    Object.assign(failures, g.failures ?? {});
    run.tamper.push(...g.tamper);
    run.suspect.push(...g.suspect);
    if (SEVERITY[g.status] > SEVERITY[run.status]) {
      run.status = g.status;
      run.message = g.message;
    }
  }
  if (Object.keys(failures).length) run.failures = failures;
  if (run.status === "infra-error") run.cause = infraCause(run.message ?? "");
  return run;
}

async function runGroup(
  options: RunnerRunOptions,
  tree: string,
  runDir: string,
  gocache: string,
  index: number,
  group: readonly string[],
): Promise<RunnerGroupRun> {
  const out = emptyGroup();
  const failures: Record<string, string> = {};
  const messages: string[] = [];
  const worsen = (status: RunStatus) => {
    if (SEVERITY[status] > SEVERITY[out.status]) out.status = status;
  };
  const binDir = join(runDir, `group-${index}`);
  await Deno.mkdir(binDir);
  await Deno.chmod(binDir, 0o755);
  let left = options.timeoutMs;
  const theirFlags = options.extraEnv?.GOFLAGS;
  const env: Record<string, string> = {
    ...options.env.env,
    ...options.extraEnv,
    GOFLAGS: [options.env.env.GOFLAGS, theirFlags].filter(Boolean).join(" "),
  };
  const sandboxRun = async (argv: string[], more: {
    writable?: string[];
    readable: string[];
    env: Record<string, string>;
    timeoutMs: number;
    memoryMb?: number;
    log?: string;
  }): Promise<SandboxResult | Error> => {
    try {
      const result = await options.sandbox.run(argv, {
        workdir: tree,
        writable: more.writable ?? [],
        readable: more.readable,
        deny: options.deny ? [...options.deny] : undefined,
        network: "none",
        env: more.env,
        timeoutMs: more.timeoutMs,
        memoryMb: more.memoryMb,
        maxOutputBytes: 1024 * 1024,
        ...(more.log ? { stdoutLog: { path: more.log, capBytes: OUTPUT_CAP } } : {}),
        signal: options.signal,
      });
      if (result.aborted || options.signal?.aborted) throw new InterruptedError();
      return result;
    } catch (error) {
      if (options.signal?.aborted) throw new InterruptedError();
      if (error instanceof InterruptedError) throw error;
      return error as Error;
    }
  };
  for (const [k, req] of (await requests(tree, group)).entries()) {
    for (const [entry, why] of req.missing) {
      out.outcomes[entry] = "error";
      failures[entry] = why;
    }
    if (req.paths.length === 0 && !req.all) continue;
    const target = req.dir === "." ? "." : `./${req.dir}`;
    const binary = join(binDir, `p${k}.test`);
    const compiled = await sandboxRun(
      [join(env.GOROOT, "bin", "go"), "test", "-c", "-o", binary, target],
      {
        writable: [gocache, binDir],
        readable: options.env.readable,
        env: { ...env, GOCACHE: gocache },
        timeoutMs: Math.max(options.timeoutMs, COMPILE_MS),
      },
    );
    if (compiled instanceof Error || compiled.timedOut) {
      const why = compiled instanceof Error
        ? `the sandbox could not run go test -c: ${compiled.message}`
        : `compiling ${target} did not finish in time`;
      worsen(compiled instanceof Error ? "infra-error" : "timeout");
      out.complete = false;
      messages.push(why);
      for (const id of req.ids) out.outcomes[id] = "not-run";
      continue;
    }
    if (compiled.code !== 0) {
      const line = firstCompilerLine(`${compiled.stderr}\n${compiled.stdout}`);
      out.outcomes[req.dir] = "error";
      failures[req.dir] = line;
      for (const id of req.ids) {
        out.outcomes[id] = "error";
        failures[id] = line;
      }
      messages.push(`${req.dir} does not build: ${line}`);
      continue;
    }
    if (!await statIfExists(binary)) {
      for (const id of req.ids) out.outcomes[id] = "not-run";
      messages.push(`${req.dir} has no test files`);
      continue;
    }
    if (left <= 0) {
      for (const id of req.ids) out.outcomes[id] = "not-run";
      worsen("timeout");
      out.complete = false;
      continue;
    }
    const pattern = req.all ? undefined : runPattern(req.paths);
    const log = join(runDir, `group-${index}-p${k}.out`);
    const seconds = Math.max(1, Math.floor(left / 1000));
    const ran = await sandboxRun(
      [
        "/usr/bin/env",
        "-C",
        join(tree, req.dir),
        binary,
        "-test.v=test2json",
        "-test.paniconexit0",
        "-test.count=1",
        `-test.timeout=${seconds}s`,
        ...(pattern ? [`-test.run=${pattern}`] : []),
      ],
      {
        readable: [...options.env.readable, binDir],
        env: { ...env, GOCACHE: "/tmp/bugbout-gocache" },
        timeoutMs: left + GRACE_MS,
        memoryMb: options.memoryMb,
        log,
      },
    );
    if (ran instanceof Error) {
      worsen("infra-error");
      out.complete = false;
      messages.push(`the sandbox could not run the tests of ${req.dir}: ${ran.message}`);
      for (const id of req.ids) out.outcomes[id] = "not-run";
      continue;
    }
    left -= ran.durationMs;
    if (ran.truncated && ran.outputBytes > OUTPUT_CAP) {
      worsen("infra-error");
      out.complete = false;
      messages.push(`the tests of ${req.dir} printed more than ${OUTPUT_CAP} bytes`);
      for (const id of req.ids) out.outcomes[id] = "not-run";
      continue;
    }
    const text = `${(await readTextIfExists(log)) ?? ""}\n${ran.stderr}`;
    await removeIfExists(log);
    const verdict = judgeBinary(readOutput(text, req.dir), {
      code: ran.code,
      timedOut: ran.timedOut,
      outOfMemory: ran.limit === "memory",
      trusted: options.trustPartial ?? false,
      where: req.dir,
    });
    out.tamper.push(...verdict.tamper);
    out.suspect.push(...verdict.suspect);
    worsen(verdict.status);
    if (!verdict.complete) out.complete = false;
    if (verdict.message) messages.push(`${req.dir}: ${verdict.message}`);
    const id = (name: string) => makeId(req.dir, name.split("/"));
    for (const [name, o] of verdict.outcomes) out.outcomes[id(name)] = o;
    for (const [name, ms] of verdict.durations) out.durations[id(name)] = ms;
    for (const [name, line] of verdict.failures) failures[id(name)] = line;
    for (const requested of req.ids) {
      if (!(requested in out.outcomes)) out.outcomes[requested] = "not-run";
    }
  }
  if (out.status === "tampered") {
    return {
      ...out,
      complete: false,
      outcomes: {},
      durations: {},
      message: messages.find((m) => m.includes("forged")) ?? messages[0],
    };
  }
  if (Object.keys(failures).length) out.failures = failures;
  if (messages.length) out.message = messages.join("; ");
  return out;
}
