/**
 * Rust tests run in the sandbox: each group's entries (test files, or test ids) as cargo targets
 * (`--test name` for `tests/name.rs`, `--lib` for unit tests under `src/`), one `cargo test
 * --offline` a target, its libtest output read and cross-checked with its summary and exit code.
 *
 * Requires `--allow-run` (the sandbox), `--allow-read` and `--allow-write` (scratch space).
 *
 * @module
 */

import { mergeGroups } from "../results.ts";
import { join } from "node:path";
import { InterruptedError } from "../../errors.ts";
import type { GuardEvent, Outcome } from "../../records.ts";
import type { RunnerGroupRun, RunnerRun, RunnerRunOptions } from "../types.ts";
import { targetOf } from "./crate.ts";
import { VENDOR_VAR } from "./env.ts";
import { libtestMismatch, readLibtest } from "./libtest.ts";

/** What a run needs of the runner. */
export interface RustRunSpec {
  /** The library crate's name (unit tests' ids start with it). */
  crate: string;
  /** Whether an entry is a file (else a test id). */
  isFile(entry: string): boolean;
}

type Target = { key: string; args: string[]; prefix: string; filters: string[] | undefined };

/** Group entries by cargo target. */
function targets(spec: RustRunSpec, group: readonly string[]): Map<string, Target> {
  const out = new Map<string, Target>();
  const add = (t: { test: string } | { lib: true }, filter?: string) => {
    const key = "test" in t ? `test:${t.test}` : "lib";
    const target = out.get(key) ?? {
      key,
      args: "test" in t ? ["--test", t.test] : ["--lib"],
      prefix: "test" in t ? t.test : spec.crate,
      filters: [],
    };
    if (filter === undefined) target.filters = undefined;
    else target.filters?.push(filter);
    out.set(key, target);
  };
  for (const entry of group) {
    if (spec.isFile(entry)) {
      const t = targetOf(entry);
      if (t) add(t);
      continue;
    }
    const [head, ...rest] = entry.split("::");
    add(head === spec.crate ? { lib: true } : { test: head }, rest.join("::"));
  }
  return out;
}

/** Run the groups (never throws for what the tree does). */
export async function runRust(spec: RustRunSpec, options: RunnerRunOptions): Promise<RunnerRun> {
  const started = performance.now();
  if (options.scratch) await Deno.mkdir(options.scratch, { recursive: true });
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ dir: options.scratch, prefix: "rust-run-" }),
  );
  try {
    await Deno.chmod(dir, 0o777);
    const groups: RunnerGroupRun[] = [];
    for (const group of options.groups) groups.push(await runGroup(spec, options, dir, group));
    return mergeGroups(groups, Math.round(performance.now() - started));
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

function firstError(text: string): string {
  const lines = text.split("\n").map((l) => l.trim()).filter(Boolean);
  return (lines.find((l) => /^error/.test(l)) ?? lines.at(-1) ?? "").slice(0, 300);
}

async function runGroup(
  spec: RustRunSpec,
  options: RunnerRunOptions,
  dir: string,
  group: readonly string[],
): Promise<RunnerGroupRun> {
  const out: RunnerGroupRun = {
    status: "ok",
    complete: true,
    outcomes: {},
    durations: {},
    failures: {},
    tamper: [],
    suspect: [],
  };
  const { [VENDOR_VAR]: vendor, ...vars } = options.env.env;
  const sources = vendor
    ? [
      "--config",
      'source.crates-io.replace-with="bugbout-vendored"',
      "--config",
      `source.bugbout-vendored.directory=${JSON.stringify(vendor)}`,
    ]
    : [];
  const home = join(dir, "cargo-home");
  await Deno.mkdir(home, { recursive: true });
  for (const target of targets(spec, group).values()) {
    const argv = [
      "cargo",
      "test",
      "--offline",
      "--no-fail-fast",
      ...sources,
      ...target.args,
      "--",
      ...(target.filters ? ["--exact", ...target.filters] : []),
    ];
    let result;
    try {
      result = await options.sandbox.run(argv, {
        workdir: options.tree,
        writable: [dir],
        readable: [...options.env.readable],
        deny: options.deny ? [...options.deny] : undefined,
        network: "none",
        env: {
          LANG: "C.UTF-8",
          TZ: "UTC",
          HOME: dir,
          TMPDIR: dir,
          CARGO_HOME: home,
          CARGO_TARGET_DIR: join(dir, "target"),
          CARGO_TERM_COLOR: "never",
          CARGO_INCREMENTAL: "0",
          ...vars,
          ...options.extraEnv,
        },
        timeoutMs: options.timeoutMs,
        memoryMb: options.memoryMb,
        maxOutputBytes: 1024 * 1024,
        signal: options.signal,
      });
      if (result.aborted || options.signal?.aborted) throw new InterruptedError();
    } catch (error) {
      if (options.signal?.aborted || error instanceof InterruptedError) {
        throw new InterruptedError();
      }
      return {
        ...out,
        status: "infra-error",
        cause: "sandbox",
        complete: false,
        message: `the sandbox could not run cargo test: ${(error as Error).message}`,
      };
    }
    const read = readLibtest(result.stdout);
    const id = (path: string) => `${target.prefix}::${path}`;
    for (const [path, outcome] of read.outcomes) out.outcomes[id(path)] = outcome;
    for (const [path, why] of read.failures) out.failures![id(path)] = why;
    if (result.timedOut || result.limit === "memory") {
      return {
        ...out,
        status: result.timedOut ? "timeout" : "out-of-memory",
        complete: false,
        message: result.timedOut
          ? "cargo test did not finish in time"
          : "cargo test ran out of memory",
      };
    }
    if (!read.started) {
      // The target did not build: its entries err, the same on every rerun.
      const why = `cargo test ${target.args.join(" ")} did not build: ${firstError(result.stderr)}`;
      const own = group.filter((e) =>
        spec.isFile(e) ? targetKey(targetOf(e)) === target.key : e.startsWith(`${target.prefix}::`)
      );
      for (const entry of own) {
        out.outcomes[entry] = "error";
        out.failures![entry] = why;
      }
      out.message ??= why;
      continue;
    }
    const mismatch = libtestMismatch(read, result.code);
    if (mismatch) {
      const event: GuardEvent = {
        what: `the test binary ${mismatch}`,
        where: target.args.join(" "),
      };
      return { ...out, status: "tampered", complete: false, tamper: [event], message: event.what };
    }
    if (!read.summary) {
      return {
        ...out,
        status: "infra-error",
        cause: "harness",
        complete: false,
        message: `cargo test ${
          target.args.join(" ")
        } ended (exit ${result.code}) without libtest's summary`,
      };
    }
    if (target.filters) {
      for (const f of target.filters) {
        const wanted = id(f);
        if (!(wanted in out.outcomes)) out.outcomes[wanted] = "not-run" as Outcome;
      }
    }
  }
  return out;
}

function targetKey(t: ReturnType<typeof targetOf>): string | undefined {
  return t === undefined ? undefined : "test" in t ? `test:${t.test}` : "lib";
}
