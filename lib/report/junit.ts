/**
 * JUnit XML of every contestant's hidden-test results, one file per agent
 * (`.bugbout/junit/<agent>.xml`), in the Ant/Jenkins shape CI test reporters read: a `testsuite`
 * per attempt (its task, and with repeats which attempt), a `testcase` per hidden test — the
 * fix's fail-to-pass tests, then its pass-to-pass tests — with a `failure` for each one the patch
 * does not pass (its first line as the message, its traceback as the text, where scoring kept
 * them), and the attempt's status and outcome as properties. A task that is not scored has its
 * tests `skipped`, with the reason.
 *
 * Everything in it comes from the agents' or the project's text: escaped, and characters XML 1.0
 * cannot hold are dropped.
 *
 * Pure functions; no permissions needed.
 *
 * @module
 */

import type { ReportInput } from "./_context.ts";
import { type Attempt, nameOf } from "../records.ts";

/** What the JUnit files are made from: the stage files a report reads. */
export type JunitInput = Pick<
  ReportInput,
  "tasks" | "oracles" | "attempts" | "resolutions" | "agents"
>;

// XML 1.0 allows tab, newline, carriage return and everything from U+0020 but the surrogates
// and U+FFFE/U+FFFF; a lone surrogate is dropped too.
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Text made safe for an XML attribute or element. */
export function xmlText(text: string): string {
  return text.replace(NOT_XML, "").replace(/&/g, "&amp;").replace(/</g, "&lt;")
    .replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&apos;");
}

function attrs(values: Record<string, string | number | undefined>): string {
  return Object.entries(values).filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${xmlText(String(v))}"`).join("");
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

/** One attempt's suite. */
function suite(
  input: JunitInput,
  attempt: Attempt,
): { xml: string; tests: number; failures: number; skipped: number } {
  const name = nameOf(attempt);
  const oracle = input.oracles.oracles[attempt.task];
  const resolution = input.resolutions[attempt.task];
  const score = resolution?.patches[name];
  const f2p = oracle?.failToPass ?? [];
  const p2p = oracle?.passToPass ?? [];
  const scored = resolution?.scored === true && score !== undefined;
  const why = !oracle
    ? "no ground truth yet"
    : !resolution
    ? "not scored yet"
    : !resolution.scored
    ? `not scored: ${resolution.reason ?? oracle.reason ?? "a sanity gate failed"}`
    : "this attempt was not scored";
  const failing = new Set([
    ...(score?.failToPass.failing ?? []),
    ...(score?.passToPass.failing ?? []),
  ]);
  let failures = 0;
  const cases = [...f2p.map((id) => [id, "fail-to-pass"]), ...p2p.map((id) => [id, "pass-to-pass"])]
    .map(([id, kind]) => {
      const head = `<testcase${attrs({ classname: `${attempt.task}.${kind}`, name: id })}`;
      if (!scored) return `${head}><skipped${attrs({ message: why })}/></testcase>`;
      if (!failing.has(id)) return `${head}/>`;
      failures++;
      const failure = score.failures?.[id];
      const message = failure?.message ??
        (score.outcome === "no-fix" || score.outcome === "tampered"
          ? `${score.outcome}${score.message ? `: ${score.message}` : ""}`
          : `${kind} test not passing`);
      return `${head}><failure${attrs({ type: kind, message })}>${
        xmlText(failure?.traceback ?? failure?.message ?? message)
      }</failure></testcase>`;
    });
  const properties = {
    agent: attempt.agent,
    attempt: name,
    status: attempt.status,
    outcome: score?.outcome ?? "not scored",
    ...(score?.message ? { message: score.message } : {}),
  };
  const props = `<properties>${
    Object.entries(properties).map(([k, v]) => `<property${attrs({ name: k, value: v })}/>`).join(
      "",
    )
  }</properties>`;
  const tests = f2p.length + p2p.length;
  const skipped = scored ? 0 : tests;
  const label = attempt.repeat ? `${attempt.task} (attempt ${attempt.repeat})` : attempt.task;
  const xml = `  <testsuite${
    attrs({
      name: label,
      tests,
      failures,
      errors: 0,
      skipped,
      time: seconds(attempt.durationMs),
      timestamp: attempt.startedAt.replace(/\.\d+Z$/, "").replace(/Z$/, ""),
      package: attempt.task,
    })
  }>\n    ${props}\n${cases.map((c) => `    ${c}\n`).join("")}  </testsuite>\n`;
  return { xml, tests, failures, skipped };
}

/** Every contestant's JUnit XML, by agent name, contestants in configuration order. */
export function junitFiles(input: JunitInput): Map<string, string> {
  const out = new Map<string, string>();
  const order = new Map(input.tasks.tasks.map((t, i) => [t.id, i]));
  for (const agent of input.agents.filter((a) => a.role === "contestant")) {
    const attempts = input.attempts.filter((a) => a.agent === agent.name && a.role === "contestant")
      .sort((a, b) =>
        (order.get(a.task) ?? 0) - (order.get(b.task) ?? 0) || (a.repeat ?? 1) - (b.repeat ?? 1)
      );
    const suites = attempts.map((a) => suite(input, a));
    const sum = (k: "tests" | "failures") => suites.reduce((n, s) => n + s[k], 0);
    const time = seconds(attempts.reduce((n, a) => n + a.durationMs, 0));
    out.set(
      agent.name,
      `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites${
        attrs({
          name: `bugbout: ${agent.name}`,
          tests: sum("tests"),
          failures: sum("failures"),
          errors: 0,
          time,
        })
      }>\n${suites.map((s) => s.xml).join("")}</testsuites>\n`,
    );
  }
  return out;
}
