/**
 * Rust packages, tested with `cargo test`: ids `crate::module::test`, integration tests under
 * `tests/` and unit-test modules in files of their own, crates vendored once per `Cargo.lock`
 * and used offline in the sandbox, libtest's output cross-checked with its summary.
 *
 * Requires `--allow-run` (cargo, the sandbox), `--allow-read`, `--allow-write` for `prepare`
 * and `run`; the rest is pure.
 *
 * @module
 */

export { rust } from "./language.ts";
export { RustRunner } from "./runner.ts";
export { type CargoManifest, parseCargoToml } from "./crate.ts";
export { libtestMismatch, type LibtestOutput, readLibtest } from "./libtest.ts";
export { type RustTest, rustTests } from "./scan.ts";
export { compareVersions, findRust, prepareRust, type RustToolchain } from "./env.ts";
