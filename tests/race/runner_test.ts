/**
 * The race on Go and JavaScript projects, for real: a scripted contestant (a shell script) in the
 * bubblewrap sandbox that looks at what it can see (history, network, the test environment), runs
 * the project's tests with the command its prompt gives, writes the real fix and a regression
 * test, and runs the tests again. Its attempt's source patch holds the fix alone: no
 * `node_modules`, no build cache.
 *
 * @module
 */

import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { cachedTree } from "../../lib/checkout.ts";
import { git } from "../../lib/git.ts";
import { oracleAll } from "../../lib/oracle/mod.ts";
import type { Project } from "../../lib/project.ts";
import { loadAttempt, loadPatches } from "../../lib/race/attempts.ts";
import { raceAll } from "../../lib/race/mod.ts";
import type { Task } from "../../lib/records.ts";
import { projectTools } from "../../lib/testbed/mod.ts";
import { buildGoProject } from "../fixtures/go_project.ts";
import { buildPlainProject, buildTallyProject } from "../fixtures/node_project.ts";
import { LOCKS } from "../node/_shared.ts";
import { makeRunnerProject, runnerTask } from "../oracle/_runner_fixture.ts";
import { sandbox, tempDir } from "../python/_shared.ts";

/** A heredoc that writes `text` to `path` (relative to the working copy). */
function writeFile(path: string, text: string): string {
  return `mkdir -p "$(dirname '${path}')"\ncat > '${path}' <<'BUGBOUT_EOF'\n${text}BUGBOUT_EOF\n`;
}

/**
 * The contestant: reports what it sees, runs the prompt's test command, writes `files`, runs it
 * again. Every report line starts with `seen:` so the log tail keeps it.
 */
function fixerScript(files: Record<string, string>, secret: string, attack: string): string {
  return `set -u
test_command=$(sed -n 's/^Run the tests with: //p' "$1")
echo "seen: test command: $test_command"
echo "seen: commits: $(git log --oneline | wc -l)"
if git cat-file -e ${secret} 2>/dev/null; then echo "seen: the fix's commit"; else echo "seen: no fix commit"; fi
node -e "require('net').connect(443, '1.1.1.1').on('connect', () => { console.log('seen: network open'); process.exit(0); }).on('error', (e) => { console.log('seen: no network (' + e.code + ')'); })"
echo "seen: go: $(command -v go || echo none) GOPROXY=\${GOPROXY:-unset} GOCACHE=\${GOCACHE:-unset}"
echo "seen: node_modules: $(ls node_modules 2>/dev/null | tr '\\n' ' ')"
${attack}
if sh -c "$test_command" > "$2/before.log" 2>&1; then echo "seen: before: tests pass"; else echo "seen: before: tests fail"; fi
${Object.entries(files).map(([path, text]) => writeFile(path, text)).join("")}
if sh -c "$test_command" > "$2/after.log" 2>&1; then echo "seen: after: tests pass"; else echo "seen: after: tests fail"; fi
tail -n 20 "$2/after.log" | sed 's/^/seen: | /'
echo "seen: done"
`;
}

/** Writing into the shared environment (refused), into the attempt's own caches (allowed). */
const GO_ATTACK = `
if touch "$GOMODCACHE/planted" 2>/dev/null; then echo "seen: env write allowed"; else echo "seen: env write refused"; fi
if touch "$GOCACHE/planted" 2>/dev/null; then echo "seen: own cache writable"; else echo "seen: own cache refused"; fi
`;

/**
 * Writing into the shared environment through a link (refused); planting a module in the working
 * copy's node_modules (allowed there, and never part of the patch).
 */
const NODE_ATTACK = `
if echo planted >> node_modules/vitest/package.json 2>/dev/null; then echo "seen: env write allowed"; else echo "seen: env write refused"; fi
if echo "module.exports = 1;" > node_modules/planted.js; then echo "seen: own cache writable"; else echo "seen: own cache refused"; fi
`;

/** `[[contestants]]` of the fixer, run as `sh script prompt-file logdir`. */
function fixerToml(script: string): string {
  return `
[[contestants]]
agent = "command"
name = "fixer"
vendor = "scripted"
quota = "fixer"
command = ["sh", ${JSON.stringify(script)}, "{prompt_file}", "{logdir}"]
`;
}

/** Ground truth, then one race of the fixer; its attempt, patches and log. */
async function raceFixer(project: Project, task: Task) {
  const oracles = await oracleAll(project, [task]);
  equal(oracles.file.oracles[task.id].status, "scorable", oracles.file.oracles[task.id].reason);
  const summary = await raceAll(project, [task], {
    sandbox: await sandbox("bubblewrap"),
    tools: projectTools(project),
  });
  deepEqual(summary.failures, []);
  const attempt = await loadAttempt(project.results, task.id, "fixer");
  ok(attempt, "the attempt was saved");
  const patches = await loadPatches(project.results, task.id, "fixer");
  return { attempt, patches };
}

/** What every runner's attempt must show: no history, no network, only the fix as source. */
function checkAttempt(
  { attempt, patches }: Awaited<ReturnType<typeof raceFixer>>,
  source: string[],
  tests: string[],
) {
  const log = attempt.logTail;
  equal(attempt.status, "patch", log);
  match(log, /seen: commits: 1\n/);
  match(log, /seen: no fix commit/);
  match(log, /seen: no network \(E\w+\)/);
  match(log, /seen: env write refused/);
  match(log, /seen: own cache writable/);
  match(log, /seen: before: tests pass/);
  match(log, /seen: after: tests pass/);
  match(log, /seen: done/);
  deepEqual(
    attempt.files.filter((f) => f.kind === "source").map((f) => f.path).sort(),
    source,
  );
  deepEqual(attempt.files.filter((f) => f.kind === "test").map((f) => f.path).sort(), tests);
  deepEqual(attempt.files.filter((f) => f.kind !== "source" && f.kind !== "test"), []);
  const sourcePaths = [...patches.source.matchAll(/^diff --git a\/(\S+)/gm)].map((m) => m[1]);
  deepEqual(sourcePaths.sort(), source);
  for (const text of [patches.source, patches.tests, patches.full]) {
    ok(!/node_modules|go-build|gopath|\.vite/.test(text), text.slice(0, 2000));
  }
}

Deno.test("race on the Go fixture: the contestant runs go test in the sandbox with no network and no history, and its patch holds the fix alone", async () => {
  await using tmp = await tempDir("bugbout-race-go-");
  const fixture = await buildGoProject(join(tmp.path, "repo"));
  const fix = fixture.fixes.find((f) => f.key === "negative-total")!;
  const fixed = await git(["show", `${fix.commit}:shelf.go`], { cwd: fixture.dir });
  const script = join(tmp.path, "fixer.sh");
  await Deno.writeTextFile(
    script,
    fixerScript(
      {
        "shelf.go": `${fixed.trimEnd()}\n`,
        "shelf_negative_test.go": 'package shelf\n\nimport "testing"\n\n' +
          "func TestNegativeCountsAsNone(t *testing.T) {\n" +
          '\tif got := Total([]int{3, -1}); got != 3 {\n\t\tt.Fatalf("Total = %d", got)\n\t}\n}\n',
      },
      fix.commit,
      GO_ATTACK,
    ),
  );
  const project = await makeRunnerProject(
    join(tmp.path, "project"),
    fixture.dir,
    join(tmp.path, "home"),
    { language: "go", env: { SHELF_FLAKY_STATE: "flaky-state" }, extra: fixerToml(script) },
  );
  const task = runnerTask("issue-7", fix, {
    testFiles: fix.testFiles,
    sourceFiles: fix.sourceFiles,
  }, "Total counts negative quantities: Total([]int{4, -2}) is 2, want 4.");
  const raced = await raceFixer(project, task);
  const log = raced.attempt.logTail;
  match(log, /seen: test command: go test \.\/\.\.\.\n/);
  match(log, /seen: go: \S+\/bin\/go GOPROXY=off GOCACHE=\S+\/state\/go-build/);
  match(log, /seen: \| ok\s+example\.com\/shelf\b/);
  checkAttempt(raced, ["shelf.go"], ["shelf_negative_test.go"]);
});

Deno.test("race on the vitest fixture: the contestant runs npm test in the sandbox with no network and no history, and its patch holds the fix alone (no node_modules)", async () => {
  await using tmp = await tempDir("bugbout-race-tally-");
  const fixture = await buildTallyProject(join(tmp.path, "repo"), LOCKS);
  const [debts] = fixture.fixes;
  const fixed = await git(["show", `${debts.g}:src/money.ts`], { cwd: fixture.dir });
  const script = join(tmp.path, "fixer.sh");
  await Deno.writeTextFile(
    script,
    fixerScript(
      {
        "src/money.ts": `${fixed.trimEnd()}\n`,
        "src/debts.test.ts": 'import { expect, test } from "vitest";\n' +
          'import { roundCents } from "./money";\n\n' +
          'test("debts round away from zero", () => {\n  expect(roundCents(-0.5)).toBe(-1);\n});\n',
      },
      debts.g,
      NODE_ATTACK,
    ),
  );
  const project = await makeRunnerProject(
    join(tmp.path, "project"),
    fixture.dir,
    join(tmp.path, "home"),
    { language: "node", extra: fixerToml(script) },
  );
  const task = runnerTask("issue-3", { parent: debts.b, commit: debts.g }, {
    testFiles: [debts.testFile],
    sourceFiles: ["src/money.ts"],
  }, "roundCents(-2.5) gives -2: half cents of debts should round away from zero.");
  const raced = await raceFixer(project, task);
  const log = raced.attempt.logTail;
  match(log, /seen: test command: npm test\n/);
  match(log, /seen: node_modules: .*\bvitest\b/);
  match(log, /seen: \| .*Test Files\s+3 passed/);
  checkAttempt(raced, ["src/money.ts"], ["src/debts.test.ts"]);
  // The prepared environment every later run shares is as it was.
  const tree = await cachedTree(fixture.dir, debts.b, { home: project.home });
  const { env } = await projectTools(project).open(tree);
  const vitest = await Deno.readTextFile(join(env.env.NODE_PATH, "vitest", "package.json"));
  ok(!vitest.includes("planted"));
});

Deno.test("race on the node --test fixture (no .gitignore): what the agent leaves in node_modules never reaches the patch", async () => {
  await using tmp = await tempDir("bugbout-race-plain-");
  const fixture = await buildPlainProject(join(tmp.path, "repo"));
  const [fix] = fixture.fixes;
  const fixed = await git(["show", `${fix.g}:lib/parse.js`], { cwd: fixture.dir });
  const script = join(tmp.path, "fixer.sh");
  await Deno.writeTextFile(
    script,
    fixerScript(
      {
        "lib/parse.js": `${fixed.trimEnd()}\n`,
        "test/empty.test.js": 'const { test } = require("node:test");\n' +
          'const assert = require("node:assert");\nconst { parsePairs } = require("../lib/parse.js");\n\n' +
          'test("empty parts are skipped", () => {\n  assert.deepStrictEqual(parsePairs("a=1;;"), { a: "1" });\n});\n',
      },
      fix.g,
      `mkdir -p node_modules/.cache && echo cached > node_modules/.cache/results.json
if echo "module.exports = 1;" > node_modules/planted.js; then echo "seen: own cache writable"; else echo "seen: own cache refused"; fi
echo "seen: env write refused (nothing shared to write)"
`,
    ),
  );
  const project = await makeRunnerProject(
    join(tmp.path, "project"),
    fixture.dir,
    join(tmp.path, "home"),
    { language: "node", extra: fixerToml(script) },
  );
  const task = runnerTask("issue-2", { parent: fix.b, commit: fix.g }, {
    testFiles: [fix.testFile],
    sourceFiles: ["lib/parse.js"],
  }, "parsePairs keeps empty parts and cuts values at a second '='.");
  ok(
    !(await git(["ls-tree", "-r", "--name-only", fix.b], { cwd: fixture.dir })).includes(
      ".gitignore",
    ),
  );
  const raced = await raceFixer(project, task);
  match(raced.attempt.logTail, /seen: test command: npm test\n/);
  match(raced.attempt.logTail, /seen: \| # pass 2/);
  checkAttempt(raced, ["lib/parse.js"], ["test/empty.test.js"]);
});
