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
import { mergeGroups, worseStatus } from "../results.ts";
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
      groups.push(await runGroup(options, { tree, runDir, gocache, index }, group));
    }
    return mergeGroups(groups, Math.round(performance.now() - started));
  } finally {
    await removeIfExists(runDir);
  }
}

/** Where a group's binaries and logs are made, and the build cache they compile with. */
interface GroupPlace {
  tree: string;
  runDir: string;
  gocache: string;
  index: number;
}

/** Options of a sandboxed run of one command of a group. */
interface SandboxedRun {
  writable?: string[];
  readable: string[];
  env: Record<string, string>;
  timeoutMs: number;
  memoryMb?: number;
  log?: string;
}

/**
 * One group's runs, package by package: compile each package's test binary, run it on the
 * requested tests within what is left of the group's time, read what it reported.
 */
class GroupRuns {
  readonly out = emptyGroup();
  readonly #failures: Record<string, string> = {};
  readonly #messages: string[] = [];
  readonly #options: RunnerRunOptions;
  readonly #place: GroupPlace;
  readonly #env: Record<string, string>;
  readonly #binDir: string;
  /** What is left of the group's time, in milliseconds. */
  #left: number;

  constructor(options: RunnerRunOptions, place: GroupPlace) {
    this.#options = options;
    this.#place = place;
    this.#left = options.timeoutMs;
    this.#binDir = join(place.runDir, `group-${place.index}`);
    const theirFlags = options.extraEnv?.GOFLAGS;
    this.#env = {
      ...options.env.env,
      ...options.extraEnv,
      GOFLAGS: [options.env.env.GOFLAGS, theirFlags].filter(Boolean).join(" "),
    };
  }

  /** Make the directory the group's binaries go into. */
  async start(): Promise<void> {
    await Deno.mkdir(this.#binDir);
    await Deno.chmod(this.#binDir, 0o755);
  }

  #worsen(status: RunStatus) {
    this.out.status = worseStatus(this.out.status, status);
  }

  /** The package's requested tests did not run: the group is cut short with `status`. */
  #notRun(req: PackageRequest, status?: RunStatus, message?: string) {
    for (const id of req.ids) this.out.outcomes[id] = "not-run";
    if (status) {
      this.#worsen(status);
      this.out.complete = false;
    }
    if (message) this.#messages.push(message);
  }

  /** Entries the group named that are no test of the tree: errors, each with why. */
  missing(req: PackageRequest): void {
    for (const [entry, why] of req.missing) {
      this.out.outcomes[entry] = "error";
      this.#failures[entry] = why;
    }
  }

  async #run(argv: string[], more: SandboxedRun): Promise<SandboxResult | Error> {
    const options = this.#options;
    try {
      const result = await options.sandbox.run(argv, {
        workdir: this.#place.tree,
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
  }

  /** Compile the package's test binary; its path, or undefined when none is there to run. */
  async compile(req: PackageRequest, k: number): Promise<string | undefined> {
    const target = req.dir === "." ? "." : `./${req.dir}`;
    const binary = join(this.#binDir, `p${k}.test`);
    const env = this.#env;
    const compiled = await this.#run(
      [join(env.GOROOT, "bin", "go"), "test", "-c", "-o", binary, target],
      {
        writable: [this.#place.gocache, this.#binDir],
        readable: this.#options.env.readable,
        env: { ...env, GOCACHE: this.#place.gocache },
        timeoutMs: Math.max(this.#options.timeoutMs, COMPILE_MS),
      },
    );
    if (compiled instanceof Error || compiled.timedOut) {
      const why = compiled instanceof Error
        ? `the sandbox could not run go test -c: ${compiled.message}`
        : `compiling ${target} did not finish in time`;
      this.#notRun(req, compiled instanceof Error ? "infra-error" : "timeout", why);
      return undefined;
    }
    if (compiled.code !== 0) {
      const line = firstCompilerLine(`${compiled.stderr}\n${compiled.stdout}`);
      for (const id of [req.dir, ...req.ids]) {
        this.out.outcomes[id] = "error";
        this.#failures[id] = line;
      }
      this.#messages.push(`${req.dir} does not build: ${line}`);
      return undefined;
    }
    if (!await statIfExists(binary)) {
      this.#notRun(req, undefined, `${req.dir} has no test files`);
      return undefined;
    }
    return binary;
  }

  /** Run the package's binary on the requested tests and read what it reported. */
  async execute(req: PackageRequest, k: number, binary: string): Promise<void> {
    if (this.#left <= 0) return this.#notRun(req, "timeout");
    const options = this.#options;
    const pattern = req.all ? undefined : runPattern(req.paths);
    const log = join(this.#place.runDir, `group-${this.#place.index}-p${k}.out`);
    const seconds = Math.max(1, Math.floor(this.#left / 1000));
    const ran = await this.#run(
      [
        "/usr/bin/env",
        "-C",
        join(this.#place.tree, req.dir),
        binary,
        "-test.v=test2json",
        "-test.paniconexit0",
        "-test.count=1",
        `-test.timeout=${seconds}s`,
        ...(pattern ? [`-test.run=${pattern}`] : []),
      ],
      {
        readable: [...options.env.readable, this.#binDir],
        env: { ...this.#env, GOCACHE: "/tmp/bugbout-gocache" },
        timeoutMs: this.#left + GRACE_MS,
        memoryMb: options.memoryMb,
        log,
      },
    );
    if (ran instanceof Error) {
      const why = `the sandbox could not run the tests of ${req.dir}: ${ran.message}`;
      return this.#notRun(req, "infra-error", why);
    }
    this.#left -= ran.durationMs;
    if (ran.truncated && ran.outputBytes > OUTPUT_CAP) {
      const why = `the tests of ${req.dir} printed more than ${OUTPUT_CAP} bytes`;
      return this.#notRun(req, "infra-error", why);
    }
    const text = `${(await readTextIfExists(log)) ?? ""}\n${ran.stderr}`;
    await removeIfExists(log);
    this.#read(
      req,
      judgeBinary(readOutput(text, req.dir), {
        code: ran.code,
        timedOut: ran.timedOut,
        outOfMemory: ran.limit === "memory",
        trusted: options.trustPartial ?? false,
        where: req.dir,
      }),
    );
  }

  /** What the binary's verdict says of the package's tests. */
  #read(req: PackageRequest, verdict: ReturnType<typeof judgeBinary>) {
    const out = this.out;
    out.tamper.push(...verdict.tamper);
    out.suspect.push(...verdict.suspect);
    this.#worsen(verdict.status);
    if (!verdict.complete) out.complete = false;
    if (verdict.message) this.#messages.push(`${req.dir}: ${verdict.message}`);
    const id = (name: string) => makeId(req.dir, name.split("/"));
    for (const [name, o] of verdict.outcomes) out.outcomes[id(name)] = o;
    for (const [name, ms] of verdict.durations) out.durations[id(name)] = ms;
    for (const [name, line] of verdict.failures) this.#failures[id(name)] = line;
    for (const requested of req.ids) {
      if (!(requested in out.outcomes)) out.outcomes[requested] = "not-run";
    }
  }

  /** The group's result: a tampered group keeps no outcome. */
  finish(): RunnerGroupRun {
    const out = this.out;
    const messages = this.#messages;
    if (out.status === "tampered") {
      return {
        ...out,
        complete: false,
        outcomes: {},
        durations: {},
        message: messages.find((m) => m.includes("forged")) ?? messages[0],
      };
    }
    if (Object.keys(this.#failures).length) out.failures = this.#failures;
    if (messages.length) out.message = messages.join("; ");
    return out;
  }
}

/** One group: every package it names, compiled and run one after another. */
async function runGroup(
  options: RunnerRunOptions,
  place: GroupPlace,
  group: readonly string[],
): Promise<RunnerGroupRun> {
  const runs = new GroupRuns(options, place);
  await runs.start();
  for (const [k, req] of (await requests(place.tree, group)).entries()) {
    runs.missing(req);
    if (req.paths.length === 0 && !req.all) continue;
    const binary = await runs.compile(req, k);
    if (binary) await runs.execute(req, k, binary);
  }
  return runs.finish();
}
