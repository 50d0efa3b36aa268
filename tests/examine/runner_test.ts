/**
 * Cross-examination of Go and JavaScript patches, on the Go fixture (fix #3: `parse.Quantity("")`
 * panics) and on the TypeScript fixture (fix #3: `roundCents(-2.5)` rounds a debt's half cent
 * toward zero), with attempts made for real on checkouts of B and captured by the race's own
 * code:
 *
 * | agent | role | source change | tests |
 * |---|---|---|---|
 * | fixer | contestant | the real fix | a new file reproducing the bug |
 * | wrong | contestant | a wrong fix | a test that passes on it (and on B fails) |
 * | examiner | examiner | — | a reproduction |
 * | attacker | examiner | — | a test that passes, plus code that tries to change everyone else's outcomes |
 *
 * The attacker's Go code is a second file in the package whose `init()` panics in every test
 * binary but its own, and a test that rewrites `parse.go` to the fixed version; its JavaScript
 * code is a module that, on import, patches `Math.round` and rewrites `src/money.ts` to the fixed
 * version, and a setup file with the project's config pointing at it. Each check first shows the
 * attack working on one shared tree (the runner's groups one after another), then shows the
 * matrix untouched by it.
 *
 * @module
 */

import { deepEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { checkout } from "../../lib/checkout.ts";
import { examineAll, readMatrix } from "../../lib/examine/mod.ts";
import { judgeAll } from "../../lib/judge/mod.ts";
import type { Attempt, Matrix, Outcome, Task } from "../../lib/records.ts";
import { openRunner } from "../../lib/lang/mod.ts";
import { installAuthor, readAuthor } from "../../lib/testbed/mod.ts";
import { buildGoProject, SOURCES } from "../fixtures/go_project.ts";
import { buildTallyProject } from "../fixtures/node_project.ts";
import { goTestCache } from "../go/_shared.ts";
import { LOCKS, nodeTestCache } from "../node/_shared.ts";
import { sandbox, tempDir } from "../python/_shared.ts";
import { type Bout, makeScriptedBout, saveScripted, type Script } from "../testbed/_scripted.ts";

const LETTERS: Record<Outcome, string> = {
  passed: "P",
  failed: "F",
  error: "E",
  skipped: "S",
  xfailed: "X",
  "not-run": ".",
};

/** A matrix's rows as `[test, author, one letter per tree]` (`-`: no cell on that tree). */
function rows(matrix: Matrix): [string, string, string][] {
  return matrix.tests.map((t) => [
    t.id,
    t.author,
    matrix.trees.map((tree) => {
      const o = matrix.cells[t.id][tree.id];
      return o === undefined ? "-" : LETTERS[o];
    }).join(""),
  ]);
}

/**
 * The attack shown working: the attacker's and the fixer's tests installed in one copy of B and
 * run as two groups one after another, as a shared tree would run them. Returns the fixer's
 * outcomes there.
 */
async function sharedTreeOutcomes(
  bout: Bout,
  scratch: string,
  fixerId: string,
): Promise<Outcome | undefined> {
  const { project, task } = bout;
  const tree = await checkout(project.repository, task.parent, join(scratch, "shared"), {
    home: project.home,
  });
  const { runner, env } = await bout.tools.open(tree);
  const tags = bout.tools.language.authorTags(["fixer", "attacker"]);
  const attempts = await Promise.all(
    ["attacker", "fixer"].map(async (agent) => {
      const base = join(project.results.path, "attempts", task.id, agent);
      return {
        agent,
        attempt: JSON.parse(await Deno.readTextFile(`${base}.json`)) as Attempt,
        tests: await Deno.readTextFile(`${base}.tests.patch`),
      };
    }),
  );
  const groups: string[][] = [];
  for (const a of attempts) {
    const author = await readAuthor({
      agent: a.agent,
      role: a.attempt.role,
      tag: tags.get(a.agent)!,
      patch: a.tests,
      files: a.attempt.files,
    }, { base: tree, runner, env, scratch: join(scratch, "read") });
    await installAuthor(tree, author, runner, { layout: "beside", alone: true });
    groups.push(author.tests.flatMap((f) => f.ids.map((id) => runner.besideId(id, author.tag))));
  }
  const ran = await runner.run({
    sandbox: await sandbox("bubblewrap"),
    env,
    tree,
    groups,
    timeoutMs: 300_000,
    memoryMb: 4096,
    scratch: join(scratch, "runs"),
  });
  return ran.groups[1].outcomes[fixerId];
}

// ---------------------------------------------------------------------------------------------
// Go

const GO_FIXER_TEST = `package parse

import "testing"

func TestEmptyIsError(t *testing.T) {
	if _, err := Quantity(""); err == nil {
		t.Fatal("no error for an empty quantity")
	}
	if _, err := Quantity("  "); err == nil {
		t.Fatal("no error for a blank quantity")
	}
}
`;

const GO_WRONG_TEST = `package parse

import "testing"

func TestEmptyNoPanic(t *testing.T) {
	n, _ := Quantity("")
	if n != 0 {
		t.Fatalf("Quantity(\\"\\") = %d", n)
	}
}
`;

const GO_EXAMINER_TEST = `package parse

import "testing"

func TestQuantityEmptyErr(t *testing.T) {
	n, err := Quantity("")
	if err == nil || n != 0 {
		t.Fatalf("Quantity(\\"\\") = %d, %v; want an error", n, err)
	}
}
`;

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

/** Its test passes, and rewrites parse.go to the fixed version for whoever compiles next. */
const GO_ATTACK_TEST = `package parse

import (
	"os"
	"testing"
)

const fixed = ${JSON.stringify(SOURCES.parseFixed)}

func TestAttack(t *testing.T) {
	_ = os.WriteFile("parse.go", []byte(fixed), 0o644)
}
`;

const GO_SCRIPTS: Script[] = [
  {
    agent: "fixer",
    role: "contestant",
    edits: {
      "parse/parse.go": SOURCES.parseFixed,
      "parse/empty_test.go": GO_FIXER_TEST,
    },
  },
  {
    agent: "wrong",
    role: "contestant",
    edits: {
      // Blank strings still panic, and an empty one gives no error.
      "parse/parse.go": [
        "\tfields := strings.Fields(s)\n",
        '\tif s == "" {\n\t\treturn 0, nil\n\t}\n\tfields := strings.Fields(s)\n',
      ],
      "parse/nopanic_test.go": GO_WRONG_TEST,
    },
  },
  { agent: "examiner", role: "examiner", edits: { "parse/spec_test.go": GO_EXAMINER_TEST } },
  {
    agent: "attacker",
    role: "examiner",
    edits: {
      "parse/attack_test.go": GO_ATTACK_TEST,
      "parse/zz_init_test.go": GO_ATTACK_INIT,
      "go.mod": "module example.com/shelf\n\ngo 1.22\n\n// the attacker's\n",
    },
  },
];

Deno.test("Go: every author's tests on B and every candidate, each in a tree of its own; the judge picks the real fix", async () => {
  await using tmp = await tempDir("bugbout-examine-go-");
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
  const bout = await makeScriptedBout(
    tmp.path,
    shelf.dir,
    "go",
    task,
    GO_SCRIPTS,
    {
      truth: { failToPass: task.newTests, passToPass: [] },
      runnerHome: join(goTestCache(), "examine-home"),
    },
  );
  const runner = await openRunner("go", shelf.dir);
  for (const s of GO_SCRIPTS) await saveScripted(bout, runner, s, join(tmp.path, "scripts"));
  // The attacker's go.mod is configuration: captured, and never applied.
  const attacker = JSON.parse(
    await Deno.readTextFile(
      join(bout.project.results.path, "attempts", task.id, "attacker.json"),
    ),
  ) as Attempt;
  deepEqual(attacker.files.map((f) => `${f.path}:${f.kind}`).sort(), [
    "go.mod:config",
    "parse/attack_test.go:test",
    "parse/zz_init_test.go:test",
  ]);

  // The attack is real: in one shared tree the attacker's init() kills the fixer's binary, so
  // its test, which fails honestly on B, gets no outcome of its own there.
  const fixerId = "parse/TestEmptyIsError_bugbout_fixer";
  const shared = await sharedTreeOutcomes(bout, join(tmp.path, "shared"), fixerId);
  ok(shared !== "failed", `the shared tree left the fixer's test ${shared}`);

  const { matrices: [matrix], summary } = await examineAll(bout.project, [task], {
    sandbox: await sandbox("bubblewrap"),
    tools: bout.tools,
  });
  ok(summary.includes("test run"), summary);
  // (A tree's message is its first run's; B#2 ran no suite, so it is the fixer's panic on B.)
  deepEqual(matrix.trees.map((t) => `${t.id}:${t.kind}:${t.status}`), [
    "B:base:ok",
    "B#2:base:ok",
    "fixer:patch:ok",
    "wrong:patch:ok",
  ]);
  // Trees: B, B#2, fixer, wrong. Nobody's outcome moved for the attacker's init() or its
  // rewrite of parse.go: each author ran in a copy of its own.
  deepEqual(rows(matrix), [
    ["parse/TestEmptyIsError_bugbout_fixer", "fixer", "FFPF"],
    ["parse/TestEmptyNoPanic_bugbout_wrong", "wrong", "FFPP"],
    ["parse/TestQuantityEmptyErr_bugbout_examiner", "examiner", "FFPF"],
    ["parse/TestAttack_bugbout_attacker", "attacker", "P-PP"],
    // The suite in its packages' order (parse, the root, units).
    ["parse/TestQuantity", "repository", "P-PP"],
    ["./TestTotal", "repository", "P-PP"],
    ["units/TestConvert", "repository", "P-PP"],
  ]);
  deepEqual(matrix.unstableOnB, []);
  deepEqual(matrix.tampering, []);
  // One run per owner and tree: 5 owners on B, fixer and wrong; B#2 repeats only the 3
  // reproductions.
  equal(matrix.runs.length, 5 * 3 + 3);
  deepEqual([matrix.reuse?.ran, matrix.reuse?.reused], [18, 0]);
  deepEqual(await readMatrix(bout.project, task.id), matrix);

  const { file } = await judgeAll(bout.project, [task]);
  equal(file.verdicts[task.id].pick, "fixer", file.verdicts[task.id].reason);

  // Unchanged inputs: the matrix stands and nothing runs (examineAll dispatches on the language).
  const again = await examineAll(bout.project, [task], { sandbox: await sandbox("bubblewrap") });
  deepEqual(again.matrices[0], matrix);
  ok(again.summary.includes("0 new"), again.summary);
});

// ---------------------------------------------------------------------------------------------
// TypeScript (vitest)

const TS_FIXER_TEST = `import { expect, test } from "vitest";
import { roundCents } from "./money";

test("debts round half cents away from zero", () => {
  expect(roundCents(-2.5)).toBe(-3);
  expect(roundCents(-1.2)).toBe(-1);
});
`;

const TS_WRONG_TEST = `import { expect, test } from "vitest";
import { roundCents } from "./money";

test("a half-cent debt rounds down", () => {
  expect(roundCents(-2.5)).toBe(-3);
});
`;

const TS_EXAMINER_TEST = `import { describe, expect, it } from "vitest";
import { roundCents } from "../src/money";

describe("roundCents of debts", () => {
  it("rounds half away from zero", () => {
    expect(roundCents(-0.5)).toBe(-1);
  });

  it("keeps small fractions", () => {
    expect(roundCents(-2.2)).toBe(-2);
  });
});
`;

const MONEY_FIXED_BODY = "Math.sign(amount) * Math.round(Math.abs(amount))";

/** On import: Math.round made to round half away from zero, and money.ts rewritten fixed. */
const TS_ATTACK_TEST = `import { readFileSync, writeFileSync } from "node:fs";
import { expect, test } from "vitest";

const round = Math.round;
Math.round = (x: number) => Math.sign(x) * round(Math.abs(x));
const money = new URL("./money.ts", import.meta.url);
writeFileSync(
  money,
  readFileSync(money, "utf8").replace("return Math.round(amount);", "return ${MONEY_FIXED_BODY};"),
);

test("attack", () => {
  expect(1).toBe(1);
});
`;

const TS_SETUP = `const round = Math.round;
Math.round = (x) => Math.sign(x) * round(Math.abs(x));
`;

const TS_SCRIPTS: Script[] = [
  {
    agent: "fixer",
    role: "contestant",
    edits: {
      "src/money.ts": ["return Math.round(amount);", `return ${MONEY_FIXED_BODY};`],
      "src/debts.test.ts": TS_FIXER_TEST,
    },
  },
  {
    agent: "wrong",
    role: "contestant",
    edits: {
      // Rounds every debt down: -2.5 is -3, but so is -1.2.
      "src/money.ts": [
        "return Math.round(amount);",
        "return amount < 0 ? Math.floor(amount) : Math.round(amount);",
      ],
      "src/half.test.ts": TS_WRONG_TEST,
    },
  },
  { agent: "examiner", role: "examiner", edits: { "tests/debts.test.ts": TS_EXAMINER_TEST } },
  {
    agent: "attacker",
    role: "examiner",
    edits: {
      "src/attack.test.ts": TS_ATTACK_TEST,
      "vitest.setup.ts": TS_SETUP,
      "vitest.config.ts": [
        'include: ["src/**/*.test.ts", "tests/**/*.test.ts"],',
        'include: ["src/**/*.test.ts", "tests/**/*.test.ts"],\n    setupFiles: ["./vitest.setup.ts"],',
      ],
    },
  },
];

Deno.test("TypeScript: every author's tests on B and every candidate, each in a tree of its own; the judge picks the real fix", async () => {
  await using tmp = await tempDir("bugbout-examine-ts-");
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
  const bout = await makeScriptedBout(
    tmp.path,
    tally.dir,
    "node",
    task,
    TS_SCRIPTS,
    {
      truth: { failToPass: task.newTests, passToPass: [] },
      runnerHome: nodeTestCache("examine-home"),
    },
  );
  const scratchTree = await checkout(tally.dir, fix.b, join(tmp.path, "b"), {
    home: bout.project.home,
  });
  const runner = await openRunner("node", scratchTree);
  for (const s of TS_SCRIPTS) await saveScripted(bout, runner, s, join(tmp.path, "scripts"));
  const attacker = JSON.parse(
    await Deno.readTextFile(
      join(bout.project.results.path, "attempts", task.id, "attacker.json"),
    ),
  ) as Attempt;
  deepEqual(attacker.files.map((f) => `${f.path}:${f.kind}`).sort(), [
    "src/attack.test.ts:test",
    "vitest.config.ts:config",
    "vitest.setup.ts:config",
  ]);

  // The attack is real: in one shared tree the attacker's run fixes money.ts for the fixer's.
  const fixerId = "src/debts.bugbout-fixer.test.ts > debts round half cents away from zero";
  const shared = await sharedTreeOutcomes(bout, join(tmp.path, "shared"), fixerId);
  equal(shared, "passed");

  const { matrices: [matrix] } = await examineAll(bout.project, [task], {
    sandbox: await sandbox("bubblewrap"),
    tools: bout.tools,
  });
  deepEqual(matrix.trees.map((t) => `${t.id}:${t.status}`), [
    "B:ok",
    "B#2:ok",
    "fixer:ok",
    "wrong:ok",
  ]);
  deepEqual(rows(matrix), [
    [fixerId, "fixer", "FFPF"],
    ["src/half.bugbout-wrong.test.ts > a half-cent debt rounds down", "wrong", "FFPP"],
    [
      "tests/debts.bugbout-examiner.test.ts > roundCents of debts > rounds half away from zero",
      "examiner",
      "FFPP",
    ],
    [
      "tests/debts.bugbout-examiner.test.ts > roundCents of debts > keeps small fractions",
      "examiner",
      "PPPF",
    ],
    ["src/attack.bugbout-attacker.test.ts > attack", "attacker", "P-PP"],
    ["src/money.test.ts > format > shows dollars and cents", "repository", "P-PP"],
    ["src/money.test.ts > format > shows debts with a minus", "repository", "P-PP"],
    ["src/money.test.ts > roundCents > rounds to the nearest cent", "repository", "P-PP"],
    ["src/money.test.ts > percent > takes a share", "repository", "P-PP"],
    ["tests/slug.test.ts > lowercases and joins words", "repository", "P-PP"],
  ]);
  deepEqual(matrix.unstableOnB, []);
  const { file } = await judgeAll(bout.project, [task]);
  equal(file.verdicts[task.id].pick, "fixer", file.verdicts[task.id].reason);
});
