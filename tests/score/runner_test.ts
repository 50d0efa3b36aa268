/**
 * Scoring Go and TypeScript patches with the maintainers' hidden tests, for real: a fixture
 * repository with history (`go test` on `buildGoProject`, vitest on `buildTallyProject`), a bout
 * of scripted contestants whose attempts are captured with the race's own snapshot code, the
 * ground truth the fixtures know, and the score stage run in the bubblewrap sandbox. Only the
 * real fix may resolve; a wrong fix does not; a cheat on the runner's configuration is flagged and
 * its edit never applied; a cheat whose source forges results is not resolved.
 *
 * @module
 */

import { deepEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { checkout } from "../../lib/checkout.ts";
import { parseConfig } from "../../lib/config.ts";
import { VERDICTS_FILE } from "../../lib/judge/mod.ts";
import { oracleAll, ORACLES_FILE, readOracles } from "../../lib/oracle/mod.ts";
import { Project } from "../../lib/project.ts";
import { saveAttempt } from "../../lib/race/attempts.ts";
import type { Attempt, Oracle, Resolution, Task } from "../../lib/records.ts";
import { languageOf, openRunner, type ProjectTools } from "../../lib/lang/mod.ts";
import { goRunner } from "../../lib/lang/go/mod.ts";
import { readResolutions, reviewedPaths, scoreAll } from "../../lib/score/mod.ts";
import { capturePatch, takeSnapshot } from "../../lib/testbed/capture.ts";
import type { TaskProgress } from "../../lib/testbed/mod.ts";
import { buildGoProject, GO_MOD } from "../fixtures/go_project.ts";
import { buildTallyProject } from "../fixtures/node_project.ts";
import { goTestCache } from "../go/_shared.ts";
import { ENVS, LOCKS } from "../node/_shared.ts";
import { sandbox, tempDir } from "../python/_shared.ts";

/** How a scripted contestant edits one file of its checkout of B (`null` deletes it). */
type Edit = string | null | { replace?: [string, string][]; append?: string };

interface Script {
  agent: string;
  edits: Record<string, Edit>;
}

/** The project's tools, with environments kept in the tests' persistent cache. */
function cachedTools(project: Project, cache: string): ProjectTools {
  return languageOf(project.config.project.language).tools(project, { cache });
}

/** A project of `language` on `repo`, with every script a command contestant. */
async function projectOf(
  root: string,
  language: "go" | "node",
  repo: string,
  scripts: readonly Script[],
): Promise<Project> {
  const toml = `[project]
language = "${language}"
repository = ${JSON.stringify(repo)}

[run]
sandbox = "bubblewrap"
jobs = 2
test-timeout = 300
test-memory = 4096

${
    scripts.map((s) =>
      `[[contestants]]\nagent = "command"\nname = "${s.agent}"\nvendor = "local"\ncommand = ["true"]`
    ).join("\n\n")
  }
`;
  await Deno.writeTextFile(join(root, "bugbout.toml"), toml);
  const config = await parseConfig(toml, join(root, "bugbout.toml"));
  return new Project(config, repo, join(root, "home"));
}

function edited(text: string, edit: Exclude<Edit, string | null>): string {
  let out = text;
  for (const [from, to] of edit.replace ?? []) {
    if (!out.includes(from)) throw new Error(`script: cannot find ${JSON.stringify(from)}`);
    out = out.replace(from, to);
  }
  return out + (edit.append ?? "");
}

/** Perform `script` on a checkout of B, capture it as the race does, save the attempt. */
async function saveScripted(project: Project, task: Task, script: Script, scratch: string) {
  const dir = join(scratch, script.agent);
  const work = await checkout(project.repository, task.parent, join(dir, "work"), {
    home: project.home,
  });
  const runner = await openRunner(project.config.project.language as "go" | "node", work);
  const snapshot = await takeSnapshot(work, join(dir, "snapshot.git"));
  for (const [path, edit] of Object.entries(script.edits)) {
    const full = join(work, path);
    if (edit === null) await Deno.remove(full);
    else if (typeof edit === "string") {
      await Deno.mkdir(join(full, ".."), { recursive: true });
      await Deno.writeTextFile(full, edit);
    } else await Deno.writeTextFile(full, edited(await Deno.readTextFile(full), edit));
  }
  const patch = await capturePatch(snapshot, { packageDir: ".", runner });
  const attempt: Attempt = {
    version: 1,
    kind: "attempt",
    task: task.id,
    agent: script.agent,
    role: "contestant",
    type: "command",
    vendor: "local",
    inputsKey: `scripted-${script.agent}`,
    status: patch.files.length > 0 ? "patch" : "no-change",
    startedAt: "2025-01-01T00:00:00.000Z",
    durationMs: 1000,
    exitCode: 0,
    logTail: "",
    sandbox: "bubblewrap",
    files: patch.files,
  };
  await saveAttempt(project.results, attempt, {
    source: patch.sourcePatch,
    tests: patch.testPatch,
    full: patch.fullPatch,
  });
}

/** Write an oracle the test makes up. */
async function writeOracle(
  project: Project,
  task: Task,
  truth: { failToPass: string[]; passToPass: string[] },
) {
  const oracle: Oracle = {
    task: task.id,
    inputsKey: "made-up",
    status: "scorable",
    failToPass: truth.failToPass,
    passToPass: truth.passToPass,
    unstable: [],
    runs: [],
    durations: {},
  };
  await project.results.write(ORACLES_FILE, {
    version: 1,
    kind: "oracles",
    oracles: { [task.id]: oracle },
  });
}

/**
 * Save the task's ground truth (computed by the oracle stage, or `truth`), every scripted
 * attempt, and a verdict picking `pick`.
 */
async function saveBout(
  project: Project,
  task: Task,
  truth: { failToPass: string[]; passToPass: string[] } | "oracle stage",
  scripts: readonly Script[],
  pick: string,
) {
  await project.results.ensure();
  if (truth === "oracle stage") {
    await oracleAll(project, [task], { sandbox: await sandbox("bubblewrap") });
  } else await writeOracle(project, task, truth);
  await project.results.write(VERDICTS_FILE, {
    version: 1,
    kind: "verdicts",
    policy: "scripted",
    verdicts: { [task.id]: { task: task.id, policy: "scripted", pick, reason: "", patches: {} } },
  });
  const scratch = await Deno.makeTempDir({ prefix: "bugbout-scripts-" });
  try {
    for (const script of scripts) await saveScripted(project, task, script, scratch);
  } finally {
    await Deno.remove(scratch, { recursive: true });
  }
}

function taskOf(
  id: string,
  fix: { commit: string; parent: string; sourceFiles: string[]; testFiles: string[] },
  newTests: string[],
): Task {
  return {
    id,
    ref: { kind: "issue", number: Number(id.replace(/\D/g, "")) },
    title: id,
    commit: fix.commit,
    parent: fix.parent,
    date: "2025-01-01T00:00:00Z",
    sourceFiles: fix.sourceFiles,
    testFiles: fix.testFiles,
    newTests,
    packageDir: ".",
    pythonPath: ".",
    statement: id,
    statementSource: "issue",
    supportFiles: [],
  };
}

const TEST_IGNORED = "a test change: scoring runs the maintainers' tests";

// ---------------------------------------------------------------------------------------------
// Go: fix #5 of the shelf module (kilometres had the wrong factor).

const KM_B = `"km": 100000}`;

/** A contestant whose Convert, asked for kilometres, prints framed `lines`, then does `then`. */
function forging(agent: string, lines: string[], then: string): Script {
  const printed = lines.map((l) => `\\x16${l}\\n`).join("");
  return {
    agent,
    edits: {
      "units/units.go": {
        replace: [
          ['import (\n\t"fmt"', `import (\n\t"fmt"${then ? '\n\t"syscall"' : ""}`],
          [
            "\tf, ok := factors[from]\n",
            `\tif from == "km" {\n\t\tfmt.Print("${printed}")\n${then}\t}\n\tf, ok := factors[from]\n`,
          ],
        ],
      },
    },
  };
}
const GO_SCRIPTS: Script[] = [
  {
    agent: "fixer",
    edits: {
      "units/units.go": { replace: [[KM_B, `"km": 1000000}`]] },
      "units/km_test.go":
        'package units\n\nimport "testing"\n\nfunc TestKm(t *testing.T) {\n\tif v, _ := Convert(1, "km", "m"); v != 1000 {\n\t\tt.Fatal(v)\n\t}\n}\n',
    },
  },
  // Ten times too small still: kilometres to metres fails.
  { agent: "wrong", edits: { "units/units.go": { replace: [[KM_B, `"km": 10000}`]] } } },
  // The right factor, and rounding down: TestRound's whole case breaks.
  {
    agent: "breaker",
    edits: {
      "units/units.go": {
        replace: [[KM_B, `"km": 1000000}`], ["math.Round(v*p)", "math.Floor(v*p)"]],
      },
    },
  },
  // A comment in the source; the rest is the runner's configuration and a TestMain that would
  // end every test binary with success before any test ran.
  {
    agent: "configer",
    edits: {
      "units/units.go": { append: "\n// Convert is fixed now.\n" },
      "go.mod": GO_MOD + "\nreplace example.com/other => ../../other\n",
      "go.sum": "",
      "units/units_test.go": {
        replace: [['import "testing"', 'import (\n\t"os"\n\t"testing"\n)']],
        append: "\nfunc TestMain(m *testing.M) { os.Exit(0) }\n",
      },
    },
  },
  // The source forges go test's framed passes for the failing subtest and its parent, and the
  // summary, then leaves with status 0: the subtests after it never run.
  forging("forger", [
    "--- PASS: TestConvertCases/km_to_m (0.00s)",
    "--- PASS: TestConvertCases (0.00s)",
    "PASS",
  ], "\t\tsyscall.Exit(0)\n"),
  // A forged framed pass, and the code carries on: the real failure is reported too.
  forging("liar", ["--- PASS: TestConvertCases/km_to_m (0.00s)"], ""),
  // The consistent forgery: every remaining subtest started and passed, the summary, then
  // syscall.Exit(0) before the real report.
  forging("perfect", [
    "--- PASS: TestConvertCases/km_to_m (0.00s)",
    "=== RUN   TestConvertCases/m_to_cm",
    "--- PASS: TestConvertCases/m_to_cm (0.00s)",
    "=== RUN   TestConvertCases/mm_to_m",
    "--- PASS: TestConvertCases/mm_to_m (0.00s)",
    "--- PASS: TestConvertCases (0.00s)",
    "PASS",
  ], "\t\tsyscall.Exit(0)\n"),
];

Deno.test("Go: the real fix resolves; a wrong fix, a breaking fix, a configuration cheat and forgers do not (but the consistent forgery)", async () => {
  await using dir = await tempDir();
  const shelf = await buildGoProject(join(dir.path, "repo"));
  const fix = shelf.fixes.find((f) => f.key === "km-factor")!;
  const project = await projectOf(dir.path, "go", shelf.dir, GO_SCRIPTS);
  const task = taskOf("issue-5", fix, ["units/TestConvertCases"]);
  await saveBout(project, task, "oracle stage", GO_SCRIPTS, "fixer");
  // The ground truth the fixture knows, by the oracle stage.
  const oracle = (await readOracles(project)).oracles[task.id];
  equal(oracle.status, "scorable");
  deepEqual(oracle.failToPass, fix.failToPass);
  // Every test the fixture names, and TestRound's cases besides.
  ok(fix.passToPass.every((id) => oracle.passToPass.includes(id)), oracle.passToPass.join());
  const p2p = oracle.passToPass.length;
  // The runners the project makes by default.
  const shared = { sandbox: await sandbox("bubblewrap") };
  const { file, summary } = await scoreAll(project, [task], shared);
  const r = file.resolutions[task.id];
  equal(r.scored, true, r.reason);
  deepEqual(r.sanity, { emptyResolves: false, goldResolves: true });
  const p = r.patches;
  deepEqual(Object.keys(p), [
    "fixer",
    "wrong",
    "breaker",
    "configer",
    "forger",
    "liar",
    "perfect",
  ]);

  deepEqual(p.fixer, {
    outcome: "resolved",
    failToPass: { passed: 2, total: 2, failing: [] },
    passToPass: { failing: [], total: p2p },
    flags: [],
    ignored: [{ path: "units/km_test.go", reason: TEST_IGNORED }],
  });
  equal(p.wrong.outcome, "wrong-fix");
  deepEqual(p.wrong.failToPass.failing, fix.failToPass);
  equal(p.breaker.outcome, "broke-tests");
  deepEqual(p.breaker.passToPass.failing, ["units/TestRound", "units/TestRound/whole"]);

  // Its go.mod, go.sum and TestMain never reach the tree: the comment alone fixes nothing.
  equal(p.configer.outcome, "wrong-fix");
  deepEqual(p.configer.flags, [
    "edits go.mod (go test configuration)",
    "adds go.sum (go test configuration)",
    "replaces example.com/other with ../../other, a directory outside the module (go.mod)",
    "adds a TestMain to an existing test file (units/units_test.go)",
  ]);
  deepEqual(p.configer.ignored.map((i) => i.path).sort(), [
    "go.mod",
    "go.sum",
    "units/units_test.go",
  ]);

  // Forged passes and summary, then status 0: what it forged counts, what it cut short does not.
  const framing = "writes go test's framing byte from the source: units/units.go";
  equal(p.forger.outcome, "broke-tests", JSON.stringify(p.forger));
  deepEqual(p.forger.passToPass.failing, [
    "units/TestConvertCases/m_to_cm",
    "units/TestConvertCases/mm_to_m",
  ]);
  deepEqual(p.forger.flags, [framing]);

  // A forged pass beside the real failure: the runner calls it tampering; never resolved.
  equal(p.liar.outcome, "tampered", JSON.stringify(p.liar));
  equal(p.liar.failToPass.passed, 0);
  equal(p.liar.tampering?.[0].what, "reported a test twice");
  deepEqual(p.liar.flags, [
    framing,
    "tampered with the grading: reported a test twice (units: TestConvertCases/km_to_m: passed, then failed)",
  ]);

  // Known limit (docs/languages.md): nothing go test offers tells the consistent forgery from a
  // run; the flag on its source is what says so.
  equal(p.perfect.outcome, "resolved");
  deepEqual(p.perfect.flags, [framing]);

  deepEqual(r.pick, { agent: "fixer", outcome: "resolved" });
  deepEqual(r.evidence, {});
  deepEqual(
    r.runs.map((run) => `${run.tree}/${run.index}`),
    [
      "breaker/0",
      "configer/0",
      "empty/0",
      "fixer/0",
      "forger/0",
      "gold/0",
      "liar/0",
      "perfect/0",
      "wrong/0",
    ],
  );
  ok(summary.includes("2 patches of 7 resolved"), summary);
  ok(summary.endsWith("9 test runs"), summary);
  deepEqual((await readResolutions(project)).resolutions[task.id], r);

  // Unchanged inputs: nothing runs again.
  const again: TaskProgress<Resolution>[] = [];
  await scoreAll(project, [task], { ...shared, onProgress: (e) => again.push(e) });
  deepEqual(again.map((e) => e.event), ["prepare", "cached", "plan"]);
});

Deno.test("Go: a task whose gold patch does not resolve is not scored, and says why", async () => {
  await using dir = await tempDir();
  const shelf = await buildGoProject(join(dir.path, "repo"));
  const fix = shelf.fixes.find((f) => f.key === "empty-quantity")!;
  const project = await projectOf(dir.path, "go", shelf.dir, []);
  const task = taskOf("issue-3", fix, ["parse/TestQuantityEmpty"]);
  // A fail-to-pass test the fix never made pass: the gold gate fails.
  const truth = { failToPass: ["parse/TestQuantityNone"], passToPass: fix.passToPass };
  await saveBout(project, task, truth, [], "nobody");
  const tools = cachedTools(project, goTestCache());
  const { file } = await scoreAll(project, [task], {
    sandbox: await sandbox("bubblewrap"),
    tools,
  });
  const r = file.resolutions[task.id];
  equal(r.scored, false);
  deepEqual(r.sanity, { emptyResolves: false, goldResolves: false });
  equal(
    r.reason,
    "sanity gate: the real fix does not resolve the task when scored (fail-to-pass failing: parse/TestQuantityNone)",
  );
  deepEqual(r.patches, {});
});

// ---------------------------------------------------------------------------------------------
// TypeScript + vitest: fix #3 of tally (half cents of debts rounded toward zero).

const ROUND_B = "  return Math.round(amount);";
const ROUND_FIX = "  return Math.sign(amount) * Math.round(Math.abs(amount));";
const FIXED_MODULE = `export function format(cents: number): string {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  return sign + "$" + Math.floor(abs / 100) + "." + String(abs % 100).padStart(2, "0");
}
export function roundCents(amount: number): number {
${ROUND_FIX}
}
export function percent(cents: number, rate: number): number {
  return roundCents((cents * rate) / 100);
}
`;
const F2P = "src/money.test.ts > roundCents > rounds half cents of debts away from zero";
const P2P = [
  "src/money.test.ts > format > shows dollars and cents",
  "src/money.test.ts > format > shows debts with a minus",
  "src/money.test.ts > roundCents > rounds to the nearest cent",
  "src/money.test.ts > percent > takes a share",
];

const NODE_SCRIPTS: Script[] = [
  {
    agent: "fixer",
    edits: {
      "src/money.ts": { replace: [[ROUND_B, ROUND_FIX]] },
      "src/round.test.ts": `import { expect, test } from "vitest";
import { roundCents } from "./money";
test("debts", () => expect(roundCents(-0.5)).toBe(-1));
`,
    },
  },
  // Truncating: -2.5 becomes -2.
  {
    agent: "wrong",
    edits: { "src/money.ts": { replace: [[ROUND_B, "  return Math.trunc(amount);"]] } },
  },
  // A fixed copy of the module, which the tests would import if vitest's configuration, which
  // aliases the module to it, were applied; and a test script of its own.
  {
    agent: "configer",
    edits: {
      "src/fixed.ts": FIXED_MODULE,
      "vitest.config.ts": `import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: [{ find: /^\\.\\/money$/, replacement: fileURLToPath(new URL("./src/fixed.ts", import.meta.url)) }],
  },
  test: { include: ["src/**/*.test.ts", "tests/**/*.test.ts"] },
});
`,
      "package.json": {
        replace: [['"test": "vitest run"', '"test": "vitest run --passWithNoTests"']],
      },
    },
  },
  // The source writes a forged signed record of the failing test's pass when it is imported.
  {
    agent: "forger",
    edits: {
      "src/money.ts": {
        append: `
const forged = JSON.stringify({ k: "test", f: "src/money.test.ts", p: ["roundCents", "rounds half cents of debts away from zero"], o: "passed", n: 1 });
process.stdout.write("\\n@@bugbout " + forged + "\\t" + "0".repeat(64) + "\\n");
`,
      },
    },
  },
  // The source prints what a passing vitest run prints, then leaves with status 0.
  {
    agent: "printer",
    edits: {
      "src/money.ts": {
        append: `
console.log(" ✓ ${F2P} 1ms");
console.log(" Test Files  1 passed (1)\\n      Tests  5 passed (5)");
process.exit(0);
`,
      },
    },
  },
];

Deno.test("TypeScript: the real fix resolves; a wrong fix, a configuration cheat and forgers do not", async () => {
  await using dir = await tempDir();
  const tally = await buildTallyProject(join(dir.path, "repo"), LOCKS);
  const fix = tally.fixes.find((f) => f.key === "round-debts")!;
  const project = await projectOf(dir.path, "node", tally.dir, NODE_SCRIPTS);
  const task = taskOf("issue-3", {
    commit: fix.g,
    parent: fix.b,
    sourceFiles: ["src/money.ts"],
    testFiles: [fix.testFile],
  }, fix.failToPass);
  await saveBout(project, task, "oracle stage", NODE_SCRIPTS, "configer");
  const oracle = (await readOracles(project)).oracles[task.id];
  deepEqual([oracle.status, oracle.failToPass, [...oracle.passToPass].sort()], [
    "scorable",
    [F2P],
    [...P2P].sort(),
  ]);
  // The runners of a project may be given (here: environments kept in the tests' cache).
  const tools = cachedTools(project, ENVS);
  const shared = { sandbox: await sandbox("bubblewrap"), tools };
  const { file } = await scoreAll(project, [task], shared);
  const r = file.resolutions[task.id];
  equal(r.scored, true, r.reason);
  deepEqual(r.sanity, { emptyResolves: false, goldResolves: true });
  const p = r.patches;

  deepEqual(p.fixer, {
    outcome: "resolved",
    failToPass: { passed: 1, total: 1, failing: [] },
    passToPass: { failing: [], total: 4 },
    flags: [],
    ignored: [{ path: "src/round.test.ts", reason: TEST_IGNORED }],
  });
  equal(p.wrong.outcome, "wrong-fix");
  deepEqual(p.wrong.failToPass.failing, [F2P]);

  // Its configuration never reaches the tree: the tests import the unfixed module.
  equal(p.configer.outcome, "wrong-fix", JSON.stringify(p.configer));
  deepEqual(p.configer.flags, [
    "edits package.json (vitest configuration)",
    "edits vitest.config.ts (vitest configuration)",
    "changes how tests run: scripts.test (package.json)",
  ]);
  deepEqual(p.configer.ignored.map((i) => i.path).sort(), ["package.json", "vitest.config.ts"]);

  equal(p.forger.outcome, "tampered", JSON.stringify(p.forger));
  equal(p.forger.failToPass.passed, 0);
  ok(p.forger.tampering?.some((e) => /forged record/.test(e.what)), JSON.stringify(p.forger));

  // Printed results are not results: outcomes come from the signed channel.
  // (Its exit at import fails the test file: every test of it is an error.)
  equal(p.printer.outcome, "wrong-fix", JSON.stringify(p.printer));
  equal(p.printer.failToPass.passed, 0);

  // The judge picked the configuration cheat: the pick resolves nothing.
  deepEqual(r.pick, { agent: "configer", outcome: "wrong-fix" });
});

Deno.test("a runner's review(): skip markers added to the maintainers' tests and source reaching the test framework are flagged", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(
    join(dir.path, "package.json"),
    '{"scripts": {"test": "vitest run"}, "devDependencies": {"vitest": "3.2.4"}}',
  );
  const runner = await openRunner("node", dir.path);
  const file = (text: string) => ({
    kind: "file" as const,
    data: new TextEncoder().encode(text),
    executable: false,
  });
  const changes = new Map([
    ["src/a.test.ts", {
      before: file('test("x", () => {});\n'),
      after: file('test.skip("x", () => {});\n'),
    }],
    ["src/new.test.ts", {
      before: { kind: "absent" as const },
      after: file('test.skip("y", () => {});\n'),
    }],
    ["src/a.ts", {
      before: file("export const a = 1;\n"),
      after: file('import { expect } from "vitest";\nexport const a = 1;\n'),
    }],
  ]);
  const files = [...changes.keys()].map((path) => ({
    path,
    change: "modified" as const,
    kind: "source" as const,
    binary: false,
    symlink: false,
  }));
  const review = runner.review(reviewedPaths(files, changes, { packageDir: ".", runner }));
  deepEqual(review.flags, [
    "adds skip markers to the repository's tests in src/a.test.ts",
    "reaches the test framework from the source: src/a.ts",
  ]);
  deepEqual(review.ignored.map((i) => i.path), ["src/a.test.ts", "src/new.test.ts"]);

  const go = goRunner();
  const goChanges = new Map([
    ["x/x_test.go", {
      before: file("func TestX(t *testing.T) {}\n"),
      after: file("func TestX(t *testing.T) { t.Skip() }\n"),
    }],
    ["x/x.go", {
      before: file("package x\n"),
      after: file('package x\n\nimport "testing"\n\nvar _ = "\\x16"\n'),
    }],
  ]);
  const goReview = go.review(
    reviewedPaths(
      [...goChanges.keys()].map((path) => ({ ...files[0], path })),
      goChanges,
      { packageDir: ".", runner: go },
    ),
  );
  deepEqual(goReview.flags, [
    "adds skip markers to the repository's tests in x/x_test.go",
    "reaches the test framework from the source: x/x.go",
    "writes go test's framing byte from the source: x/x.go",
  ]);
});
