/**
 * Recognise a Go module and find the Go toolchain that tests it.
 *
 * Requires `--allow-read` (the tree, PATH) and `--allow-run` (`go env`).
 *
 * @module
 */

import { dirname, join } from "node:path";
import { BugboutError } from "../../errors.ts";
import { readTextIfExists, realPathIfExists } from "../../fs.ts";
import { run, which } from "../../proc.ts";
import type { Detected } from "../types.ts";

/** What a `go.mod` says about the module. */
export interface GoMod {
  /** The module path. */
  module: string;
  /** The `go` directive (`1.22`, `1.22.3`), if any. */
  go?: string;
  /** The `toolchain` directive, if any. */
  toolchain?: string;
}

/** Read the module path and Go version from a `go.mod`'s text. Pure. */
export function parseGoMod(text: string): GoMod | undefined {
  const field = (name: string) =>
    new RegExp(`^\\s*${name}\\s+("?)([^\\s"]+)\\1\\s*(//.*)?$`, "m").exec(text)?.[2];
  const module = field("module");
  if (!module) return undefined;
  const go = field("go");
  const toolchain = field("toolchain");
  return { module, ...(go ? { go } : {}), ...(toolchain ? { toolchain } : {}) };
}

/** A Go module at the root of `tree`, or undefined. Requires `--allow-read`. */
export async function detectGo(tree: string): Promise<Detected | undefined> {
  const text = await readTextIfExists(join(tree, "go.mod"));
  if (text === undefined) return undefined;
  const mod = parseGoMod(text);
  const what = mod
    ? `go.mod (module ${mod.module}${mod.go ? `, go ${mod.go}` : ""})`
    : "go.mod (no module line)";
  const go = await which("go");
  return {
    language: "go",
    runner: "go test",
    evidence: go ? what : `${what}; go is not installed or not on PATH`,
  };
}

/** The Go toolchain tests run with. */
export interface GoToolchain {
  /** The `go` executable (real path). */
  go: string;
  /** Its `GOROOT` (real path). */
  goroot: string;
  /** Its version, e.g. `go1.26.0`. */
  version: string;
}

/** The hint for a missing or too old Go. */
const INSTALL_HINT = "Install Go from https://go.dev/dl/ and put its bin directory on PATH.";

/**
 * The `go` on PATH (or `go`, a path), asked for its GOROOT and version with no toolchain switch
 * (`GOTOOLCHAIN=local`). Throws a {@linkcode BugboutError} saying what to install.
 */
export async function findGo(go = "go"): Promise<GoToolchain> {
  const found = await which(go);
  if (!found) {
    throw new BugboutError("Cannot test a Go module: go is not installed or not on PATH.", {
      hint: INSTALL_HINT,
    });
  }
  const real = (await realPathIfExists(found)) ?? found;
  const result = await run([real, "env", "GOROOT", "GOVERSION"], {
    clearEnv: true,
    env: {
      PATH: `${dirname(real)}:/usr/bin:/bin`,
      HOME: Deno.env.get("HOME") ?? "/tmp",
      GOTOOLCHAIN: "local",
      GOENV: "off",
    },
    timeoutMs: 60_000,
    okCodes: "any",
  });
  const [goroot, version] = result.stdout.trim().split("\n");
  if (result.code !== 0 || !goroot || !version) {
    throw new BugboutError(
      `Cannot test a Go module: ${real} env failed: ${result.stderr.trim() || result.stdout}`,
      { hint: INSTALL_HINT },
    );
  }
  return { go: real, goroot: (await realPathIfExists(goroot)) ?? goroot, version };
}

/** Compare Go versions (`1.22`, `1.22.3`, `go1.26.0`, `1.23rc1`): negative when a < b. Pure. */
export function compareGoVersions(a: string, b: string): number {
  const parts = (v: string) =>
    v.replace(/^go/, "").split(/[.a-z]+/).filter((p) => p !== "").map(Number);
  const x = parts(a);
  const y = parts(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
