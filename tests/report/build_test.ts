/**
 * buildReport() on the hand-written fixture: every expected number below was worked out by hand
 * from the table in `fixture.ts`, not copied from output.
 */

import { deepEqual, equal, ok } from "node:assert/strict";
import {
  attemptSchema,
  matrixSchema,
  oraclesFileSchema,
  resolutionsFileSchema,
  tasksFileSchema,
  verdictsFileSchema,
} from "../../lib/records.ts";
import { buildReport } from "../../lib/report/build.ts";
import { reportSchema } from "../../lib/report/schema.ts";
import { MATRIX_ROW_CAP } from "../../lib/report/types.ts";
import { fixtureInput } from "./fixture.ts";

const report = buildReport(fixtureInput());
const agent = (name: string) => report.agents.find((a) => a.name === name)!;
const close = (actual: number | null, expected: number, digits = 3) =>
  ok(
    actual !== null && Math.abs(actual - expected) < 10 ** -digits,
    `expected ${expected}, got ${actual}`,
  );

Deno.test("the fixture's stage files are valid results files", () => {
  const input = fixtureInput();
  tasksFileSchema.parse(input.tasks);
  oraclesFileSchema.parse(input.oracles);
  for (const attempt of input.attempts) attemptSchema.parse(attempt);
  for (const matrix of input.matrices) matrixSchema.parse(matrix);
  verdictsFileSchema.parse({
    version: 1,
    kind: "verdicts",
    policy: "majority",
    verdicts: input.verdicts,
  });
  resolutionsFileSchema.parse({ version: 1, kind: "resolutions", resolutions: input.resolutions });
  reportSchema.parse(report);
});

Deno.test("buildReport() counts each contestant's outcomes over scored tasks only", () => {
  deepEqual(report.agents.map((a) => a.name), ["codex", "claude", "cheater"]);
  // issue-15's codex patch "resolved", but the task failed its sanity gate: it counts nowhere.
  deepEqual(agent("codex").outcomes, {
    resolved: 2,
    "broke-tests": 0,
    "wrong-fix": 1,
    "no-fix": 0,
    tampered: 0,
    divergent: 0,
  });
  deepEqual(agent("claude").outcomes, {
    resolved: 2,
    "broke-tests": 1,
    "wrong-fix": 0,
    "no-fix": 0,
    tampered: 0,
    divergent: 0,
  });
  // The quota attempt at issue-12 is a no-fix.
  deepEqual(agent("cheater").outcomes, {
    resolved: 0,
    "broke-tests": 0,
    "wrong-fix": 2,
    "no-fix": 1,
    tampered: 0,
    divergent: 0,
  });
  for (const a of report.agents) equal(a.tasks, 3);
});

Deno.test("buildReport() gives each resolve rate its 95% Wilson interval", () => {
  const codex = agent("codex").resolveRate;
  deepEqual([codex.k, codex.n], [2, 3]);
  close(codex.rate, 2 / 3);
  close(codex.low, 0.2077);
  close(codex.high, 0.9385);
  const cheater = agent("cheater").resolveRate;
  deepEqual([cheater.k, cheater.n, cheater.rate, cheater.low], [0, 3, 0, 0]);
  close(cheater.high, 0.5615);
});

Deno.test("buildReport() counts every attempt by status, scored or not", () => {
  const zero = {
    patch: 0,
    "no-change": 0,
    timeout: 0,
    crashed: 0,
    "out-of-memory": 0,
    "too-many-processes": 0,
    "disk-full": 0,
    "too-many-files": 0,
    quota: 0,
    "infra-error": 0,
    budget: 0,
  };
  deepEqual(agent("codex").statuses, { ...zero, patch: 5 });
  deepEqual(agent("claude").statuses, { ...zero, patch: 3, timeout: 1, crashed: 1 });
  deepEqual(agent("cheater").statuses, { ...zero, patch: 4, quota: 1 });
  for (const a of report.agents) equal(a.attempts, 5);
});

Deno.test("buildReport() reports median time, tokens and cost, and per resolved task", () => {
  const codex = agent("codex");
  // 60, 90, 120, 180, 300 s; tokens 30k..120k with issue-13's 35k input + 5k output.
  equal(codex.medianDurationMs, 120_000);
  deepEqual(codex.tokens, { attempts: 5, total: 310_000, medianPerAttempt: 50_000 });
  equal(codex.cost.attempts, 5);
  close(codex.cost.totalUsd, 2.65, 9);
  // Scored tasks cost 0.40 + 1.10 + 0.30 and took 120 + 300 + 90 s, for 2 resolved.
  close(codex.perResolved.costUsd, 0.9, 9);
  equal(codex.perResolved.durationMs, 255_000);
  // And used 50k + 120k + 40k tokens.
  equal(codex.perResolved.tokens, 105_000);

  const claude = agent("claude");
  // 5, 100, 150, 200, 1800 s; the timeout and the crash reported no tokens or cost.
  equal(claude.medianDurationMs, 150_000);
  deepEqual(claude.tokens, { attempts: 3, total: 185_000, medianPerAttempt: 60_000 });
  equal(claude.cost.attempts, 3);
  close(claude.cost.totalUsd, 2.15, 9);
  close(claude.perResolved.costUsd, 1.075, 9);
  equal(claude.perResolved.durationMs, 225_000);
  equal(claude.perResolved.tokens, 92_500);

  const cheater = agent("cheater");
  equal(cheater.medianDurationMs, 10_000);
  deepEqual(cheater.tokens, { attempts: 0, total: null, medianPerAttempt: null });
  deepEqual(cheater.cost, { attempts: 0, totalUsd: null });
  deepEqual(cheater.perResolved, { costUsd: null, tokens: null, durationMs: null });
});

Deno.test("buildReport() leaves an infrastructure error out of the agent's numbers", () => {
  const input = fixtureInput();
  const attempt = input.attempts.find((a) => a.task === "issue-12" && a.agent === "codex")!;
  attempt.status = "infra-error";
  const codex = buildReport(input).agents[0];
  equal(codex.tasks, 2);
  deepEqual(codex.outcomes, {
    resolved: 2,
    "broke-tests": 0,
    "wrong-fix": 0,
    "no-fix": 0,
    tampered: 0,
    divergent: 0,
  });
  equal(codex.statuses["infra-error"], 1);
  // 60, 90, 120, 180 s without issue-12's 300 s.
  equal(codex.medianDurationMs, 105_000);
});

Deno.test("buildReport() counts a task once its resolution is scored", () => {
  const input = fixtureInput();
  input.resolutions["issue-15"].scored = true;
  const built = buildReport(input);
  equal(built.agents[0].outcomes.resolved, 3);
  equal(built.picking.tasks, 4);
  equal(built.picking.judge.abstained, 2);
});

Deno.test("buildReport() compares every two contestants on the tasks both attempted", () => {
  deepEqual(
    report.comparisons.map((c) =>
      c.test === "mcnemar" ? [c.a, c.b, c.tasks, c.both, c.onlyA, c.onlyB, c.neither] : []
    ),
    [
      ["codex", "claude", 3, 1, 1, 1, 0],
      ["codex", "cheater", 3, 0, 2, 0, 1],
      ["claude", "cheater", 3, 0, 2, 0, 1],
    ],
  );
  // One discordant task each way: p = 1. Two one way: p = 2 / 2^2 = 0.5.
  deepEqual(report.comparisons.map((c) => c.p), [1, 0.5, 0.5]);
  ok(report.comparisons[1].sentence.startsWith("codex resolved 2 tasks cheater did not"));
  ok(report.comparisons[1].sentence.includes("this could be chance, p = 0.50"));
});

Deno.test("buildReport() sets the judge's picks against the baselines", () => {
  const { picking } = report;
  equal(picking.tasks, 3);
  deepEqual(
    [picking.judge.resolved, picking.judge.wrong, picking.judge.abstained],
    [1, 1, 1],
  );
  deepEqual([picking.judge.rate.k, picking.judge.rate.n], [1, 3]);
  deepEqual([picking.judge.precision.k, picking.judge.precision.n], [1, 2]);
  close(picking.judge.precision.low, 0.0945);
  deepEqual(picking.bestSingle, { agents: ["codex", "claude"], resolved: 2, rate: 2 / 3 });
  // Per task 1/3, 1/3 and 2/3 of the contestants resolved it.
  close(picking.random.expected, 4 / 3, 9);
  close(picking.random.rate, 4 / 9, 9);
  deepEqual(picking.oracle, { resolved: 3, rate: 1 });
});

Deno.test("buildReport() puts every patch of a scored task through the merge gate", () => {
  const { overall, agents } = report.mergeGate;
  equal(report.mergeGate.policy, "majority");
  deepEqual(
    [overall.patches, overall.approved, overall.approvedRight, overall.wrong, overall.wrongStopped],
    [8, 2, 1, 4, 3],
  );
  deepEqual([overall.right, overall.rightStopped], [4, 3]);
  deepEqual([overall.precision.k, overall.precision.n], [1, 2]);
  const row = (name: string) => {
    const g = agents.find((a) => a.agent === name)!;
    return [
      g.patches,
      g.approved,
      g.approvedRight,
      g.wrong,
      g.wrongStopped,
      g.right,
      g.rightStopped,
    ];
  };
  deepEqual(row("codex"), [3, 2, 1, 1, 0, 2, 1]);
  deepEqual(row("claude"), [3, 0, 0, 1, 1, 2, 2]);
  // The quota attempt at issue-12 has no patch, so the judge saw two of cheater's.
  deepEqual(row("cheater"), [2, 0, 0, 2, 2, 0, 0]);
  equal(agents.find((a) => a.agent === "claude")!.precision.rate, null);
});

Deno.test("buildReport() measures how each author's tests separate right fixes from wrong", () => {
  const rows = Object.fromEntries(report.separation.map((s) => [s.author, s]));
  deepEqual(Object.keys(rows), ["codex", "claude", "cheater", "gemini", "repository"]);
  const counts = (a: string) => {
    const s = rows[a];
    return [s.resolved, s.acceptedResolved, s.wrong, s.rejectedWrong, s.skipped];
  };
  // codex's reproductions fail claude's right fixes at 12 and 13, pass claude's broken one at 11.
  deepEqual(counts("codex"), [2, 0, 3, 2, 0]);
  deepEqual(counts("claude"), [2, 1, 3, 3, 0]);
  // cheater's tests pass on the unfixed code: it has no say about any patch.
  deepEqual(counts("cheater"), [0, 0, 0, 0, 4]);
  deepEqual(counts("gemini"), [2, 1, 3, 1, 3]);
  // The suite misses cheater's wrong fix at 11 and codex's at 12; the skipped test at 13 counts.
  deepEqual(counts("repository"), [4, 4, 4, 2, 0]);
  equal(rows.claude.balancedAccuracy, 0.75);
  close(rows.gemini.balancedAccuracy, 5 / 12, 9);
  equal(rows.cheater.balancedAccuracy, null);
  deepEqual(report.separation.map((s) => s.role), [
    "contestant",
    "contestant",
    "contestant",
    "examiner",
    "repository",
  ]);
});

Deno.test("buildReport() summarises each agent's evidence roles and inadequate closures", () => {
  const rows = Object.fromEntries(report.evidence.map((e) => [e.agent, e]));
  deepEqual(Object.keys(rows), ["codex", "claude", "cheater", "gemini"]);
  equal(rows.codex.counts["gold-aligned"], 1);
  equal(rows.codex.counts["candidate-specific"], 2);
  deepEqual([rows.codex.withPatch, rows.codex.inadequateClosures, rows.codex.closureRate], [
    3,
    0,
    0,
  ]);
  // cheater: a regression-only and a misleading test; both patches closed without evidence.
  deepEqual(rows.cheater.shares, {
    "gold-aligned": 0,
    "candidate-specific": 0,
    "regression-only": 0.5,
    misleading: 0.5,
  });
  deepEqual([rows.cheater.attempts, rows.cheater.withPatch, rows.cheater.closureRate], [3, 2, 1]);
  // The examiner's tests never ran on a candidate of its own.
  deepEqual([rows.gemini.tests, rows.gemini.positive, rows.gemini.closureRate], [5, 0, null]);
  equal(rows.gemini.role, "examiner");
});

Deno.test("buildReport() says how the tasks were found and which were not scored", () => {
  const d = report.discovery;
  deepEqual([d.examined, d.tasks, d.scored, d.excluded.total], [240, 5, 3, 235]);
  deepEqual(d.excluded.reasons.map((r) => r.count), [180, 38, 12, 5]);
  deepEqual(d.unscored.map((u) => [u.task, u.kind]), [["issue-14", "unscorable"], [
    "issue-15",
    "sanity",
  ]]);
  deepEqual(d.sanity, [{ task: "issue-15", emptyResolves: true, goldResolves: true }]);
  deepEqual(d.unstable, { oracle: 1, matrix: 1 });
  deepEqual(
    [d.infraErrors.oracleRuns, d.infraErrors.attempts, d.infraErrors.matrixTrees],
    [1, 1, 1],
  );
  deepEqual(d.infraErrors.items.map((i) => [i.stage, i.task, i.what]), [
    ["oracle", "issue-14", "G run 2"],
    ["attempt", "issue-15", "gemini"],
    ["matrix", "issue-15", "cheater"],
  ]);
});

Deno.test("buildReport() lists every task with outcomes, the pick and a compact matrix", () => {
  deepEqual(report.tasks.map((t) => [t.id, t.scored]), [
    ["issue-11", true],
    ["issue-12", true],
    ["issue-13", true],
    ["issue-14", false],
    ["issue-15", false],
  ]);
  const [t11, t12, , t14] = report.tasks;
  const first = (a: (typeof t11.agents)[number]) => a.attempts[0];
  deepEqual(
    t11.agents.map((a) => [a.agent, first(a).status, first(a).outcome, first(a).approved]),
    [
      ["codex", "patch", "resolved", true],
      ["claude", "patch", "broke-tests", false],
      ["cheater", "patch", "wrong-fix", false],
      ["gemini", "patch", null, null],
    ],
  );
  // One attempt each: resolved of counted, for contestants only.
  deepEqual(t11.agents.map((a) => [a.resolved, a.counted]), [[1, 1], [0, 1], [0, 1], [
    null,
    null,
  ]]);
  deepEqual(first(t11.agents[2]).flags, ["edits conftest.py"]);
  deepEqual([t11.failToPass, t11.passToPass], [2, 3]);
  deepEqual([t12.pick.agent, t12.pick.attempt, t12.pick.outcome], ["codex", "codex", "wrong-fix"]);
  equal(first(t12.agents[2]).status, "quota");
  // Not scored: no outcome, the judge's pick without one.
  deepEqual(t14.agents.map((a) => first(a)?.outcome ?? null), [null, null, null, null]);
  deepEqual(t14.agents.map((a) => a.counted), [null, null, null, null]);
  deepEqual([t14.pick.agent, t14.pick.outcome], ["codex", null]);
  ok(t14.reason?.includes("unscorable"));

  const m = t11.matrix!;
  deepEqual(m.trees.map((t) => [t.id, t.picked]), [
    ["B", false],
    ["B#2", false],
    ["codex", true],
    ["claude", false],
    ["cheater", false],
  ]);
  // Only the tests whose outcome differs between trees are rows: the suite's test_parse_simple
  // (PPPPP) is counted, not shown.
  deepEqual(m.rows.map((r) => r.outcomes), [
    "FFPPF",
    "FFPPF",
    "PPPFP",
    "FFPPF",
    "EEPPE",
    "PPPFP",
    "PFPPP",
  ]);
  deepEqual(m.rows.map((r) => r.unstable), [false, false, false, false, false, false, true]);
  deepEqual(m.authors.map((a) => [a.author, a.tests, a.reproducing, a.shown, a.same]), [
    ["codex", 1, 1, 1, 0],
    ["claude", 1, 1, 1, 0],
    ["cheater", 1, 0, 1, 0],
    ["gemini", 2, 2, 2, 0],
    ["repository", 3, 0, 2, 1],
  ]);
  deepEqual([m.tests, m.same, m.omitted], [8, 1, 0]);
  // issue-15: cheater's tree could not be built. Compared on the trees that ran, every test
  // has one outcome: no row, three counted.
  const m15 = report.tasks[4].matrix!;
  deepEqual([m15.rows, m15.same, m15.tests], [[], 3, 3]);
});

Deno.test("buildReport() keeps only the rows that differ between trees, and caps them", () => {
  const input = fixtureInput();
  const matrix = input.matrices.find((m) => m.task === "issue-13")!;
  for (let i = 0; i < 1000; i++) {
    const id = `tests/test_many.py::test_case[${i}]`;
    matrix.tests.push({ id, author: "repository", authorRole: "repository" });
    // Every 100th test fails on claude's patch; the other 990 pass everywhere.
    const claude = i % 100 === 0 ? "failed" : "passed";
    matrix.cells[id] = { B: "passed", "B#2": "passed", codex: "passed", claude, cheater: "passed" };
  }
  const view = buildReport(input).tasks[2].matrix!;
  equal(view.tests, 1006);
  // codex's, claude's and the suite's test_parse_naive differ, and ten of the many.
  equal(view.rows.length, 13);
  equal(view.same, 993);
  equal(view.omitted, 0);
  equal(view.rows.filter((r) => r.outcomes === "PPPFP").length, 10);
  const order = view.rows.map((r) => matrix.tests.findIndex((t) => t.id === r.test));
  deepEqual(order, [...order].sort((x, y) => x - y));
  deepEqual(view.authors.find((a) => a.author === "repository")!, {
    author: "repository",
    role: "repository",
    tests: 1002,
    reproducing: 0,
    shown: 11,
    same: 991,
  });

  // Past the cap, agents' tests are kept first; the rest are counted in `omitted`.
  for (let i = 0; i < 1000; i++) {
    matrix.cells[`tests/test_many.py::test_case[${i}]`].claude = "failed";
  }
  const capped = buildReport(input).tasks[2].matrix!;
  equal(capped.rows.length, MATRIX_ROW_CAP);
  // codex's and claude's tests, test_parse_naive and the thousand differ.
  equal(capped.omitted, 2 + 1 + 1000 - MATRIX_ROW_CAP);
  deepEqual(capped.rows.slice(0, 2).map((r) => r.author), ["codex", "claude"]);
  equal(capped.same, 3);
});

Deno.test("buildReport() takes the sandbox line from the attempts' records, not the config", () => {
  // Every attempt of the fixture recorded "none": the whole bout ran unconfined.
  deepEqual(report.sandbox.attempts, { bubblewrap: 0, seatbelt: 0, none: 19 });
  equal(report.sandbox.mode, "none");
  ok(report.sandbox.warning?.includes('sandbox = "none"'));

  // The attempts ran in bubblewrap: no warning, whatever the config says today (`run --no-race`
  // after changing it), which the report is not even given.
  const input = fixtureInput();
  input.attempts = input.attempts.map((a) => ({ ...a, sandbox: "bubblewrap" }));
  deepEqual(buildReport(input).sandbox, {
    mode: "bubblewrap",
    attempts: { bubblewrap: 19, seatbelt: 0, none: 0 },
    warning: null,
  });

  // Some agents unconfined: several modes, and those agents named.
  input.attempts = input.attempts.map((a) => a.agent === "cheater" ? { ...a, sandbox: "none" } : a);
  const mixed = buildReport(input).sandbox;
  equal(mixed.mode, "mixed");
  deepEqual(mixed.attempts, { bubblewrap: 14, seatbelt: 0, none: 5 });
  ok(
    mixed.warning?.startsWith("cheater ran outside bugbout's sandbox on 5 of 19 attempts"),
    mixed.warning ?? "",
  );

  // No attempt ran (an infrastructure error never started its agent): the sandbox was not used.
  input.attempts = input.attempts.filter((a) => a.status === "infra-error");
  deepEqual(buildReport(input).sandbox, {
    mode: "unused",
    attempts: { bubblewrap: 0, seatbelt: 0, none: 0 },
    warning: null,
  });
});

Deno.test("buildReport() says plainly when no task was scored, and why", () => {
  equal(report.noScoredTask, null);
  const input = fixtureInput();

  // Mined, nothing run yet: no ground truth, run `bugbout run`.
  const mined = buildReport({
    ...input,
    oracles: { ...input.oracles, oracles: {} },
    attempts: [],
    matrices: [],
    verdicts: {},
    resolutions: {},
  });
  equal(
    mined.noScoredTask,
    "No task was scored, so every number in this report is empty. Of 5 tasks: no ground truth " +
      "yet (5). Run `bugbout run` to establish the ground truth, race the agents and score them.",
  );

  // Ground truth for every task, none scorable: the reasons, counted, most first.
  const resolutions = Object.fromEntries(
    Object.entries(input.resolutions).map(([id, r]) => [id, {
      ...r,
      scored: false,
      reason: id === "issue-15" ? r.reason : "unscorable: no fail-to-pass test",
    }]),
  );
  const unscorable = buildReport({ ...input, resolutions });
  const text = unscorable.noScoredTask ?? "";
  ok(text.startsWith("No task was scored, so every number in this report is empty. Of 5 tasks: "));
  ok(text.includes("unscorable: no fail-to-pass test (3)"), text);
  ok(text.includes("no fail-to-pass test: the fix's tests cannot be collected on Python 3.11 (1)"));
  ok(text.includes("sanity gate: the unpatched tree already passes every fail-to-pass test (1)"));
  ok(text.endsWith(`"How the tasks were found" gives each task's reason.`), text);
  deepEqual(unscorable.agents.map((a) => a.tasks), [0, 0, 0]);

  // Nothing mined at all.
  const none = buildReport({
    ...input,
    tasks: { ...input.tasks, tasks: [], examined: 0 },
    oracles: { ...input.oracles, oracles: {} },
    attempts: [],
    matrices: [],
    verdicts: {},
    resolutions: {},
  });
  ok(none.noScoredTask?.includes("No task has been mined yet. Run `bugbout run`"));
  const examined = buildReport({ ...input, tasks: { ...input.tasks, tasks: [] } });
  ok(examined.noScoredTask?.includes("None of the 240 commits examined became a task"));
});

Deno.test("buildReport() builds a valid report of a bout with nothing in it", () => {
  const input = fixtureInput();
  const empty = buildReport({
    ...input,
    tasks: { ...input.tasks, tasks: [], excluded: [], counts: {}, examined: 0 },
    oracles: { ...input.oracles, oracles: {} },
    attempts: [],
    matrices: [],
    verdicts: {},
    resolutions: {},
  });
  reportSchema.parse(empty);
  deepEqual(empty.agents[0].resolveRate, {
    k: 0,
    n: 0,
    rate: null,
    low: 0,
    high: 1,
    method: "wilson",
    tasks: 0,
    se: null,
    resamples: null,
    seed: null,
  });
  deepEqual(empty.picking.bestSingle, {
    agents: ["codex", "claude", "cheater"],
    resolved: 0,
    rate: null,
  });
  equal(empty.tasks.length, 0);
});
