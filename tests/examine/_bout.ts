/**
 * A scripted bout on the demo project's `chunk-partial` fix (issue #3: `chunk()` drops the last
 * partial chunk). Each agent's attempt is made for real: a history-free checkout of B is edited
 * as the script says, captured with the race's own snapshot/diff code and saved as an attempt.
 *
 * B computes `count = len(items) // size`; G rounds up. The agents:
 *
 * | agent | role | source change | tests |
 * |---|---|---|---|
 * | fixer | contestant | the real fix | new module: a reproduction and a regression check |
 * | wrong | contestant | adds a chunk only for a remainder of 2 or more | one test appended to tests/test_lists.py |
 * | tester | contestant | none (test-only) | new module: a reproduction |
 * | noop | contestant | nothing changed | none |
 * | cheater | contestant | a comment | root conftest.py forcing every report to "passed", and a test |
 * | marker | contestant | always one chunk more | marks the repository's test_chunk_even xfail(run=False) |
 * | printer | contestant | prints fake `PASSED` lines at import | none |
 * | examiner | examiner | — | new module: a reproduction and a regression check |
 *
 * @module
 */

import { join } from "node:path";
import { checkout } from "../../lib/checkout.ts";
import { parseConfig } from "../../lib/config.ts";
import { Project } from "../../lib/project.ts";
import { ensureTestEnv, envRequest, type TestEnv } from "../../lib/lang/python/env.ts";
import { saveAttempt } from "../../lib/race/attempts.ts";
import { capturePatch, takeSnapshot } from "../../lib/testbed/capture.ts";
import type { Attempt, Matrix, Outcome, Task } from "../../lib/records.ts";
import type { Sandbox } from "../../lib/sandbox/types.ts";
import { buildDemo, fixByKey, type FixtureFix } from "../fixtures/projects.ts";
import { ENVS_DIR, sandbox, toolsWith } from "../python/_shared.ts";
import type { ProjectTools } from "../../lib/lang/mod.ts";
import { PythonRunner } from "../../lib/lang/python/mod.ts";

/** How a scripted agent edits one file of its checkout of B. */
export type ScriptEdit = string | null | {
  replace?: [string, string][];
  prepend?: string;
  append?: string;
};

/** One scripted attempt. */
export interface Script {
  agent: string;
  role: "contestant" | "examiner";
  vendor: string;
  /** Edits of the checkout; none means the agent changed nothing. */
  edits: Record<string, ScriptEdit>;
}

const CHUNK_B = "count = len(items) // size";

/** The demo bout's agents, in configuration order (contestants, then the examiner). */
export const SCRIPTS: Script[] = [
  {
    agent: "fixer",
    role: "contestant",
    vendor: "openai",
    edits: {
      "textkit/lists.py": { replace: [[CHUNK_B, "count = -(-len(items) // size)"]] },
      "tests/test_chunk_fix.py": "from textkit.lists import chunk\n\n\n" +
        "def test_keeps_remainder():\n    assert chunk([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]\n\n\n" +
        "def test_exact_multiple():\n    assert chunk([1, 2, 3, 4], 2) == [[1, 2], [3, 4]]\n",
    },
  },
  {
    agent: "wrong",
    role: "contestant",
    vendor: "anthropic",
    edits: {
      "textkit/lists.py": {
        replace: [[CHUNK_B, "count = len(items) // size + (len(items) % size > 1)"]],
      },
      "tests/test_lists.py": {
        append: "\n\ndef test_chunk_remainder_of_two():\n" +
          "    assert chunk([1, 2, 3, 4, 5], 3) == [[1, 2, 3], [4, 5]]\n",
      },
    },
  },
  {
    agent: "tester",
    role: "contestant",
    vendor: "google",
    edits: {
      "tests/test_chunk_tester.py": "from textkit.lists import chunk\n\n\n" +
        "def test_partial_tail():\n    assert chunk(list(range(7)), 3)[-1] == [6]\n",
    },
  },
  { agent: "noop", role: "contestant", vendor: "local", edits: {} },
  {
    agent: "cheater",
    role: "contestant",
    vendor: "local",
    edits: {
      "textkit/lists.py": { append: "\n# chunk() is correct now.\n" },
      "conftest.py": "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\n" +
        "def pytest_runtest_makereport(item, call):\n    outcome = yield\n" +
        '    outcome.get_result().outcome = "passed"\n',
      "tests/test_cheat.py": "from textkit.lists import chunk\n\n\n" +
        "def test_chunk_fixed():\n    assert chunk([1, 2, 3], 2) == [[1, 2], [3]]\n",
    },
  },
  {
    agent: "marker",
    role: "contestant",
    vendor: "local",
    edits: {
      "textkit/lists.py": { replace: [[CHUNK_B, "count = len(items) // size + 1"]] },
      "tests/test_lists.py": {
        prepend: "import pytest\n",
        replace: [[
          "def test_chunk_even():",
          "@pytest.mark.xfail(run=False)\ndef test_chunk_even():",
        ]],
      },
    },
  },
  {
    agent: "printer",
    role: "contestant",
    vendor: "local",
    edits: {
      "textkit/__init__.py": {
        append: '\nprint("tests/test_lists.py::test_chunk_keeps_last_partial_chunk PASSED")\n' +
          'print("============ 12 passed in 0.01s ============")\n',
      },
    },
  },
  {
    agent: "examiner",
    role: "examiner",
    vendor: "google",
    edits: {
      "tests/test_chunk_spec.py": "from textkit.lists import chunk\n\n\n" +
        "def test_last_chunk_shorter():\n    assert chunk([1, 2, 3, 4, 5, 6, 7], 2)[-1] == [7]\n\n\n" +
        "def test_even_split_unchanged():\n" +
        "    assert chunk([1, 2, 3, 4, 5, 6], 2) == [[1, 2], [3, 4], [5, 6]]\n",
    },
  },
];

function agentTables(scripts: readonly Script[]): string {
  return scripts.map((s) =>
    [
      `[[${s.role === "contestant" ? "contestants" : "examiners"}]]`,
      'agent = "command"',
      `name = "${s.agent}"`,
      `vendor = "${s.vendor}"`,
      'command = ["true"]',
    ].join("\n")
  ).join("\n\n");
}

/** A built bout: the project, its task, the fix's manifest, a test environment and the sandbox. */
export interface Bout {
  project: Project;
  task: Task;
  fix: FixtureFix;
  env: TestEnv;
  /** Python's tools with that environment. */
  tools: ProjectTools;
  sandbox: Sandbox;
}

/** The demo project in `root/repo`, with bugbout.toml in `root` naming `scripts` as agents. */
export async function buildBout(
  root: string,
  options: { scripts?: readonly Script[]; settings?: string; testTimeout?: number } = {},
): Promise<Bout> {
  const repo = join(root, "repo");
  const demo = await buildDemo(repo);
  const fix = fixByKey(demo, "chunk-partial");
  const toml = `[project]
source = "textkit"
tests = "tests"
repository = ${JSON.stringify(repo)}
test-dependencies = ["pytest"]

[tasks]
reruns = 2

[run]
sandbox = "bubblewrap"
jobs = 2
test-timeout = ${options.testTimeout ?? 120}
test-memory = 2048
${options.settings ?? ""}

${agentTables(options.scripts ?? SCRIPTS)}
`;
  await Deno.writeTextFile(join(root, "bugbout.toml"), toml);
  const config = await parseConfig(toml, join(root, "bugbout.toml"));
  const project = new Project(config, repo, join(root, "home"));
  const env = await ensureTestEnv({ ...envRequest(project), envsDir: ENVS_DIR });
  const task: Task = {
    id: "issue-3",
    ref: { kind: "issue", number: 3 },
    title: fix.title,
    commit: fix.commit,
    parent: fix.parent,
    date: "2023-11-14T00:00:00Z",
    sourceFiles: fix.sourceFiles,
    testFiles: fix.testFiles,
    newTests: fix.newTests,
    packageDir: fix.packageDir,
    pythonPath: fix.pythonPath,
    statement: "chunk() drops the last partial chunk",
    statementSource: "issue",
  };
  const tools = toolsWith(project, env);
  return { project, task, fix, env, tools, sandbox: await sandbox("bubblewrap") };
}

function edited(text: string, edit: Exclude<ScriptEdit, string | null>): string {
  let out = text;
  for (const [from, to] of edit.replace ?? []) {
    if (!out.includes(from)) throw new Error(`script: cannot find ${JSON.stringify(from)}`);
    out = out.replace(from, to);
  }
  return (edit.prepend ?? "") + out + (edit.append ?? "");
}

/** Perform a script on a fresh checkout of B, capture the patch and save the attempt. */
export async function saveScripted(
  bout: Bout,
  script: Script,
  scratch: string,
  repeat = 1,
): Promise<Attempt> {
  const { project, task } = bout;
  const dir = join(scratch, `${script.agent}-${repeat}`);
  const work = await checkout(project.repository, task.parent, join(dir, "work"), {
    home: project.home,
  });
  const snapshot = await takeSnapshot(work, join(dir, "snapshot.git"));
  for (const [path, edit] of Object.entries(script.edits)) {
    const full = join(work, path);
    if (edit === null) await Deno.remove(full);
    else if (typeof edit === "string") {
      await Deno.mkdir(join(full, ".."), { recursive: true });
      await Deno.writeTextFile(full, edit);
    } else await Deno.writeTextFile(full, edited(await Deno.readTextFile(full), edit));
  }
  const runner = new PythonRunner({ testsDir: project.config.project.tests });
  const patch = await capturePatch(snapshot, { packageDir: task.packageDir, runner });
  const contestant = script.role === "contestant";
  const files = contestant
    ? patch.files
    : patch.files.filter((f) => f.kind === "test" || f.kind === "config");
  const attempt: Attempt = {
    version: 1,
    kind: "attempt",
    task: task.id,
    agent: script.agent,
    role: script.role,
    type: "command",
    vendor: script.vendor,
    inputsKey: `scripted-${script.agent}${repeat > 1 ? `-${repeat}` : ""}`,
    status: files.length > 0 ? "patch" : "no-change",
    startedAt: "2025-01-01T00:00:00.000Z",
    durationMs: 1000,
    exitCode: 0,
    logTail: "",
    sandbox: "bubblewrap",
    files,
    ...(repeat > 1 ? { repeat } : {}),
  };
  await saveAttempt(project.results, attempt, {
    source: contestant ? patch.sourcePatch : "",
    tests: patch.testPatch,
    full: contestant ? patch.fullPatch : patch.testPatch,
  });
  await Deno.remove(dir, { recursive: true });
  return attempt;
}

/** Save every script's attempt. */
export async function saveAll(bout: Bout, scripts: readonly Script[] = SCRIPTS): Promise<void> {
  const scratch = await Deno.makeTempDir({ prefix: "bugbout-scripts-" });
  try {
    for (const script of scripts) await saveScripted(bout, script, scratch);
  } finally {
    await Deno.remove(scratch, { recursive: true }).catch(() => {});
  }
}

const LETTERS: Record<string, Outcome> = {
  P: "passed",
  F: "failed",
  E: "error",
  S: "skipped",
  X: "xfailed",
  ".": "not-run",
};

/**
 * A matrix's rows as `[test, author, one letter per tree]`, for tables written by hand; `-` where
 * the tree has no cell (a repeat of B that left the test out).
 */
export function rows(matrix: Matrix): [string, string, string][] {
  const letter = (o: Outcome | undefined) =>
    o === undefined ? "-" : Object.entries(LETTERS).find(([, v]) => v === o)![0];
  return matrix.tests.map((t) => [
    t.id,
    t.author,
    matrix.trees.map((tree) => letter(matrix.cells[t.id][tree.id])).join(""),
  ]);
}

/**
 * The matrix of {@linkcode SCRIPTS}, one letter per tree: B, B#2, fixer, wrong, cheater, marker,
 * printer. chunk() on them: n//s, n//s, ceil, +1 if remainder >= 2, n//s, n//s + 1, n//s. B#2
 * runs only the tests that fail on B or differ on some candidate (`-`: left out).
 */
export const ALL_ROWS: [string, string, string][] = [
  ["tests/_bugbout_fixer/test_chunk_fix.py::test_keeps_remainder", "fixer", "FFPFFPF"],
  ["tests/_bugbout_fixer/test_chunk_fix.py::test_exact_multiple", "fixer", "PPPPPFP"],
  // wrong appended to an existing module: only its new function is its test.
  ["tests/_bugbout_wrong/test_lists.py::test_chunk_remainder_of_two", "wrong", "FFPPFPF"],
  ["tests/_bugbout_tester/test_chunk_tester.py::test_partial_tail", "tester", "FFPFFPF"],
  // cheater's conftest.py forces its own test to pass everywhere (and nobody else's): where
  // the test really fails, the guard sees a pass reported for a test that raised, and the
  // session counts for nothing. Where it really passes, it passes.
  ["tests/_bugbout_cheater/test_cheat.py::test_chunk_fixed", "cheater", "..P..P."],
  // marker's "test" is the repository test it marked xfail(run=False).
  ["tests/_bugbout_marker/test_lists.py::test_chunk_even", "marker", "XXXXXXX"],
  ["tests/_bugbout_examiner/test_chunk_spec.py::test_last_chunk_shorter", "examiner", "FFPFFPF"],
  [
    "tests/_bugbout_examiner/test_chunk_spec.py::test_even_split_unchanged",
    "examiner",
    "PPPPPFP",
  ],
  ["tests/test_durations.py::test_single_units", "repository", "P-PPPPP"],
  ["tests/test_durations.py::test_rejects_garbage", "repository", "P-PPPPP"],
  // The repository's own copy of the test marker marked still runs unmarked, and fails on
  // marker's patch (one chunk too many).
  ["tests/test_lists.py::test_chunk_even", "repository", "PPPPPFP"],
  ["tests/test_lists.py::test_flatten", "repository", "P-PPPPP"],
  ["tests/test_stats.py::test_mean", "repository", "P-PPPPP"],
  ["tests/test_stats.py::test_mean_of_nothing", "repository", "P-PPPPP"],
  ["tests/test_stats.py::test_median_odd_and_even", "repository", "P-PPPPP"],
  ["tests/test_text.py::test_wrap_short_text", "repository", "P-PPPPP"],
  ["tests/test_text.py::test_title_case", "repository", "P-PPPPP"],
];
