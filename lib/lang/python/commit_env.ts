/**
 * The test environment of one commit: what that commit itself declares (its packaging file's
 * runtime dependencies, its test extras, dependency groups or test requirements files), resolved
 * with `uv pip compile --exclude-newer <date>` (only distributions uploaded before the commit),
 * for the oldest installed Python 3.8 or newer its `requires-python` admits. Commits that resolve
 * to the same requirement set with the same interpreter share one environment
 * ({@linkcode ensurePinnedEnv}); at most {@linkcode MAX_COMMIT_ENVS} are kept, the least recently
 * used removed first.
 *
 * What stood in for what was asked is recorded in the environment's `notes`: today's versions
 * when nothing resolves as of the date; the caller falls back to the project's environment
 * (resolved at HEAD) when nothing resolves at all.
 *
 * Requires `--allow-run` (uv, cp), `--allow-read`, `--allow-write` (`BUGBOUT_HOME`) and
 * `--allow-env`.
 *
 * @module
 */

import { join } from "node:path";
import { z } from "../../deps.ts";
import { copyTree } from "../../checkout.ts";
import { BugboutError } from "../../errors.ts";
import { readDirIfExists, readTextIfExists, removeIfExists, statIfExists } from "../../fs.ts";
import { inputsKey } from "../../hash.ts";
import { run } from "../../proc.ts";
import { writeJsonAtomic } from "../../store.ts";
import { dependencyFile, dependencyHash } from "./dependencies.ts";
import { type PythonChoice, resolvePython, uvEnv } from "./discover.ts";
import { ensurePinnedEnv, type EnvRequest, type TestEnv } from "./env.ts";
import { declaredPython, declaredTestDependencies, requirementName } from "./layout.ts";

/** How many commit environments are kept in one environments directory. */
export const MAX_COMMIT_ENVS = 8;
/** Bumped when what is resolved for the same declarations changes, so old records are not reused. */
const RESOLVER = 3;
/** The oldest Python a commit's environment is given. */
const OLDEST = [3, 8];

// -- Python versions ----------------------------------------------------------------------------

function parts(version: string): number[] {
  return version.split(".").map((p) => parseInt(p, 10)).map((n) => (Number.isNaN(n) ? 0 : n));
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * Whether Python `version` (`3.8.18`) satisfies the PEP 440 specifier `spec` (`>=3.6,
 * !=3.7.*`, `~=3.9`, `<4`); an unreadable clause counts as satisfied. Pure.
 */
export function satisfies(version: string, spec: string): boolean {
  const v = parts(version);
  for (const raw of spec.split(",").map((c) => c.trim()).filter(Boolean)) {
    const m = raw.match(/^(~=|===|==|!=|<=|>=|<|>)\s*([\d.]+)(\.\*)?$/);
    if (!m) continue;
    const [, op, text, star] = m;
    const w = parts(text);
    const prefix = compare(v.slice(0, w.length), w) === 0;
    const c = compare(v, w);
    const ok = op === "==" || op === "==="
      ? (star ? prefix : c === 0)
      : op === "!="
      ? (star ? !prefix : c !== 0)
      : op === ">="
      ? c >= 0
      : op === "<="
      ? c <= 0
      : op === ">"
      ? c > 0
      : op === "<"
      ? c < 0
      // ~=X.Y: >= X.Y and == X.*
      : c >= 0 && compare(v.slice(0, w.length - 1), w.slice(0, -1)) === 0;
    if (!ok) return false;
  }
  return true;
}

/** Installed interpreters uv does not find by itself: pyenv's versions. */
async function installedPythons(): Promise<PythonChoice[]> {
  const root = Deno.env.get("PYENV_ROOT") || join(Deno.env.get("HOME") ?? "/root", ".pyenv");
  const found: PythonChoice[] = [];
  for (const entry of await readDirIfExists(join(root, "versions"))) {
    if (!/^\d+\.\d+\.\d+$/.test(entry.name)) continue;
    const path = join(root, "versions", entry.name, "bin", "python3");
    if (await statIfExists(path)) {
      found.push({ path, version: entry.name, request: entry.name, from: "default" });
    }
  }
  return found.sort((a, b) => compare(parts(a.version), parts(b.version)));
}

let defaultPython: Promise<PythonChoice | undefined> | undefined;

/** uv's own default Python, whatever a tree declares: asked once per process. */
function uvDefault(tree: string): Promise<PythonChoice | undefined> {
  defaultPython ??= resolvePython(tree, { python: "any" }).then(
    (c): PythonChoice => ({ ...c, from: "default" }),
    () => undefined,
  );
  return defaultPython;
}

/** The interpreter a commit's environment uses, and what stood in for what it asked. */
export interface CommitPython {
  /** The interpreter. */
  choice: PythonChoice;
  /** What the commit asked (`requires-python`), if anything. */
  asked?: string;
  /** Why the interpreter is not what was asked, when it is not. */
  note?: string;
}

/**
 * The Python for the tree at `tree`: `[project] python` when set; else the oldest installed
 * Python 3.8 or newer its `requires-python` admits; else (nothing declared, or nothing installed
 * admits it) uv's default.
 */
export async function commitPython(tree: string, configured?: string): Promise<CommitPython> {
  if (configured) return { choice: await resolvePython(tree, { python: configured }) };
  const declared = await declaredPython(tree);
  const fallback = await uvDefault(tree);
  const candidates = [...await installedPythons(), ...(fallback ? [fallback] : [])]
    .filter((c) => compare(parts(c.version), OLDEST) >= 0)
    .sort((a, b) => compare(parts(a.version), parts(b.version)));
  if (!declared) {
    if (fallback) return { choice: fallback };
    throw new BugboutError("Cannot find a Python for the test environment.");
  }
  const fits = candidates.find((c) => satisfies(c.version, declared.spec));
  if (fits) {
    return {
      choice: { ...fits, from: declared.from as PythonChoice["from"] },
      asked: declared.spec,
    };
  }
  if (!fallback) throw new BugboutError("Cannot find a Python for the test environment.");
  return {
    choice: fallback,
    asked: declared.spec,
    note: `requires-python ${declared.spec} (${declared.from}): no installed Python 3.8 or ` +
      `newer admits it; Python ${fallback.version} was used.`,
  };
}

// -- Resolution ---------------------------------------------------------------------------------

/** What a commit's environment is asked to be. */
export interface CommitEnvRequest {
  /** The project's environment request (home, source, test dependencies, signal). */
  request: EnvRequest;
  /** The tree of the commit (read, copied, never changed). */
  tree: string;
  /** Resolve as of this date (ISO 8601); absent: today. */
  date?: string;
  /** How many commit environments to keep (default {@linkcode MAX_COMMIT_ENVS}). */
  keep?: number;
}

const resolvedSchema = z.object({ pinned: z.string(), notes: z.array(z.string()) });

async function compile(
  inputs: string[],
  python: string,
  options: { date?: string; cwd: string; signal?: AbortSignal },
) {
  return await run([
    "uv",
    "pip",
    "compile",
    "--quiet",
    "--no-header",
    "--no-annotate",
    "--python",
    python,
    ...(options.date ? ["--exclude-newer", options.date] : []),
    ...inputs,
  ], {
    cwd: options.cwd,
    env: uvEnv({ SETUPTOOLS_SCM_PRETEND_VERSION: "0.0.0" }),
    clearEnv: true,
    okCodes: "any",
    timeoutMs: 600_000,
    signal: options.signal,
  });
}

function said(stderr: string, code: number): string {
  return stderr.trim().split("\n").filter(Boolean).slice(-3).join(" ") || `exit code ${code}`;
}

/**
 * The environment of the commit whose tree is `tree` (see the module's description). Throws a
 * {@linkcode BugboutError} saying what uv said when its declarations resolve neither as of the
 * date nor today, or cannot be installed.
 */
export async function ensureCommitEnv(c: CommitEnvRequest): Promise<TestEnv> {
  const { request, tree } = c;
  const python = await commitPython(tree, request.python);
  const file = request.installProject ? await dependencyFile(tree, request.source) : null;
  const declaredTests = await declaredTestDependencies(tree);
  const own = declaredTests?.requirements ?? [];
  const tests = [...new Set([...request.testDependencies, ...own])];
  // bugbout.toml's entries for packages the commit names itself give way when both together do
  // not resolve: they were written for another era (init copies HEAD's).
  const ownNames = new Set(own.map(requirementName));
  const yielding = request.testDependencies.filter((r) => ownNames.has(requirementName(r)));
  const ownFirst = yielding.some((r) => !own.includes(r))
    ? {
      tests: [
        ...new Set([...request.testDependencies.filter((r) => !yielding.includes(r)), ...own]),
      ],
      yielding: yielding.filter((r) => !own.includes(r)),
    }
    : undefined;
  const key = inputsKey({
    resolver: RESOLVER,
    python: python.choice.path,
    version: python.choice.version,
    file,
    files: await dependencyHash(tree, file),
    tests,
    date: c.date ?? null,
  });
  const cache = join(request.home, "resolved", `${key}.json`);
  let resolved: z.infer<typeof resolvedSchema> | undefined;
  const saved = await readTextIfExists(cache);
  if (saved !== undefined) {
    try {
      resolved = resolvedSchema.parse(JSON.parse(saved));
    } catch {
      // A garbled record is resolved again.
      resolved = undefined;
    }
  }
  if (!resolved) {
    resolved = await resolve(c, python.choice.path, file, tests, ownFirst);
    await writeJsonAtomic(cache, resolved);
  }
  const env = await ensurePinnedEnv({
    request,
    choice: python.choice,
    pinned: resolved.pinned,
    dependencies: file,
  });
  await prune(request.envsDir ?? join(request.home, "envs"), env.python, c.keep);
  const notes = [
    ...(python.note ? [python.note] : []),
    ...(declaredTests?.tooling
      ? [
        `Left out of the test requirements as tooling no test imports: ${
          declaredTests.tooling.join(", ")
        } (${declaredTests.from}).`,
      ]
      : []),
    ...resolved.notes,
  ];
  return { ...env, ...(notes.length ? { notes } : {}) };
}

async function resolve(
  c: CommitEnvRequest,
  python: string,
  file: string | null,
  tests: string[],
  ownFirst?: { tests: string[]; yielding: string[] },
): Promise<z.infer<typeof resolvedSchema>> {
  // Building a project's metadata may write into its tree (`*.egg-info`): use a scratch copy.
  const scratch = await Deno.makeTempDir({ prefix: "bugbout-resolve-" });
  try {
    const inputs: string[] = [];
    if (file !== null) {
      await copyTree(c.tree, join(scratch, "tree"), c.request.signal);
      inputs.push(join(scratch, "tree", file));
    }
    const testsFile = join(scratch, "tests.txt");
    const options = { cwd: c.request.cwd ?? scratch, signal: c.request.signal };
    const notes: string[] = [];
    // What is tried, in order: everything; the commit's own entries where bugbout.toml names
    // the same packages; each of those as of the date, then today.
    const sets = [
      { tests, note: "" },
      ...(ownFirst
        ? [{
          tests: ownFirst.tests,
          note:
            `bugbout.toml's test-dependencies ${
              ownFirst.yielding.join(", ")
            } gave way to this commit's own declaration of the same packages (together they do not ` +
            "resolve).",
        }]
        : []),
    ];
    const attempt = async (date?: string) => {
      let last: Awaited<ReturnType<typeof compile>> | undefined;
      for (const set of sets) {
        await Deno.writeTextFile(testsFile, set.tests.join("\n") + "\n");
        last = await compile([...inputs, testsFile], python, { ...options, date });
        if (last.code === 0) return { ok: last, note: set.note };
      }
      return { failed: last! };
    };
    if (c.date) {
      const dated = await attempt(c.date);
      if (dated.ok) return { pinned: dated.ok.stdout, notes: dated.note ? [dated.note] : [] };
      notes.push(
        `Resolved with today's versions: as of ${c.date} uv could not (${
          said(dated.failed.stderr, dated.failed.code)
        }).`,
      );
    }
    const current = await attempt();
    if (current.ok) {
      return {
        pinned: current.ok.stdout,
        notes: [...notes, ...current.note ? [current.note] : []],
      };
    }
    const today = current.failed;
    throw new BugboutError(
      `Cannot resolve this commit's declared dependencies${
        file ? ` (${file} and the test dependencies)` : ""
      }: ${said(today.stderr, today.code)}`,
    );
  } finally {
    await removeIfExists(scratch);
  }
}

/** Remove the least recently used commit environments beyond `keep`, never the one of `python`. */
async function prune(dir: string, python: string, keep = MAX_COMMIT_ENVS): Promise<void> {
  const envs: { path: string; used: number }[] = [];
  for (const entry of await readDirIfExists(dir)) {
    if (!entry.isDirectory || !entry.name.startsWith("at-py")) continue;
    const path = join(dir, entry.name);
    const info = await statIfExists(join(path, "bugbout-env.json"));
    if (info) envs.push({ path, used: info.mtime?.getTime() ?? 0 });
  }
  envs.sort((a, b) => b.used - a.used);
  for (const old of envs.slice(keep)) {
    if (python.startsWith(old.path + "/")) continue;
    await removeIfExists(join(old.path, "bugbout-env.json"));
    await removeIfExists(old.path);
  }
}
