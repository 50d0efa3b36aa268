/**
 * Scripted agents for the race tests: real programs (Python and sh) that do one thing each to
 * their working copy — fix the bug, fix it wrongly, only write a test, do nothing, hang, flood
 * their output, delete everything, plant links, probe the sandbox, sleep and note the time,
 * report a usage limit. Agents whose behaviour a test must change between runs read a flag file
 * named on their command line: bugbout makes a named file readable inside only while it exists.
 *
 * @module
 */

import { join } from "node:path";
import { writePlaybookAgent } from "../../lib/demo/playbook_agent.ts";
import type { FixtureFix } from "../fixtures/projects.ts";

/** Write a playbook agent that always performs `steps` (its entry matches every prompt). */
export function playbook(
  dir: string,
  name: string,
  files: Record<string, string>,
): Promise<string> {
  return writePlaybookAgent(dir, {
    name,
    entries: [{
      match: "",
      steps: Object.entries(files).map(([path, content]) => ({ write: path, content })),
      summary: `${name} wrote ${Object.keys(files).length} file(s).`,
    }],
  });
}

/** The files of the demo agents: the real fix with a test, a wrong fix, a test alone. */
export function fixFiles(fix: FixtureFix) {
  const repro = { [fix.reproTest!.path]: fix.reproTest!.content };
  return {
    fix: { ...fix.goldFiles, ...repro },
    wrong: fix.wrongFiles,
    testOnly: repro,
  };
}

/**
 * Hangs: a double-forked `setsid` child and the agent itself both sleep for an hour with the
 * marker (`$1`) in their argv.
 */
export const HANG_SH = `
( setsid python3 -c 'import time; time.sleep(3600)' "$1-detached" </dev/null >/dev/null 2>&1 & )
echo "sleeping with a detached child"
exec python3 -c 'import time; time.sleep(3600)' "$1-agent"
`;

/** Floods stdout with `$1` bytes of `yes`, then exits 0 without changing anything. */
export const FLOOD_SH = `
yes 'flood flood flood flood flood flood flood' | head -c "$1"
echo "flooded" >&2
`;

/**
 * Deletes its whole working copy, then tries the host directories it was told about (`$1...`).
 */
export const DELETE_SH = `
here="$PWD"
rm -rf -- "$here" 2>/dev/null
rm -rf -- "$here"/* "$here"/.[!.]* 2>/dev/null
for target in "$@"; do rm -rf -- "$target" 2>/dev/null; done
echo "deleted everything I could"
`;

/**
 * Plants links: symlinks to the user's ~/.ssh (\`$1\`), to the user's repository (\`$2\`) and to
 * a file the fix changed there (\`$3\`), a tracked file replaced by a link, a relative link
 * climbing out, and hard links to the repository's file and to /etc (which must fail). In its log
 * directory (\`$4\`) it leaves the files an adapter reads after the run as a link to the fixed
 * file and as a FIFO, and replaces its stdout log with a link to the user's ~/.ssh.
 */
export const LINKS_SH = `
home="$1"; repo="$2"; fixed="$3"; logdir="$4"
ln -s "$home/.ssh" ssh-keys
ln -s "$repo" user-repo
ln -s "$repo/$fixed" fixed-at-g.py
ln -s ../../../../../../../../.. climb
rm README.md && ln -s "$repo/README.md" README.md
if ln "$repo/$fixed" hard-fixed.py 2>/dev/null; then echo "hard-repo: made" >> links.txt
else echo "hard-repo: failed" >> links.txt; fi
if ln /etc/passwd hard-passwd 2>/dev/null; then echo "hard-etc: made" >> links.txt
else echo "hard-etc: failed" >> links.txt; fi
ln -s "$repo/$fixed" "$logdir/last-message.txt"
mkfifo "$logdir/usage.json"
rm -f "$logdir/stdout.log" && ln -s "$home/.ssh/id_rsa" "$logdir/stdout.log"
echo "planted links"
`;

/**
 * Makes repositories of its own inside its working copy (one with a commit holding a new test,
 * one without any) and files with awkward names.
 */
export const NEST_SH = `
git() { command git -c user.name=agent -c user.email=agent@localhost "$@"; }
mkdir -p tests/regression && cd tests/regression || exit 1
printf 'from textkit.lists import chunk\\n\\n\\ndef test_nested():\\n    assert chunk([1], 1) == [[1]]\\n' \\
  > test_nested.py
git init -q . && git add . && git commit -qm "a repository of my own" || exit 1
cd ../.. && mkdir notes && cd notes && git init -q . && echo "no commit here" > todo.txt
cd .. && printf x > "$(printf 'odd\\nname.txt')" && printf x > ./-rf && printf x > 'star*.txt'
echo "nested"
`;

/** Sleeps `$1` seconds and writes its start and end time (seconds since the epoch) to times.txt. */
export const TIMED_PY = `
import sys, time
start = time.time()
time.sleep(float(sys.argv[1]))
end = time.time()
with open("times.txt", "w") as f:
    f.write(f"{start!r} {end!r}\\n")
print("slept")
`;

/**
 * While the flag file \`$1\` is readable: prints a vendor's usage-limit message and exits 1.
 * Otherwise it writes \`$2\` (a file name) with a line of text and exits 0.
 */
export const LIMITED_SH = `
if [ -e "$1" ]; then
  echo "Working on it..."
  echo "■ You've hit your usage limit. Upgrade to Pro or try again in 3 hours." >&2
  exit 1
fi
echo "a test written after the limit reset" > "$2"
echo "done"
`;

/**
 * While the flag file \`$1\` is readable: sleeps for an hour with the marker (\`$2\`) in its argv.
 * Otherwise writes the real fix (\`$3\` is a playbook agent to run) and exits.
 */
export const SLOW_SH = `
if [ -e "$1" ]; then
  exec python3 -c 'import time; time.sleep(3600)' "$2"
fi
exec python3 "$3"
`;

/** Exits 3 without changing anything. */
export const CRASH_SH = `
echo "Traceback (most recent call last):" >&2
echo "RuntimeError: the agent fell over" >&2
exit 3
`;

/** Write `source` as `<name>` into `dir` and return its path. */
export async function script(dir: string, name: string, source: string): Promise<string> {
  const path = join(dir, name);
  await Deno.writeTextFile(path, source.trimStart());
  return path;
}
