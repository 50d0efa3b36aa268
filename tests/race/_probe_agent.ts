/**
 * The probing agent: a Python program that tries every probe of the adversarial table in
 * `design/sandbox.md` from inside its attempt, and writes each result into `probe.json` in its
 * working copy (so the result comes back in its patch) and to stdout (so it is in its log).
 *
 * What it probes comes from its environment (the `env` of its `bugbout.toml` entry): the paths of
 * the user's repository, `BUGBOUT_HOME`, the results directory and the canary files, the port
 * of a listener on the host's loopback, a host Unix socket, bugbout's pid and a marker of the
 * fix's test that must not be anywhere in the working copy.
 *
 * @module
 */

import { deepEqual, equal, match, ok } from "node:assert/strict";
import { dirname, join } from "node:path";
import { addedLines } from "./_world.ts";

/** Names of the environment variables the probing agent reads. */
export interface ProbeSettings {
  /** The user's repository. */
  PROBE_REPO: string;
  /** A file the fix changed, relative to the repository. */
  PROBE_FIXED: string;
  /** `BUGBOUT_HOME`. */
  PROBE_HOME: string;
  /** The results directory (`.bugbout/`). */
  PROBE_RESULTS: string;
  /** Canary files, separated by `:`. */
  PROBE_CANARIES: string;
  /** The port of a listener on the host's 127.0.0.1. */
  PROBE_PORT: string;
  /** A Unix socket listening on the host. */
  PROBE_SOCKET: string;
  /** bugbout's pid. */
  PROBE_PID: string;
  /** Text of the fix's tests at G. */
  PROBE_G_TEST: string;
  /** A unique name for the files it tries to write. */
  PROBE_NAME: string;
  /** The log directory (`{logdir}`). */
  PROBE_LOGDIR: string;
}

/** The probing agent's source. */
export const PROBE_PY = String.raw`
import json, os, socket, subprocess, sys

E = os.environ
repo, home, results = E["PROBE_REPO"], E["PROBE_HOME"], E["PROBE_RESULTS"]
name = E["PROBE_NAME"]
here = os.getcwd()
R = {}


def probe(key, fn):
    try:
        R[key] = {"ok": True, "value": fn()}
    except BaseException as error:
        R[key] = {"ok": False, "error": f"{type(error).__name__}: {str(error)[:300]}"}


def read(path):
    with open(path, errors="replace") as f:
        return f.read()


def run(argv, **kw):
    p = subprocess.run(argv, capture_output=True, timeout=30, **kw)
    if p.returncode != 0:
        raise RuntimeError(f"exit {p.returncode}: {p.stderr.decode(errors='replace')[:300]}")
    return p.stdout.decode(errors="replace")


def write(path):
    with open(path, "w") as f:
        f.write("written by the probe\n")
    return read(path)


def files_under(top):
    found = []
    for root, dirs, files in os.walk(top):
        found += [os.path.join(root, f) for f in files]
    return sorted(found)


def grep(top, text, skip=()):
    needle = text.encode()
    hits = []
    for path in files_under(top):
        if any(path.startswith(s) for s in skip):
            continue
        try:
            with open(path, "rb") as f:
                if needle in f.read():
                    hits.append(path)
        except OSError:
            pass
    return hits


def connect_tcp():
    socket.create_connection(("127.0.0.1", int(E["PROBE_PORT"])), timeout=3).close()
    return "connected"


def connect_unix():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(3)
    s.connect(E["PROBE_SOCKET"])
    s.close()
    return "connected"


def cap_eff():
    for line in read("/proc/self/status").splitlines():
        if line.startswith("CapEff:"):
            return line.split()[1]


def see_pid():
    pid = int(E["PROBE_PID"])
    if not os.path.exists(f"/proc/{pid}"):
        raise FileNotFoundError(f"/proc/{pid}")
    return read(f"/proc/{pid}/cmdline").replace("\0", " ")


def dump_objects():
    return run(["git", "cat-file", "--batch-all-objects", "--batch"])


probe("repo_head", lambda: read(f"{repo}/.git/HEAD"))
probe("repo_git_log", lambda: run(["git", "-C", repo, "log", "-1"]))
probe("repo_fixed_file", lambda: read(f"{repo}/{E['PROBE_FIXED']}"))
for i, path in enumerate(E["PROBE_CANARIES"].split(":")):
    probe(f"canary_{i}", lambda: read(path))
probe("home_files", lambda: files_under(home))
probe("results_list", lambda: os.listdir(results))
os.symlink(f"{repo}/{E['PROBE_FIXED']}", "via-link.py")
probe("through_symlink", lambda: read("via-link.py"))
probe("rev_list", lambda: run(["git", "rev-list", "--all"]).split())
probe("remotes", lambda: run(["git", "remote", "-v"]))
probe("git_dir", lambda: "dir" if os.path.isdir(".git") and not os.path.islink(".git") else "other")
probe("alternates", lambda: read(".git/objects/info/alternates"))
probe("commondir", lambda: read(".git/commondir"))
probe("git_mentions_repo", lambda: grep(".git", repo))
probe("objects_mention_repo", lambda: repo in dump_objects())
probe("g_test_in_objects", lambda: E["PROBE_G_TEST"] in dump_objects())
probe("g_test_in_files", lambda: grep(".", E["PROBE_G_TEST"]))
probe("import_pkg", lambda: run([sys.executable, "-c", "import textkit; print(textkit.__file__)"]).strip())
probe("write_checkout", lambda: write(f"written-{name}.txt"))
probe("write_log", lambda: write(f"{E['PROBE_LOGDIR']}/written-{name}.txt"))
probe("write_repo", lambda: write(f"{repo}/written-{name}.txt"))
probe("write_usr", lambda: write(f"/usr/written-{name}.txt"))
probe("write_home_parent", lambda: write(os.path.join(E["HOME"], "..", f"written-{name}.txt")))
probe("write_tmp", lambda: write(f"/tmp/written-{name}.txt"))
probe("tcp_loopback", connect_tcp)
probe("dns", lambda: socket.getaddrinfo("bugbout-probe.invalid", 80))
probe("unix_socket", connect_unix)
probe("see_pid", see_pid)
probe("signal_pid", lambda: os.kill(int(E["PROBE_PID"]), 0))
probe("cap_eff", cap_eff)
probe("umount_repo", lambda: run(["umount", repo]))
probe("umount_tmp", lambda: run(["umount", "/tmp"]))
probe("repo_after_umount", lambda: os.listdir(repo))
probe("env", lambda: dict(E))
probe("proc1_cmdline", lambda: read("/proc/1/cmdline").replace("\0", " "))
probe("proc1_environ", lambda: read("/proc/1/environ").replace("\0", " "))

with open("probe.json", "w") as f:
    f.write(json.dumps(R, sort_keys=True) + "\n")
print(json.dumps(R, sort_keys=True))
`;

/** One probe's outcome: its value, or the error that stopped it. */
export type ProbeResult = { ok: true; value: unknown } | { ok: false; error: string };

/** The probe results from the prober's patch (its `probe.json`). */
export function probeResults(patch: string): Record<string, ProbeResult> {
  const line = addedLines(patch, "probe.json")[0];
  ok(line, "probe.json is in the prober's patch");
  return JSON.parse(line);
}

/** What {@linkcode checkProbes} expects besides the table. */
export interface ProbeExpectations {
  /** The agent had a `state-dirs` holding the repository, BUGBOUT_HOME and the results. */
  wide: boolean;
  /** How many canary files it tried to read. */
  canaries: number;
  /** A secret set in bugbout's environment, and the variables that held it. */
  secret: string;
  secretNames: string[];
}

/** Assert every result of the adversarial table (design/sandbox.md). */
export function checkProbes(r: Record<string, ProbeResult>, expected: ProbeExpectations): void {
  const refused = (key: string) => {
    equal(r[key]?.ok, false, `${key}: ${JSON.stringify(r[key])}`);
    // Refused by the sandbox, not by a bug in the probe.
    const error = (r[key] as { error: string }).error;
    ok(!/^(NameError|TypeError|KeyError|AttributeError|ValueError)/.test(error), error);
  };
  const value = (key: string) => {
    equal(r[key]?.ok, true, `${key}: ${JSON.stringify(r[key])}`);
    return (r[key] as { value: unknown }).value;
  };
  for (const key of ["repo_head", "repo_git_log", "repo_fixed_file", "through_symlink"]) {
    refused(key);
  }
  for (const key of Object.keys(r).filter((k) => k.startsWith("canary_"))) refused(key);
  equal(Object.keys(r).filter((k) => k.startsWith("canary_")).length, expected.canaries);
  // BUGBOUT_HOME shows nothing but this attempt's own directories.
  const cwd = dirname(dirname(String(value("import_pkg"))));
  const own = dirname(cwd);
  const homeFiles = value("home_files") as string[];
  ok(
    homeFiles.length > 0 && homeFiles.every((f) => f.startsWith(`${own}/`)),
    homeFiles.join(),
  );
  ok(homeFiles.some((f) => f === join(own, "input", "prompt.md")));
  const results = r.results_list;
  ok(!results.ok || (results.value as string[]).length === 0, JSON.stringify(results));
  // The working copy: one commit, no remote, no alternates, no pointer to the repository,
  // and nothing of the fix's tests.
  equal((value("rev_list") as string[]).length, 1);
  equal(value("remotes"), "");
  equal(value("git_dir"), "dir");
  refused("alternates");
  refused("commondir");
  deepEqual(value("git_mentions_repo"), []);
  equal(value("objects_mention_repo"), false);
  equal(value("g_test_in_objects"), false);
  deepEqual(value("g_test_in_files"), []);
  equal(value("import_pkg"), join(cwd, "textkit", "__init__.py"));
  ok(String(value("import_pkg")).startsWith(`${own}/work/`));
  // Writes: the working copy, the log directory and a private /tmp only.
  match(String(value("write_checkout")), /written by the probe/);
  match(String(value("write_log")), /written by the probe/);
  match(String(value("write_tmp")), /written by the probe/);
  for (const key of ["write_repo", "write_usr"]) refused(key);
  // HOME's parent is this attempt's directory: with BUGBOUT_HOME under /tmp a write there
  // lands in the private /tmp (the next step checks the host); under a wide state
  // directory it is a covered part of BUGBOUT_HOME, read-only.
  if (expected.wide) refused("write_home_parent");
  for (const key of ["tcp_loopback", "dns", "unix_socket", "see_pid", "signal_pid"]) {
    refused(key);
  }
  equal(value("cap_eff"), "0000000000000000");
  refused("umount_repo");
  refused("umount_tmp");
  const after = r.repo_after_umount;
  ok(!after.ok || (after.value as string[]).length === 0, JSON.stringify(after));
  const env = value("env") as Record<string, string>;
  for (const name of expected.secretNames) ok(!(name in env), `${name} is inside`);
  ok(!JSON.stringify(r).includes(expected.secret), "the secret is inside");
}
