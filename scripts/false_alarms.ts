/**
 * False alarms on real fixes: run a bout whose only contestant ships each task's real fix (the
 * source part of the fixing commit, as the maintainers wrote it), and count the patches that any
 * trust layer flags — tampered, suspect, divergent, or any flag at all. An honest patch must come
 * out resolved and unflagged; every flag this prints is a false alarm to explain or fix.
 *
 * The contestant is a `command` agent: a small Python script that finds, among the real fixes,
 * the one whose pre-image blobs match the checkout it was given, and applies it with `git apply`.
 * It sees the fixes only because this script puts them next to it, which is the point here.
 *
 * Usage: `deno run -A scripts/false_alarms.ts --project DIR [--limit 6] [--keep]`, where DIR holds
 * a `bugbout.toml` (`bugbout init` writes one) for a repository with history. The bout runs in a
 * copy of DIR's configuration with the contestants replaced; DIR itself is not changed.
 *
 * @module
 */

import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { parseToml, stringifyToml } from "../lib/deps.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    project: { type: "string" },
    limit: { type: "string", default: "6" },
    keep: { type: "boolean", default: false },
  },
});
if (!values.project) {
  console.error("usage: deno run -A scripts/false_alarms.ts --project DIR [--limit 6] [--keep]");
  Deno.exit(2);
}
const projectDir = resolve(values.project);
const MAIN = new URL("../main.ts", import.meta.url).pathname;

/** Run bugbout with `args` in `cwd`, streaming its output; throw on failure. */
async function bugbout(cwd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    cwd,
    env: { DENO_NO_UPDATE_CHECK: "1", UV_PYTHON_DOWNLOADS: "never", NO_COLOR: "1" },
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success && !args.includes("report")) {
    throw new Error(`bugbout ${args.join(" ")} exited ${out.code}:\n${text.slice(-4000)}`);
  }
  return text;
}

async function git(cwd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", { args, cwd, stdout: "piped", stderr: "piped" })
    .output();
  if (!out.success) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout);
}

/** The agent: apply the one real fix whose pre-image matches the checkout. */
const AGENT = `
import hashlib, json, os, re, subprocess, sys
patches, workdir, prompt = sys.argv[1], sys.argv[2], open(sys.argv[3], encoding="utf-8").read()
statements = json.load(open(os.path.join(patches, "statements.json"), encoding="utf-8"))
def blob(path):
    try:
        data = open(path, "rb").read()
    except FileNotFoundError:
        return "0" * 40
    return hashlib.sha1(b"blob %d\\0" % len(data) + data).hexdigest()
# The task's own fix: its statement is in the prompt, and its pre-image is the checkout (another
# task's fix may touch only files this checkout has unchanged).
for name in sorted(os.listdir(patches), key=lambda n: -len(statements.get(n, ""))):
    if not name.endswith(".diff") or statements.get(name, "\\0") not in prompt:
        continue
    text = open(os.path.join(patches, name), encoding="utf-8", errors="surrogateescape").read()
    pre = re.findall(r"^diff --git a/(.+?) b/.+?\\n(?:.*\\n)*?index ([0-9a-f]{40})\\.\\.", text, re.M)
    if pre and all(blob(os.path.join(workdir, p)) == sha for p, sha in pre):
        subprocess.run(["git", "apply", "--whitespace=nowarn", os.path.join(patches, name)],
                       cwd=workdir, check=True)
        print("applied the real fix", name)
        sys.exit(0)
print("no real fix matches this checkout")
`;

const work = await Deno.makeTempDir({ prefix: "bugbout-false-alarms-" });
try {
  const config = parseToml(await Deno.readTextFile(join(projectDir, "bugbout.toml"))) as Record<
    string,
    unknown
  >;
  const project = { ...(config.project as Record<string, unknown>) };
  project.repository = resolve(projectDir, String(project.repository ?? "."));
  const limit = Number(values.limit);
  const tasks = { ...(config.tasks as Record<string, unknown> ?? {}), limit };
  const agentDir = join(work, "agent");
  const patches = join(agentDir, "patches");
  await Deno.mkdir(patches, { recursive: true });
  await Deno.writeTextFile(join(agentDir, "real_fix.py"), AGENT);
  const bout = join(work, "bout");
  await Deno.mkdir(bout);
  const write = (contestants: unknown[]) =>
    Deno.writeTextFile(
      join(bout, "bugbout.toml"),
      stringifyToml({
        ...config,
        project,
        tasks,
        contestants,
        examiners: [],
      }),
    );
  await write([]);
  await bugbout(bout, "tasks");
  const listed = JSON.parse(await Deno.readTextFile(join(bout, ".bugbout", "tasks.json")));
  const found: { id: string; commit: string; parent: string; statement: string }[] = listed.tasks ??
    listed;
  const statements: Record<string, string> = {};
  for (const task of found) {
    // Only what the agent could write counts: the fix's source part, never its tests.
    const files = await git(
      String(project.repository),
      "diff",
      "--name-only",
      "--no-renames",
      task.parent,
      task.commit,
    );
    const source = files.split("\n").filter((f) =>
      f && !/(^|\/)(tests?|testing)\//.test(f) && !/(^|\/)(test_[^/]*|[^/]*_test)\.py$/.test(f) &&
      !/\.(test|spec)\.[cm]?[jt]sx?$/.test(f) && !f.endsWith("_test.go")
    );
    if (!source.length) continue;
    const diff = await git(
      String(project.repository),
      "diff",
      "--full-index",
      "--no-renames",
      "--binary",
      task.parent,
      task.commit,
      "--",
      ...source,
    );
    await Deno.writeTextFile(join(patches, `${task.id}.diff`), diff);
    statements[`${task.id}.diff`] = task.statement.trim();
  }
  await Deno.writeTextFile(join(patches, "statements.json"), JSON.stringify(statements));
  await write([{
    agent: "command",
    name: "real-fix",
    command: ["python3", join(agentDir, "real_fix.py"), patches, "{workdir}", "{prompt_file}"],
  }]);
  await bugbout(bout, "run");
  const report = JSON.parse(await bugbout(bout, "report", "--format", "json"));
  let patchesScored = 0;
  const alarms: string[] = [];
  const rows: string[] = [];
  for (const task of report.tasks ?? []) {
    if (!task.scored) {
      rows.push(`${task.id.padEnd(28)} not scored: ${task.reason ?? "?"}`);
      continue;
    }
    for (const agent of task.agents ?? []) {
      for (const attempt of agent.attempts ?? []) {
        if (attempt.status !== "patch") {
          rows.push(`${task.id.padEnd(28)} attempt ${attempt.status}`);
          continue;
        }
        patchesScored++;
        const flags: string[] = attempt.flags ?? [];
        const flagged = attempt.outcome !== "resolved" || flags.length > 0;
        rows.push(
          `${task.id.padEnd(28)} ${String(attempt.outcome).padEnd(12)} ${
            flags.length ? flags.join("; ") : "no flag"
          }${attempt.approved === false ? " (not approved)" : ""}`,
        );
        if (flagged) alarms.push(`${task.id}: ${attempt.outcome}; ${flags.join("; ")}`);
      }
    }
  }
  console.log(`false alarms on real fixes: ${projectDir} (${found.length} tasks)`);
  for (const row of rows) console.log(`  ${row}`);
  console.log(
    `real fixes scored: ${patchesScored}; flagged or not resolved: ${alarms.length}`,
  );
  if (alarms.length) Deno.exitCode = 1;
} finally {
  if (values.keep) console.log(`kept ${work}`);
  else await Deno.remove(work, { recursive: true }).catch(() => {});
}
