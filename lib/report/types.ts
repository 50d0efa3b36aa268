/**
 * The report object: plain JSON, written as `report.json` and read by every renderer. These
 * interfaces describe it for people and for the compiler; `schema.ts` holds the same shape as a
 * zod schema (checked against these at compile time), from which `docs/report.schema.json` is
 * generated.
 *
 * Pure values; no permissions needed.
 *
 * @module
 */

import type { AttemptStatus, CapabilityFinding, Outcome, ResolutionOutcome } from "../records.ts";
import type { AgentEvidence } from "../roles.ts";
import type { Interval, PairedComparison, Separation } from "./stats.ts";
import type { IntervalMethod, RatesComparison, TaskMean } from "./stats_repeats.ts";
import type { Detectable } from "./power.ts";

export {
  ATTEMPT_STATUSES,
  type AttemptStatus,
  EVIDENCE_ROLES,
  type Outcome,
  OUTCOMES,
  RESOLUTION_OUTCOMES,
  type ResolutionOutcome,
} from "../records.ts";
export {
  type AgentEvidence,
  COMPARABLE_ROLES,
  type ComparableRole,
  type EvidenceRole,
} from "../roles.ts";
export type { Interval, PairedComparison, Separation } from "./stats.ts";
export type { IntervalMethod, RatesComparison, TaskMean } from "./stats_repeats.ts";

/**
 * Version of the report's shape; bumped when a field changes incompatibly. 2: `[run] repeats`
 * and training cutoffs (agents' pass@k, pass^k and cutoff groups; comparisons tagged by their
 * test; each task's agents list their attempts; the judge's pick names its attempt).
 */
export const REPORT_VERSION = 2;

/** Fewer tasks than this in a group (before or after a cutoff): too few to conclude anything. */
export const TOO_FEW_TASKS = 10;

/**
 * Most matrix rows (tests whose outcome differs between trees) kept per task; the rest are
 * counted in `omitted`.
 */
export const MATRIX_ROW_CAP = 300;

/** The titles of the report's sections, in order; every renderer prints all of them. */
export const SECTION_TITLES: {
  readonly agents: "Agents";
  readonly comparisons: "Are the differences real?";
  readonly picking: "Picking one patch per bug";
  readonly mergeGate: "Every patch through a merge gate";
  readonly separation: "Which tests tell a right fix from a wrong one";
  readonly evidence: "Evidence";
  readonly discovery: "How the tasks were found";
  readonly tasks: "Tasks";
} = {
  agents: "Agents",
  comparisons: "Are the differences real?",
  picking: "Picking one patch per bug",
  mergeGate: "Every patch through a merge gate",
  separation: "Which tests tell a right fix from a wrong one",
  evidence: "Evidence",
  discovery: "How the tasks were found",
  tasks: "Tasks",
};

/** A section of the report. */
export type SectionId = keyof typeof SECTION_TITLES;

/** One letter per test outcome, for the compact matrix rows. */
export const OUTCOME_LETTERS: Readonly<Record<Outcome, string>> = {
  passed: "P",
  failed: "F",
  error: "E",
  skipped: "S",
  xfailed: "X",
  "not-run": ".",
};

/**
 * The ways an attempt can be confined (as its record says), in the order the report lists them.
 * `_preface.ts` fails to type-check should an attempt record a mode missing here.
 */
export const SANDBOX_MODES = ["bubblewrap", "seatbelt", "none"] as const;
/** How an attempt was confined, as it recorded it. */
export type SandboxMode = typeof SANDBOX_MODES[number];

/** The sandboxes the bout's attempts recorded (not today's configuration). */
export interface SandboxUse {
  /**
   * The mode every attempt ran under; `mixed` when they ran under several, `unused` when no
   * attempt ran (infrastructure errors do not count: the agent never started).
   */
  mode: SandboxMode | "mixed" | "unused";
  /** Attempts that ran, per mode. */
  attempts: Record<SandboxMode, number>;
  /** Set when some attempts ran unconfined. */
  warning: string | null;
}

/**
 * An agent's resolve rate and its 95% interval. With one attempt per task (`method` wilson): k
 * resolved of n tasks, rate k / n, and the Wilson score interval. With repeats: k resolved of n
 * attempts, and rate the mean over tasks of each task's share of resolved attempts (pass@1; k / n
 * when every task has as many attempts), with an interval that takes the task as the unit: a
 * task-level bootstrap below 30 tasks, a clustered standard error from 30 on.
 */
export interface ResolveRate extends Interval {
  /** How the interval was made. */
  method: IntervalMethod;
  /** Tasks: the unit of the interval. */
  tasks: number;
  /** The clustered standard error; null otherwise. */
  se: number | null;
  /** The bootstrap's resamples; null otherwise. */
  resamples: number | null;
  /** The bootstrap's seed; null otherwise. */
  seed: number | null;
}

/** How many attempts ended in each outcome; `suspect` only when there is one. */
export type OutcomeCounts =
  & Record<Exclude<ResolutionOutcome, "suspect">, number>
  & { suspect?: number };

/** An agent's figures over a set of scored tasks: all of them, or one side of its cutoff. */
export interface AgentFigures {
  /** Scored tasks attempted (with an attempt that is not an infrastructure error). */
  tasks: number;
  /** Attempts at those tasks that count: one per task unless `[run] repeats`. */
  scoredAttempts: number;
  /**
   * Outcomes of those attempts; no-fix covers no patch, timeout, crash, quota and budget.
   * `suspect` (a patch whose source uses what B's package never did) is there only when some
   * attempt is, so a bout without one reads as it did before the capability review.
   */
  outcomes: OutcomeCounts;
  /** The resolve rate (pass@1 with repeats) and its 95% interval. */
  resolveRate: ResolveRate;
  /** With repeats: pass@K, at least one of K attempts resolves (tasks with K attempts); else null. */
  passAtK: TaskMean | null;
  /** With repeats: pass^K, all K attempts resolve (tasks with K attempts); else null. */
  passHatK: TaskMean | null;
}

/** One side of an agent's training cutoff. */
export interface CutoffGroup extends AgentFigures {
  /** Fewer than {@linkcode TOO_FEW_TASKS} tasks: too few to conclude anything. */
  tooSmall: boolean;
}

/** An agent's figures split at its training cutoff, by the date of each task's fix. */
export interface CutoffSplit {
  /** The cutoff as configured: `2025-06` or `2025-06-30`. */
  cutoff: string;
  /** The first instant after the cutoff (ISO 8601): a fix before it counts as before the cutoff. */
  boundary: string;
  /** Tasks fixed up to the cutoff: the model may have seen the fix. */
  before: CutoffGroup;
  /** Tasks fixed after it: fresh to the model. */
  after: CutoffGroup;
  /** Scored tasks whose fix date could not be read: in neither group. */
  undated: number;
}

/** One contestant against the ground truth: every attempt of its own. */
export interface AgentRow extends AgentFigures {
  /** The agent's name. */
  name: string;
  /** Its adapter (`codex`, `claude-code`, `command`, ...). */
  type: string;
  /** The model, when configured. */
  model: string | null;
  /** Who makes the model. */
  vendor: string;
  /** Its figures split at its training cutoff; null without a cutoff. */
  cutoff: CutoffSplit | null;
  /** Every attempt of the agent, scored task or not. */
  attempts: number;
  /** Every attempt by how it ended. */
  statuses: Record<AttemptStatus, number>;
  /** Median duration of the attempts that were not infrastructure errors. */
  medianDurationMs: number | null;
  /** Tokens per attempt (the reported total, else input + output), over those attempts. */
  tokens: {
    /** Attempts that reported tokens. */
    attempts: number;
    /** Sum over those attempts. */
    total: number | null;
    /** Median over those attempts. */
    medianPerAttempt: number | null;
  };
  /** Cost in US dollars, over the attempts that were not infrastructure errors. */
  cost: {
    /** Attempts that reported a cost. */
    attempts: number;
    /** Sum over those attempts. */
    totalUsd: number | null;
  };
  /** What one resolved task cost. */
  perResolved: {
    /** Cost of the attempts at scored tasks / attempts that resolved. */
    costUsd: number | null;
    /** Tokens of the attempts at scored tasks / attempts that resolved. */
    tokens: number | null;
    /** Time of the attempts at scored tasks / attempts that resolved. */
    durationMs: number | null;
  };
}

/**
 * Two contestants compared on the scored tasks both attempted: the exact McNemar test with one
 * attempt per task, a sign-flip permutation test of per-task resolve rates with repeats.
 */
export type ComparisonRow = PairedComparison | RatesComparison;

/** The judge's picks on scored tasks against simple baselines. */
export interface Picking {
  /** Scored tasks. */
  tasks: number;
  /** The judge's picks. */
  judge: {
    /** Picks that resolved the task. */
    resolved: number;
    /** Picks that did not. */
    wrong: number;
    /** Tasks without a pick. */
    abstained: number;
    /** Resolved picks of all scored tasks. */
    rate: Interval;
    /** Resolved picks of all picks made. */
    precision: Interval;
  };
  /**
   * The contestants that resolved the most (ties: all of them); with repeats, the most in
   * expectation (the sum over tasks of each task's share of resolved attempts).
   */
  bestSingle: { agents: string[]; resolved: number; rate: number | null };
  /** A contestant chosen at random for every task: tasks resolved in expectation. */
  random: { expected: number; rate: number | null };
  /** Tasks some contestant resolved: the best any choice could do. */
  oracle: { resolved: number; rate: number | null };
}

/** Patches judged one by one (the merge gate), against the ground truth. */
export interface GateRow {
  /** The contestant, or null for all of them together. */
  agent: string | null;
  /** Patches of scored tasks the judge saw. */
  patches: number;
  /** Of those, the ones approved. */
  approved: number;
  /** Approved patches that resolved the task. */
  approvedRight: number;
  /** approvedRight / approved. */
  precision: Interval;
  /** Patches that did not resolve the task. */
  wrong: number;
  /** Of those, the ones not approved. */
  wrongStopped: number;
  /** Patches that resolved the task. */
  right: number;
  /** Of those, the ones not approved. */
  rightStopped: number;
}

/** How well one author's tests separate resolved patches from wrong ones. */
export interface SeparationRow extends Separation {
  /** Who the author is. */
  role: "contestant" | "examiner" | "repository";
}

/** One agent's tests by evidence role (B/S/G replay), over scored tasks. */
export interface EvidenceRow extends AgentEvidence {
  /** The agent. */
  agent: string;
  /** Whether it fixes or only writes tests. */
  role: "contestant" | "examiner";
}

/** From history to scored tasks. */
export interface Discovery {
  /** Commits examined on first-parent history. */
  examined: number;
  /** Tasks mined. */
  tasks: number;
  /** Tasks scored. */
  scored: number;
  /** Commits left out, by reason (most first). */
  excluded: { total: number; reasons: { reason: string; count: number }[] };
  /** How issue texts were read. */
  statementNote: string | null;
  /** Where the tasks' problem statements came from: how many from each source. */
  statements: { issue: number; pullRequest: number; commitTitle: number };
  /**
   * Changes that read like fixes but were told apart as features, by rule: the title's words,
   * the changelog entry, GitHub's labels, and the ground truth (`new-api`).
   */
  features: { title: number; changelog: number; label: number; newApi: number };
  /** Tasks not scored, and why. */
  unscored: {
    task: string;
    title: string;
    kind: "unscorable" | "new-api" | "sanity" | "infra-error" | "not-scored";
    reason: string;
  }[];
  /** Tasks failing a sanity gate: the empty patch resolves, or the gold fix does not. */
  sanity: { task: string; emptyResolves: boolean; goldResolves: boolean }[];
  /** Tests set aside as unstable: hidden ones, and cross-examination ones on the unfixed tree. */
  unstable: { oracle: number; matrix: number };
  /** Infrastructure errors, counted per stage and listed. */
  infraErrors: {
    oracleRuns: number;
    attempts: number;
    matrixTrees: number;
    items: {
      stage: "oracle" | "attempt" | "matrix";
      task: string;
      /** The tree or the agent. */
      what: string;
      message: string | null;
    }[];
  };
}

/**
 * One task's cross-examination matrix, compact: one letter per cell (see OUTCOME_LETTERS). Only
 * the tests whose outcome differs between the trees that ran are kept as rows; the others are
 * counted in `same`.
 */
export interface MatrixView {
  /** Tests in the matrix, shown or not. */
  tests: number;
  /** The trees (columns): runs of the unfixed tree, then patches. */
  trees: {
    id: string;
    kind: "base" | "patch";
    agent: string | null;
    status: string;
    /** The judge's pick. */
    picked: boolean;
  }[];
  /**
   * Per author: tests, reproductions (stable, failing on every run of B), rows shown, and tests
   * left out for having the same outcome on every tree that ran.
   */
  authors: {
    author: string;
    role: "contestant" | "examiner" | "repository";
    tests: number;
    reproducing: number;
    shown: number;
    same: number;
  }[];
  /** The rows shown: tests whose outcome differs between the trees that ran, in matrix order. */
  rows: {
    test: string;
    author: string;
    /** Its outcome on the unfixed tree differed between repeats. */
    unstable: boolean;
    /** One letter per tree, in the order of trees. */
    outcomes: string;
  }[];
  /** Tests left out because their outcome is the same on every tree that ran. */
  same: number;
  /** Tests whose outcome differs, left out past MATRIX_ROW_CAP. */
  omitted: number;
}

/** One attempt at a task. */
export interface TaskAttempt {
  /** The attempt's name in results files: the agent's, then `name#2`, `name#3`, ... */
  name: string;
  /** Which of the agent's attempts: 1, 2, ... */
  repeat: number;
  /** How the attempt ended. */
  status: AttemptStatus;
  /** How long it ran. */
  durationMs: number;
  /** Null when the task is not scored, for an examiner, or for an infrastructure error. */
  outcome: ResolutionOutcome | null;
  /** The merge gate; null without a judged patch. */
  approved: boolean | null;
  /** Tricks noticed in the patch. */
  flags: string[];
  /**
   * What the patch's source uses that B's package never did (the capability review): why its
   * outcome is `suspect`. Absent when there is nothing.
   */
  suspect?: CapabilityFinding[];
}

/** One agent on one task: its attempts, and how many resolved it. */
export interface TaskAgent {
  /** The agent's name. */
  agent: string;
  /** Contestants fix; examiners only write tests. */
  role: "contestant" | "examiner";
  /** Attempts that resolved the task; null unless a contestant's on a scored task. */
  resolved: number | null;
  /** Attempts that count (not infrastructure errors); null like `resolved`. */
  counted: number | null;
  /** Every attempt, in repeat order; empty without one. */
  attempts: TaskAttempt[];
}

/** The kinds of {@linkcode TaskReason}, in the order a task lists them. */
export const REASON_KINDS = [
  "abstained",
  "stopped",
  "set-aside",
  "tampered",
  "suspect",
  "scoring",
  "infra-error",
] as const;

/**
 * Why something about a task did not go the ordinary way, naming the file, test or rule:
 *
 * - `abstained`: the judge picked no patch;
 * - `stopped`: the merge gate did not approve a patch (the policy's rule, the tests it counted);
 * - `set-aside`: a tree of the matrix that did not run, or tests unstable on the unfixed tree;
 * - `tampered`: a session whose code interfered with the grading (cross-examination or scoring),
 *   and whom it is blamed on;
 * - `suspect`: a patch whose source uses what B's package never did (the capability review), each
 *   use with its file, line and why;
 * - `scoring`: what scoring said of a patch that did not resolve the task;
 * - `infra-error`: the harness failed (an attempt, a run of the ground truth, a tree).
 */
export interface TaskReason {
  /** What it explains. */
  kind: typeof REASON_KINDS[number];
  /** The attempt, tree or run it is about; null for the task as a whole. */
  subject: string | null;
  /** Why, in words. */
  text: string;
}

/** One task, every agent's result on it, and its matrix. */
export interface TaskRow {
  /** The task's id (`issue-12`). */
  id: string;
  /** The fix's title: untrusted text. */
  title: string;
  /** The issue or pull request. */
  ref: { kind: "issue" | "pull"; number: number; url: string | null };
  /** Whether the task counts in the numbers. */
  scored: boolean;
  /** Why the task is not scored. */
  reason: string | null;
  /** Hidden fail-to-pass tests. */
  failToPass: number;
  /** Hidden pass-to-pass tests. */
  passToPass: number;
  /** When the fix was committed (ISO 8601): the side of each agent's cutoff the task is on. */
  date: string;
  /** Every agent (contestants, then examiners). */
  agents: TaskAgent[];
  /**
   * The judge's pick: the agent and which of its attempts (`codex#2` is codex's second; the
   * agent's own name its first); its outcome only on scored tasks.
   */
  pick: {
    agent: string | null;
    attempt: string | null;
    outcome: ResolutionOutcome | null;
    reason: string | null;
  };
  /** The cross-examination matrix, compact; null without one. */
  matrix: MatrixView | null;
  /**
   * Every abstention, merge-gate stop, set-aside tree or session, tampering and infrastructure
   * error of the task, with its reason; empty when everything went the ordinary way.
   */
  why: TaskReason[];
}

/** The report: `report.json`. */
export interface Report {
  /** {@linkcode REPORT_VERSION}. */
  version: 2;
  /** Always "report". */
  kind: "report";
  /** The bugbout version that built the report. */
  bugbout: string;
  /** When the report was built, ISO 8601. */
  generatedAt: string;
  /** The project and the judge's policy. */
  project: { name: string; repository: string; policy: string };
  /** Attempts per agent and task (`[run] repeats`). */
  repeats: number;
  /** How the attempts were confined, as each recorded it; a warning when some were not. */
  sandbox: SandboxUse;
  /** Set when no task was scored, so every number is empty: why, and what to do. */
  noScoredTask: string | null;
  /** "Agents": every contestant, in configuration order. */
  agents: AgentRow[];
  /** "Are the differences real?": every two contestants. */
  comparisons: ComparisonRow[];
  /** The smallest difference between two agents the scored tasks can tell from chance. */
  power: Detectable;
  /** "Picking one patch per bug". */
  picking: Picking;
  /**
   * "Every patch through a merge gate": per contestant, all patches, and the patches stopped
   * by each rule (most first), over the same patches.
   */
  mergeGate: {
    policy: string;
    overall: GateRow;
    agents: GateRow[];
    stopped: { rule: string; patches: number }[];
  };
  /** "Which tests tell a right fix from a wrong one": contestants, examiners, the suite. */
  separation: SeparationRow[];
  /** "Evidence": contestants, then examiners. */
  evidence: EvidenceRow[];
  /** "How the tasks were found". */
  discovery: Discovery;
  /** "Tasks": every mined task, in mining order. */
  tasks: TaskRow[];
}
