/**
 * The smallest detectable difference, checked against a computation done another way: every
 * possible pair of agents' results on a small bout enumerated, each pair's p-value computed
 * here from scratch (Pascal's triangle for the sign test, every sign flip for repeats), and the
 * smallest difference in resolve rate among the significant ones taken.
 *
 * @module
 */

import { deepEqual, equal, match, ok } from "node:assert/strict";
import { detectableText, smallestDetectable } from "../../lib/report/power.ts";
import { buildReport, renderReport, REPORT_FORMATS } from "../../lib/report/mod.ts";
import { fixtureInput } from "./fixture.ts";

/** Two-sided exact sign test from Pascal's triangle (not the report's McNemar code). */
function signTestP(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  let row = [1];
  for (let i = 0; i < n; i++) row = [1, ...row.slice(1).map((x, j) => x + row[j]), 1];
  const k = Math.min(b, c);
  const tail = row.slice(0, k + 1).reduce((s, x) => s + x, 0);
  return Math.min(1, (2 * tail) / 2 ** n);
}

/** The smallest |difference| in points over every pair of one-attempt results on `t` tasks. */
function bruteOneAttempt(t: number): number | null {
  let best: number | null = null;
  // Each task: 0 both or neither, 1 only the first, 2 only the second (both/neither alike here).
  for (let code = 0; code < 3 ** t; code++) {
    let b = 0, c = 0, x = code;
    for (let i = 0; i < t; i++, x = Math.floor(x / 3)) {
      if (x % 3 === 1) b++;
      if (x % 3 === 2) c++;
    }
    if (signTestP(b, c) <= 0.05) {
      const points = (100 * Math.abs(b - c)) / t;
      if (best === null || points < best) best = points;
    }
  }
  return best;
}

/** The same with `k` attempts per task: per-task differences of rates, every sign flip. */
function bruteRepeats(t: number, k: number): number | null {
  const steps = 2 * k + 1; // d_i in {-1, ..., 1} by 1/k
  let best: number | null = null;
  for (let code = 0; code < steps ** t; code++) {
    const d: number[] = [];
    let x = code;
    for (let i = 0; i < t; i++, x = Math.floor(x / steps)) d.push((x % steps) - k); // in 1/k
    const observed = Math.abs(d.reduce((s, v) => s + v, 0));
    if (observed === 0) continue;
    let hits = 0;
    for (let mask = 0; mask < 2 ** t; mask++) {
      let sum = 0;
      for (let i = 0; i < t; i++) sum += (mask >> i) & 1 ? -d[i] : d[i];
      if (Math.abs(sum) >= observed) hits++;
    }
    if (hits / 2 ** t <= 0.05) {
      const points = (100 * observed) / (k * t);
      if (best === null || points < best) best = points;
    }
  }
  return best;
}

Deno.test("smallestDetectable() with one attempt agrees with every possible bout of up to 10 tasks", () => {
  for (let t = 0; t <= 10; t++) {
    const d = smallestDetectable(t);
    equal(d.test, "mcnemar");
    equal(d.points, bruteOneAttempt(t), `${t} tasks`);
  }
});

Deno.test("smallestDetectable() with repeats agrees with every possible bout it can enumerate", () => {
  for (const [t, k] of [[5, 2], [6, 2], [7, 2], [6, 3]]) {
    const d = smallestDetectable(t, k);
    equal(d.test, "sign-flip");
    equal(d.points, bruteRepeats(t, k), `${t} tasks × ${k}`);
  }
});

Deno.test("with 20 tasks only 30 points would be significant; three attempts each bring it to 10", () => {
  equal(smallestDetectable(20).points, 30);
  equal(smallestDetectable(20).tasksOneWay, 6);
  equal(smallestDetectable(20, 3).points, 10);
  match(
    detectableText(smallestDetectable(20)),
    /^with 20 tasks, only a difference of ≥ 30 points between two agents would be significant/,
  );
  match(
    detectableText(smallestDetectable(20, 3)),
    /with 20 tasks × 3 attempts, only .*≥ 10 points/,
  );
  match(
    detectableText(smallestDetectable(4)),
    /no difference between two agents could be significant/,
  );
  equal(smallestDetectable(7).points !== null && Math.ceil(smallestDetectable(7).points!), 86);
});

Deno.test("every report format says how big a difference its scored tasks can show", () => {
  const report = buildReport(fixtureInput());
  deepEqual(report.power, smallestDetectable(report.power.tasks, report.repeats));
  ok(report.power.tasks > 0);
  const words = detectableText(report.power).replace(/^w/, "W");
  for (const format of REPORT_FORMATS) {
    const text = renderReport(report, format).replace(/\s+/g, " ");
    if (format === "json") {
      equal(JSON.parse(text).power.points, report.power.points);
    } else {
      ok(text.includes(words), `${format}: ${words}`);
    }
  }
});
