/**
 * A generated bout the size of a real project's, for tests of the report at scale: by default
 * 100 tasks, 8 contestants and an examiner, each matrix with the repository's suite of hundreds
 * of tests (almost all with one outcome on every tree, a few broken by some patch, now and then
 * one unstable on the unfixed tree) and each agent's own tests. Deterministic: the same options
 * give the same input. Every file is valid against its stage schema (`generated_test.ts`).
 *
 * @module
 */

import type {
  Attempt,
  Matrix,
  Oracle,
  Outcome,
  Resolution,
  TasksFile,
  Verdict,
} from "../../lib/records.ts";
import type { ReportAgent, ReportInput } from "../../lib/report/build.ts";

/** How big a bout to generate. */
export interface GeneratedOptions {
  /** Tasks mined (default 100). */
  tasks?: number;
  /** Contestants (default 8, at most 8); one examiner joins them. */
  contestants?: number;
  /** Fewest and most repository tests per matrix (default 250 to 750). */
  suite?: [min: number, max: number];
  /** Seed of the generator (default 14). */
  seed?: number;
}

/** Realistic agent names, some long. */
const CONTESTANTS: ReportAgent[] = [
  ["codex-gpt-5.1", "codex", "gpt-5.1-codex", "openai"],
  ["claude-code-sonnet-4.5", "claude-code", "claude-sonnet-4-5", "anthropic"],
  ["gemini-cli-2.5-pro", "gemini-cli", "gemini-2.5-pro", "google"],
  ["mini-swe-agent-qwen3-coder-480b", "mini-swe-agent", "qwen3-coder-480b", "alibaba"],
  ["opencode-deepseek-v3.1", "opencode", "deepseek-v3.1", "deepseek"],
  ["qwen-code", "qwen-code", "qwen3-coder-plus", "alibaba"],
  ["copilot-gpt-4.1", "copilot", "gpt-4.1", "openai"],
  ["aider-local-llama", "command", undefined, "unknown"],
].map(([name, type, model, vendor]) => ({
  name: name!,
  type: type!,
  ...(model ? { model } : {}),
  vendor: vendor!,
  role: "contestant" as const,
}));

const EXAMINER: ReportAgent = {
  name: "gemini-examiner",
  type: "gemini-cli",
  model: "gemini-2.5-pro",
  vendor: "google",
  role: "examiner",
};

/** A small seeded generator (mulberry32): the same seed, the same bout. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    chance: (p: number) => next() < p,
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)],
  };
}

const MODULES = ["parser", "lexer", "formatting", "itertools_more", "recipes", "cli", "io_utils"];
const WORDS = ["empty", "unicode", "nested", "large", "negative", "window", "chunked", "strict"];
const sha = (n: number) => n.toString(16).padStart(40, "0");

/** A bout of the given size, as the report builder reads it. */
export function generatedInput(options: GeneratedOptions = {}): ReportInput {
  const r = random(options.seed ?? 14);
  const taskCount = options.tasks ?? 100;
  const contestants = CONTESTANTS.slice(0, options.contestants ?? 8);
  const agents = [...contestants, EXAMINER];
  const [suiteMin, suiteMax] = options.suite ?? [250, 750];

  const tasks: TasksFile["tasks"] = [];
  const oracles: Record<string, Oracle> = {};
  const attempts: Attempt[] = [];
  const matrices: Matrix[] = [];
  const verdicts: Record<string, Verdict> = {};
  const resolutions: Record<string, Resolution> = {};

  for (let n = 1; n <= taskCount; n++) {
    const id = `issue-${1000 + n}`;
    const module = r.pick(MODULES);
    const word = r.pick(WORDS);
    tasks.push({
      id,
      ref: {
        kind: "issue",
        number: 1000 + n,
        url: `https://github.com/acme/toolbox/issues/${1000 + n}`,
      },
      title: `${module}: handle ${word} input without raising (regression from #${900 + n})`,
      commit: sha(2 * n + 1),
      parent: sha(2 * n),
      date: "2025-03-01T10:00:00Z",
      sourceFiles: [`toolbox/${module}.py`],
      testFiles: [`tests/test_${module}.py`],
      newTests: [`tests/test_${module}.py::test_${word}_${n}`],
      packageDir: "toolbox",
      pythonPath: ".",
      statement: `The ${module} module raises on ${word} input.`,
      statementSource: "issue",
    });
    const scorable = r.chance(0.9);
    oracles[id] = {
      task: id,
      inputsKey: `k-oracle-${id}`,
      status: scorable ? "scorable" : "unscorable",
      ...(scorable ? {} : { reason: "no fail-to-pass test: every new test passes on B" }),
      failToPass: scorable ? [`tests/test_${module}.py::test_${word}_${n}`] : [],
      passToPass: Array.from({ length: 40 }, (_, i) => `tests/test_${module}.py::test_case_${i}`),
      unstable: [],
      runs: [],
      durations: {},
    };

    // Each agent's attempt: mostly a patch, now and then a timeout or no change.
    const fixes = new Map<string, boolean>();
    const patched: string[] = [];
    for (const agent of agents) {
      const roll = r.next();
      const status: Attempt["status"] = agent.role === "examiner"
        ? "patch"
        : roll < 0.82
        ? "patch"
        : roll < 0.9
        ? "no-change"
        : roll < 0.96
        ? "timeout"
        : "crashed";
      attempts.push({
        version: 1,
        kind: "attempt",
        task: id,
        agent: agent.name,
        role: agent.role,
        type: agent.type,
        ...(agent.model ? { model: agent.model } : {}),
        vendor: agent.vendor,
        inputsKey: `k-${id}-${agent.name}`,
        status,
        startedAt: "2025-06-01T12:00:00Z",
        durationMs: r.int(20, 1800) * 1000,
        exitCode: status === "patch" || status === "no-change" ? 0 : null,
        tokens: { total: r.int(10_000, 400_000) },
        costUsd: r.int(5, 300) / 100,
        logTail: "",
        sandbox: "bubblewrap",
        files: [],
      });
      if (agent.role === "contestant" && status === "patch") {
        patched.push(agent.name);
        fixes.set(agent.name, r.chance(0.6));
      }
    }

    const trees: Matrix["trees"] = [
      { id: "B", kind: "base", status: "ok" },
      { id: "B#2", kind: "base", status: "ok" },
      { id: "B#3", kind: "base", status: "ok" },
      ...patched.map((a) => ({ id: a, kind: "patch" as const, agent: a, status: "ok" as const })),
    ];
    const tests: Matrix["tests"] = [];
    const cells: Matrix["cells"] = {};
    const unstableOnB: string[] = [];
    const row = (test: string, outcome: (tree: string) => Outcome) =>
      cells[test] = Object.fromEntries(trees.map((t) => [t.id, outcome(t.id)]));
    const isBase = (tree: string) => tree.startsWith("B");

    // Agents' tests: fail on B, pass on the patches that fix the bug (and on their own).
    for (const agent of agents) {
      for (let k = 0; k < r.int(1, 3); k++) {
        const test = `bugbout_tests/${agent.name}/test_issue_${1000 + n}.py::` +
          `test_${module}_${word}_input_${k}`;
        tests.push({ id: test, author: agent.name, authorRole: agent.role });
        const weak = r.chance(0.15); // passes everywhere: proves nothing
        row(
          test,
          (tree) =>
            weak
              ? "passed"
              : isBase(tree)
              ? "failed"
              : fixes.get(tree) || tree === agent.name
              ? "passed"
              : "failed",
        );
      }
    }
    // The repository's suite: almost all the same everywhere.
    const suite = r.int(suiteMin, suiteMax);
    const broken = new Map<number, string>();
    for (let k = 0; k < r.int(0, 4) && patched.length > 0; k++) {
      broken.set(r.int(0, suite - 1), r.pick(patched));
    }
    const unstable = r.chance(0.2) ? r.int(0, suite - 1) : -1;
    for (let k = 0; k < suite; k++) {
      const test = `tests/test_${MODULES[k % MODULES.length]}.py::test_${
        WORDS[k % WORDS.length]
      }_behaviour[case-${k}]`;
      tests.push({ id: test, author: "repository", authorRole: "repository" });
      if (k === unstable) unstableOnB.push(test);
      row(
        test,
        (tree) =>
          broken.get(k) === tree
            ? "failed"
            : k === unstable && tree === "B#2"
            ? "failed"
            : k % 97 === 5
            ? "skipped"
            : "passed",
      );
    }
    matrices.push({
      version: 1,
      kind: "matrix",
      task: id,
      inputsKey: `k-matrix-${id}`,
      trees,
      tests,
      cells,
      unstableOnB,
      runs: [],
    });

    const right = patched.filter((a) => fixes.get(a));
    const pick = right.length > 0 && r.chance(0.8) ? r.pick(right) : null;
    verdicts[id] = {
      task: id,
      policy: "majority",
      pick,
      reason: pick
        ? `picked ${pick}: support 1.00 from 3 independent authors`
        : "abstained: none of the patches is approved (no pick without enough independent support)",
      patches: Object.fromEntries(patched.map((a) => [a, {
        approved: fixes.get(a)!,
        support: fixes.get(a) ? 1 : 0,
        reason: fixes.get(a) ? "approved under majority" : "not approved under majority",
        evidence: [],
      }])),
    };
    const outcome = (a: string) =>
      fixes.get(a) ? (r.chance(0.1) ? "broke-tests" as const : "resolved" as const) : "wrong-fix";
    resolutions[id] = {
      task: id,
      inputsKey: `k-resolution-${id}`,
      scored: scorable,
      ...(scorable ? {} : { reason: "unscorable: no fail-to-pass test" }),
      sanity: { emptyResolves: false, goldResolves: true },
      patches: scorable
        ? Object.fromEntries(patched.map((a) => {
          const o = outcome(a);
          return [a, {
            outcome: o,
            failToPass: { passed: o === "wrong-fix" ? 0 : 1, total: 1, failing: [] },
            passToPass: { failing: [], total: 40 },
            flags: [],
            ignored: [],
          }];
        }))
        : {},
      evidence: scorable
        ? Object.fromEntries(agents.map((a) => [a.name, {
          inadequateClosure: a.role === "examiner" ? null : r.chance(0.3),
          tests: [{
            test: `t-${a.name}`,
            B: "failed",
            S: "passed",
            G: "passed",
            role: "gold-aligned",
          }],
        }]))
        : {},
      pick: {
        agent: scorable ? pick : null,
        outcome: scorable && pick ? outcome(pick) : null,
      },
      runs: [],
    };
  }

  return {
    project: { name: "toolbox", repository: "https://github.com/acme/toolbox", policy: "majority" },
    tasks: {
      version: 1,
      kind: "tasks",
      inputsKey: "k-tasks",
      repository: { head: sha(0), branch: "main" },
      examined: taskCount * 12,
      tasks,
      excluded: [],
      counts: { "not a fix": taskCount * 9, "no new test function": taskCount * 2 },
    },
    oracles: { version: 1, kind: "oracles", oracles },
    attempts,
    matrices,
    verdicts,
    resolutions,
    agents,
    generatedAt: "2025-06-02T08:30:00Z",
  };
}
