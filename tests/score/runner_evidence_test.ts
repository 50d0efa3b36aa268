/**
 * Evidence roles of agents' tests in Go and TypeScript projects, for real: scripted attempts made
 * on checkouts of B and captured by the race's own code, cross-examined by the examine stage (B,
 * its repeat, every candidate), then scored, which replays every author's tests on G in the
 * bubblewrap sandbox. Each author wrote one kind of test:
 *
 * | agent | role | source change | its test | B | S | G | role |
 * |---|---|---|---|---|---|---|---|
 * | fixer | contestant | the real fix | reproduces the bug | fails | passes | passes | gold-aligned |
 * | wrong | contestant | a wrong fix | asserts the wrong fix's behaviour | fails | passes | fails | candidate-specific |
 * | regress | contestant | a comment | old behaviour | passes | passes | passes | regression-only |
 * | examiner | examiner | — | asserts the bug | passes | — | fails | misleading |
 *
 * regress closed on inadequate evidence (no test of its fails on B); the examiner has no
 * candidate. On Go an attacker's `init()` panics in every test binary but its own: had the
 * authors shared a checkout of G, every other author's G outcome would be lost.
 *
 * @module
 */

import { deepEqual, equal } from "node:assert/strict";
import { join } from "node:path";
import { checkout } from "../../lib/checkout.ts";
import { examineAll } from "../../lib/examine/mod.ts";
import { VERDICTS_FILE } from "../../lib/judge/mod.ts";
import type { Project } from "../../lib/project.ts";
import type { Matrix, Outcome, Resolution, Task } from "../../lib/records.ts";
import { openRunner } from "../../lib/lang/mod.ts";
import { evidenceOf, scoreAll } from "../../lib/score/mod.ts";
import { lookupOutcome, type TaskProgress } from "../../lib/testbed/mod.ts";
import { buildGoProject, SOURCES } from "../fixtures/go_project.ts";
import { buildTallyProject } from "../fixtures/node_project.ts";
import { goTestCache } from "../go/_shared.ts";
import { LOCKS, nodeTestCache } from "../node/_shared.ts";
import { sandbox, tempDir } from "../python/_shared.ts";
import { type Bout, makeScriptedBout, saveScripted, type Script } from "../testbed/_scripted.ts";

/** A scripted bout whose task's ground truth is `truth` and whose judge picked `fixer`. */
async function makeBout(
  root: string,
  repo: string,
  language: "go" | "node",
  task: Task,
  scripts: readonly Script[],
  truth: { failToPass: string[]; passToPass: string[] },
  runnerHome: string,
): Promise<Bout> {
  const bout = await makeScriptedBout(root, repo, language, task, scripts, {
    truth: { failToPass: truth.failToPass, passToPass: truth.passToPass },
    runnerHome,
    judge: "run-suite = false",
  });
  await writeVerdict(bout.project, task, "fixer");
  return bout;
}

async function writeVerdict(project: Project, task: Task, pick: string) {
  await project.results.write(VERDICTS_FILE, {
    version: 1,
    kind: "verdicts",
    policy: "scripted",
    verdicts: { [task.id]: { task: task.id, policy: "scripted", pick, reason: "", patches: {} } },
  });
}

/** Examine the task (the matrix evidence reads B and S from), then score it. */
async function examineAndScore(bout: Bout, scratch: string, scripts: readonly Script[]) {
  const { project, task } = bout;
  const b = await checkout(project.repository, task.parent, join(scratch, "b"), {
    home: project.home,
  });
  const runner = await openRunner(project.config.project.language as "go" | "node", b);
  for (const s of scripts) await saveScripted(bout, runner, s, join(scratch, "scripts"));
  const shared = { sandbox: await sandbox("bubblewrap"), tools: bout.tools };
  const { matrices: [matrix] } = await examineAll(project, [task], shared);
  const { file } = await scoreAll(project, [task], shared);
  return { matrix, resolution: file.resolutions[task.id], shared };
}

/** Each agent's tests as `[test, B, S, G, role]`, and its closure. */
function evidenceTable(r: Resolution) {
  return Object.fromEntries(
    Object.entries(r.evidence).map(([agent, e]) => [agent, {
      tests: e.tests.map((t) => [t.test, t.B, t.S, t.G, t.role]),
      inadequateClosure: e.inadequateClosure,
    }]),
  );
}

// ---------------------------------------------------------------------------------------------
// Go: fix #3 of the shelf module (Quantity panics on an empty string).

const goTest = (name: string, body: string) =>
  `package parse\n\nimport "testing"\n\nfunc ${name}(t *testing.T) {\n${body}}\n`;

/** Every test binary of the package that is not the attacker's own panics before any test. */
const GO_ATTACK_INIT = `package parse

import (
	"os"
	"strings"
)

func init() {
	for _, arg := range os.Args {
		if strings.Contains(arg, "bugbout_attacker") {
			return
		}
	}
	panic("sabotage: only the attacker's tests may run")
}
`;

const GO_SCRIPTS: Script[] = [
  {
    agent: "fixer",
    role: "contestant",
    edits: {
      "parse/parse.go": SOURCES.parseFixed,
      "parse/empty_test.go": goTest(
        "TestEmptyIsError",
        '\tt.Run("empty", func(t *testing.T) {\n' +
          '\t\tif _, err := Quantity(""); err == nil {\n\t\t\tt.Fatal("no error")\n\t\t}\n\t})\n',
      ),
    },
  },
  {
    agent: "wrong",
    role: "contestant",
    edits: {
      "parse/parse.go": [
        "\tfields := strings.Fields(s)\n",
        '\tif s == "" {\n\t\treturn 0, nil\n\t}\n\tfields := strings.Fields(s)\n',
      ],
      "parse/zero_test.go": goTest(
        "TestEmptyIsZero",
        '\tif n, err := Quantity(""); err != nil || n != 0 {\n\t\tt.Fatal(n, err)\n\t}\n',
      ),
    },
  },
  {
    agent: "regress",
    role: "contestant",
    edits: {
      "parse/parse.go": ["// Quantity reads", "// Quantity (checked) reads"],
      "parse/three_test.go": goTest(
        "TestThree",
        '\tif n, err := Quantity("3"); err != nil || n != 3 {\n\t\tt.Fatal(n, err)\n\t}\n',
      ),
    },
  },
  {
    agent: "examiner",
    role: "examiner",
    edits: {
      "parse/panics_test.go": goTest(
        "TestEmptyPanics",
        '\tdefer func() {\n\t\tif recover() == nil {\n\t\t\tt.Fatal("no panic")\n\t\t}\n\t}()\n' +
          '\t_, _ = Quantity("")\n',
      ),
    },
  },
  {
    agent: "attacker",
    role: "examiner",
    edits: {
      "parse/attack_test.go": goTest("TestAttack", ""),
      "parse/zz_init_test.go": GO_ATTACK_INIT,
    },
  },
];

Deno.test("Go: agents' tests replayed on G get their evidence roles, each author in a checkout of G of its own", async () => {
  await using tmp = await tempDir("bugbout-evidence-go-");
  const shelf = await buildGoProject(join(tmp.path, "repo"));
  const fix = shelf.fixes.find((f) => f.key === "empty-quantity")!;
  const task: Task = {
    id: "issue-3",
    ref: { kind: "issue", number: 3 },
    title: "Quantity panics on an empty string",
    commit: fix.commit,
    parent: fix.parent,
    date: "2024-01-01T00:00:00Z",
    sourceFiles: fix.sourceFiles,
    testFiles: fix.testFiles,
    newTests: fix.failToPass,
    packageDir: ".",
    pythonPath: ".",
    statement: "Quantity panics on an empty string",
    statementSource: "issue",
  };
  const bout = await makeBout(
    tmp.path,
    shelf.dir,
    "go",
    task,
    GO_SCRIPTS,
    fix,
    join(goTestCache(), "examine-home"),
  );
  const { resolution: r, shared } = await examineAndScore(bout, tmp.path, GO_SCRIPTS);
  equal(r.scored, true, r.reason);
  equal(r.patches.fixer.outcome, "resolved");
  const id = (name: string, agent: string) => `parse/${name}_bugbout_${agent}`;
  deepEqual(evidenceTable(r), {
    fixer: {
      tests: [
        [id("TestEmptyIsError", "fixer"), "failed", "passed", "passed", "gold-aligned"],
        [`${id("TestEmptyIsError", "fixer")}/empty`, "failed", "passed", "passed", "gold-aligned"],
      ],
      inadequateClosure: false,
    },
    wrong: {
      tests: [[id("TestEmptyIsZero", "wrong"), "failed", "passed", "failed", "candidate-specific"]],
      inadequateClosure: false,
    },
    regress: {
      tests: [[id("TestThree", "regress"), "passed", "passed", "passed", "regression-only"]],
      inadequateClosure: true,
    },
    examiner: {
      tests: [[id("TestEmptyPanics", "examiner"), "passed", "not-run", "failed", "misleading"]],
      inadequateClosure: null,
    },
    // Its init() panicked only in binaries of its own tree.
    attacker: {
      tests: [[id("TestAttack", "attacker"), "passed", "not-run", "passed", "regression-only"]],
      inadequateClosure: null,
    },
  });
  // G ran once per author per repeat (regress's and every other tree's runs besides).
  const gold = r.runs.filter((run) => run.tree.startsWith("G"));
  deepEqual(gold.map((run) => run.tree).sort(), [
    ...Array(5).fill("G"),
    ...Array(5).fill("G#2"),
  ]);

  // A new pick: the patches, the sanity gates and every cell on G are reused; nothing runs.
  await writeVerdict(bout.project, task, "wrong");
  const again: TaskProgress<Resolution>[] = [];
  const { file } = await scoreAll(bout.project, [task], {
    ...shared,
    onProgress: (e) => again.push(e),
  });
  const r2 = file.resolutions[task.id];
  deepEqual(r2.pick, { agent: "wrong", outcome: "wrong-fix" });
  deepEqual(r2.evidence, r.evidence);
  deepEqual(r2.runs, []);
  equal(r2.reuse?.ran, 0);
  equal(r2.reuse?.reused, 10);
});

// ---------------------------------------------------------------------------------------------
// TypeScript (vitest): fix #3 of tally (half cents of debts rounded toward zero).

const tsTest = (name: string, call: string, expected: number) =>
  `import { expect, test } from "vitest";\nimport { roundCents } from "./money";\n\n` +
  `test(${JSON.stringify(name)}, () => {\n  expect(roundCents(${call})).toBe(${expected});\n});\n`;

const TS_SCRIPTS: Script[] = [
  {
    agent: "fixer",
    role: "contestant",
    edits: {
      "src/money.ts": [
        "return Math.round(amount);",
        "return Math.sign(amount) * Math.round(Math.abs(amount));",
      ],
      "src/debts.test.ts": tsTest("a half-cent debt rounds away from zero", "-2.5", -3),
    },
  },
  {
    // Every debt rounds down: its test of -1.2 holds on it alone.
    agent: "wrong",
    role: "contestant",
    edits: {
      "src/money.ts": [
        "return Math.round(amount);",
        "return amount < 0 ? Math.floor(amount) : Math.round(amount);",
      ],
      "src/floor.test.ts": tsTest("debts round down", "-1.2", -2),
    },
  },
  {
    agent: "regress",
    role: "contestant",
    edits: {
      "src/money.ts": ["return Math.round(amount);", "return Math.round(amount); // checked"],
      "src/small.test.ts": tsTest("small amounts round down", "2.4", 2),
    },
  },
  {
    agent: "examiner",
    role: "examiner",
    edits: { "src/half.test.ts": tsTest("a half-cent debt rounds up", "-2.5", -2) },
  },
];

Deno.test("TypeScript: agents' tests replayed on G get their evidence roles, by the matrix's ids", async () => {
  await using tmp = await tempDir("bugbout-evidence-ts-");
  const tally = await buildTallyProject(join(tmp.path, "repo"), LOCKS);
  const fix = tally.fixes.find((f) => f.key === "round-debts")!;
  const task: Task = {
    id: "issue-3",
    ref: { kind: "issue", number: 3 },
    title: "Round half cents of debts away from zero",
    commit: fix.g,
    parent: fix.b,
    date: "2024-01-01T00:00:00Z",
    sourceFiles: ["src/money.ts"],
    testFiles: [fix.testFile],
    newTests: fix.failToPass,
    packageDir: ".",
    pythonPath: ".",
    statement: "roundCents(-2.5) is -2",
    statementSource: "issue",
  };
  const bout = await makeBout(tmp.path, tally.dir, "node", task, TS_SCRIPTS, {
    failToPass: fix.failToPass,
    passToPass: ["src/money.test.ts > roundCents > rounds to the nearest cent"],
  }, nodeTestCache("examine-home"));
  const { matrix, resolution: r } = await examineAndScore(bout, tmp.path, TS_SCRIPTS);
  equal(r.scored, true, r.reason);
  const id = (file: string, agent: string, name: string) =>
    `src/${file}.bugbout-${agent}.test.ts > ${name}`;
  deepEqual(evidenceTable(r), {
    fixer: {
      tests: [[
        id("debts", "fixer", "a half-cent debt rounds away from zero"),
        "failed",
        "passed",
        "passed",
        "gold-aligned",
      ]],
      inadequateClosure: false,
    },
    wrong: {
      tests: [[
        id("floor", "wrong", "debts round down"),
        "failed",
        "passed",
        "failed",
        "candidate-specific",
      ]],
      inadequateClosure: false,
    },
    regress: {
      tests: [[
        id("small", "regress", "small amounts round down"),
        "passed",
        "passed",
        "passed",
        "regression-only",
      ]],
      inadequateClosure: true,
    },
    examiner: {
      tests: [[
        id("half", "examiner", "a half-cent debt rounds up"),
        "passed",
        "not-run",
        "failed",
        "misleading",
      ]],
      inadequateClosure: null,
    },
  });
  // Every row of the matrix's authors has its evidence, under the matrix's id.
  deepEqual(
    Object.values(r.evidence).flatMap((e) => e.tests.map((t) => t.test)).sort(),
    matrix.tests.map((t) => t.id).sort(),
  );
});

// ---------------------------------------------------------------------------------------------
// Reading G's runs for the matrix's rows (pure).

Deno.test("G's outcomes are read for the matrix's rows: direct, a package that did not build, a file row, nothing", () => {
  const go = (id: string) => id.includes("/Test") ? id.slice(0, id.indexOf("/Test")) : id;
  const observed = new Map<string, Outcome>([
    ["a/TestX_bugbout_p", "passed"],
    ["a/TestX_bugbout_p/case", "passed"],
    ["b", "error"],
    ["c/TestY_bugbout_p", "failed"],
    ["c/TestZ_bugbout_p", "passed"],
  ]);
  equal(lookupOutcome(observed, "a/TestX_bugbout_p/case", go), "passed");
  // A test of a package that failed to build there.
  equal(lookupOutcome(observed, "b/TestW_bugbout_p", go), "error");
  // A package row (the matrix never saw its tests): what its tests did together.
  equal(lookupOutcome(observed, "c", go), "failed");
  equal(lookupOutcome(observed, "d/TestV_bugbout_p", go), "not-run");
  equal(lookupOutcome(observed, "d", go), "not-run");

  const matrix = {
    trees: [],
    cells: {},
    tests: [
      { id: "a/TestX_bugbout_p", author: "p", authorRole: "contestant" },
      { id: "b/TestW_bugbout_p", author: "p", authorRole: "contestant" },
      { id: "e/TestQ_bugbout_q", author: "q", authorRole: "examiner" },
    ],
  } as unknown as Matrix;
  const evidence = evidenceOf(
    matrix,
    [[{
      owner: "p",
      status: "ok",
      outcomes: observed,
      tamper: [],
      suspect: [],
    }]],
    ["p", "q"],
    go,
  );
  deepEqual(evidence.p.tests.map((t) => [t.test, t.G]), [
    ["a/TestX_bugbout_p", "passed"],
    ["b/TestW_bugbout_p", "error"],
  ]);
  deepEqual(evidence.q.tests.map((t) => t.G), ["not-run"]);
});
