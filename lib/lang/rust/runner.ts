/**
 * `cargo test` as a {@linkcode TestRunner}: ids `crate::module::test` (an integration test's crate
 * is its file's name, `tests/name.rs` → `name::test`), integration tests under `tests/` and
 * unit-test modules in files of their own (`src/**\/tests.rs`) read statically, `Cargo.toml`,
 * `Cargo.lock`, `build.rs` and cargo's settings as configuration.
 *
 * Pure but for `prepare` and `run`.
 *
 * @module
 */

import { kindByRunner, readTestsStatically, reviewByRunner } from "../shared.ts";
import type {
  AuthorFileChange,
  AuthorFileReading,
  FileTests,
  PatchedText,
  PatchFinding,
  PatchKind,
  PatchReview,
  ReviewedPath,
  RunnerEnv,
  RunnerRun,
  RunnerRunOptions,
  TestRunner,
} from "../types.ts";
import { isRustConfig, isRustTestFile, modulePathOf, runsRustFile, targetOf } from "./crate.ts";
import { prepareRust } from "./env.ts";
import { runRust } from "./run.ts";
import { rustTests } from "./scan.ts";

/** The `cargo test` runner of a package whose library crate is `crate`. */
export class RustRunner implements TestRunner {
  /** See {@linkcode TestRunner.language}. */
  readonly language = "rust" as const;
  /** See {@linkcode TestRunner.name}. */
  readonly name = "cargo test";
  /** `#[test]` functions are what libtest reports. */
  readonly reportsStaticIds = true;
  /** A test that aborts the process ends every test of its binary. */
  readonly panicEndsRun = true;
  /** Every test file of a target is in one binary. */
  readonly sharesTrees = false;
  /** An author's `Cargo.toml` and the like are never applied. */
  readonly appliesAuthorConfig = false;
  /** Tests run by id (libtest's `--exact` filters), target by target. */
  readonly runsByFile = false;

  constructor(readonly crate: string) {}

  /** `tests/**`, `benches/**`, `src/**\/tests.rs` and `src/**\/tests/*.rs`. */
  isTestFile(path: string): boolean {
    return isRustTestFile(path);
  }
  /** `Cargo.toml`, `Cargo.lock`, `build.rs`, `rust-toolchain*`, `.cargo/config*`. */
  isConfig(path: string): boolean {
    return isRustConfig(path) || /(^|\/)Cargo\.toml$/.test(path);
  }
  /** Configuration, test code, and everything else under the package directory as source. */
  classify(path: string, packageDir: string): PatchKind {
    return kindByRunner(this, path, packageDir);
  }
  /** A file of `#[test]` functions (not a helper under `tests/common/`). */
  runsFile(path: string): boolean {
    return runsRustFile(path);
  }
  /** `name::m::t` → `tests/name.rs`; `crate::a::tests::t` → `src/a/tests.rs`. */
  fileOf(id: string): string {
    if (!id.includes("::")) return id;
    const parts = id.split("::");
    if (parts[0] !== this.crate) return `tests/${parts[0]}.rs`;
    const at = parts.lastIndexOf("tests", parts.length - 2);
    if (at < 1) return "src/lib.rs";
    return `src/${parts.slice(1, at + 1).join("/")}.rs`;
  }
  /** The test itself. */
  within(id: string, test: string): boolean {
    return id === test;
  }
  /** The file's `#[test]` functions; those whose text changed are changed. */
  changedTests(path: string, before: string | null, after: string): FileTests {
    const prefix = modulePathOf(path, this.crate);
    if (!prefix || !runsRustFile(path)) return { tests: [], changed: [] };
    const now = rustTests(after);
    const then = new Map((before === null ? [] : rustTests(before)).map((t) => [t.path, t.text]));
    const id = (p: string) => `${prefix}::${p}`;
    const unsure = /\b(macro_rules!|test_case|rstest|proptest!)/.test(after)
      ? { unsure: "tests made by a macro: a run of the file decides which it holds" }
      : {};
    return {
      tests: now.map((t) => id(t.path)),
      changed: now.filter((t) => then.get(t.path) !== t.text).map((t) => id(t.path)),
      ...unsure,
    };
  }
  /** Read statically. */
  readTests(files: readonly AuthorFileChange[]): Promise<AuthorFileReading[]> {
    return Promise.resolve(readTestsStatically(this, files));
  }
  /** Every test file of the tree. */
  suite(files: readonly string[]): Promise<string[]> {
    return Promise.resolve(files.filter((f) => runsRustFile(f) && targetOf(f) !== undefined));
  }
  /** `tests/a.rs` → `tests/a_bugbout_<author>.rs` (a crate of its own). */
  besidePath(path: string, author: string): string {
    return path.replace(
      /(\/main)?\.rs$/,
      (_, main) => main ? `_bugbout_${author}/main.rs` : `_bugbout_${author}.rs`,
    );
  }
  /** The copy as it is. */
  besideSource(_path: string, source: string): string {
    return source;
  }
  /** `a::t` → `a_bugbout_<author>::t`. */
  besideId(id: string, author: string): string {
    const [head, ...rest] = id.split("::");
    return head === this.crate ? id : [`${head}_bugbout_${author}`, ...rest].join("::");
  }
  /** A test of the copy's crate. */
  besideOwns(id: string, beside: string): boolean {
    return id !== beside && this.fileOf(id) === beside;
  }
  /** Cargo's configuration flagged and never applied; `#[ignore]` added to the repository's tests flagged. */
  review(paths: readonly ReviewedPath[]): PatchReview {
    return reviewByRunner(this, paths, { markers: /#\[\s*ignore\b/g, source: [] });
  }
  /** What no single path tells: a `build.rs` or `[profile]`/`[features]` change, in words. */
  patchFlags(files: readonly PatchedText[]): PatchFinding[] {
    const out: PatchFinding[] = [];
    for (const f of files) {
      if (f.path === "build.rs") out.push({ path: f.path, what: "changes the build script" });
      if (/(^|\/)Cargo\.toml$/.test(f.path)) {
        for (const table of ["profile", "features", "dependencies", "dev-dependencies"]) {
          const re = new RegExp(`^\\[${table}[\\].]`, "m");
          const section = (t: string | null) =>
            t === null ? "" : (t.split(re)[1] ?? "").split(/^\[/m)[0];
          if (section(f.before) !== section(f.after)) {
            out.push({ path: f.path, what: `changes Cargo.toml's [${table}]` });
          }
        }
      }
    }
    return out;
  }
  /** See {@linkcode prepareRust}. */
  prepare(tree: string, cache: string, signal?: AbortSignal): Promise<RunnerEnv> {
    return prepareRust(tree, cache, signal);
  }
  /** See {@linkcode runRust}. */
  run(options: RunnerRunOptions): Promise<RunnerRun> {
    return runRust({
      crate: this.crate,
      isFile: (e) => !e.includes("::") && (isRustTestFile(e) || e.endsWith(".rs")),
    }, options);
  }
}
