/**
 * A working tree's uncommitted change against a base revision, split into its test-only part and
 * the rest. The change is read the way the race captures an agent's patch: the base's files are
 * recorded in a scratch git directory outside the repository, the working tree is staged into it
 * and compared (untracked files count, the repository's `.gitignore` is honoured, the repository
 * itself is only read).
 *
 * Requires `--allow-run=git`, `--allow-read` and `--allow-write` (scratch).
 *
 * @module
 */

import { join } from "node:path";
import { capturePatch, type FileChange, readState, takeSnapshot } from "../testbed/mod.ts";
import { removeIfExists } from "../fs.ts";

/** One changed path and which part of the change it belongs to. */
export interface ChangedFile {
  /** The path (after a rename). */
  path: string;
  /** The path before a rename. */
  oldPath?: string;
  /** `test`: matches a test glob; `source`: anything else. */
  part: "test" | "source";
}

/** A working tree's change against a base tree. */
export interface WorkingChange {
  /** Every changed path. */
  files: ChangedFile[];
  /** Each changed path (old paths of renames included) on the base and in the working tree. */
  states: Map<string, FileChange>;
}

/**
 * A glob as a RegExp: `**` any run of path segments, `*` anything but `/`, `?` one character but
 * `/`. A glob without `/` matches a file name anywhere; one with `/` matches the whole path.
 */
export function globRegExp(glob: string): RegExp {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*" && glob[i + 1] === "*") {
      const slash = glob[i + 2] === "/";
      out += slash ? "(?:.*/)?" : ".*";
      i += slash ? 2 : 1;
    } else if (c === "*") out += "[^/]*";
    else if (c === "?") out += "[^/]";
    else out += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${out}$`);
}

/** Whether `path` matches any of `globs` (see {@linkcode globRegExp}). */
export function matchesGlobs(path: string, globs: readonly string[]): boolean {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return globs.some((g) => globRegExp(g.replace(/^\.\//, "")).test(g.includes("/") ? path : name));
}

/**
 * The change of the working tree `root` against the tree `base` (a history-free copy of the base
 * revision, only read), split by `globs` (or `isTest`). `scratch` is a directory for the comparison's own git
 * directory (removed afterwards).
 */
export async function workingChange(
  root: string,
  base: string,
  options: {
    globs: readonly string[];
    scratch: string;
    /** What is test code, when not the globs (a Go or JavaScript project's runner). */
    isTest?: (path: string) => boolean;
  },
): Promise<WorkingChange> {
  const isTest = options.isTest ?? ((path: string) => matchesGlobs(path, options.globs));
  const gitDir = join(options.scratch, "change.git");
  try {
    const snapshot = await takeSnapshot(base, gitDir);
    // Which part a path is, the caller says: every path is read as the same kind here.
    const captured = await capturePatch({ workdir: root, gitDir: snapshot.gitDir }, {
      packageDir: ".",
      runner: { classify: () => "source" },
    });
    const files: ChangedFile[] = captured.files.map((f) => ({
      path: f.path,
      ...(f.oldPath ? { oldPath: f.oldPath } : {}),
      part: isTest(f.path) ? "test" : "source",
    }));
    const states = new Map<string, FileChange>();
    for (const file of files) {
      for (const path of file.oldPath ? [file.oldPath, file.path] : [file.path]) {
        states.set(path, {
          before: await readState(base, path),
          after: await readState(root, path),
        });
      }
    }
    return { files, states };
  } finally {
    await removeIfExists(gitDir);
  }
}
