/**
 * Rust packages, tested with `cargo test`, as a {@linkcode LanguageSpec}: detected by a
 * `Cargo.toml` at the tree's root.
 *
 * Requires `--allow-read` (detection), and what the runner's `prepare` and `run` require.
 *
 * @module
 */

import { join } from "node:path";
import { BugboutError } from "../../errors.ts";
import { defaultBranch, git } from "../../git.ts";
import { openRunnerMiner } from "../mining.ts";
import { alphanumericTags, runnerInitConfig } from "../shared.ts";
import { perTreeTools } from "../tools.ts";
import type { DoctorCheck, DoctorContext, LanguageSpec } from "../types.ts";
import { parseCargoToml } from "./crate.ts";
import { compareVersions, findRust } from "./env.ts";
import { RustRunner } from "./runner.ts";

async function manifestOf(tree: string) {
  const text = await Deno.readTextFile(join(tree, "Cargo.toml")).catch(() => undefined);
  return text === undefined ? undefined : parseCargoToml(text) ?? {};
}

async function rustDoctor({ repository }: DoctorContext): Promise<DoctorCheck[]> {
  let found;
  try {
    found = await findRust();
  } catch (error) {
    return [{
      name: "rust",
      status: "fail",
      detail: (error as Error).message,
      fix: (error as BugboutError).hint,
    }];
  }
  let wanted: string | undefined;
  if (repository) {
    const text = await defaultBranch(repository)
      .then((b) => git(["show", `${b}:Cargo.toml`], { cwd: repository }))
      .catch(() => undefined);
    wanted = text === undefined ? undefined : parseCargoToml(text)?.rustVersion;
  }
  const detail = `${found.rustc}, tests run with cargo test`;
  if (wanted && compareVersions(found.version, wanted) < 0) {
    return [{
      name: "rust",
      status: "fail",
      detail: `${detail}; Cargo.toml's rust-version asks for ${wanted}, newer than this rustc`,
      fix: `Install Rust ${wanted} or later (rustup update).`,
    }];
  }
  return [{
    name: "rust",
    status: "ok",
    detail: wanted ? `${detail}; rust-version ${wanted}` : detail,
  }];
}

/** Rust and `cargo test`. */
export const rust: LanguageSpec = {
  name: "rust",
  label: "Rust",
  runWord: "test run",
  requires: [],
  kind: "a Rust package",
  detect: async (tree) => {
    const manifest = await manifestOf(tree);
    if (!manifest) return undefined;
    return { language: "rust", runner: "cargo test", evidence: "Cargo.toml" };
  },
  initConfig: async (found) => {
    const manifest = await manifestOf(found.tree);
    if (manifest && !manifest.name && manifest.members) {
      throw new BugboutError(
        "Cargo.toml is a workspace's: bugbout replays one package's history at a time.",
        {
          hint: 'Point bugbout at a single-package repository, or use language = "command" ' +
            "with cargo test in [command] (see docs/languages.md).",
        },
      );
    }
    return runnerInitConfig(rust.kind, found);
  },
  doctor: rustDoctor,
  openRunner: async (tree) => {
    const manifest = await manifestOf(tree);
    return new RustRunner(manifest?.crate ?? "crate");
  },
  placeOf: () => ({ packageDir: ".", pythonPath: "." }),
  tools: (project, options) =>
    perTreeTools(rust, project, ({ runner, env }) => {
      const { PATH: path, BUGBOUT_CARGO_VENDOR: vendor, ...vars } = env.env;
      const sources = vendor
        ? ` --config 'source.crates-io.replace-with="v"' --config 'source.v.directory="${vendor}"'`
        : "";
      return Promise.resolve({
        runner,
        path: path ? path.split(":").filter((p) => !p.startsWith("/usr") && p !== "/bin") : [],
        readable: [...env.readable],
        writable: [],
        links: [],
        env: vars,
        testCommand: `cargo test --offline${sources}`,
        transient: ["target"],
      });
    }, options),
  authorTags: alphanumericTags,
  promptWords: () => ({
    fix: [
      "Fix the issue in the source code. Then add a regression test as a new file under `tests/`",
      "(an integration test with `#[test]` functions) that fails without your fix and passes",
      "with it. Keep the change focused on the issue; do not change unrelated behaviour.",
    ],
    tests: "Rust integration tests (`#[test]` functions) in new files under `tests/`",
    within: "`tests/`",
  }),
  openMiner: (context) => openRunnerMiner(rust, context, { source: /\.rs$/, tests: /\.rs$/ }),
};
