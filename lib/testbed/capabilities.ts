/**
 * The capability review of a patch against B, for the stages that need it (cross-examination
 * puts it on the matrix's patch trees for the judge; scoring on each patch's score): B's package
 * read once as the baseline, and one attempt's patch reviewed against it (see
 * `../lang/capabilities.ts`).
 *
 * Requires `--allow-run` (git), `--allow-read` and `--allow-write` (a scratch directory).
 *
 * @module
 */

import { join } from "node:path";
import { listFiles } from "../checkout.ts";
import { BugboutError } from "../errors.ts";
import { type PackageBaseline, reviewCapabilities, type TestRunner } from "../lang/mod.ts";
import type { Attempt, CapabilityFinding } from "../records.ts";
import { patchedFiles } from "./patched.ts";
import { classifyPath, type PathRules } from "./paths.ts";
import { reviewedPaths } from "./reviewed.ts";

/** Files larger than this are data, not code: never part of the baseline. */
const MAX_BASELINE_BYTES = 1024 * 1024;

/** The rules of a tree's runner and where its package lies. */
export type CapabilityPaths = PathRules & { runner: Pick<TestRunner, "classify" | "capabilities"> };

/**
 * B's package as the capability review compares a patch with: the text of every source file of
 * commit `commit` (listed from `repository`, read from its checkout `base`) that the runner's
 * capability rules read. Empty when the runner has none.
 */
export async function packageBaseline(
  repository: string,
  commit: string,
  base: string,
  rules: CapabilityPaths,
): Promise<PackageBaseline> {
  const capabilities = rules.runner.capabilities;
  const found = new Map<string, string>();
  if (!capabilities) return found;
  for (const path of await listFiles(repository, commit)) {
    if (!capabilities.files.test(path) || classifyPath(path, rules) !== "source") continue;
    let data: Uint8Array;
    try {
      const info = await Deno.lstat(join(base, path));
      if (!info.isFile || info.size > MAX_BASELINE_BYTES) continue;
      data = await Deno.readFile(join(base, path));
    } catch (error) {
      // A path git lists but the checkout lacks (a submodule, a sparse tree) is no baseline.
      if (error instanceof Deno.errors.NotFound) continue;
      throw error;
    }
    if (data.includes(0)) continue;
    found.set(path, new TextDecoder().decode(data));
  }
  return found;
}

/** The capability review of paths of a patch (see `reviewCapabilities`); none without rules. */
export function capabilityFindings(
  paths: Parameters<typeof reviewCapabilities>[1],
  rules: CapabilityPaths,
  baseline: PackageBaseline,
): CapabilityFinding[] {
  const capabilities = rules.runner.capabilities;
  return capabilities ? reviewCapabilities(capabilities, paths, baseline) : [];
}

/**
 * The capability review of one attempt's patch (`patch`, the full patch) on B's checkout `base`.
 * A patch that does not apply has nothing to review: its tree is never built either.
 */
export async function reviewAttemptCapabilities(
  attempt: Pick<Attempt, "files">,
  patch: string,
  context: {
    base: string;
    rules: CapabilityPaths;
    baseline: PackageBaseline;
    scratch: string;
    signal?: AbortSignal;
  },
): Promise<CapabilityFinding[]> {
  if (!context.rules.runner.capabilities) return [];
  let changes;
  try {
    changes = await patchedFiles(context.base, patch, attempt.files, {
      scratch: context.scratch,
      signal: context.signal,
    });
  } catch (error) {
    if (context.signal?.aborted || !(error instanceof BugboutError)) throw error;
    return [];
  }
  return capabilityFindings(
    reviewedPaths(attempt.files, changes, context.rules),
    context.rules,
    context.baseline,
  );
}
