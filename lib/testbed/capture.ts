/**
 * What changed on disk *is* the patch, whatever the agent says. A snapshot repository kept outside
 * the sandbox records the working copy before the agent starts; afterwards the working copy is
 * staged into it and diffed. Symlinks are recorded as links (never followed), binary files with
 * `--binary`, renames and mode changes as such. Nothing the agent can write (its own `.git`, a
 * `.gitignore` trick on tracked files, a repository of its own in a subdirectory, whose `.git`
 * is removed before staging) changes what is captured.
 *
 * Requires `--allow-run=git` and read/write on the snapshot directory.
 *
 * @module
 */

import { join } from "node:path";
import { git } from "../git.ts";
import type { PatchFile } from "../records.ts";
import { classifyPath, type PathRules } from "./paths.ts";
import { isMissing } from "../fs.ts";

/** Files larger than this are left out of the patch (and listed) rather than hashed into it. */
export const MAX_CAPTURED_FILE_BYTES = 5 * 1024 * 1024;

/** Byproducts of running Python and its tools: never part of a patch. */
const JUNK = [
  "__pycache__/",
  "*.py[cod]",
  ".pytest_cache/",
  ".mypy_cache/",
  ".ruff_cache/",
  "*.egg-info/",
];

/** A working copy under observation. */
export interface Snapshot {
  /** The working copy. */
  workdir: string;
  /** The snapshot's git directory (outside the sandbox). */
  gitDir: string;
}

/** The captured change. */
export interface CapturedPatch {
  /** Every changed path, classified. */
  files: PatchFile[];
  /** `git diff --binary` of the source files. */
  sourcePatch: string;
  /** `git diff --binary` of the tests and test configuration. */
  testPatch: string;
  /** `git diff --binary` of everything. */
  fullPatch: string;
  /** Paths left out because they were too large. */
  skipped: string[];
}

function snapshotGit(snapshot: Snapshot, args: string[]) {
  return git([
    `--git-dir=${snapshot.gitDir}`,
    `--work-tree=${snapshot.workdir}`,
    "-c",
    "core.excludesFile=/dev/null",
    "-c",
    "core.autocrlf=false",
    "-c",
    "core.symlinks=true",
    "-c",
    "user.name=bugbout",
    "-c",
    "user.email=bugbout@localhost",
    ...args,
  ], { maxOutputBytes: 256 * 1024 * 1024 });
}

/** Record the working copy as it is now (before the agent starts). */
export async function takeSnapshot(workdir: string, gitDir: string): Promise<Snapshot> {
  const snapshot = { workdir, gitDir };
  await git(["init", "--quiet", "--bare", gitDir]);
  // The bare flag only names the layout; a work tree is given on every call.
  await git(["--git-dir", gitDir, "config", "core.bare", "false"]);
  await snapshotGit(snapshot, ["add", "--all", "--force", "--", "."]);
  await snapshotGit(snapshot, [
    "commit",
    "--quiet",
    "--allow-empty",
    "--no-verify",
    "-m",
    "before",
  ]);
  return snapshot;
}

/** What a walk of the working copy found (lstat only: links are never followed). */
interface Survey {
  /** Files larger than the cap. */
  large: string[];
  /** `.git` entries below the top: repositories the agent made inside its working copy. */
  nested: string[];
}

async function survey(dir: string, prefix = "", found: Survey = { large: [], nested: [] }) {
  for await (const entry of Deno.readDir(join(dir, prefix))) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.name === ".git") {
      if (prefix) found.nested.push(rel);
      continue;
    }
    if (entry.isDirectory) await survey(dir, rel, found);
    else if (entry.isFile) {
      const info = await Deno.lstat(join(dir, rel));
      if (info.size > MAX_CAPTURED_FILE_BYTES) found.large.push(rel);
    }
  }
  return found;
}

/** Stage the working copy as it is now and diff it against the snapshot. */
export async function capturePatch(snapshot: Snapshot, rules: PathRules): Promise<CapturedPatch> {
  let found: Survey = { large: [], nested: [] };
  try {
    found = await survey(snapshot.workdir);
  } catch (error) {
    if (!isMissing(error)) throw error;
    // The agent deleted the working copy itself: everything tracked is deleted.
    await Deno.mkdir(snapshot.workdir, { recursive: true });
  }
  // A repository the agent made in a subdirectory would make git stage that directory as a
  // gitlink (its files lost) or refuse to stage at all; its files are what count.
  for (const path of found.nested) {
    await Deno.remove(join(snapshot.workdir, path), { recursive: true });
  }
  const skipped = found.large;
  const exclude = join(snapshot.gitDir, "info", "exclude");
  await Deno.mkdir(join(snapshot.gitDir, "info"), { recursive: true });
  const large = skipped.map((p) => `/${p.replace(/([*?[\\])/g, "\\$1")}`);
  await Deno.writeTextFile(exclude, [...JUNK, ...large].join("\n") + "\n");
  await snapshotGit(snapshot, ["add", "--all", "--", "."]);
  const status = await snapshotGit(snapshot, [
    "diff",
    "--cached",
    "--name-status",
    "-z",
    "-M",
    "HEAD",
  ]);
  const files = parseNameStatus(status, rules);
  const modes = await snapshotGit(snapshot, ["diff", "--cached", "--raw", "-z", "-M", "HEAD"]);
  markModes(files, modes);
  markBinary(
    files,
    await snapshotGit(snapshot, ["diff", "--cached", "--numstat", "-z", "-M", "HEAD"]),
  );
  const diff = (paths: string[]) =>
    paths.length === 0 ? Promise.resolve("") : snapshotGit(snapshot, [
      "diff",
      "--cached",
      "--binary",
      "-M",
      "--full-index",
      "HEAD",
      "--",
      ...paths.map((p) => `:(literal)${p}`),
    ]).then((text) => (text ? `${text}\n` : ""));
  const pathsOf = (kinds: PatchFile["kind"][]) =>
    files.filter((f) => kinds.includes(f.kind)).flatMap((f) =>
      f.oldPath ? [f.oldPath, f.path] : [f.path]
    );
  return {
    files,
    sourcePatch: await diff(pathsOf(["source"])),
    testPatch: await diff(pathsOf(["test", "config"])),
    fullPatch: await diff(files.flatMap((f) => f.oldPath ? [f.oldPath, f.path] : [f.path])),
    skipped,
  };
}

function parseNameStatus(text: string, rules: PathRules): PatchFile[] {
  const parts = text.split("\0").filter((p) => p !== "");
  const files: PatchFile[] = [];
  for (let i = 0; i < parts.length;) {
    const code = parts[i++];
    if (code.startsWith("R") || code.startsWith("C")) {
      const oldPath = parts[i++];
      const path = parts[i++];
      files.push({
        path,
        oldPath,
        change: "renamed",
        kind: classifyPath(path, rules),
        binary: false,
        symlink: false,
      });
      continue;
    }
    const path = parts[i++];
    const change = code === "A"
      ? "added"
      : code === "D"
      ? "deleted"
      : code === "T"
      ? "mode"
      : "modified";
    files.push({ path, change, kind: classifyPath(path, rules), binary: false, symlink: false });
  }
  return files;
}

/** Fill in symlink and mode facts from `git diff --raw -z` (":old new oldsha newsha status\0path"). */
function markModes(files: PatchFile[], raw: string) {
  const parts = raw.split("\0").filter((p) => p !== "");
  for (let i = 0; i < parts.length;) {
    const meta = parts[i++];
    const [oldMode, newMode, , , status] = meta.slice(1).split(" ");
    const path = status.startsWith("R") || status.startsWith("C") ? (i++, parts[i++]) : parts[i++];
    const file = files.find((f) => f.path === path);
    if (!file) continue;
    if (newMode === "120000" || (status === "D" && oldMode === "120000")) file.symlink = true;
    if (status === "M" && oldMode !== newMode && file.change === "modified") file.change = "mode";
  }
}

/** Mark binary files from `git diff --numstat -z` ("-\t-\tpath" for binary). */
function markBinary(files: PatchFile[], numstat: string) {
  const parts = numstat.split("\0");
  for (let i = 0; i < parts.length; i++) {
    const match = parts[i].match(/^(-|\d+)\t(-|\d+)\t(.*)$/);
    if (!match) continue;
    // A rename prints an empty path, then the old and the new path.
    const path = match[3] === "" ? parts[i += 2] : match[3];
    const file = files.find((f) => f.path === path);
    if (file && match[1] === "-") file.binary = true;
  }
}
