/**
 * A Rust tree's test environment, prepared with the network open: the toolchain (rustc's
 * sysroot, readable in the sandbox) and, when `Cargo.lock` names crates from a registry, those
 * crates vendored once per lock file into a shared cache (`cargo vendor --locked`), which the
 * sandbox reads with the network closed (`--offline`, crates-io replaced by the vendored copy).
 * Vendoring rather than `cargo fetch` because the copy is a plain read-only directory: nothing in
 * the sandbox writes to a shared `CARGO_HOME`.
 *
 * Requires `--allow-run` (cargo, rustc), `--allow-read` and `--allow-write` (the cache).
 *
 * @module
 */

import { join } from "node:path";
import { BugboutError } from "../../errors.ts";
import { copyTree } from "../../checkout.ts";
import { statIfExists } from "../../fs.ts";
import { inputsKey } from "../../hash.ts";
import { run } from "../../proc.ts";
import type { RunnerEnv } from "../types.ts";

/** The Rust toolchain on this machine. */
export interface RustToolchain {
  /** rustc's sysroot (its `bin/` holds cargo and rustc). */
  sysroot: string;
  /** `rustc 1.95.0 (...)`. */
  rustc: string;
  /** `1.95.0`. */
  version: string;
}

/** Find cargo and rustc; throws a `BugboutError` saying how to install them. */
export async function findRust(signal?: AbortSignal): Promise<RustToolchain> {
  try {
    const sysroot = (await run(["rustc", "--print", "sysroot"], { signal, timeoutMs: 30_000 }))
      .stdout.trim();
    const rustc = (await run([join(sysroot, "bin", "rustc"), "--version"], { timeoutMs: 30_000 }))
      .stdout.trim();
    if (!(await statIfExists(join(sysroot, "bin", "cargo")))) {
      throw new Error("no cargo beside rustc");
    }
    return { sysroot, rustc, version: rustc.match(/(\d+\.\d+\.\d+)/)?.[1] ?? "0.0.0" };
  } catch (error) {
    throw new BugboutError(`Cannot find the Rust toolchain: ${(error as Error).message}`, {
      hint: "Install Rust with rustup (https://rustup.rs) so that rustc and cargo are on PATH.",
    });
  }
}

/** Compare dotted versions (`1.70` < `1.70.1`). */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d) return d;
  }
  return 0;
}

/** The variable that carries the vendored crates' directory to the run. */
export const VENDOR_VAR = "BUGBOUT_CARGO_VENDOR";

/** Prepare `tree`'s environment (see the module's documentation). */
export async function prepareRust(
  tree: string,
  cache: string,
  signal?: AbortSignal,
): Promise<RunnerEnv> {
  const rust = await findRust(signal);
  const lock = await Deno.readTextFile(join(tree, "Cargo.lock")).catch(() => undefined);
  const manifest = await Deno.readTextFile(join(tree, "Cargo.toml")).catch(() => "");
  // A library often commits no lock file: its crates are then resolved as of the day the
  // environment is made, keyed by the manifest.
  const key = inputsKey(["rust", rust.rustc, lock ?? `manifest:${manifest}`]);
  const registry = lock === undefined
    ? (/^\[(?:[\w.-]*\.)?(?:dev-|build-)?dependencies\b/m.test(manifest) ? 1 : 0)
    : (lock.match(/^source = "registry\+/gm) ?? []).length;
  const base = {
    key,
    readable: [rust.sysroot],
    env: {
      PATH: `${join(rust.sysroot, "bin")}:/usr/bin:/bin`,
      RUSTC: join(rust.sysroot, "bin", "rustc"),
    },
  };
  if (registry === 0) return { ...base, describe: `${rust.rustc}, no registry crates` };
  const vendor = join(cache, key.slice(0, 16), "vendor");
  if (!(await statIfExists(join(vendor, ".done")))) {
    await Deno.mkdir(vendor, { recursive: true });
    // On a copy: without a lock file cargo writes one, and the tree must stay as it is.
    const copy = await Deno.makeTempDir({ prefix: "bugbout-cargo-vendor-" });
    try {
      await copyTree(tree, join(copy, "tree"), signal);
      const result = await run(
        [
          join(rust.sysroot, "bin", "cargo"),
          "vendor",
          ...(lock === undefined ? [] : ["--locked"]),
          "--versioned-dirs",
          vendor,
        ],
        { cwd: join(copy, "tree"), signal, timeoutMs: 600_000, okCodes: "any" },
      );
      if (result.code !== 0) {
        throw new BugboutError(
          `Cannot prepare the test environment: cargo vendor failed: ${
            result.stderr.trim().split("\n").at(-1)
          }`,
          { hint: "Check that the crates Cargo.toml names can be downloaded from the registry." },
        );
      }
    } finally {
      await Deno.remove(copy, { recursive: true }).catch(() => {});
    }
    await Deno.writeTextFile(join(vendor, ".done"), "");
  }
  return {
    ...base,
    readable: [rust.sysroot, vendor],
    env: { ...base.env, [VENDOR_VAR]: vendor },
    describe: `${rust.rustc}, crates vendored${
      lock === undefined ? " (no Cargo.lock: resolved today)" : ""
    }`,
  };
}
