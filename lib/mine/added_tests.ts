/**
 * Which test functions each candidate fix added: one `git log --no-walk -p` process over all
 * candidates (in batches), limited to test modules, with whole files as context so each module
 * can be read before and after the change.
 *
 * Requires `--allow-run=git`.
 *
 * @module
 */

import { gitLines } from "../git.ts";
import { unquotePath } from "./history.ts";
import { testFunctions } from "./python_tests.ts";
import { isTestModule, type PytestRules, testPathspecs } from "../python/mod.ts";

/** One file of a patch, rebuilt from whole-file context: its text before and after. */
export interface FileSides {
  /** Path before (undefined for an added file). */
  oldPath?: string;
  /** Path after (undefined for a deleted file). */
  newPath?: string;
  /** Text before. */
  before: string;
  /** Text after. */
  after: string;
}

function stripSide(path: string, prefix: "a/" | "b/"): string | undefined {
  const plain = unquotePath(path.trim());
  if (plain === "/dev/null") return undefined;
  return plain.startsWith(prefix) ? plain.slice(2) : plain;
}

/**
 * Parse `git log -p` output (commits introduced by `\x1e<sha>` lines) into each commit's files,
 * before and after. Works on any iterable of lines, so it is tested without git.
 */
export async function* parsePatches(
  lines: AsyncIterable<string> | Iterable<string>,
): AsyncGenerator<{ commit: string; files: FileSides[] }> {
  let commit: string | undefined;
  let files: FileSides[] = [];
  let file: (FileSides & { old: string[]; new: string[] }) | undefined;
  let oldLeft = 0;
  let newLeft = 0;
  const flush = () => {
    if (file) {
      files.push({
        oldPath: file.oldPath,
        newPath: file.newPath,
        before: file.old.join("\n"),
        after: file.new.join("\n"),
      });
    }
    file = undefined;
    oldLeft = newLeft = 0;
  };
  for await (const line of lines) {
    if (line.startsWith("\x1e")) {
      flush();
      if (commit) yield { commit, files };
      commit = line.slice(1).trim();
      files = [];
      continue;
    }
    if (line.startsWith("diff --git ")) {
      flush();
      file = { old: [], new: [], before: "", after: "" };
      const paths = line.slice(11).match(/^(a\/.*) (b\/.*)$/);
      if (paths && !paths[1].includes('"')) {
        file.oldPath = paths[1].slice(2);
        file.newPath = paths[2].slice(2);
      }
      continue;
    }
    if (!file) continue;
    if (oldLeft > 0 || newLeft > 0) {
      const mark = line[0];
      if (mark === "\\") continue;
      if (mark === "-") {
        file.old.push(line.slice(1));
        oldLeft--;
      } else if (mark === "+") {
        file.new.push(line.slice(1));
        newLeft--;
      } else {
        // A context line (an empty one may have lost its leading space).
        file.old.push(line.slice(1));
        file.new.push(line.slice(1));
        oldLeft--;
        newLeft--;
      }
      continue;
    }
    const hunk = line.match(/^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/);
    if (hunk) {
      oldLeft = hunk[1] === undefined ? 1 : Number(hunk[1]);
      newLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
      continue;
    }
    if (line.startsWith("--- ")) file.oldPath = stripSide(line.slice(4), "a/");
    else if (line.startsWith("+++ ")) file.newPath = stripSide(line.slice(4), "b/");
    else if (line.startsWith("rename from ")) file.oldPath = unquotePath(line.slice(12));
    else if (line.startsWith("rename to ")) file.newPath = unquotePath(line.slice(10));
    else if (line.startsWith("new file mode")) file.oldPath = undefined;
    else if (line.startsWith("deleted file mode")) file.newPath = undefined;
  }
  flush();
  if (commit) yield { commit, files };
}

/** The tests one change added, and the test modules it changed. */
export interface AddedTests {
  /** Test modules added or changed (paths at G). */
  testFiles: string[];
  /** Test functions added, as `path::name` or `path::Class::name`. */
  newTests: string[];
}

/** Test functions in `sides` that were not there before, as node ids. */
export function addedIn(sides: FileSides[], rules: PytestRules): AddedTests {
  const testFiles: string[] = [];
  const newTests: string[] = [];
  for (const side of sides) {
    if (!side.newPath || !isTestModule(side.newPath, rules)) continue;
    testFiles.push(side.newPath);
    const old = side.oldPath && isTestModule(side.oldPath, rules)
      ? new Set(testFunctions(side.before, rules))
      : new Set<string>();
    for (const id of testFunctions(side.after, rules)) {
      if (!old.has(id)) newTests.push(`${side.newPath}::${id}`);
    }
  }
  return { testFiles: testFiles.sort(), newTests };
}

/** Options for {@linkcode findAddedTests}. */
export interface FindAddedOptions {
  /** Commits per `git log` process (keeps argv short). */
  batchSize?: number;
  /** Stop early. */
  signal?: AbortSignal;
}

/**
 * For each commit, the test functions it added to test modules (against its first parent, so a
 * merge commit counts everything its pull request brought in). One git process per batch.
 */
export async function findAddedTests(
  repo: string,
  commits: readonly string[],
  rules: PytestRules,
  options: FindAddedOptions = {},
): Promise<Map<string, AddedTests>> {
  const found = new Map<string, AddedTests>();
  const size = options.batchSize ?? 2000;
  for (let at = 0; at < commits.length; at += size) {
    const batch = commits.slice(at, at + size);
    const args = [
      "log",
      "--no-walk=unsorted",
      "--diff-merges=first-parent",
      "-p",
      "-M",
      "--unified=100000000",
      "--no-ext-diff",
      "--no-textconv",
      "--format=%x1e%H",
      ...batch,
      "--",
      ...testPathspecs(rules),
    ];
    for await (
      const { commit, files } of parsePatches(gitLines(args, { cwd: repo, signal: options.signal }))
    ) {
      found.set(commit, addedIn(files, rules));
    }
  }
  for (const commit of commits) {
    if (!found.has(commit)) found.set(commit, { testFiles: [], newTests: [] });
  }
  return found;
}
