/**
 * Rust's pure parts: `#[test]` functions read statically (modules, comments, strings), libtest's
 * output and its cross-checks, and ids mapped back to their files.
 *
 * @module
 */

import { deepEqual, equal, match } from "node:assert/strict";
import { RepoBuilder } from "../../lib/demo/repo.ts";
import { detectProject } from "../../lib/lang/mod.ts";
import {
  libtestMismatch,
  readLibtest,
  rust,
  RustRunner,
  rustTests,
} from "../../lib/lang/rust/mod.ts";
import { tempDir } from "../_helpers.ts";

Deno.test("rustTests finds #[test] functions inside their modules, and none in comments or strings", () => {
  const text = `// #[test] fn fake() {}
#[test]
fn a() { let s = "}"; assert!(true); }
mod inner {
    #[test]
    #[should_panic]
    fn b() { if true { } }
    fn helper() {}
}
const X: &str = "#[test] fn not_one() {}";
#[tokio::test]
async fn c() {}
`;
  deepEqual(rustTests(text).map((t) => t.path), ["a", "inner::b", "c"]);
});

Deno.test("changedTests names an integration test file's tests by its crate, and those whose body changed", () => {
  const runner = new RustRunner("calc");
  const before = "#[test]\nfn small() { assert_eq!(1, 1); }\n#[test]\nfn zero() {}\n";
  const after = before.replace("assert_eq!(1, 1)", "assert_eq!(2, 2)") + "#[test]\nfn more() {}\n";
  const read = runner.changedTests("tests/sub.rs", before, after);
  deepEqual(read, {
    tests: ["sub::small", "sub::zero", "sub::more"],
    changed: ["sub::small", "sub::more"],
  });
  equal(runner.fileOf("sub::small"), "tests/sub.rs");
  equal(runner.fileOf("calc::parse::tests::empty"), "src/parse/tests.rs");
  equal(runner.besideId("sub::small", "fixer"), "sub_bugbout_fixer::small");
  equal(runner.fileOf("sub_bugbout_fixer::small"), runner.besidePath("tests/sub.rs", "fixer"));
});

const OUTPUT = `
running 2 tests
test small ... ok
test negative ... FAILED

failures:

---- negative stdout ----

thread 'negative' panicked at tests/sub.rs:9:5:
assertion \`left == right\` failed
  left: 7
 right: -3

failures:
    negative

test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s
`;

Deno.test("readLibtest reads each test's line, the failure's message and the summary; a forged line is caught", () => {
  const read = readLibtest(OUTPUT);
  deepEqual([...read.outcomes], [["small", "passed"], ["negative", "failed"]]);
  equal(read.failures.get("negative"), "assertion `left == right` failed");
  equal(libtestMismatch(read, 101), undefined);
  // A test that prints a passing line for itself before failing.
  const forged = readLibtest(
    OUTPUT.replace("test small ... ok", "test small ... ok\ntest negative ... ok"),
  );
  match(libtestMismatch(forged, 101)!, /twice/);
  // A summary of failures with exit 0.
  match(libtestMismatch(read, 0)!, /exited 0/);
});

Deno.test("init detects a Rust package, and doctor checks rustc against Cargo.toml's rust-version", async () => {
  await using dir = await tempDir("bugbout-rust-doctor-");
  const manifest = (version: string) =>
    `[package]\nname = "calc"\nversion = "0.1.0"\nrust-version = "${version}"\n`;
  const repo = new RepoBuilder();
  repo.commit({ message: "Start", files: { "Cargo.toml": manifest("1.56"), "src/lib.rs": "" } });
  await repo.build(dir.path);
  const found = await detectProject(dir.path);
  equal(found.language, "rust");
  const headRunner = () => rust.openRunner(dir.path);
  const [ok] = await rust.doctor({ repository: dir.path, headRunner });
  equal(ok.status, "ok", ok.detail);
  match(ok.detail, /rustc \d+\.\d+.*rust-version 1\.56/);
  const later = new RepoBuilder();
  later.commit({ message: "Start", files: { "Cargo.toml": manifest("99.0"), "src/lib.rs": "" } });
  await using dir2 = await tempDir("bugbout-rust-doctor-");
  await later.build(dir2.path);
  const [fail] = await rust.doctor({ repository: dir2.path, headRunner });
  equal(fail.status, "fail");
  match(fail.fix!, /Rust 99\.0/);
});
