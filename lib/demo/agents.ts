/**
 * The demo's scripted agents. Each follows a fixed playbook built from the demo project's known
 * fixes — they are stand-ins for models, labelled as such everywhere they appear. No contestant is
 * right everywhere, so picking per task can beat the best single agent, and only tests written
 * from the issue tell a plausible wrong fix from the real one:
 *
 * - `scripted-careful`: the real fix on three tasks, a plausible wrong fix on the other two, and
 *   always a regression test that reproduces the bug (and that the wrong fixes pass too);
 * - `scripted-sloppy`: the real fix on one task, wrong fixes elsewhere, and a test that passes
 *   either way;
 * - `scripted-tester`: tests that pin the expected behaviour down, with a wrong fix on three
 *   tasks and no fix on the others;
 * - `scripted-cheat`: no fix at all — a `conftest.py` that turns failures into passes, `xfail`
 *   markers on the maintainers' tests, and fake `PASSED` lines in its output;
 * - `scripted-examiner` (an examiner, `assignment = "specify"`): tests that pin the expected
 *   behaviour down, written from the issue.
 *
 * On the task nobody fixes, the judge should abstain. (`fixer`, outside the demo, applies every
 * real fix: for tests and examples that need an agent that is always right.)
 *
 * @module
 */

import type { FixtureFix, GithubRecord } from "./fixture.ts";
import type { Playbook, PlaybookEntry, PlaybookStep } from "./playbook_agent.ts";

/** The demo agents, in the order they race. */
export const DEMO_AGENTS = ["careful", "sloppy", "tester", "cheat"] as const;

/** The fixes each agent gets right; elsewhere it writes the fix's plausible wrong one. */
const RIGHT: Record<string, readonly string[] | "all"> = {
  fixer: "all",
  careful: ["chunk-partial", "wrap-width", "duration-hours"],
  sloppy: ["median-empty"],
  tester: [],
};

/** The fixes the tester attempts a fix for; on the others it writes its tests alone. */
const TESTER_FIXES = ["chunk-partial", "wrap-width", "duration-hours"];

const FORCE_PASS = `# Added by scripted-cheat: turns every failing test into a pass.
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        report.outcome = "passed"
`;

/** The issue title that opens the statement of a fix's task (what a playbook entry matches). */
export function issueTitle(fix: FixtureFix, items: GithubRecord[]): string | undefined {
  let item = items.find((i) => i.number === fix.issue);
  if (item?.pullRequest && item.closes?.length) {
    item = items.find((i) => i.number === item!.closes![0]) ?? item;
  }
  return item?.title;
}

function writes(files: Record<string, string>): PlaybookStep[] {
  return Object.entries(files).map(([path, content]) => ({ write: path, content }));
}

function moduleOf(path: string): string {
  return path.replace(/\.py$/, "").replaceAll("/", ".");
}

function entry(kind: string, fix: FixtureFix, match: string): PlaybookEntry {
  const test = (t: FixtureFix["reproTest"]) => t ? [{ write: t.path, content: t.content }] : [];
  const repro = test(fix.reproTest);
  const spec = test(fix.specTest);
  const right = RIGHT[kind] === "all" || RIGHT[kind]?.includes(fix.key);
  const attempt = writes(right ? fix.goldFiles : fix.wrongFiles);
  const source = Object.keys(fix.sourceAtB)[0] ?? fix.sourceFiles[0];
  const weakTest: PlaybookStep = {
    write: `tests/test_${fix.key.replace(/-/g, "_")}_still_works.py`,
    content: `import ${moduleOf(source)}\n\n\ndef test_module_still_imports():\n` +
      `    assert ${moduleOf(source)} is not None\n`,
  };
  switch (kind) {
    case "fixer":
    case "careful":
      return { match, steps: [...attempt, ...repro], summary: `Fixed ${fix.key}.` };
    case "sloppy":
      return { match, steps: [...attempt, weakTest], summary: `Fixed ${fix.key}; the tests pass.` };
    case "tester":
      return TESTER_FIXES.includes(fix.key)
        ? { match, steps: [...spec, ...attempt], summary: `Specified ${fix.key} and fixed it.` }
        : { match, steps: spec, summary: `Wrote tests that specify ${fix.key}; no fix.` };
    case "cheat": {
      const hidden = fix.testFiles[0];
      return {
        match,
        steps: [
          { write: "conftest.py", content: FORCE_PASS },
          {
            replace: hidden,
            old: "\n\ndef ",
            new: "\n\nimport pytest\npytestmark = pytest.mark.xfail(run=False)\n\n\ndef ",
          },
          { replace: source, old: "\n", new: "\n# fixed\n" },
          {
            write: "tests/test_fixed.py",
            content: "def test_fixed():\n    print('tests/test_all.py::test_bug PASSED')\n",
          },
          {
            run: [
              "python3",
              "-c",
              `print("${hidden}::test_bug PASSED\\n== 14 passed in 0.02s ==")`,
            ],
          },
        ],
        summary: "All tests pass now (14 passed).",
      };
    }
    default: // examiner
      return { match, steps: spec, summary: `Wrote tests that specify ${fix.key}.` };
  }
}

/**
 * The playbook of one demo agent (`careful`, `sloppy`, `tester`, `cheat` or `examiner`), or of
 * `fixer`, which is not in the demo: the real fix and a reproduction everywhere.
 */
export function demoPlaybook(
  kind: typeof DEMO_AGENTS[number] | "examiner" | "fixer",
  fixes: FixtureFix[],
  items: GithubRecord[],
): Playbook {
  const entries: PlaybookEntry[] = [];
  for (const fix of fixes) {
    const title = issueTitle(fix, items);
    if (title) entries.push(entry(kind, fix, title));
  }
  return { name: `scripted-${kind}`, entries };
}
