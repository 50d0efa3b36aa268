/**
 * What a Rust package's `Cargo.toml` tells bugbout: its name (and the library crate's, dashes
 * made underscores), `rust-version`, and whether it is a workspace; and which of a tree's paths
 * are test code and configuration.
 *
 * Pure; no permissions.
 *
 * @module
 */

import { parseToml } from "../../deps.ts";

/** A package's manifest, as far as bugbout reads it. */
export interface CargoManifest {
  /** `[package] name`. */
  name?: string;
  /** The library crate's name (`[lib] name`, else the package's with `-` as `_`). */
  crate?: string;
  /** `[package] rust-version`. */
  rustVersion?: string;
  /** `[workspace] members`, when the manifest is a workspace's. */
  members?: string[];
}

/** Read a `Cargo.toml`; undefined when it is no TOML. */
export function parseCargoToml(text: string): CargoManifest | undefined {
  let data: Record<string, unknown>;
  try {
    data = parseToml(text) as Record<string, unknown>;
  } catch {
    return undefined; // not TOML: no manifest bugbout can read
  }
  const pkg = data.package as Record<string, unknown> | undefined;
  const lib = data.lib as Record<string, unknown> | undefined;
  const ws = data.workspace as Record<string, unknown> | undefined;
  const name = typeof pkg?.name === "string" ? pkg.name : undefined;
  const libName = typeof lib?.name === "string" ? lib.name : name;
  const rv = pkg?.["rust-version"];
  return {
    ...(name ? { name } : {}),
    ...(libName ? { crate: libName.replaceAll("-", "_") } : {}),
    ...(typeof rv === "string" ? { rustVersion: rv } : {}),
    ...(Array.isArray(ws?.members) ? { members: ws.members.map(String) } : {}),
  };
}

/** Integration tests, their helpers and data, and unit-test modules in files of their own. */
export function isRustTestFile(path: string): boolean {
  return /^tests\//.test(path) || /^src\/(.+\/)?tests\.rs$/.test(path) ||
    /^src\/(.+\/)?tests\/.+\.rs$/.test(path) || /^benches\//.test(path);
}

/**
 * What decides how tests build and run: the manifest (its `[profile]`, `[features]`, build
 * settings), the lock file, a build script, cargo's and rustup's settings.
 */
export function isRustConfig(path: string): boolean {
  return /^(Cargo\.toml|Cargo\.lock|build\.rs|rust-toolchain(\.toml)?|\.cargo\/config(\.toml)?|clippy\.toml|rustfmt\.toml)$/
    .test(path);
}

/** A test file whose `#[test]` functions bugbout reads (not a helper under `tests/common/`). */
export function runsRustFile(path: string): boolean {
  if (/^tests\/[^/]+\.rs$/.test(path) || /^tests\/[^/]+\/main\.rs$/.test(path)) return true;
  return /^src\/(.+\/)?tests\.rs$/.test(path) || /^src\/(.+\/)?tests\/[^/]+\.rs$/.test(path);
}

/**
 * The cargo target a test file belongs to: `{test: name}` for an integration test
 * (`tests/name.rs`, `tests/name/main.rs`), `{lib: true}` for a unit-test module under `src/`.
 */
export function targetOf(path: string): { test: string } | { lib: true } | undefined {
  const m = path.match(/^tests\/([^/]+?)(?:\.rs|\/main\.rs)$/);
  if (m) return { test: m[1] };
  if (path.startsWith("src/")) return { lib: true };
  return undefined;
}

/**
 * The module path a test file's tests have inside their crate: `tests/x.rs` → `x` (its own
 * crate), `src/a/tests.rs` → `<crate>::a::tests`.
 */
export function modulePathOf(path: string, crate: string): string | undefined {
  const t = targetOf(path);
  if (!t) return undefined;
  if ("test" in t) return t.test;
  const inner = path.replace(/^src\//, "").replace(/\.rs$/, "").replace(/\/mod$/, "");
  return [crate, ...inner.split("/")].join("::");
}
