/**
 * The report of a bout with `[run] repeats = 3` (`fixture_repeats.ts`): every figure below was
 * worked out by hand from the fixture's table, and every format renders pass@1 with its interval,
 * pass@3 and pass^3, and each agent's figures before and after its training cutoff.
 */

import { deepEqual, equal, match, ok } from "node:assert/strict";
import { attemptSchema, resolutionsFileSchema, verdictsFileSchema } from "../../lib/records.ts";
import { buildReport } from "../../lib/report/build.ts";
import {
  renderHtml,
  renderJson,
  renderMarkdown,
  renderTerminal,
  type Report,
  reportSchema,
  TERMINAL_WIDTH,
} from "../../lib/report/mod.ts";
import { clusteredSe } from "../../lib/report/stats_repeats.ts";
import { fixtureInput } from "./fixture.ts";
import { repeatsInput } from "./fixture_repeats.ts";
import { validate } from "./_json_schema.ts";
import { SCHEMA_PATH } from "./write_schema.ts";

const report = buildReport(repeatsInput());
const agent = (name: string) => report.agents.find((a) => a.name === name)!;
const close = (actual: number | null | undefined, expected: number, digits = 9) =>
  ok(
    actual != null && Math.abs(actual - expected) < 10 ** -digits,
    `expected ${expected}, got ${actual}`,
  );
const text = (r: Report) => ({
  terminal: renderTerminal(r, { color: false }),
  markdown: renderMarkdown(r),
  html: renderHtml(r).replaceAll("&#39;", "'"),
  json: renderJson(r),
});

Deno.test("the repeats fixture's stage files are valid results files", () => {
  const input = repeatsInput();
  for (const attempt of input.attempts) attemptSchema.parse(attempt);
  resolutionsFileSchema.parse({ version: 1, kind: "resolutions", resolutions: input.resolutions });
  verdictsFileSchema.parse({
    version: 1,
    kind: "verdicts",
    policy: "majority",
    verdicts: input.verdicts,
  });
  equal(input.attempts.length, 13 * 3 * 2 + 3);
});

Deno.test("with repeats each agent gathers all its attempts: outcomes, statuses and costs", () => {
  equal(report.repeats, 3);
  deepEqual(report.agents.map((a) => a.name), ["alpha", "beta"]);
  const alpha = agent("alpha"), beta = agent("beta");
  // alpha: 39 attempts, one an infrastructure error, so 38 count.
  deepEqual([alpha.tasks, alpha.scoredAttempts, alpha.attempts], [13, 38, 39]);
  deepEqual(alpha.outcomes, {
    resolved: 19,
    "broke-tests": 1,
    "wrong-fix": 14,
    "no-fix": 4,
    tampered: 0,
    divergent: 0,
  });
  deepEqual([beta.tasks, beta.scoredAttempts, beta.attempts], [13, 39, 39]);
  deepEqual(beta.outcomes, {
    resolved: 9,
    "broke-tests": 0,
    "wrong-fix": 23,
    "no-fix": 7,
    tampered: 0,
    divergent: 0,
  });
  deepEqual([alpha.statuses.patch, alpha.statuses["no-change"], alpha.statuses["infra-error"]], [
    34,
    4,
    1,
  ]);
  deepEqual([beta.statuses.patch, beta.statuses["no-change"], beta.statuses.quota], [32, 6, 1]);
  // $0.10 for each of alpha's 38 attempts that ran, over 19 resolved; 60 s each.
  close(alpha.cost.totalUsd, 3.8);
  close(alpha.perResolved.costUsd, 0.2);
  deepEqual([alpha.medianDurationMs, alpha.perResolved.durationMs], [60_000, 120_000]);
  // beta: 39 attempts of 120 s over 9 resolved.
  equal(beta.perResolved.durationMs, 39 * 120_000 / 9);
});

Deno.test("pass@1 is the mean of per-task shares, with a seeded task-level bootstrap interval", () => {
  const alpha = agent("alpha").resolveRate, beta = agent("beta").resolveRate;
  // alpha: 1 + 1 + ⅔ + ⅔ + ⅓ + 0 + 0 + 1 + ⅓ + 0 + 1 + 0 + ⅓ = 19/3 over 13 tasks.
  close(alpha.rate, 19 / 39);
  deepEqual([alpha.k, alpha.n, alpha.tasks], [19, 38, 13]);
  // beta: 1 + ⅓ + ⅓ + 1 + ⅓ = 3 over 13 tasks.
  close(beta.rate, 3 / 13);
  for (const r of [alpha, beta]) {
    deepEqual([r.method, r.resamples, r.seed, r.se], ["bootstrap", 2000, 15, null]);
    ok(r.low < r.rate! && r.rate! < r.high, `${r.low} < ${r.rate} < ${r.high}`);
  }
  // Built again, the same interval.
  deepEqual(buildReport(repeatsInput()).agents[0].resolveRate, alpha);
});

Deno.test("pass@3 and pass^3 per agent, leaving out the task with two attempts that count", () => {
  // alpha's t7 has 2 attempts: of the other 12, 9 have a resolved attempt and 4 three.
  deepEqual(agent("alpha").passAtK, { k: 3, rate: 9 / 12, tasks: 12 });
  deepEqual(agent("alpha").passHatK, { k: 3, rate: 4 / 12, tasks: 12 });
  deepEqual(agent("beta").passAtK, { k: 3, rate: 5 / 13, tasks: 13 });
  deepEqual(agent("beta").passHatK, { k: 3, rate: 2 / 13, tasks: 13 });
});

Deno.test("with 30 tasks or more, pass@1's interval is the clustered standard error", () => {
  // The fixture three times over: 39 tasks with the same shares.
  const input = repeatsInput();
  const copies = [1, 2, 3];
  const rename = (id: string, copy: number) => copy === 1 ? id : `${id}-${copy}`;
  input.tasks.tasks = copies.flatMap((c) =>
    input.tasks.tasks.map((t) => ({ ...t, id: rename(t.id, c) }))
  );
  input.attempts = copies.flatMap((c) =>
    input.attempts.map((a) => ({ ...a, task: rename(a.task, c) }))
  );
  input.resolutions = Object.fromEntries(
    copies.flatMap((c) =>
      Object.values(input.resolutions).map((
        r,
      ) => [rename(r.task, c), { ...r, task: rename(r.task, c) }])
    ),
  );
  const big = buildReport(input).agents[0];
  equal(big.tasks, 39);
  const shares = [1, 1, 2 / 3, 2 / 3, 1 / 3, 0, 0, 1, 1 / 3, 0, 1, 0, 1 / 3];
  const se = clusteredSe([...shares, ...shares, ...shares])!;
  deepEqual([big.resolveRate.method, big.resolveRate.resamples], ["clustered", null]);
  close(big.resolveRate.se, se);
  close(big.resolveRate.low, 19 / 39 - 1.959964 * se);
  close(big.resolveRate.high, 19 / 39 + 1.959964 * se);
});

Deno.test("with repeats two agents are compared by their per-task shares, with a sign-flip test", () => {
  equal(report.comparisons.length, 1);
  const c = report.comparisons[0];
  ok(c.test === "sign-flip");
  deepEqual([c.a, c.b, c.tasks, c.higher, c.lower, c.same], ["alpha", "beta", 13, 6, 1, 6]);
  close(c.meanA, 19 / 39);
  close(c.meanB, 3 / 13);
  close(c.difference, 10 / 39);
  // d in thirds: 0 3 2 1 0 0 0 0 1 −1 3 0 1; sd(d)/sqrt(13) (exact fractions in Python).
  close(c.se, 0.11419136081955032);
  // Non-zero |d| in thirds 3 3 2 1 1 1 1, Σ d = 10: 10 of the 128 flips are as extreme.
  deepEqual([c.p, c.flips, c.exact], [10 / 128, 128, true]);
  match(c.sentence, /with 13 tasks this could be chance, p = 0\.078 \(all 128 sign flips\)\.$/);
});

Deno.test("the judge's pick is one attempt; the baselines use per-agent mean rates", () => {
  const k = report.picking;
  deepEqual([k.tasks, k.judge.resolved, k.judge.wrong, k.judge.abstained], [13, 9, 1, 3]);
  // The best single agent resolves 19/3 tasks in expectation, a random one (19/3 + 3)/2.
  deepEqual(k.bestSingle.agents, ["alpha"]);
  close(k.bestSingle.resolved, 19 / 3);
  close(k.bestSingle.rate, 19 / 39);
  close(k.random.expected, 14 / 3);
  // Some attempt resolved every task but t6, t7 and t12.
  deepEqual([k.oracle.resolved, k.oracle.rate], [10, 10 / 13]);
  const t1 = report.tasks[0];
  deepEqual(t1.pick, {
    agent: "alpha",
    attempt: "alpha#2",
    outcome: "resolved",
    reason: "picked alpha#2",
  });
  // The matrix marks the attempt picked, not every tree of its agent.
  deepEqual(t1.matrix!.trees.filter((t) => t.picked).map((t) => t.id), ["alpha#2"]);
});

Deno.test("the merge gate, separation and evidence gather each agent's attempts", () => {
  const gate = Object.fromEntries(report.mergeGate.agents.map((g) => [g.agent, g]));
  const row = (g: typeof gate[string]) => [
    g.patches,
    g.approved,
    g.approvedRight,
    g.wrong,
    g.wrongStopped,
    g.right,
    g.rightStopped,
  ];
  // Only the picked attempts are approved: 7 of alpha's (one wrong, t5), 3 of beta's.
  deepEqual(row(gate.alpha), [34, 7, 6, 15, 14, 19, 13]);
  deepEqual(row(gate.beta), [32, 3, 3, 23, 23, 9, 6]);
  deepEqual(row(report.mergeGate.overall), [66, 10, 9, 38, 37, 28, 19]);
  // alpha's and alpha#2's tests judge beta's patches only, and the other way round.
  deepEqual(
    report.separation.map((
      s,
    ) => [s.author, s.resolved, s.acceptedResolved, s.wrong, s.rejectedWrong]),
    [["alpha", 7, 7, 2, 2], ["beta", 4, 4, 1, 0], ["repository", 8, 8, 3, 0]],
  );
  deepEqual(
    report.evidence.map((e) => [e.agent, e.tests, e.withPatch, e.inadequateClosures]),
    [["alpha", 5, 5, 1], ["beta", 0, 0, 0], ["gamma", 2, 0, 0]],
  );
});

Deno.test("no section lists an attempt as an agent of its own", () => {
  const names = [
    ...report.agents.map((a) => a.name),
    ...report.comparisons.flatMap((c) => [c.a, c.b]),
    ...report.picking.bestSingle.agents,
    ...report.mergeGate.agents.map((g) => g.agent!),
    ...report.separation.map((s) => s.author),
    ...report.evidence.map((e) => e.agent),
    ...report.tasks.flatMap((t) => t.agents.map((a) => a.agent)),
    ...report.tasks.flatMap((t) => t.pick.agent ? [t.pick.agent] : []),
  ];
  deepEqual(names.filter((n) => n.includes("#")), []);
  // The tables and charts of every format: no `alpha#2` heads a row or a column as an agent.
  const { terminal, markdown, html } = text(report);
  for (const t of [terminal, markdown]) {
    const rows = t.split("\n").filter((l) => /^\s*(\| )?(alpha|beta|gamma)\\?#/.test(l));
    deepEqual(rows, []);
  }
  ok(!/<strong class="name"[^>]*>[^<]*#/.test(html));
  ok(!/data-agent="[^"]*#/.test(html));
  ok(
    !/<svg id="chart-outcomes"[\s\S]*?#\d[\s\S]*?<\/svg>/.test(html.replace(/#[0-9a-f]{6}/gi, "")),
  );
});

Deno.test("each task says how many repeats resolved it, and lists every attempt", () => {
  const task = (id: string) => report.tasks.find((t) => t.id === id)!;
  const alpha = (id: string) => task(id).agents.find((a) => a.agent === "alpha")!;
  deepEqual([alpha("t1").resolved, alpha("t1").counted], [3, 3]);
  deepEqual([alpha("t5").resolved, alpha("t5").counted], [1, 3]);
  // t7: one attempt was an infrastructure error: 0 of 2.
  deepEqual([alpha("t7").resolved, alpha("t7").counted], [0, 2]);
  deepEqual(
    alpha("t7").attempts.map((a) => [a.name, a.repeat, a.status, a.outcome]),
    [["alpha", 1, "patch", "wrong-fix"], ["alpha#2", 2, "infra-error", null], [
      "alpha#3",
      3,
      "patch",
      "wrong-fix",
    ]],
  );
  // The examiner's attempts are listed, never counted.
  const gamma = task("t1").agents.find((a) => a.agent === "gamma")!;
  deepEqual([gamma.resolved, gamma.counted, gamma.attempts.length], [null, null, 3]);
  const { terminal, markdown, html } = text(report);
  match(terminal, /t7\s+Fix bug 7\s+0\/2 resolved\s+0\/3 resolved\s+abstained/);
  match(
    markdown,
    /\| t5 \| Fix bug 5 \| 1\/3 resolved \| 1\/3 resolved \| alpha attempt 3 \(wrong fix\) \|/,
  );
  ok(markdown.includes("  - alpha's attempts: no fix, resolved ✗, wrong fix ✓\n"));
  ok(markdown.includes("  - alpha attempt 2's patch: adds skip markers\n"));
  ok(html.includes(`data-task="t1" data-agent="alpha"`));
  match(html, /★ 3\/3 resolved<\/td>/);
  match(html, /<span class="name">alpha attempt 2<\/span> ★/);
});

Deno.test("every format renders pass@1 with its interval, pass@3 and pass^3 per agent", () => {
  const { terminal, markdown, html, json } = text(report);
  const alpha = agent("alpha"), beta = agent("beta");
  const re = (x: string) => x.replace(/[()]/g, "\\$&");
  const iv = (a: typeof alpha) =>
    `${Math.round(a.resolveRate.rate! * 100)}% (${Math.round(a.resolveRate.low * 100)}–${
      Math.round(a.resolveRate.high * 100)
    }%)`;
  match(
    terminal,
    new RegExp(`alpha\\s+13\\s+38\\s+19\\s+1\\s+14\\s+4\\s+${re(iv(alpha))}\\s+75%\\s+33%`),
  );
  match(
    terminal,
    new RegExp(`beta\\s+13\\s+39\\s+9\\s+0\\s+23\\s+7\\s+${re(iv(beta))}\\s+38%\\s+15%`),
  );
  match(terminal, /pass@1 \(95%\)\s+pass@3\s+pass\^3/);
  ok(
    markdown.includes(
      "| Agent | Tasks | Attempts | Resolved | Fixed, broke a test | Wrong fix | " +
        "No fix | pass@1 (95% interval) | pass@3 | pass^3 |",
    ),
  );
  ok(markdown.includes(`| alpha | 13 | 38 | 19 | 1 | 14 | 4 | ${iv(alpha)} | 75% | 33% |`));
  ok(markdown.includes(`| beta | 13 | 39 | 9 | 0 | 23 | 7 | ${iv(beta)} | 38% | 15% |`));
  ok(
    html.includes(
      `<td class="num">${iv(alpha)}</td><td class="num">75%</td><td class="num">33%</td>`,
    ),
  );
  ok(html.includes(`pass@1 ${iv(alpha)}`), "the chart's label");
  ok(html.includes("pass@3 75% · pass^3 33%"), "the chart's second label");
  const parsed = JSON.parse(json);
  deepEqual(parsed.agents[0].passAtK, { k: 3, rate: 0.75, tasks: 12 });
  deepEqual(parsed.agents[0].resolveRate.method, "bootstrap");
  // Every format says how the interval was made.
  for (const t of [terminal.replace(/\s+/g, " "), markdown, html]) {
    ok(t.includes("a task-level bootstrap (2,000 resamples of the tasks, seed 15"), "the method");
    ok(t.includes("pass@3 and pass^3 leave out tasks with fewer than 3 attempts"), "left out");
  }
  // The comparison and the baselines, with repeats.
  match(terminal, /alpha vs beta\s+13\s+49%\s+23%\s+\+26 \(±11\)\s+6\s+1\s+0\.078/);
  ok(markdown.includes("| Best single agent (alpha) (expected) | 6.33 | 13 | 49% |"));
  ok(html.includes("49% · 6.33 of 13 expected"));
});

Deno.test("the report of repeats fits the terminal and is valid against the schema", () => {
  const lines = renderTerminal(report, { color: true }).split("\n");
  // deno-lint-ignore no-control-regex -- ANSI escapes start with ESC.
  const wide = lines.filter((l) => [...l.replace(/\x1b\[[0-9;]*m/g, "")].length > TERMINAL_WIDTH);
  deepEqual(wide, []);
  const parsed = JSON.parse(renderJson(report));
  reportSchema.parse(parsed);
  const schema = JSON.parse(Deno.readTextFileSync(SCHEMA_PATH));
  deepEqual(validate(schema, parsed), []);
});

Deno.test("the cutoff splits an agent's figures, and a group under ten tasks is too small", () => {
  const cutoff = agent("alpha").cutoff!;
  // t9 was fixed at 23:30 on the cutoff's last day, t10 at 01:00 on April 1st in UTC+2 (still
  // March in UTC): both count as before. t11, at 00:30 UTC on April 1st, is after.
  deepEqual([cutoff.cutoff, cutoff.boundary, cutoff.undated], [
    "2025-03",
    "2025-04-01T00:00:00.000Z",
    0,
  ]);
  const { before, after } = cutoff;
  deepEqual([before.tasks, before.scoredAttempts, before.outcomes.resolved, before.tooSmall], [
    10,
    29,
    15,
    false,
  ]);
  close(before.resolveRate.rate, 5 / 10);
  deepEqual(before.passAtK, { k: 3, rate: 7 / 9, tasks: 9 });
  deepEqual(before.passHatK, { k: 3, rate: 3 / 9, tasks: 9 });
  deepEqual([after.tasks, after.scoredAttempts, after.outcomes.resolved, after.tooSmall], [
    3,
    9,
    4,
    true,
  ]);
  close(after.resolveRate.rate, 4 / 9);
  // No cutoff, no split.
  equal(agent("beta").cutoff, null);

  const { terminal, markdown, html, json } = text(report);
  match(terminal, /alpha\s+2025-03\s+up to it\s+10\s+29\s+15\s+50% \(\d+–\d+%\)\s+78%\s+33%/);
  match(terminal, /alpha\s+2025-03\s+after it\s+3\s+9\s+4\s+too few\s+—\s+—/);
  ok(markdown.includes("### Before and after each agent's training cutoff"));
  ok(
    markdown.includes(
      "| alpha | 2025-03 | after it | 3 | 9 | 4 | too few tasks to conclude | — | — |",
    ),
  );
  ok(html.includes("3 tasks: too few to conclude anything"), "the chart says so");
  ok(html.includes(`<svg id="chart-cutoff"`));
  for (const t of [terminal.replace(/\s+/g, " "), markdown, html]) {
    ok(
      t.includes(
        "With 3 tasks fixed after the cutoff the sample is too small to conclude anything",
      ),
      "the sentence",
    );
    // The too-small side's rate is never printed alone: its counts only.
    ok(t.includes("and 4 of 9 attempts at the 3 tasks fixed after it."));
  }
  for (const t of [terminal, markdown]) {
    ok(!/after it[^\n]*44%/.test(t), "no bare rate for the after side");
  }
  equal(JSON.parse(json).agents[0].cutoff.after.tooSmall, true);
});

Deno.test("with one attempt per task the cutoff splits counts with Wilson intervals", () => {
  const input = fixtureInput();
  input.agents[0].cutoff = "2025-01-31";
  const codex = buildReport(input).agents[0];
  // issue-11 (January 15th) is before, issues 12 and 13 after; both sides too small.
  const { before, after } = codex.cutoff!;
  deepEqual([before.tasks, before.outcomes.resolved, before.tooSmall], [1, 1, true]);
  deepEqual([after.tasks, after.outcomes.resolved, after.tooSmall], [2, 1, true]);
  deepEqual([before.resolveRate.method, before.passAtK], ["wilson", null]);
  deepEqual([after.resolveRate.k, after.resolveRate.n], [1, 2]);
  equal(buildReport(input).agents[1].cutoff, null);

  // Ten tasks and more: a rate with its interval, in every format.
  const many = fixtureInput();
  const tasks = many.tasks.tasks.slice(0, 3);
  many.tasks.tasks = Array.from({ length: 12 }, (_, i) => ({
    ...tasks[i % 3],
    id: `issue-${11 + (i % 3)}-${i}`,
    date: i < 10 ? "2025-01-15T10:00:00Z" : "2025-09-01T10:00:00Z",
  }));
  const copy = <T extends { task: string }>(items: readonly T[]) =>
    many.tasks.tasks.flatMap((t) =>
      items.filter((x) => x.task === t.id.replace(/-\d+$/, "")).map((x) => ({ ...x, task: t.id }))
    );
  many.attempts = copy(many.attempts);
  many.resolutions = Object.fromEntries(
    copy(Object.values(many.resolutions)).map((r) => [r.task, r]),
  );
  many.agents[0].cutoff = "2025-06";
  const built = buildReport(many);
  const split = built.agents[0].cutoff!;
  // Ten before: issue-11 ×4, issue-12 ×3, issue-13 ×3, codex resolved 11 and 13: 7 of 10.
  deepEqual([split.before.tasks, split.before.outcomes.resolved, split.before.tooSmall], [
    10,
    7,
    false,
  ]);
  deepEqual([split.before.resolveRate.k, split.before.resolveRate.n], [7, 10]);
  close(split.before.resolveRate.low, 0.3968, 4);
  equal(split.after.tooSmall, true);
  const { terminal, markdown } = text(built);
  match(terminal, /codex\s+2025-06\s+up to it\s+10\s+7\s+70%\s+40–89%/);
  ok(markdown.includes("| codex | 2025-06 | up to it | 10 | 7 | 70% (40–89%) |"));
  ok(markdown.includes("| codex | 2025-06 | after it | 2 | 1 | too few tasks to conclude |"));
});
