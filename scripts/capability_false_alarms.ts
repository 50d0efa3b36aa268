/**
 * False alarms of the capability review, measured statically on real histories: every first-parent
 * commit of a repository is taken as an honest patch against its parent (the maintainers wrote
 * it), and its Python source files (not tests, not conftest) are reviewed against the parent's
 * whole package, as scoring reviews an agent's patch. Every finding printed is a false alarm to
 * explain or fix (or a maintainer's own use of a capability the package never had before).
 *
 * Usage: `deno run -A scripts/capability_false_alarms.ts [--limit 400] GIT_DIR...`, where each
 * GIT_DIR is a repository (a bare one will do). Reads git only; runs no test.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { type PackageBaseline, reviewCapabilities, type ReviewedPath } from "../lib/lang/mod.ts";
import { PYTHON_CAPABILITIES } from "../lib/lang/python/mod.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  options: { limit: { type: "string", default: "400" } },
  allowPositionals: true,
});

async function git(dir: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args: ["--git-dir", dir, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout);
}

/** Source as the review reads it: Python files that are not tests, test helpers or docs. */
function isSource(path: string): boolean {
  if (!path.endsWith(".py")) return false;
  const name = path.slice(path.lastIndexOf("/") + 1);
  if (/^test_.*\.py$|_test\.py$|^conftest\.py$|^setup\.py$|^noxfile\.py$/.test(name)) return false;
  return !/(^|\/)(tests?|testing|docs?|examples?|benchmarks?|scripts?)\//.test(path);
}

async function show(dir: string, commit: string, path: string): Promise<string | undefined> {
  try {
    return await git(dir, "show", `${commit}:${path}`);
  } catch {
    return undefined; // absent on that side
  }
}

async function baselineAt(dir: string, commit: string): Promise<PackageBaseline> {
  const files = (await git(dir, "ls-tree", "-r", "--name-only", commit)).split("\n")
    .filter(isSource);
  const base = new Map<string, string>();
  for (const path of files) {
    const text = await show(dir, commit, path);
    if (text !== undefined && text.length < 1024 * 1024) base.set(path, text);
  }
  return base;
}

let commits = 0, reviewed = 0, alarmed = 0;
for (const dir of positionals) {
  const log =
    (await git(dir, "log", "--first-parent", "--no-merges", "--format=%H %P", "-n", values.limit!))
      .split("\n").filter(Boolean).map((l) => l.split(" "));
  for (const [commit, parent] of log) {
    if (!parent) continue;
    commits++;
    const changed = (await git(dir, "diff", "--name-only", "--no-renames", parent, commit))
      .split("\n").filter(isSource);
    if (changed.length === 0) continue;
    reviewed++;
    const paths: ReviewedPath[] = [];
    for (const path of changed) {
      const before = await show(dir, parent, path);
      const after = await show(dir, commit, path);
      paths.push({
        path,
        kind: "source",
        ...(before !== undefined ? { before } : {}),
        ...(after !== undefined ? { after } : {}),
        verb: before === undefined ? "adds" : after === undefined ? "deletes" : "edits",
      });
    }
    // Findings against the files alone first; only then read the parent's whole package.
    const own = new Map(paths.flatMap((p) => p.before === undefined ? [] : [[p.path, p.before]]));
    if (reviewCapabilities(PYTHON_CAPABILITIES, paths, own).length === 0) continue;
    const findings = reviewCapabilities(PYTHON_CAPABILITIES, paths, await baselineAt(dir, parent));
    if (findings.length === 0) continue;
    alarmed++;
    const title = (await git(dir, "log", "-1", "--format=%s", commit)).trim();
    console.log(`${dir.split("/").at(-2)} ${commit.slice(0, 10)} ${title.slice(0, 70)}`);
    for (const f of findings) console.log(`  ${f.file}:${f.line} [${f.capability}] ${f.reason}`);
  }
}
console.log(
  `${commits} commits, ${reviewed} changing source, ${alarmed} with a finding ` +
    `(${reviewed ? ((100 * alarmed) / reviewed).toFixed(1) : 0}%)`,
);
