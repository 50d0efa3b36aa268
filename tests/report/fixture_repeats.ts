/**
 * A hand-written bout with `[run] repeats = 3`, small enough to work out every figure by hand.
 *
 * Contestants `alpha` (cutoff `2025-03`) and `beta` (no cutoff), and the examiner `gamma`. Each
 * attempt is a letter: R resolved, W wrong fix, B broke tests, N no change, I infrastructure
 * error, Q quota; the judge's pick is an attempt (`alpha#2` is alpha's second).
 *
 * | task | fixed            | alpha | beta | pick              |
 * |------|------------------|-------|------|-------------------|
 * | t1   | 2025-01-05       | RRR   | RRR  | alpha#2 (R)       |
 * | t2   | 2025-01-12       | RRR   | WWW  | alpha#3 (R)       |
 * | t3   | 2025-01-19       | RWR   | NNN  | alpha (R)         |
 * | t4   | 2025-01-26       | WRR   | WRW  | beta#2 (R)        |
 * | t5   | 2025-02-02       | NRW   | RWW  | alpha#3 (W)       |
 * | t6   | 2025-02-09       | WWN   | WWW  | abstains          |
 * | t7   | 2025-02-16       | WIW   | WNW  | abstains          |
 * | t8   | 2025-02-23       | RRR   | RRR  | beta (R)          |
 * | t9   | 2025-03-31T23:30Z| WWR   | QWW  | alpha#3 (R)       |
 * | t10  | 2025-04-01T01:00+02:00 (still March in UTC) | WBW | WWR | beta#3 (R) |
 * | t11  | 2025-04-01T00:30Z| RRR   | WWW  | alpha (R)         |
 * | t12  | 2025-05-10       | WWW   | NWN  | abstains          |
 * | t13  | 2025-06-20       | RNN   | WWW  | alpha (R)         |
 *
 * So alpha's shares of resolved attempts are 1, 1, ⅔, ⅔, ⅓, 0, 0 (of 2: one infrastructure
 * error), 1, ⅓, 0 | 1, 0, ⅓ and beta's 1, 0, 0, ⅓, ⅓, 0, 0, 1, 0, ⅓ | 0, 0, 0. Tasks t1–t10 are
 * fixed up to alpha's cutoff (ten: enough), t11–t13 after it (three: too few). The merge gate
 * approves exactly the picked attempts. Two tasks have a matrix: t1 and t5.
 *
 * @module
 */

import type {
  Attempt,
  Matrix,
  Outcome,
  Resolution,
  TasksFile,
  Verdict,
} from "../../lib/records.ts";
import type { ReportAgent, ReportInput } from "../../lib/report/build.ts";

const AGENTS: ReportAgent[] = [
  {
    name: "alpha",
    type: "codex",
    model: "gpt-5.1-codex",
    vendor: "openai",
    role: "contestant",
    cutoff: "2025-03",
  },
  { name: "beta", type: "claude-code", model: "sonnet", vendor: "anthropic", role: "contestant" },
  { name: "gamma", type: "gemini-cli", vendor: "google", role: "examiner" },
];

/** Every task: id, fix date, alpha's attempts, beta's, the judge's pick. */
const TABLE: [string, string, string, string, string | null][] = [
  ["t1", "2025-01-05T10:00:00Z", "RRR", "RRR", "alpha#2"],
  ["t2", "2025-01-12T10:00:00Z", "RRR", "WWW", "alpha#3"],
  ["t3", "2025-01-19T10:00:00Z", "RWR", "NNN", "alpha"],
  ["t4", "2025-01-26T10:00:00Z", "WRR", "WRW", "beta#2"],
  ["t5", "2025-02-02T10:00:00Z", "NRW", "RWW", "alpha#3"],
  ["t6", "2025-02-09T10:00:00Z", "WWN", "WWW", null],
  ["t7", "2025-02-16T10:00:00Z", "WIW", "WNW", null],
  ["t8", "2025-02-23T10:00:00Z", "RRR", "RRR", "beta"],
  ["t9", "2025-03-31T23:30:00Z", "WWR", "QWW", "alpha#3"],
  ["t10", "2025-04-01T01:00:00+02:00", "WBW", "WWR", "beta#3"],
  ["t11", "2025-04-01T00:30:00Z", "RRR", "WWW", "alpha"],
  ["t12", "2025-05-10T10:00:00Z", "WWW", "NWN", null],
  ["t13", "2025-06-20T10:00:00Z", "RNN", "WWW", "alpha"],
];

const sha = (n: number, salt: string) => `${salt}${n.toString(16)}`.padEnd(40, "0").slice(0, 40);

const TASKS: TasksFile = {
  version: 1,
  kind: "tasks",
  inputsKey: "k-tasks",
  repository: { head: "f".repeat(40), branch: "main" },
  examined: 60,
  tasks: TABLE.map(([id, date], i) => ({
    id,
    ref: { kind: "issue", number: i + 1 },
    title: `Fix bug ${i + 1}`,
    commit: sha(i + 1, "a"),
    parent: sha(i + 1, "b"),
    date,
    sourceFiles: ["pkg/core.py"],
    testFiles: ["tests/test_core.py"],
    newTests: [`tests/test_core.py::test_bug_${i + 1}`],
    packageDir: "pkg",
    pythonPath: ".",
    statement: `Bug ${i + 1}`,
    statementSource: "issue",
  })),
  excluded: [],
  counts: {},
};

const STATUS: Record<string, Attempt["status"]> = {
  R: "patch",
  W: "patch",
  B: "patch",
  N: "no-change",
  I: "infra-error",
  Q: "quota",
};

const OUTCOME: Record<string, Resolution["patches"][string]["outcome"]> = {
  R: "resolved",
  W: "wrong-fix",
  B: "broke-tests",
  N: "no-fix",
  Q: "no-fix",
};

const nameOf = (agent: string, repeat: number) => repeat > 1 ? `${agent}#${repeat}` : agent;

function attempt(task: string, agent: string, repeat: number, letter: string): Attempt {
  const info = AGENTS.find((a) => a.name === agent)!;
  const status = STATUS[letter];
  return {
    version: 1,
    kind: "attempt",
    task,
    agent,
    role: info.role,
    type: info.type,
    ...(info.model ? { model: info.model } : {}),
    vendor: info.vendor,
    inputsKey: `k-${task}-${nameOf(agent, repeat)}`,
    status,
    startedAt: "2025-07-01T12:00:00Z",
    durationMs: status === "infra-error" ? 1000 : agent === "alpha" ? 60_000 : 120_000,
    exitCode: status === "patch" || status === "no-change" ? 0 : null,
    ...(agent === "alpha" && status !== "infra-error" ? { costUsd: 0.1 } : {}),
    logTail: "",
    sandbox: "bubblewrap",
    files: status === "patch"
      ? [{ path: "pkg/core.py", change: "modified", kind: "source", binary: false, symlink: false }]
      : [],
    ...(repeat > 1 ? { repeat } : {}),
  };
}

const ATTEMPTS: Attempt[] = TABLE.flatMap(([task, , alpha, beta]) => [
  ...[...alpha].map((letter, i) => attempt(task, "alpha", i + 1, letter)),
  ...[...beta].map((letter, i) => attempt(task, "beta", i + 1, letter)),
  // The examiner wrote tests for t1 only, three times.
  ...(task === "t1" ? [1, 2, 3].map((r) => attempt(task, "gamma", r, "R")) : []),
]);

function score(letter: string): Resolution["patches"][string] {
  const fixed = letter === "R" || letter === "B";
  return {
    outcome: OUTCOME[letter],
    failToPass: { passed: fixed ? 1 : 0, total: 1, failing: fixed ? [] : ["t::f2p"] },
    passToPass: { failing: letter === "B" ? ["t::p2p"] : [], total: 2 },
    flags: letter === "B" ? ["adds skip markers"] : [],
    ignored: [],
  };
}

/** Evidence on t1 and t5: each attempt's own tests, replayed on B, S and G. */
function evidenceOf(task: string): Resolution["evidence"] {
  const gold = (test: string) => ({
    inadequateClosure: false,
    tests: [{
      test,
      B: "failed" as Outcome,
      S: "passed" as Outcome,
      G: "passed" as Outcome,
      role: "gold-aligned" as const,
    }],
  });
  if (task === "t1") {
    return {
      alpha: gold("a1"),
      "alpha#2": gold("a2"),
      "alpha#3": gold("a3"),
      gamma: { ...gold("g1"), inadequateClosure: null },
      "gamma#2": { ...gold("g2"), inadequateClosure: null },
    };
  }
  if (task === "t5") {
    return {
      "alpha#2": gold("a5"),
      "alpha#3": {
        inadequateClosure: true,
        tests: [{ test: "a5r", B: "passed", S: "passed", G: "passed", role: "regression-only" }],
      },
    };
  }
  return {};
}

const RESOLUTIONS: Record<string, Resolution> = Object.fromEntries(
  TABLE.map(([task, , alpha, beta, pick]) => {
    const patches: Resolution["patches"] = {};
    for (const [agent, letters] of [["alpha", alpha], ["beta", beta]] as const) {
      [...letters].forEach((letter, i) => {
        if (letter !== "I") patches[nameOf(agent, i + 1)] = score(letter);
      });
    }
    return [task, {
      task,
      inputsKey: `k-resolution-${task}`,
      scored: true,
      sanity: { emptyResolves: false, goldResolves: true },
      patches,
      evidence: evidenceOf(task),
      pick: { agent: pick, outcome: pick === null ? null : patches[pick].outcome },
      runs: [],
    }];
  }),
);

const VERDICTS: Record<string, Verdict> = Object.fromEntries(
  TABLE.map(([task, , alpha, beta, pick]) => {
    const patches: Verdict["patches"] = {};
    for (const [agent, letters] of [["alpha", alpha], ["beta", beta]] as const) {
      [...letters].forEach((letter, i) => {
        const name = nameOf(agent, i + 1);
        if (STATUS[letter] !== "patch") return;
        patches[name] = {
          approved: name === pick,
          support: name === pick ? 1 : 0,
          reason: name === pick ? "approved under majority" : "not approved under majority",
          evidence: [],
        };
      });
    }
    return [task, {
      task,
      policy: "majority",
      pick,
      reason: pick === null ? "abstained: no patch is approved" : `picked ${pick}`,
      patches,
    }];
  }),
);

const LETTER: Record<string, Outcome> = { P: "passed", F: "failed", ".": "not-run" };

/** A matrix from its trees and rows of `[test, author, outcome letters per tree]`. */
function matrix(task: string, trees: string[], rows: [string, string, string][]): Matrix {
  return {
    version: 1,
    kind: "matrix",
    task,
    inputsKey: `k-matrix-${task}`,
    // As cross-examination names them: the tree is the attempt, its agent the agent.
    trees: trees.map((id) =>
      id === "B"
        ? { id, kind: "base" as const, status: "ok" as const }
        : { id, kind: "patch" as const, agent: id.replace(/#\d+$/, ""), status: "ok" as const }
    ),
    tests: rows.map(([id, author]) => ({
      id,
      author,
      authorRole: author === "repository"
        ? "repository" as const
        : author.startsWith("gamma")
        ? "examiner" as const
        : "contestant" as const,
    })),
    cells: Object.fromEntries(
      rows.map(([id, , letters]) => [
        id,
        Object.fromEntries(trees.map((tree, i) => [tree, LETTER[letters[i]]])),
      ]),
    ),
    unstableOnB: [],
    runs: [],
  };
}

const MATRICES: Matrix[] = [
  matrix("t1", ["B", "alpha", "alpha#2", "alpha#3", "beta", "beta#2", "beta#3"], [
    ["tests/_bugbout_alpha/test_t1.py::test_a", "alpha", "FPPPPPP"],
    ["tests/_bugbout_alpha_2/test_t1.py::test_a", "alpha#2", "FPPPPPP"],
    ["tests/_bugbout_beta_3/test_t1.py::test_b", "beta#3", "FPPPPPP"],
    ["tests/test_core.py::test_ok", "repository", "PPPPPPP"],
  ]),
  matrix("t5", ["B", "alpha#2", "alpha#3", "beta", "beta#2", "beta#3"], [
    ["tests/_bugbout_alpha_2/test_t5.py::test_a", "alpha#2", "FPFPFF"],
    ["tests/_bugbout_beta/test_t5.py::test_b", "beta", "FPPPFF"],
    ["tests/test_core.py::test_ok", "repository", "PPPPPP"],
  ]),
];

/** A fresh copy of the repeats fixture's report input (tests may change it). */
export function repeatsInput(overrides: Partial<ReportInput> = {}): ReportInput {
  return structuredClone({
    project: { name: "pkg", repository: "https://github.com/acme/pkg", policy: "majority" },
    tasks: TASKS,
    oracles: {
      version: 1,
      kind: "oracles",
      oracles: Object.fromEntries(TASKS.tasks.map((t) => [t.id, {
        task: t.id,
        inputsKey: `k-oracle-${t.id}`,
        status: "scorable" as const,
        failToPass: ["t::f2p"],
        passToPass: ["t::p2p", "t::p2p2"],
        unstable: [],
        runs: [],
        durations: {},
      }])),
    },
    attempts: ATTEMPTS,
    matrices: MATRICES,
    verdicts: VERDICTS,
    resolutions: RESOLUTIONS,
    agents: AGENTS,
    repeats: 3,
    generatedAt: "2025-07-02T08:30:00Z",
    ...overrides,
  });
}
