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

/** Paths given to one `git diff` at most: a long list would pass the kernel's limit on argv. */
const PATHS_PER_DIFF = 1000;
/** A path git prints as it is in a `diff --git` line (no quoting). */
const PLAIN_PATH = /^[\w.\/-]+$/;

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
  /**
   * True when the working copy held more entries than `maxEntries`: the walk stopped there and
   * nothing was staged or diffed (`files` and the patches are empty).
   */
  tooManyEntries?: boolean;
}

/** Options of {@linkcode capturePatch}. */
export interface CaptureOptions {
  /**
   * Entries (files, directories, links, `.git` directories' contents aside) of the working copy
   * beyond which nothing is captured. Default: no bound.
   */
  maxEntries?: number;
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
  /** Entries seen. */
  entries: number;
  /** True when the walk stopped at its bound. */
  cut: boolean;
}

async function survey(dir: string, max: number, prefix = "", found?: Survey): Promise<Survey> {
  const at = found ?? { large: [], nested: [], entries: 0, cut: false };
  for await (const entry of Deno.readDir(join(dir, prefix))) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.name === ".git") {
      if (prefix) at.nested.push(rel);
      continue;
    }
    if (++at.entries > max) {
      at.cut = true;
      return at;
    }
    if (entry.isDirectory) {
      await survey(dir, max, rel, at);
      if (at.cut) return at;
    } else if (entry.isFile) {
      const info = await Deno.lstat(join(dir, rel));
      if (info.size > MAX_CAPTURED_FILE_BYTES) at.large.push(rel);
    }
  }
  return at;
}

/**
 * The entries of a working copy as {@linkcode CaptureOptions.maxEntries} counts them (`.git`
 * directories left out), walking no further than `max`.
 */
export async function countEntries(workdir: string, max = Infinity): Promise<number> {
  return (await survey(workdir, max)).entries;
}

/**
 * Stage the working copy as it is now and diff it against the snapshot. A working copy of more
 * than `maxEntries` entries is neither walked further nor staged: the result says so.
 */
export async function capturePatch(
  snapshot: Snapshot,
  rules: PathRules,
  options: CaptureOptions = {},
): Promise<CapturedPatch> {
  let found: Survey = { large: [], nested: [], entries: 0, cut: false };
  try {
    found = await survey(snapshot.workdir, options.maxEntries ?? Infinity);
  } catch (error) {
    if (!isMissing(error)) throw error;
    // The agent deleted the working copy itself: everything tracked is deleted.
    await Deno.mkdir(snapshot.workdir, { recursive: true });
  }
  if (found.cut) {
    const none = { files: [], sourcePatch: "", testPatch: "", fullPatch: "", skipped: [] };
    return { ...none, tooManyEntries: true };
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
  const files = await parseNameStatus(status, rules);
  const modes = await snapshotGit(snapshot, ["diff", "--cached", "--raw", "-z", "-M", "HEAD"]);
  markModes(files, modes);
  markBinary(
    files,
    await snapshotGit(snapshot, ["diff", "--cached", "--numstat", "-z", "-M", "HEAD"]),
  );
  const whole = await snapshotGit(snapshot, [
    "diff",
    "--cached",
    "--binary",
    "-M",
    "--full-index",
    "HEAD",
  ]);
  const fullPatch = whole ? `${whole}\n` : "";
  const parts = fileSections(fullPatch, files);
  // A diff of a few paths is the sections of the whole diff that are theirs. Giving git the paths
  // instead costs it each path against each entry: a quadratic time for large trees.
  const diff = async (chosen: PatchFile[]) => {
    if (parts) {
      const wanted = new Set(chosen);
      return parts.filter((_, i) => wanted.has(files[i])).join("");
    }
    // The paths of each diff go in slices (a rename's two paths in one), in git's order.
    let text = "";
    for (let i = 0; i < chosen.length; i += PATHS_PER_DIFF) {
      const paths = chosen.slice(i, i + PATHS_PER_DIFF).flatMap((f) =>
        f.oldPath ? [f.oldPath, f.path] : [f.path]
      );
      const part = await snapshotGit(snapshot, [
        "diff",
        "--cached",
        "--binary",
        "-M",
        "--full-index",
        "HEAD",
        "--",
        ...paths.map((p) => `:(literal)${p}`),
      ]);
      if (part) text += `${part}\n`;
    }
    return text;
  };
  const ofKinds = (kinds: PatchFile["kind"][]) => files.filter((f) => kinds.includes(f.kind));
  return {
    files,
    sourcePatch: await diff(ofKinds(["source"])),
    testPatch: await diff(ofKinds(["test", "config"])),
    fullPatch,
    skipped,
  };
}

/**
 * The sections of a whole `git diff` (each from its `diff --git ` line to the next), one for each
 * of `files` in the same order (git writes both from one list); undefined when they do not match
 * up. No line of a diff's content starts with `diff --git `: text lines start with a space, `+`,
 * `-` or `\\`, and binary lines with a length letter followed by base85, which has no space.
 */
function fileSections(patch: string, files: readonly PatchFile[]): string[] | undefined {
  const starts: number[] = [];
  if (patch.startsWith("diff --git ")) starts.push(0);
  for (
    let at = patch.indexOf("\ndiff --git ");
    at >= 0;
    at = patch.indexOf("\ndiff --git ", at + 1)
  ) {
    starts.push(at + 1);
  }
  if (starts.length !== files.length || (patch !== "" && starts[0] !== 0)) return undefined;
  const sections = starts.map((start, i) => patch.slice(start, starts[i + 1] ?? patch.length));
  for (const [i, file] of files.entries()) {
    const old = file.oldPath ?? file.path;
    if (!PLAIN_PATH.test(old) || !PLAIN_PATH.test(file.path)) continue;
    if (!sections[i].startsWith(`diff --git a/${old} b/${file.path}\n`)) return undefined;
  }
  return sections;
}

/** Files classified between two turns of the event loop (a runner's rules take a while). */
const CLASSIFIED_PER_TURN = 1000;

async function parseNameStatus(text: string, rules: PathRules): Promise<PatchFile[]> {
  const parts = text.split("\0").filter((p) => p !== "");
  const files: PatchFile[] = [];
  for (let i = 0; i < parts.length;) {
    if (files.length % CLASSIFIED_PER_TURN === CLASSIFIED_PER_TURN - 1) {
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
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
  const byPath = new Map(files.map((f) => [f.path, f]));
  const parts = raw.split("\0").filter((p) => p !== "");
  for (let i = 0; i < parts.length;) {
    const meta = parts[i++];
    const [oldMode, newMode, , , status] = meta.slice(1).split(" ");
    const path = status.startsWith("R") || status.startsWith("C") ? (i++, parts[i++]) : parts[i++];
    const file = byPath.get(path);
    if (!file) continue;
    if (newMode === "120000" || (status === "D" && oldMode === "120000")) file.symlink = true;
    if (status === "M" && oldMode !== newMode && file.change === "modified") file.change = "mode";
  }
}

/** Mark binary files from `git diff --numstat -z` ("-\t-\tpath" for binary). */
function markBinary(files: PatchFile[], numstat: string) {
  const byPath = new Map(files.map((f) => [f.path, f]));
  const parts = numstat.split("\0");
  for (let i = 0; i < parts.length; i++) {
    const match = parts[i].match(/^(-|\d+)\t(-|\d+)\t(.*)$/);
    if (!match) continue;
    // A rename prints an empty path, then the old and the new path.
    const path = match[3] === "" ? parts[i += 2] : match[3];
    const file = byPath.get(path);
    if (file && match[1] === "-") file.binary = true;
  }
}
