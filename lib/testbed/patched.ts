/**
 * Patches and the files they leave: apply a captured patch (`git diff --binary`) to a history-free
 * tree, and read what a patch makes of a set of files without copying the whole tree (only the
 * files it touches are copied into a scratch directory first).
 *
 * `git apply` runs with discovery fenced off (`GIT_CEILING_DIRECTORIES`), so a tree that happens to
 * sit inside some git repository is still patched as a plain directory.
 *
 * Requires `--allow-run=git`, `--allow-read` and `--allow-write` on the trees and scratch space.
 *
 * @module
 */

import { dirname, join } from "node:path";
import { BugboutError } from "../errors.ts";
import { gitRun } from "../git.ts";
import { lstatIfExists, removeIfExists } from "../fs.ts";

/** One path of a tree: a regular file, a symbolic link, or nothing. */
export type FileState =
  | { kind: "file"; data: Uint8Array; executable: boolean }
  | { kind: "link"; target: string }
  | { kind: "absent" };

/** A path before and after a patch. */
export interface FileChange {
  /** The path's state in the tree the patch applies to. */
  before: FileState;
  /** The path's state once the patch is applied. */
  after: FileState;
}

/** A changed path of an attempt (as `attempts/<task>/<agent>.json` lists it). */
export interface ChangedPath {
  /** The path after the change. */
  path: string;
  /** The path before a rename. */
  oldPath?: string;
}

/** True for a relative path that stays inside its tree (no `..`, not absolute, not empty). */
export function isTreePath(path: string): boolean {
  if (!path || path.startsWith("/") || path.includes("\0")) return false;
  return path.split("/").every((part) => part !== ".." && part !== "" && part !== ".");
}

function checkPath(path: string): string {
  if (!isTreePath(path)) {
    throw new BugboutError(`Cannot use the path ${JSON.stringify(path)}: it leaves the tree.`);
  }
  return path;
}

/** Read one path of a tree (links are read as links, never followed). */
export async function readState(tree: string, path: string): Promise<FileState> {
  const full = join(tree, checkPath(path));
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(full);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return { kind: "absent" };
    }
    throw error;
  }
  if (info.isSymlink) return { kind: "link", target: await Deno.readLink(full) };
  if (!info.isFile) return { kind: "absent" };
  return {
    kind: "file",
    data: await Deno.readFile(full),
    executable: ((info.mode ?? 0) & 0o111) !== 0,
  };
}

/** Put a path into a tree as `state` says (an absent state removes it). */
export async function writeState(tree: string, path: string, state: FileState): Promise<void> {
  const full = join(tree, checkPath(path));
  const existing = await lstatIfExists(full);
  if (existing && (existing.isDirectory || existing.isSymlink || state.kind !== "file")) {
    await Deno.remove(full, { recursive: true });
  }
  if (state.kind === "absent") return;
  await Deno.mkdir(dirname(full), { recursive: true });
  if (state.kind === "link") {
    await Deno.symlink(state.target, full);
    return;
  }
  await Deno.writeFile(full, state.data, { mode: state.executable ? 0o755 : 0o644 });
  if (existing?.isFile) await Deno.chmod(full, state.executable ? 0o755 : 0o644);
}

/** Text of a file state, or undefined for links, absent files and undecodable bytes. */
export function stateText(state: FileState): string | undefined {
  if (state.kind !== "file") return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(state.data);
  } catch (error) {
    if (error instanceof TypeError) return undefined; // not UTF-8
    throw error;
  }
}

/** Escape a literal path for `git apply --include` (a wildmatch pattern). */
function literalPattern(path: string): string {
  return path.replace(/([*?[\]\\])/g, "\\$1");
}

/** Why a patch could not be applied. */
export interface ApplyFailure {
  ok: false;
  /** git's explanation. */
  message: string;
}

/**
 * Apply `patch` to the directory `tree` with `git apply`. With `include`, only the sections for
 * those paths (the new path of a rename) are applied; an empty list applies nothing. Returns
 * `{ok: false, message}` when git refuses the patch; the tree is then unchanged.
 */
export async function applyPatch(
  tree: string,
  patch: string,
  options: { include?: readonly string[]; signal?: AbortSignal } = {},
): Promise<{ ok: true } | ApplyFailure> {
  if (patch.trim() === "") return { ok: true };
  if (options.include && options.include.length === 0) return { ok: true };
  const includes = (options.include ?? []).map((p) => `--include=${literalPattern(p)}`);
  const result = await gitRun(
    ["apply", "--whitespace=nowarn", "-p1", ...includes, "-"],
    {
      cwd: tree,
      env: { GIT_CEILING_DIRECTORIES: dirname(await Deno.realPath(tree)) },
      stdin: patch,
      okCodes: "any",
      timeoutMs: 600_000,
      signal: options.signal,
    },
  );
  if (result.code === 0) return { ok: true };
  const why = (result.stderr.trim() || result.stdout.trim() || `exit code ${result.code}`)
    .split("\n").slice(0, 8).join("\n");
  return { ok: false, message: `the patch does not apply: ${why}` };
}

/**
 * What `patch` makes of `paths` in the tree `base`, without touching `base`: the files it touches
 * (and the old paths of renames) are copied into a scratch directory under `scratch`, the patch is
 * applied there, and every path is read before and after. Throws a {@linkcode BugboutError} when the
 * patch does not apply.
 */
export async function patchedFiles(
  base: string,
  patch: string,
  paths: readonly ChangedPath[],
  options: { scratch: string; signal?: AbortSignal },
): Promise<Map<string, FileChange>> {
  const names = [...new Set(paths.flatMap((p) => (p.oldPath ? [p.oldPath, p.path] : [p.path])))]
    .map(checkPath);
  await Deno.mkdir(options.scratch, { recursive: true });
  const dir = await Deno.makeTempDir({ dir: options.scratch, prefix: "patched-" });
  try {
    const before = new Map<string, FileState>();
    for (const name of names) {
      const state = await readState(base, name);
      before.set(name, state);
      if (state.kind !== "absent") await writeState(dir, name, state);
    }
    const applied = await applyPatch(dir, patch, { signal: options.signal });
    if (!applied.ok) throw new BugboutError(`Cannot read the attempt's files: ${applied.message}`);
    const changes = new Map<string, FileChange>();
    for (const name of names) {
      changes.set(name, { before: before.get(name)!, after: await readState(dir, name) });
    }
    return changes;
  } finally {
    await removeIfExists(dir);
  }
}
