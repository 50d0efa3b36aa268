/**
 * A hand-written bout small enough to check every number of its report by hand.
 *
 * Agents: contestants `codex`, `claude` and `cheater` (writes tests that pass on the unfixed code,
 * edits conftest.py, adds skip markers), and the examiner `gemini`. Policy `majority`.
 *
 * | task | scored | codex | claude | cheater | judge |
 * |---|---|---|---|---|---|
 * | issue-11 | yes | resolved | broke-tests | wrong-fix | codex (resolved) |
 * | issue-12 | yes | wrong-fix | resolved | quota, no patch | codex (wrong) |
 * | issue-13 | yes | resolved | resolved | wrong-fix | abstains |
 * | issue-14 | unscorable | patch | timeout | patch | codex |
 * | issue-15 | sanity gate: the empty patch resolves | patch | crashed | patch | abstains |
 *
 * Issue 13's title and one of cheater's test ids are hostile HTML. The examiner's attempt at
 * issue 15, one oracle run of issue 14 and cheater's tree in issue 15's matrix are
 * infrastructure errors. Every file is validated against its stage schema by the tests.
 *
 * @module
 */

import type {
  Attempt,
  Matrix,
  Oracle,
  OraclesFile,
  Outcome,
  Resolution,
  RunSummary,
  TasksFile,
  Verdict,
} from "../../lib/records.ts";
import type { ReportAgent, ReportInput } from "../../lib/report/build.ts";

/** The hostile title of issue-13. */
export const HOSTILE_TITLE =
  "parse_date drops the tz offset <script>window.__pwned = 1</script> & more";
/** cheater's hostile test id in issue-11's matrix. */
export const HOSTILE_TEST =
  `bugbout_tests/cheater/test_ok.py::test_ok[<img src=x onerror="window.__pwned = 2">]`;

const AGENTS: ReportAgent[] = [
  { name: "codex", type: "codex", model: "gpt-5.1-codex", vendor: "openai", role: "contestant" },
  {
    name: "claude",
    type: "claude-code",
    model: "claude-sonnet-4-5",
    vendor: "anthropic",
    role: "contestant",
  },
  { name: "cheater", type: "command", vendor: "local", role: "contestant" },
  {
    name: "gemini",
    type: "gemini-cli",
    model: "gemini-2.5-pro",
    vendor: "google",
    role: "examiner",
  },
];

const sha = (digit: string) => digit.repeat(40);

function task(n: number, title: string, commit: string, parent: string) {
  return {
    id: `issue-${n}`,
    ref: { kind: "issue" as const, number: n, url: `https://github.com/acme/headers/issues/${n}` },
    title,
    commit: sha(commit),
    parent: sha(parent),
    date: `2025-0${n - 10}-15T10:00:00Z`,
    sourceFiles: ["headers/core.py"],
    testFiles: ["tests/test_core.py"],
    newTests: [`tests/test_core.py::test_issue_${n}`],
    packageDir: "headers",
    pythonPath: ".",
    statement: `Issue ${n}: ${title}`,
    statementSource: "issue" as const,
  };
}

const TASKS: TasksFile = {
  version: 1,
  kind: "tasks",
  inputsKey: "k-tasks",
  repository: { head: sha("f"), branch: "main" },
  examined: 240,
  tasks: [
    task(11, "Fix crash when parsing an empty header", "1", "0"),
    task(12, "Fix off-by-one on the last page of paginate()", "3", "2"),
    task(13, HOSTILE_TITLE, "5", "4"),
    task(14, "Fix UnicodeDecodeError in slugify", "7", "6"),
    task(15, "Fix regression in the --verbose flag", "9", "8"),
  ],
  excluded: [
    { commit: sha("a"), title: "Bump version to 2.1", reason: "not a fix" },
    { commit: sha("b"), title: "Fix typo in README", reason: "no new test function" },
    { commit: sha("c"), title: "Fix parser and lexer", reason: "too many source files" },
    { commit: sha("d"), title: "Fix flaky CI", reason: "no issue reference" },
  ],
  counts: {
    "not a fix": 180,
    "no new test function": 38,
    "too many source files": 12,
    "no issue reference": 5,
  },
  statementNote: "Issue texts were read anonymously from the GitHub API.",
};

function run(tree: string, index: number, status: RunSummary["status"] = "ok"): RunSummary {
  return {
    tree,
    index,
    status,
    exitCode: status === "ok" ? 1 : null,
    durationMs: 4200,
    counts: status === "ok" ? { passed: 12, failed: 2 } : {},
    ...(status === "ok" ? {} : { message: "uv sync failed: could not build a wheel for lxml" }),
  };
}

function oracle(id: string, f2p: number, p2p: number, extra: Partial<Oracle> = {}): Oracle {
  return {
    task: id,
    inputsKey: `k-oracle-${id}`,
    status: "scorable",
    failToPass: Array.from({ length: f2p }, (_, i) => `tests/test_core.py::test_f2p_${i}`),
    passToPass: Array.from({ length: p2p }, (_, i) => `tests/test_core.py::test_p2p_${i}`),
    unstable: [],
    runs: [run("B", 0), run("G", 0), run("G", 1)],
    durations: {},
    ...extra,
  };
}

const ORACLES: OraclesFile = {
  version: 1,
  kind: "oracles",
  oracles: {
    "issue-11": oracle("issue-11", 2, 3, { unstable: ["tests/test_core.py::test_unicode_header"] }),
    "issue-12": oracle("issue-12", 1, 4),
    "issue-13": oracle("issue-13", 2, 5),
    "issue-14": oracle("issue-14", 0, 6, {
      status: "unscorable",
      reason: "no fail-to-pass test: the fix's tests cannot be collected on Python 3.11",
      runs: [run("B", 0), run("G", 0), run("G", 1, "infra-error")],
    }),
    "issue-15": oracle("issue-15", 1, 2),
  },
};

function attempt(
  taskId: string,
  agent: string,
  status: Attempt["status"],
  seconds: number,
  extra: Partial<Attempt> = {},
): Attempt {
  const info = AGENTS.find((a) => a.name === agent)!;
  return {
    version: 1,
    kind: "attempt",
    task: taskId,
    agent,
    role: info.role,
    type: info.type,
    ...(info.model ? { model: info.model } : {}),
    vendor: info.vendor,
    inputsKey: `k-${taskId}-${agent}`,
    status,
    startedAt: "2025-06-01T12:00:00Z",
    durationMs: seconds * 1000,
    exitCode: status === "patch" || status === "no-change" ? 0 : null,
    logTail: "",
    sandbox: "none",
    files: status === "patch"
      ? [{
        path: "headers/core.py",
        change: "modified",
        kind: "source",
        binary: false,
        symlink: false,
      }]
      : [],
    ...extra,
  };
}

const tokens = (total: number) => ({ tokens: { total } });

const ATTEMPTS: Attempt[] = [
  attempt("issue-11", "codex", "patch", 120, { ...tokens(50_000), costUsd: 0.4 }),
  attempt("issue-12", "codex", "patch", 300, { ...tokens(120_000), costUsd: 1.1 }),
  // No total: input + output stands for it.
  attempt("issue-13", "codex", "patch", 90, {
    tokens: { input: 35_000, output: 5_000 },
    costUsd: 0.3,
  }),
  attempt("issue-14", "codex", "patch", 60, { ...tokens(30_000), costUsd: 0.25 }),
  attempt("issue-15", "codex", "patch", 180, { ...tokens(70_000), costUsd: 0.6 }),
  attempt("issue-11", "claude", "patch", 200, { ...tokens(80_000), costUsd: 0.9 }),
  attempt("issue-12", "claude", "patch", 150, { ...tokens(60_000), costUsd: 0.7 }),
  attempt("issue-13", "claude", "patch", 100, { ...tokens(45_000), costUsd: 0.55 }),
  attempt("issue-14", "claude", "timeout", 1800),
  attempt("issue-15", "claude", "crashed", 5, { error: "claude exited with code 1" }),
  attempt("issue-11", "cheater", "patch", 10),
  attempt("issue-12", "cheater", "quota", 2, { error: "quota exhausted until 18:00" }),
  attempt("issue-13", "cheater", "patch", 15),
  attempt("issue-14", "cheater", "patch", 12),
  attempt("issue-15", "cheater", "patch", 8),
  attempt("issue-11", "gemini", "patch", 40),
  attempt("issue-12", "gemini", "patch", 50),
  attempt("issue-13", "gemini", "patch", 30),
  attempt("issue-14", "gemini", "patch", 20),
  attempt("issue-15", "gemini", "infra-error", 1, {
    error: "sandbox failed to start: bwrap: setting up uid map: Permission denied",
  }),
];

const LETTER: Record<string, Outcome> = {
  P: "passed",
  F: "failed",
  E: "error",
  S: "skipped",
  X: "xfailed",
  ".": "not-run",
};

/** A matrix from rows of `[test, author, outcome letters per tree]`. */
function matrix(
  taskId: string,
  trees: string[],
  rows: [string, string, string][],
  extra: { unstableOnB?: string[]; broken?: Record<string, string> } = {},
): Matrix {
  const role = (author: string) =>
    author === "repository" ? "repository" : AGENTS.find((a) => a.name === author)!.role;
  return {
    version: 1,
    kind: "matrix",
    task: taskId,
    inputsKey: `k-matrix-${taskId}`,
    trees: trees.map((id) =>
      id.startsWith("B")
        ? { id, kind: "base" as const, status: "ok" as const }
        : extra.broken?.[id]
        ? { id, kind: "patch", agent: id, status: "infra-error", message: extra.broken[id] }
        : { id, kind: "patch", agent: id, status: "ok" }
    ),
    tests: rows.map(([id, author]) => ({ id, author, authorRole: role(author) })),
    cells: Object.fromEntries(
      rows.map(([id, , letters]) => [
        id,
        Object.fromEntries(trees.map((tree, i) => [tree, LETTER[letters[i]]])),
      ]),
    ),
    unstableOnB: extra.unstableOnB ?? [],
    runs: trees.map((tree) => run(tree, 0)),
  };
}

const ALL = ["B", "B#2", "codex", "claude", "cheater"];

const MATRICES: Matrix[] = [
  matrix("issue-11", ALL, [
    ["bugbout_tests/codex/test_issue_11.py::test_empty_header_does_not_crash", "codex", "FFPPF"],
    ["bugbout_tests/claude/test_headers.py::test_parse_empty_header", "claude", "FFPPF"],
    // Passes on the unfixed code: no reproduction. Fails on claude's patch, so it is a row.
    [HOSTILE_TEST, "cheater", "PPPFP"],
    ["bugbout_tests/gemini/test_issue_11.py::test_empty_header_is_empty_dict", "gemini", "FFPPF"],
    ["bugbout_tests/gemini/test_issue_11.py::test_whitespace_only_header", "gemini", "EEPPE"],
    ["tests/test_headers.py::test_parse_multiple_headers", "repository", "PPPFP"],
    ["tests/test_headers.py::test_parse_simple", "repository", "PPPPP"],
    ["tests/test_network.py::test_timeout_retry", "repository", "PFPPP"],
  ], { unstableOnB: ["tests/test_network.py::test_timeout_retry"] }),
  matrix("issue-12", ["B", "B#2", "codex", "claude"], [
    ["bugbout_tests/codex/test_issue_12.py::test_last_page_is_full", "codex", "FFPF"],
    ["bugbout_tests/claude/test_pagination.py::test_last_page_has_remainder", "claude", "FFFP"],
    ["bugbout_tests/gemini/test_issue_12.py::test_page_count", "gemini", "FFPP"],
    ["bugbout_tests/gemini/test_issue_12.py::test_last_page_items", "gemini", "FFPF"],
    ["tests/test_pages.py::test_first_page", "repository", "PPPP"],
  ]),
  matrix("issue-13", ALL, [
    ["bugbout_tests/codex/test_issue_13.py::test_offset_is_kept", "codex", "FFPFF"],
    ["bugbout_tests/claude/test_dates.py::test_parse_date_keeps_tz", "claude", "FFFPF"],
    ["bugbout_tests/cheater/test_ok.py::test_parse_date_runs", "cheater", "PPPPP"],
    ["bugbout_tests/gemini/test_issue_13.py::test_naive_dates_unchanged", "gemini", "PPPPP"],
    ["tests/test_dates.py::test_parse_iso", "repository", "PPPPP"],
    ["tests/test_dates.py::test_parse_naive", "repository", "PPPPS"],
  ]),
  matrix("issue-14", ["B", "B#2", "codex", "cheater"], [
    ["bugbout_tests/codex/test_issue_14.py::test_slugify_unicode", "codex", "FFPF"],
    ["bugbout_tests/cheater/test_ok.py::test_slugify_runs", "cheater", "PPPP"],
    ["bugbout_tests/gemini/test_issue_14.py::test_slugify_accents", "gemini", "FFPF"],
    ["tests/test_slug.py::test_slugify_ascii", "repository", "PPPP"],
  ]),
  matrix("issue-15", ["B", "B#2", "codex", "cheater"], [
    ["bugbout_tests/codex/test_issue_15.py::test_verbose_prints", "codex", "PPP."],
    ["bugbout_tests/cheater/test_ok.py::test_cli_runs", "cheater", "PPP."],
    ["tests/test_cli.py::test_help", "repository", "PPP."],
  ], { broken: { cheater: "the patched tree could not be installed: uv pip exited with 2" } }),
];

function verdict(
  taskId: string,
  pick: string | null,
  patches: Record<string, [approved: boolean, support: number]>,
  reason: string,
): Verdict {
  return {
    task: taskId,
    policy: "majority",
    pick,
    reason,
    patches: Object.fromEntries(
      Object.entries(patches).map(([agent, [approved, support]]) => [agent, {
        approved,
        support,
        reason: `${approved ? "approved" : "not approved"} under majority`,
        evidence: [],
      }]),
    ),
  };
}

const NO_PICK = "(no pick without enough independent support)";

const VERDICTS: Record<string, Verdict> = {
  "issue-11": verdict("issue-11", "codex", {
    codex: [true, 1],
    claude: [false, 1],
    cheater: [false, 0],
  }, "picked codex: support 1.00 from 2 independent authors, the only approved patch"),
  "issue-12": verdict(
    "issue-12",
    "codex",
    { codex: [true, 0.5], claude: [false, 0.25] },
    "picked codex: support 0.50 from 2 independent authors, the only approved patch",
  ),
  "issue-13": verdict("issue-13", null, {
    codex: [false, 0],
    claude: [false, 0],
    cheater: [false, 0],
  }, `abstained: none of the 3 patches is approved ${NO_PICK}`),
  "issue-14": verdict(
    "issue-14",
    "codex",
    { codex: [true, 1], cheater: [false, 0] },
    "picked codex: support 1.00 from 1 independent author, the only approved patch",
  ),
  "issue-15": verdict(
    "issue-15",
    null,
    { codex: [false, 0], cheater: [false, 0] },
    `abstained: none of the 2 patches is approved ${NO_PICK}`,
  ),
};

type Score = Resolution["patches"][string];

function score(outcome: Score["outcome"], extra: Partial<Score> = {}): Score {
  const fixed = outcome === "resolved" || outcome === "broke-tests";
  return {
    outcome,
    failToPass: fixed ? { passed: 2, total: 2, failing: [] } : {
      passed: 0,
      total: 2,
      failing: ["tests/test_core.py::test_f2p_0", "tests/test_core.py::test_f2p_1"],
    },
    passToPass: {
      failing: outcome === "broke-tests" ? ["tests/test_core.py::test_p2p_0"] : [],
      total: 3,
    },
    flags: [],
    ignored: [],
    ...extra,
  };
}

type Evidence = Resolution["evidence"][string];

/** An agent's evidence: tests as `[id, B/S/G outcome letters, role]`. */
function evidence(
  closure: boolean | null,
  tests: [string, string, Evidence["tests"][0]["role"]][],
) {
  return {
    inadequateClosure: closure,
    tests: tests.map(([test, bsg, role]) => ({
      test,
      B: LETTER[bsg[0]],
      S: LETTER[bsg[1]],
      G: LETTER[bsg[2]],
      role,
    })),
  };
}

function resolution(
  taskId: string,
  scored: boolean,
  rest: Partial<Resolution> & Pick<Resolution, "patches" | "evidence" | "pick">,
): Resolution {
  return {
    task: taskId,
    inputsKey: `k-resolution-${taskId}`,
    scored,
    sanity: { emptyResolves: false, goldResolves: true },
    runs: [],
    ...rest,
  };
}

const CHEAT_FLAGS = {
  flags: ["edits conftest.py"],
  ignored: [{ path: "conftest.py", reason: "config file" }],
};

const RESOLUTIONS: Record<string, Resolution> = {
  "issue-11": resolution("issue-11", true, {
    patches: {
      codex: score("resolved"),
      claude: score("broke-tests"),
      cheater: score("wrong-fix", CHEAT_FLAGS),
    },
    evidence: {
      codex: evidence(false, [["c11", "FPP", "gold-aligned"]]),
      claude: evidence(false, [["a11", "FPP", "gold-aligned"]]),
      cheater: evidence(true, [["x11", "PPP", "regression-only"]]),
      gemini: evidence(null, [["g11a", "F.P", "gold-aligned"], ["g11b", "E.P", "gold-aligned"]]),
    },
    pick: { agent: "codex", outcome: "resolved" },
  }),
  "issue-12": resolution("issue-12", true, {
    patches: { codex: score("wrong-fix"), claude: score("resolved") },
    evidence: {
      codex: evidence(false, [["c12", "FPF", "candidate-specific"]]),
      claude: evidence(false, [["a12", "FPP", "gold-aligned"]]),
      cheater: evidence(null, []),
      gemini: evidence(null, [
        ["g12a", "F.P", "gold-aligned"],
        ["g12b", "F.F", "candidate-specific"],
      ]),
    },
    pick: { agent: "codex", outcome: "wrong-fix" },
  }),
  "issue-13": resolution("issue-13", true, {
    patches: {
      codex: score("resolved"),
      claude: score("resolved"),
      cheater: score("wrong-fix", { flags: ["adds skip markers"] }),
    },
    evidence: {
      codex: evidence(false, [["c13", "FPF", "candidate-specific"]]),
      claude: evidence(false, [["a13", "FPP", "gold-aligned"]]),
      cheater: evidence(true, [["x13", "PPF", "misleading"]]),
      gemini: evidence(null, [["g13", "P.P", "regression-only"]]),
    },
    pick: { agent: null, outcome: null },
  }),
  "issue-14": resolution("issue-14", false, {
    reason: "unscorable: no fail-to-pass test",
    sanity: undefined,
    patches: {},
    evidence: {},
    pick: { agent: "codex", outcome: null },
  }),
  "issue-15": resolution("issue-15", false, {
    reason: "sanity gate: the unpatched tree already passes every fail-to-pass test",
    sanity: { emptyResolves: true, goldResolves: true },
    // Scored before the gate tripped: must not count anywhere.
    patches: { codex: score("resolved"), cheater: score("no-fix") },
    evidence: { codex: evidence(false, [["c15", "PPP", "regression-only"]]) },
    pick: { agent: null, outcome: null },
  }),
};

/** A fresh copy of the fixture's report input (tests may change it). */
export function fixtureInput(overrides: Partial<ReportInput> = {}): ReportInput {
  return structuredClone({
    project: {
      name: "headers",
      repository: "https://github.com/acme/headers",
      policy: "majority",
    },
    tasks: TASKS,
    oracles: ORACLES,
    attempts: ATTEMPTS,
    matrices: MATRICES,
    verdicts: VERDICTS,
    resolutions: RESOLUTIONS,
    agents: AGENTS,
    generatedAt: "2025-06-02T08:30:00Z",
    ...overrides,
  });
}
