/**
 * Ground truth on Go and JavaScript projects, for real: the fixtures' histories, their runners
 * (`go test`, vitest, `node --test`) in the bubblewrap sandbox, each side run twice.
 *
 * @module
 */

import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { RepoBuilder } from "../../lib/demo/repo.ts";
import { oracleAll, readOracles } from "../../lib/oracle/mod.ts";
import type { Oracle, Task } from "../../lib/records.ts";
import type { TaskProgress } from "../../lib/testbed/mod.ts";
import { buildGoProject, GO_MOD } from "../fixtures/go_project.ts";
import { buildPlainProject, buildTallyProject } from "../fixtures/node_project.ts";
import { LOCKS } from "../node/_shared.ts";
import { tempDir } from "../python/_shared.ts";
import { makeRunnerProject, runnerTask } from "./_runner_fixture.ts";

/** Each side ran `reruns` times, B and G alike. */
function ranTwicePerSide(oracle: Oracle) {
  const count = (tree: string) => oracle.runs.filter((r) => r.tree === tree).length;
  equal(count("B"), 2, `runs on B: ${JSON.stringify(oracle.runs)}`);
  equal(count("G"), 2, `runs on G: ${JSON.stringify(oracle.runs)}`);
}

/** Run the stage twice: the second run reuses every saved oracle and runs nothing. */
async function secondRunReuses(
  project: Parameters<typeof oracleAll>[0],
  tasks: Task[],
  first: Record<string, Oracle>,
) {
  const events: TaskProgress<Oracle>[] = [];
  const again = await oracleAll(project, tasks, { onProgress: (e) => events.push(e) });
  deepEqual(events.filter((e) => e.event === "cached").map((e) => "task" in e && e.task), [
    ...tasks.map((t) => t.id),
  ]);
  equal(events.filter((e) => e.event === "run" || e.event === "start").length, 0);
  deepEqual(again.file.oracles, first);
}

Deno.test("ground truth of the Go fixture: its fail-to-pass and pass-to-pass tests, the flaky one set aside, each side run twice, reused the second time", async () => {
  await using tmp = await tempDir("bugbout-oracle-go-");
  const fixture = await buildGoProject(join(tmp.path, "repo"));
  // The flaky test alternates with a state file in its package directory of each tree.
  const project = await makeRunnerProject(
    join(tmp.path, "project"),
    fixture.dir,
    join(tmp.path, "home"),
    { language: "go", env: { SHELF_FLAKY_STATE: "flaky-state" } },
  );
  const tasks = fixture.fixes.map((fix) =>
    runnerTask(`issue-${fix.issue}`, fix, {
      testFiles: fix.testFiles,
      sourceFiles: fix.sourceFiles,
    })
  );
  const stage = await oracleAll(project, tasks);
  equal(stage.summary, "3 scorable");
  for (const [i, fix] of fixture.fixes.entries()) {
    const oracle = stage.file.oracles[tasks[i].id];
    equal(oracle.status, "scorable", oracle.reason);
    deepEqual(oracle.failToPass, [...fix.failToPass].sort(), fix.key);
    // Running the whole file also reports the subtests of tests the fixture lists.
    for (const id of fix.passToPass) ok(oracle.passToPass.includes(id), `${fix.key}: ${id}`);
    for (const id of oracle.passToPass.filter((id) => !fix.passToPass.includes(id))) {
      ok(
        fix.passToPass.includes(id.slice(0, id.lastIndexOf("/"))),
        `${fix.key}: ${id} is no subtest of a listed test`,
      );
    }
    deepEqual(oracle.unstable, fix.flaky, fix.key);
    ranTwicePerSide(oracle);
    for (const id of oracle.failToPass) ok(oracle.durations[id] !== undefined, id);
  }
  deepEqual((await readOracles(project)).oracles, stage.file.oracles);
  await secondRunReuses(project, tasks, stage.file.oracles);
});

Deno.test("ground truth of the vitest fixture: fail-to-pass as the fixture says, the flaky test unstable, each side run twice, reused the second time", async () => {
  await using tmp = await tempDir("bugbout-oracle-tally-");
  const fixture = await buildTallyProject(join(tmp.path, "repo"), LOCKS);
  const project = await makeRunnerProject(
    join(tmp.path, "project"),
    fixture.dir,
    join(tmp.path, "home"),
    { language: "node" },
  );
  const [debts, slug] = fixture.fixes;
  const tasks = [
    runnerTask("issue-3", { parent: debts.b, commit: debts.g }, {
      testFiles: [debts.testFile],
      sourceFiles: ["src/money.ts"],
    }),
    // The flaky test is in a file no fix touched: this task counts it among the fix's test files,
    // as a maintainer's flaky test beside a fix's would be.
    runnerTask("issue-7", { parent: slug.b, commit: slug.g }, {
      testFiles: [slug.testFile, "tests/clock.test.ts"],
      sourceFiles: ["src/slug.ts"],
    }),
  ];
  const stage = await oracleAll(project, tasks);
  const [a, b] = tasks.map((t) => stage.file.oracles[t.id]);
  equal(a.status, "scorable", a.reason);
  deepEqual(a.failToPass, debts.failToPass);
  deepEqual(a.passToPass, [
    "src/money.test.ts > format > shows debts with a minus",
    "src/money.test.ts > format > shows dollars and cents",
    "src/money.test.ts > percent > takes a share",
    "src/money.test.ts > roundCents > rounds to the nearest cent",
  ]);
  deepEqual(a.unstable, []);
  equal(b.status, "scorable", b.reason);
  deepEqual(b.failToPass, slug.failToPass);
  deepEqual(b.passToPass, [
    "tests/clock.test.ts > always",
    "tests/slug.test.ts > lowercases and joins words",
  ]);
  deepEqual(b.unstable, [fixture.flaky]);
  ranTwicePerSide(a);
  ranTwicePerSide(b);
  await secondRunReuses(project, tasks, stage.file.oracles);
});

Deno.test("ground truth of the node --test fixture: fail-to-pass as the fixture says, each side run twice, reused the second time", async () => {
  await using tmp = await tempDir("bugbout-oracle-plain-");
  const fixture = await buildPlainProject(join(tmp.path, "repo"));
  const project = await makeRunnerProject(
    join(tmp.path, "project"),
    fixture.dir,
    join(tmp.path, "home"),
    { language: "node" },
  );
  const [fix] = fixture.fixes;
  const tasks = [
    runnerTask("issue-2", { parent: fix.b, commit: fix.g }, {
      testFiles: [fix.testFile],
      sourceFiles: ["lib/parse.js"],
    }),
  ];
  const stage = await oracleAll(project, tasks);
  const oracle = stage.file.oracles["issue-2"];
  equal(oracle.status, "scorable", oracle.reason);
  deepEqual(oracle.failToPass, fix.failToPass);
  ok(oracle.passToPass.includes("test/parse.test.js > parsePairs > reads pairs"));
  deepEqual(oracle.unstable, []);
  ranTwicePerSide(oracle);
  await secondRunReuses(project, tasks, stage.file.oracles);
});

Deno.test("a task whose tree cannot be prepared is that task's environment outcome, not the stage's, kept until --retry-failed", async () => {
  await using tmp = await tempDir("bugbout-oracle-go-broken-");
  const repo = new RepoBuilder();
  const files = (fixed: boolean) => ({
    "v.go": `package v\n\nfunc V() int { return ${fixed ? 2 : 1} }\n`,
    "v_test.go": 'package v\n\nimport "testing"\n\nfunc TestV(t *testing.T) {\n' +
      "\tif V() != 2 {\n\t\tt.Fatal(V())\n\t}\n}\n",
  });
  const start = repo.commit({
    message: "Start",
    files: { "go.mod": GO_MOD, "v.go": "package v\n" },
  });
  const fix = repo.commit({ message: "Fix #1: V", files: files(true) });
  const tooNew = repo.commit({
    message: "Needs a Go from the future",
    files: { "go.mod": "module example.com/v\n\ngo 9.99\n" },
  });
  const fixLater = repo.commit({
    message: "Fix #2: V again",
    files: { "v.go": "package v\n\nfunc V() int { return 2 }\n" },
  });
  await repo.build(join(tmp.path, "repo"));
  const project = await makeRunnerProject(
    join(tmp.path, "project"),
    join(tmp.path, "repo"),
    join(tmp.path, "home"),
    { language: "go" },
  );
  const tasks = [
    runnerTask("issue-1", { parent: start.sha, commit: fix.sha }, {
      testFiles: ["v_test.go"],
      sourceFiles: ["v.go"],
    }),
    runnerTask("issue-2", { parent: tooNew.sha, commit: fixLater.sha }, {
      testFiles: ["v_test.go"],
      sourceFiles: ["v.go"],
    }),
  ];
  const stage = await oracleAll(project, tasks);
  equal(stage.file.oracles["issue-1"].status, "scorable", stage.file.oracles["issue-1"].reason);
  deepEqual(stage.file.oracles["issue-1"].failToPass, ["./TestV"]);
  const broken = stage.file.oracles["issue-2"];
  equal(broken.status, "environment");
  match(broken.reason ?? "", /Cannot prepare the test environment: .*go 9\.99/);
  const starts = async (retryFailed: boolean) => {
    const events: TaskProgress<Oracle>[] = [];
    await oracleAll(project, tasks, { retryFailed, onProgress: (e) => events.push(e) });
    return events.filter((e) => e.event === "start").map((e) => "task" in e && e.task);
  };
  deepEqual(await starts(false), []);
  deepEqual(await starts(true), ["issue-2"]);
});
