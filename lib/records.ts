/**
 * The files of `.bugbout/`, one schema per stage. Each stage reads the previous stage's files
 * through these schemas, so a corrupt or foreign file is caught with a clear message.
 *
 * @module
 */

import { z } from "./deps.ts";

/** Version of the results layout; bumped when a file's shape changes incompatibly. */
export const RESULTS_VERSION = 1;

// ---------------------------------------------------------------------------------------------
// Test outcomes

/** The languages built into bugbout: their projects and test runners (`node`: TS and JS). */
export const LANGUAGES = ["python", "go", "node", "rust", "command"] as const;
/** The language of a project whose `bugbout.toml` names none. */
export const DEFAULT_LANGUAGE = "python";
/**
 * A language's name in `[project] language`: a built-in one, or one registered in code
 * (`registerLanguage` in `lib/lang/mod.ts`).
 */
export type Language = typeof LANGUAGES[number] | (string & Record<never, never>);

/** What the configuration knows of a language before any of its code is loaded. */
export interface LanguageName {
  /** Its name in `[project] language`. */
  name: Language;
  /** `[project]` keys a project of this language must set (Python: its package, `source`). */
  requires: readonly string[];
  /** Tables of `bugbout.toml` a project of this language must have (`command`: its `[command]`). */
  tables?: readonly string[];
}

const languageNames = new Map<string, LanguageName>([
  ["python", { name: "python", requires: ["source"] }],
  ["go", { name: "go", requires: [] }],
  ["node", { name: "node", requires: [] }],
  ["rust", { name: "rust", requires: [] }],
  ["command", { name: "command", requires: [], tables: ["command"] }],
]);

/** The language named `name`, if bugbout knows one by that name. */
export function languageName(name: string): LanguageName | undefined {
  return languageNames.get(name);
}

/** Every language name bugbout knows, built-in ones first. */
export function languageNamesKnown(): string[] {
  return [...languageNames.keys()];
}

/**
 * Make a language's name known to the configuration (the registry does this when a language is
 * registered); returns what takes it back.
 */
export function addLanguageName(entry: LanguageName): () => void {
  const before = languageNames.get(entry.name);
  languageNames.set(entry.name, entry);
  return () => {
    if (before) languageNames.set(entry.name, before);
    else languageNames.delete(entry.name);
  };
}

/** What happened to one test in one run. */
export const OUTCOMES = ["passed", "failed", "error", "skipped", "xfailed", "not-run"] as const;
/** What happened to one test in one run. */
export type Outcome = typeof OUTCOMES[number];
/** Schema of {@linkcode Outcome}. */
export const outcomeSchema = z.enum(OUTCOMES);

/** How a whole pytest run ended. */
export const RUN_STATUSES = ["ok", "timeout", "out-of-memory", "infra-error", "tampered"] as const;
/** How a whole pytest run ended. */
export type RunStatus = typeof RUN_STATUSES[number];

/** One pytest run, summarised. */
export interface RunSummary {
  /** Which tree: "B", "G", an agent name, ... */
  tree: string;
  /** 0-based repeat index. */
  index: number;
  /** How the run ended. */
  status: RunStatus;
  /** pytest's exit code, or null when it was killed. */
  exitCode: number | null;
  /** Wall-clock time. */
  durationMs: number;
  /** Tests per outcome. */
  counts: Record<string, number>;
  /** Why the run is not "ok", in words. */
  message?: string;
}

/** Schema of {@linkcode RunSummary}. */
export const runSummarySchema: z.ZodType<RunSummary> = z.object({
  tree: z.string(),
  index: z.int().nonnegative(),
  status: z.enum(RUN_STATUSES),
  exitCode: z.int().nullable(),
  durationMs: z.number().nonnegative(),
  counts: z.record(z.string(), z.int().nonnegative()),
  message: z.string().optional(),
});

// ---------------------------------------------------------------------------------------------
// tasks.json

/** Where a problem statement came from. */
export const STATEMENT_SOURCES = ["issue", "pull-request", "commit"] as const;

/** One mined task: a fix on first-parent history with its issue (see {@linkcode taskSchema}). */
export interface Task {
  /** Stable id used in file names, e.g. `issue-12` or `pr-34`. */
  id: string;
  /** The issue or pull request the change names. */
  ref: { kind: "issue" | "pull"; number: number; url?: string };
  /** The change's title (a pull request's own title for merge commits). */
  title: string;
  /** G: the fix (a commit on first-parent history). */
  commit: string;
  /** B: the first parent of the fix. */
  parent: string;
  /** Commit date, ISO 8601. */
  date: string;
  /** Source files the fix changed (paths at G). */
  sourceFiles: string[];
  /** Test files the fix added or changed (paths at G): the hidden tests. */
  testFiles: string[];
  /** Tests the fix added or changed, by id (parametrised cases not expanded). */
  newTests: string[];
  /** Test files whose tests static reading could not all tell (collection decides), and why. */
  unsureTests?: { file: string; why: string }[];
  /** Why the change is taken for a bug fix: what each rule that spoke said. */
  evidence?: {
    rule: "title" | "type" | "changelog" | "label" | "diff";
    says: "bug" | "feature";
    detail: string;
  }[];
  /** The package directory at B (it may have moved since); `.` for the whole tree. */
  packageDir: string;
  /** The directory that goes on the import path at B (`.` or `src`, ...). */
  pythonPath: string;
  /** The cleaned problem statement given to agents. */
  statement: string;
  /** Where the statement came from. */
  statementSource: "issue" | "pull-request" | "commit";
  /** Other files the fix added or changed among the tests (conftest.py, data). */
  supportFiles?: string[];
  /** For a pull request: the issue it closes, whose text is the statement. */
  linkedIssue?: number;
}

/** Schema of {@linkcode Task}. */
export const taskSchema: z.ZodType<Task> = z.object({
  /** Stable id used in file names, e.g. `issue-12` or `pr-34`. */
  id: z.string().regex(/^[A-Za-z0-9._-]+$/),
  /** The issue or pull request the change names. */
  ref: z.object({
    kind: z.enum(["issue", "pull"]),
    number: z.int().positive(),
    url: z.string().optional(),
  }),
  /** The change's title (a pull request's own title for merge commits). */
  title: z.string(),
  /** G: the fix (a commit on first-parent history). */
  commit: z.string().regex(/^[0-9a-f]{40}$/),
  /** B: the first parent of the fix. */
  parent: z.string().regex(/^[0-9a-f]{40}$/),
  /** Commit date, ISO 8601. */
  date: z.string(),
  /** Source files the fix changed (paths at G). */
  sourceFiles: z.array(z.string()),
  /** Test modules the fix added or changed (paths at G): the hidden tests. */
  testFiles: z.array(z.string()),
  /** Tests the fix added or changed, as `path::name` (parametrised cases not expanded). */
  newTests: z.array(z.string()),
  /** Test modules whose tests static reading could not all tell (collection decides), and why. */
  unsureTests: z.array(z.object({ file: z.string(), why: z.string() })).optional(),
  /** Why the change is taken for a bug fix: what each rule that spoke said. */
  evidence: z.array(z.object({
    rule: z.enum(["title", "type", "changelog", "label", "diff"]),
    says: z.enum(["bug", "feature"]),
    detail: z.string(),
  })).optional(),
  /** The package directory at B (it may have moved since). */
  packageDir: z.string(),
  /** The directory that goes on PYTHONPATH at B ("." or "src", ...). */
  pythonPath: z.string(),
  /** The cleaned problem statement given to agents. */
  statement: z.string(),
  statementSource: z.enum(STATEMENT_SOURCES),
  /** Other files the fix added or changed under the tests directory (conftest.py, data). */
  supportFiles: z.array(z.string()).optional(),
  /** For a pull request: the issue it closes, whose text is the statement. */
  linkedIssue: z.int().positive().optional(),
});

/** A change that was looked at and left out, and why. */
export const exclusionSchema = z.object({
  commit: z.string(),
  title: z.string(),
  reason: z.string(),
  detail: z.string().optional(),
});
/** A change that was left out. */
export type Exclusion = z.infer<typeof exclusionSchema>;

/** `tasks.json`. */
export const tasksFileSchema = z.object({
  version: z.literal(RESULTS_VERSION),
  kind: z.literal("tasks"),
  /** Hash of the config keys and HEAD that produced this file. */
  inputsKey: z.string(),
  repository: z.object({
    head: z.string(),
    branch: z.string(),
    /** With `[tasks] branches`: every branch mined and its tip, the first as above. */
    branches: z.array(z.object({ name: z.string(), head: z.string() })).optional(),
    /**
     * Maintenance lines merged into the history mined (`Merge branch 'stable'`) whose own
     * commits were mined too, by the names the merges give them.
     */
    merged: z.array(z.string()).optional(),
  }),
  /** Commits examined on first-parent history. */
  examined: z.int().nonnegative(),
  tasks: z.array(taskSchema),
  excluded: z.array(exclusionSchema),
  /** Exclusions counted by reason. */
  counts: z.record(z.string(), z.int().nonnegative()),
  /**
   * Every other change left out, compactly, by reason (those `excluded` does not list, such as
   * `not-a-fix`): `<12 hex digits of the commit>[ <what decided>]`, newest first.
   */
  leftOut: z.record(z.string(), z.array(z.string())).optional(),
  /** How issue texts were read (token, anonymous, offline) and what to do about it. */
  statementNote: z.string().optional(),
  /** When another branch holds the fixes the default branch's history lacks: what to set. */
  branchNote: z.string().optional(),
});
/** `tasks.json`. */
export type TasksFile = z.infer<typeof tasksFileSchema>;

// ---------------------------------------------------------------------------------------------
// oracles.json

/** One task's ground truth. */
export const oracleSchema = z.object({
  task: z.string(),
  inputsKey: z.string(),
  /**
   * `scorable`: at least one fail-to-pass test; otherwise why not. `environment`: the environment
   * could not be built, or the tests could not import what it should hold (kept, like a result,
   * until `--retry-failed` or a change of its inputs).
   */
  status: z.enum(["scorable", "unscorable", "infra-error", "environment"]),
  reason: z.string().optional(),
  failToPass: z.array(z.string()),
  passToPass: z.array(z.string()),
  /** Tests whose outcome differed between repeated runs of the same tree: set aside. */
  unstable: z.array(z.string()),
  runs: z.array(runSummarySchema),
  /** Duration of each test on G, milliseconds. */
  durations: z.record(z.string(), z.number()),
  /**
   * Why the task is left out though tests flip (`new-api`: every fail-to-pass test fails on B
   * only because names the statement does not mention do not exist yet), with those names.
   */
  leftOut: z.object({ reason: z.literal("new-api"), names: z.array(z.string()) }).optional(),
  /**
   * For test modules static reading could not read (the task's `unsureTests`): the tests pytest
   * collects on G and not on B, by collection (`pytest --collect-only` on B's own modules).
   */
  collectedNewTests: z.array(z.string()).optional(),
  /**
   * What stood in for what the trees asked (dependencies resolved at HEAD or with today's
   * versions, a tree that could not be built), one line each; absent when nothing did.
   */
  environmentNotes: z.array(z.string()).optional(),
});
/** One task's ground truth. */
export type Oracle = z.infer<typeof oracleSchema>;

/** `oracles.json`. */
export const oraclesFileSchema = z.object({
  version: z.literal(RESULTS_VERSION),
  kind: z.literal("oracles"),
  oracles: z.record(z.string(), oracleSchema),
});
/** `oracles.json`. */
export type OraclesFile = z.infer<typeof oraclesFileSchema>;

// ---------------------------------------------------------------------------------------------
// attempts/<task>/<agent>.json

/** How an attempt ended. */
export const ATTEMPT_STATUSES = [
  "patch",
  "no-change",
  "timeout",
  "crashed",
  "out-of-memory",
  "too-many-processes",
  "disk-full",
  "too-many-files",
  "quota",
  "infra-error",
  "budget",
] as const;
/** How an attempt ended. */
export type AttemptStatus = typeof ATTEMPT_STATUSES[number];

/** One changed path in an attempt's work. */
export const patchFileSchema = z.object({
  path: z.string(),
  oldPath: z.string().optional(),
  change: z.enum(["added", "modified", "deleted", "renamed", "mode"]),
  /** source: applied when scoring; test: the author's tests; config: pytest/import-hook files. */
  kind: z.enum(["source", "test", "config", "other"]),
  binary: z.boolean().default(false),
  symlink: z.boolean().default(false),
});
/** One changed path in an attempt's work. */
export type PatchFile = z.infer<typeof patchFileSchema>;

/** Token usage as reported by the agent. */
export const tokensSchema = z.object({
  input: z.number().optional(),
  cachedInput: z.number().optional(),
  cacheWrite: z.number().optional(),
  output: z.number().optional(),
  reasoning: z.number().optional(),
  total: z.number().optional(),
});

/**
 * The tokens an attempt spent: the agent's own total, else input + output (cached input and
 * reasoning are parts of those, never added again); undefined when it reported neither.
 */
export function tokensOf(attempt: { tokens?: z.infer<typeof tokensSchema> }): number | undefined {
  const t = attempt.tokens;
  if (!t) return undefined;
  if (t.total !== undefined) return t.total;
  if (t.input === undefined && t.output === undefined) return undefined;
  return (t.input ?? 0) + (t.output ?? 0);
}

/** One agent's attempt at one task. The patches sit beside it as `.source.patch`/`.tests.patch`. */
export const attemptSchema = z.object({
  version: z.literal(RESULTS_VERSION),
  kind: z.literal("attempt"),
  task: z.string(),
  agent: z.string(),
  role: z.enum(["contestant", "examiner"]),
  type: z.string(),
  model: z.string().optional(),
  vendor: z.string(),
  inputsKey: z.string(),
  status: z.enum(ATTEMPT_STATUSES),
  startedAt: z.string(),
  durationMs: z.number().nonnegative(),
  exitCode: z.int().nullable(),
  tokens: tokensSchema.optional(),
  costUsd: z.number().optional(),
  summary: z.string().optional(),
  error: z.string().optional(),
  logTail: z.string(),
  sandbox: z.enum(["bubblewrap", "seatbelt", "none"]),
  /** Every changed path; empty when nothing changed. */
  files: z.array(patchFileSchema),
  /** Which of the agent's `[run] repeats` attempts at the task this is (absent: the first). */
  repeat: z.int().min(2).optional(),
});
/** One agent's attempt at one task. */
export type Attempt = z.infer<typeof attemptSchema>;

/**
 * The name an attempt goes by in every results file (a tree, an author, a scored patch): its
 * agent's name for the first attempt at a task, and `name#2`, `name#3`, ... for the repeats.
 */
export function attemptName(agent: string, repeat = 1): string {
  return repeat > 1 ? `${agent}#${repeat}` : agent;
}

/** The name of an attempt (see {@linkcode attemptName}). */
export function nameOf(attempt: Pick<Attempt, "agent" | "repeat">): string {
  return attemptName(attempt.agent, attempt.repeat);
}

/** The agent an attempt's name belongs to: `codex#2` → `codex`. */
export function agentOfName(name: string): string {
  return name.replace(/#\d+$/, "");
}

// ---------------------------------------------------------------------------------------------
// matrices/<task>.json

/**
 * Something a patch's source uses that B's package never did (a capability review's finding):
 * reflection, frames, threads, the test framework's internals, reads of test files.
 */
export const capabilityFindingSchema: z.ZodType<CapabilityFinding> = z.object({
  /** The file of the patch, relative to the tree. */
  file: z.string(),
  /** The line (1-based) in the file as the patch leaves it. */
  line: z.int().positive(),
  /** The capability's short name: `frames`, `test-framework`, `always-equal`, ... */
  capability: z.string(),
  /** Why it deserves a look, in words. */
  reason: z.string(),
});
/** Something a patch's source uses that B's package never did. */
export interface CapabilityFinding {
  /** The file of the patch, relative to the tree. */
  file: string;
  /** The line (1-based) in the file as the patch leaves it. */
  line: number;
  /** The capability's short name: `frames`, `test-framework`, `always-equal`, ... */
  capability: string;
  /** Why it deserves a look, in words. */
  reason: string;
}

/** A capability finding in one line: `file:line: reason`. */
export function describeFinding(f: CapabilityFinding): string {
  return `${f.file}:${f.line}: ${f.reason}`;
}

/** A tree the tests ran on: B (repeated) or a contestant's patch. */
export const matrixTreeSchema = z.object({
  /** "B", "B#2", ... for the unpatched tree; the agent's name for a patch. */
  id: z.string(),
  kind: z.enum(["base", "patch"]),
  agent: z.string().optional(),
  /** Whether the tree could be built and run; cells are `not-run` otherwise. */
  status: z.enum(["ok", "timeout", "out-of-memory", "infra-error", "tampered", "patch-failed"]),
  message: z.string().optional(),
  /** A patch's capability review: what its source uses that B's package never did. */
  suspect: z.array(capabilityFindingSchema).optional(),
});

/** A test in the matrix and who wrote it. */
export const matrixTestSchema = z.object({
  /** Node id in the cross-examination layout. */
  id: z.string(),
  /** An agent's name, or "repository" for the project's own suite. */
  author: z.string(),
  authorRole: z.enum(["contestant", "examiner", "repository"]),
});

/** Something the code under test did to the grading, as the guard saw it. */
export const guardEventSchema: z.ZodType<GuardEvent> = z.object({
  /** What it did, in words. */
  what: z.string(),
  /** Where: `file:line` in the tree, a test's node id, or an object's name. */
  where: z.string(),
  detail: z.string().optional(),
});
/** Something the code under test did to the grading, or that deserves a look. */
export interface GuardEvent {
  /** What it did, in words: "changed pytest's reporting machinery". */
  what: string;
  /** Where: `file:line` in the tree, a test's node id, or an object's name. */
  where: string;
  /** More: the attribute changed, the file opened, the signal sent. */
  detail?: string;
}

/** A guard event in one line: what it did, and where. */
export function describeEvent(e: GuardEvent): string {
  const where = [e.where, e.detail].filter(Boolean).join(": ");
  return where ? `${e.what} (${where})` : e.what;
}

/** What one author's session on one tree did to the grading. */
export const tamperingSchema = z.object({
  /** The tree's id. */
  tree: z.string(),
  /** The author whose tests the session ran (or "repository"). */
  author: z.string(),
  /** Tampering: the session gave no outcome. */
  events: z.array(guardEventSchema),
  /** Worth a look, not tampering by itself. */
  suspect: z.array(guardEventSchema).default([]),
  /**
   * Whose code the events point to: the author's own files, the tree's (a candidate's source or
   * B's), or both. Empty when no event names a file (a forged line on the results channel).
   */
  blame: z.array(z.enum(["author", "tree"])).default([]),
});
/** What one author's session on one tree did to the grading. */
export type Tampering = z.infer<typeof tamperingSchema>;

/**
 * Which code of the tree's non-test files each test of a run reached, as a runner that can tell
 * records it (pytest under the guard, for the repository's suite on B): `locations` names code by
 * `path:line` (a function by the line it starts on), `tests` gives each test's indexes into it and
 * `outside` what ran outside any one test (imports, fixtures shared by many tests).
 */
export const coverageSchema = z.object({
  locations: z.array(z.string()),
  outside: z.array(z.number()),
  tests: z.record(z.string(), z.array(z.number())),
});
/** See {@linkcode coverageSchema}. */
export interface Coverage {
  /** Code by `path:line` (a function by the line it starts on). */
  locations: string[];
  /** Indexes of what ran outside any one test. */
  outside: number[];
  /** Each test's indexes. */
  tests: Record<string, number[]>;
}

/**
 * One author's tests on one tree as their session left them, under a key made of everything that
 * decides them (the tree's content, the author's tests, how sessions run): while the key stands,
 * the cell is never run again.
 */
export const savedCellSchema = z.object({
  key: z.string(),
  owner: z.string(),
  status: z.enum(RUN_STATUSES),
  message: z.string().optional(),
  /** Outcome of each of its tests, by matrix id. */
  outcomes: z.record(z.string(), outcomeSchema),
  tamper: z.array(guardEventSchema),
  suspect: z.array(guardEventSchema),
  /** What each test reached of the tree's code (the repository's suite on B, when selecting). */
  coverage: coverageSchema.optional(),
});
/** One author's tests on one tree, saved for reuse. */
export type SavedCell = z.infer<typeof savedCellSchema>;

/** What a stage ran and reused, cell by cell, and what it keeps for the next time. */
export const reuseSchema = z.object({
  /** Cells run this time. */
  ran: z.int().nonnegative(),
  /** Cells taken from the last time. */
  reused: z.int().nonnegative(),
  /** Every cell of this result that may be reused. */
  cells: z.array(savedCellSchema),
  /**
   * The key each whole unit was made from, by the unit's name (a tree, a scored patch, the sanity
   * gates): a unit whose key stands is taken from this result as it is.
   */
  units: z.record(z.string(), z.string()).default({}),
});
/** What a stage ran and reused, and what it keeps. */
export type Reuse = z.infer<typeof reuseSchema>;

/** `matrices/<task>.json`: every author's tests on B and on every patch. */
export const matrixSchema = z.object({
  version: z.literal(RESULTS_VERSION),
  kind: z.literal("matrix"),
  task: z.string(),
  inputsKey: z.string(),
  trees: z.array(matrixTreeSchema),
  tests: z.array(matrixTestSchema),
  /** cells[testId][treeId] */
  cells: z.record(z.string(), z.record(z.string(), outcomeSchema)),
  /** Tests whose outcome on B differed between repeats: not evidence. */
  unstableOnB: z.array(z.string()),
  /** Sessions in which the code under test interfered with the grading (their cells: not-run). */
  tampering: z.array(tamperingSchema).optional(),
  /** pytest sessions run to make this matrix (not those of cells reused). */
  runs: z.array(runSummarySchema),
  /** What was run and reused, and the cells kept for the next time. */
  reuse: reuseSchema.optional(),
});
/** The cross-examination matrix of one task. */
export type Matrix = z.infer<typeof matrixSchema>;

// ---------------------------------------------------------------------------------------------
// verdicts.json

/** One cell that decided (part of) a verdict. */
export const evidenceCellSchema = z.object({
  test: z.string(),
  author: z.string(),
  tree: z.string(),
  outcome: outcomeSchema,
});

/**
 * The rule that stopped a patch at the merge gate: the first that failed, in the order the judge
 * tries them (`judge/policies.ts`).
 */
export const GATE_STOPS = [
  "code-tampered",
  "tests-tampered",
  "suspect",
  "tree-not-run",
  "no-reproduction",
  "too-little-support",
  "breaks-repository-test",
  "breaks-examiner-test",
] as const;
/** One of {@linkcode GATE_STOPS}. */
export type GateStop = typeof GATE_STOPS[number];

/**
 * One independent voice's say on a patch: authors that count as one (of one vendor, or of
 * identical patches; see `judge/voices.ts`), and the rule that made them one.
 */
export const voiceSchema = z.object({
  /** The vendor, `adapter/model`, agent name, or the joined names of a same-patch voice. */
  voice: z.string(),
  /** Why its authors are one voice. */
  by: z.enum(["vendor", "model", "agent", "same-patch"]),
  /** Whether it is an examiners' voice (never one with contestants'). */
  examiner: z.boolean(),
  /** Its authors that wrote reproductions. */
  authors: z.array(z.string()),
  /** Mean over its authors of their pass rates on the patch. */
  rate: z.number(),
  /** Whether it supports the patch (the policy's threshold met by its reproductions). */
  supports: z.boolean(),
});

/** The judge's decision for one task. */
export const verdictSchema = z.object({
  task: z.string(),
  policy: z.string(),
  /** The picked agent, or null when the judge abstained. */
  pick: z.string().nullable(),
  reason: z.string(),
  /** How many supporting voices a pick needed; absent in verdicts written before voices. */
  minVoices: z.int().optional(),
  /** Per patch: whether the policy approves it alone (the merge gate), and why. */
  patches: z.record(
    z.string(),
    z.object({
      approved: z.boolean(),
      /** The rule that stopped it; null when approved, absent in verdicts written before it. */
      stoppedBy: z.enum(GATE_STOPS).nullable().optional(),
      support: z.number(),
      /** Every independent voice with reproductions; absent in verdicts written before voices. */
      voices: z.array(voiceSchema).optional(),
      reason: z.string(),
      evidence: z.array(evidenceCellSchema),
    }),
  ),
});
/** The judge's decision for one task. */
export type Verdict = z.infer<typeof verdictSchema>;

/** `verdicts.json`. */
export const verdictsFileSchema = z.object({
  version: z.literal(RESULTS_VERSION),
  kind: z.literal("verdicts"),
  policy: z.string(),
  verdicts: z.record(z.string(), verdictSchema),
});

// ---------------------------------------------------------------------------------------------
// resolutions.json

/**
 * What a test saw of one call into the code under test (`observe` runs): the call (`file:function`),
 * `r` (returned) or `x` (raised), the type of the value or exception (`module.qualname`), and flags:
 * 1 when the tree defines that type, plus 2 when the tree also defines its `__eq__`, plus 4 when
 * Python code made the class (not the interpreter).
 */
export type Observation = [call: string, kind: "r" | "x", type: string, flags: number];

/** A patch's outcome against the hidden tests. */
export const RESOLUTION_OUTCOMES = [
  "resolved",
  "broke-tests",
  "wrong-fix",
  "no-fix",
  "tampered",
  "divergent",
  "suspect",
] as const;
/** A patch's outcome against the hidden tests. */
export type ResolutionOutcome = typeof RESOLUTION_OUTCOMES[number];

/** Evidence roles of agent-written tests (B/S/G replay). */
export const EVIDENCE_ROLES = [
  "gold-aligned",
  "candidate-specific",
  "regression-only",
  "misleading",
  "unstable",
  "not-comparable",
] as const;

const observationSchema = z.tuple([z.string(), z.enum(["r", "x"]), z.string(), z.int()]);

/** One patch scored against the hidden tests. */
export const patchScoreSchema = z.object({
  outcome: z.enum(RESOLUTION_OUTCOMES),
  failToPass: z.object({ passed: z.int(), total: z.int(), failing: z.array(z.string()) }),
  passToPass: z.object({ failing: z.array(z.string()), total: z.int() }),
  /** Tricks noticed in the patch (conftest edits, skip markers, ...). */
  flags: z.array(z.string()),
  /** Files of the patch that were not applied when scoring, and why. */
  ignored: z.array(z.object({ path: z.string(), reason: z.string() })),
  message: z.string().optional(),
  /** What the patch's code did to the grading, when the outcome is `tampered`. */
  tampering: z.array(guardEventSchema).optional(),
  /**
   * When the outcome is `divergent`: the hidden tests that passed while the patch's code handed
   * them something else than the real fix's does (`lib/score/divergence.ts`), and how.
   */
  divergence: z.array(z.object({ test: z.string(), detail: z.string() })).optional(),
  /**
   * What the patch's source uses that B's package never did (the capability review); a patch
   * with any is never `resolved`: one that would be is `suspect`, one the hidden tests fail
   * anyway keeps that outcome.
   */
  suspect: z.array(capabilityFindingSchema).optional(),
  /**
   * What each failing hidden test's run said (the first ones): the failure's first line and its
   * report's end (traceback, captured output), where the runner keeps them.
   */
  failures: z.record(
    z.string(),
    z.object({ message: z.string().optional(), traceback: z.string().optional() }),
  ).optional(),
});

/** One agent test replayed on B, S and G. */
export const evidenceTestSchema = z.object({
  test: z.string(),
  B: outcomeSchema,
  S: outcomeSchema,
  G: outcomeSchema,
  role: z.enum(EVIDENCE_ROLES),
});

/** One task scored: sanity gates, every patch, every agent's evidence. */
export const resolutionSchema = z.object({
  task: z.string(),
  inputsKey: z.string(),
  /** False when a sanity gate failed or the oracle is unscorable; patches are then not counted. */
  scored: z.boolean(),
  reason: z.string().optional(),
  sanity: z.object({
    emptyResolves: z.boolean(),
    goldResolves: z.boolean(),
    /** What each hidden test saw of the real fix's code (where the runner observes). */
    goldObserved: z.record(z.string(), z.array(observationSchema)).optional(),
    /**
     * What B's own run of the hidden tests was worth a look for (what, and the file), so that a
     * patch is not flagged for what the project's code does anyway.
     */
    baseNoticed: z.array(z.string()).optional(),
  }).optional(),
  patches: z.record(z.string(), patchScoreSchema),
  evidence: z.record(
    z.string(),
    z.object({ tests: z.array(evidenceTestSchema), inadequateClosure: z.boolean().nullable() }),
  ),
  /** The judge's pick, scored. */
  pick: z.object({ agent: z.string().nullable(), outcome: z.enum(RESOLUTION_OUTCOMES).nullable() }),
  /** pytest sessions run to make this resolution (not those of units reused). */
  runs: z.array(runSummarySchema),
  /** What was run and reused, and the cells kept for the next time. */
  reuse: reuseSchema.optional(),
});
/** One task scored. */
export type Resolution = z.infer<typeof resolutionSchema>;

/** `resolutions.json`. */
export const resolutionsFileSchema = z.object({
  version: z.literal(RESULTS_VERSION),
  kind: z.literal("resolutions"),
  resolutions: z.record(z.string(), resolutionSchema),
});

// ---------------------------------------------------------------------------------------------
// shard.json (written by `bugbout run --shard K/N`, read by `bugbout merge`)

/** One attempt of a shard's share of the race. */
export const shardUnitSchema = z.object({
  task: z.string(),
  /** The attempt's name (`codex`, `codex#2`, ...). */
  attempt: z.string(),
  /** The inputs key the attempt is saved under when it is finished (see `attemptKey`). */
  inputsKey: z.string(),
  /** Its expected cost, milliseconds: what the split balances. */
  costMs: z.number().nonnegative(),
});

/** `shard.json`: which share of which race a results directory holds, and what it was made from. */
export const shardManifestSchema = z.object({
  version: z.literal(RESULTS_VERSION),
  kind: z.literal("shard"),
  /** The bugbout version that ran the shard. */
  bugbout: z.string(),
  /** Share `index` (1-based) of `count`. */
  shard: z.object({ index: z.int().positive(), count: z.int().positive() }),
  /** Hash of tasks.json's tasks. */
  tasks: z.string(),
  /** Hash of what the split read from oracles.json (each task's status and test time). */
  groundTruth: z.string(),
  /** Every setting that shapes the race, by name: its value, or a hash where it may be secret. */
  settings: z.record(z.string(), z.string()),
  /** Hash of the whole split (every attempt's shard): equal in every shard of one race. */
  plan: z.string(),
  /** This shard's attempts. */
  units: z.array(shardUnitSchema),
});
/** `shard.json`. */
export type ShardManifest = z.infer<typeof shardManifestSchema>;

/** The author name of the repository's own suite, in matrices. */
export const REPOSITORY = "repository";

/** The patches of an attempt (beside its record in `attempts/<task>/`). */
export interface AttemptPatches {
  /** Source changes: what scoring applies. */
  source: string;
  /** Tests and test configuration: what cross-examination installs. */
  tests: string;
  /** Everything that changed. */
  full: string;
}

/** One agent's saved attempt at a task, with its patches. */
export interface BoutAttempt {
  /** The attempt record. */
  attempt: Attempt;
  /** Its patches. */
  patches: AttemptPatches;
}
