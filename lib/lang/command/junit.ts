/**
 * JUnit XML as test tools write it (GoogleTest, Surefire, pytest, mocha-junit-reporter, cargo
 * nextest, ...): every `<testcase>` with its `classname`, `name` and, where the tool gives one,
 * `file` (on the test case or on an enclosing `<testsuite>`), and what became of it.
 *
 * A small reader of the few elements that matter, not a general XML parser: elements other than
 * `testsuite`, `testcase`, `failure`, `error` and `skipped` are passed over.
 *
 * Pure; no permissions.
 *
 * @module
 */

import type { Outcome } from "../../records.ts";

/** One test case of a report. */
export interface JUnitCase {
  /** `classname` (GoogleTest: the suite; Surefire: the class), "" when absent. */
  classname: string;
  /** `name`. */
  name: string;
  /** `file`, from the case or its nearest suite, when the tool wrote one. */
  file?: string;
  /** What became of it. */
  outcome: Outcome;
  /** Seconds, from `time`. */
  seconds?: number;
  /** The first line of its failure or error message. */
  failure?: string;
}

const ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

/** Text with XML's character references and entities replaced. */
export function unescapeXml(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|lt|gt|amp|quot|apos);/g, (_, ref: string) => {
    if (ref.startsWith("#x")) return String.fromCodePoint(parseInt(ref.slice(2), 16));
    if (ref.startsWith("#")) return String.fromCodePoint(parseInt(ref.slice(1), 10));
    return ENTITIES[ref];
  });
}

function attributes(tag: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of tag.matchAll(/([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
    out.set(m[1], unescapeXml(m[2] ?? m[3] ?? ""));
  }
  return out;
}

/**
 * The test cases of a JUnit XML report. Throws an `Error` saying why when the text is no JUnit
 * report (no `<testsuite>` or `<testsuites>` element).
 */
export function parseJUnit(xml: string): JUnitCase[] {
  const text = xml.replace(/<!--[\s\S]*?-->/g, "").replace(/<!\[CDATA\[[\s\S]*?\]\]>/g, "");
  if (!/<testsuites?[\s>/]/.test(text)) throw new Error("no <testsuite> element");
  const cases: JUnitCase[] = [];
  const suites: (string | undefined)[] = [];
  const tags =
    /<(\/?)(testsuite|testcase|failure|error|skipped)\b((?:[^>"']|"[^"]*"|'[^']*')*?)(\/?)>/g;
  let open: JUnitCase | undefined;
  for (const m of text.matchAll(tags)) {
    const [, closing, element, rest, selfClosing] = m;
    if (element === "testsuite") {
      if (closing) suites.pop();
      else if (!selfClosing) suites.push(attributes(rest).get("file") ?? suites.at(-1));
      continue;
    }
    if (element === "testcase") {
      if (closing) {
        open = undefined;
        continue;
      }
      const a = attributes(rest);
      const file = a.get("file") ?? suites.at(-1);
      const seconds = Number(a.get("time"));
      const skipped = a.get("status") === "notrun" || a.get("result") === "skipped";
      const found: JUnitCase = {
        classname: a.get("classname") ?? "",
        name: a.get("name") ?? "",
        ...(file ? { file } : {}),
        outcome: skipped ? "skipped" : "passed",
        ...(Number.isFinite(seconds) ? { seconds } : {}),
      };
      cases.push(found);
      open = selfClosing ? undefined : found;
      continue;
    }
    if (!open || closing) continue;
    const outcome: Outcome = element === "skipped"
      ? "skipped"
      : element === "failure"
      ? "failed"
      : "error";
    // A failure outranks a skip; an error outranks both.
    const rank = { passed: 0, skipped: 1, failed: 2, error: 3 } as Record<string, number>;
    if (rank[outcome] > rank[open.outcome]) open.outcome = outcome;
    if (outcome !== "skipped" && open.failure === undefined) {
      const message = attributes(rest).get("message") ?? "";
      open.failure = message.split("\n")[0].trim() || element;
    }
  }
  return cases;
}
