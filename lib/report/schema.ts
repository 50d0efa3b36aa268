/**
 * The report's zod schema: the one source of `docs/report.schema.json`
 * (see {@linkcode reportJsonSchema}), checked at compile time against the interfaces of
 * `types.ts`.
 *
 * Pure values; no permissions needed.
 *
 * @module
 */

import { z } from "../deps.ts";
import { ATTEMPT_STATUSES, EVIDENCE_ROLES, RESOLUTION_OUTCOMES } from "../records.ts";
import { COMPARABLE_ROLES } from "../roles.ts";
import {
  MATRIX_ROW_CAP,
  REASON_KINDS,
  type Report,
  REPORT_VERSION,
  SANDBOX_MODES,
  type SandboxMode,
  TOO_FEW_TASKS,
} from "./types.ts";

const count = z.int().nonnegative();
const rate = z.number().min(0).max(1).nullable();
const resolutionOutcome = z.enum(RESOLUTION_OUTCOMES);
const attemptStatus = z.enum(ATTEMPT_STATUSES);
const agentRole = z.enum(["contestant", "examiner"]);

/** A proportion with its 95% Wilson interval (see `stats.ts` `wilson`). */
const intervalSchema = z.object({
  k: count.describe("Successes."),
  n: count.describe("Trials."),
  rate: rate.describe("k / n, or null when n is 0."),
  low: z.number().min(0).max(1).describe("Lower bound of the 95% Wilson interval."),
  high: z.number().min(0).max(1).describe("Upper bound of the 95% Wilson interval."),
}).meta({ id: "Interval", description: "A proportion with its 95% Wilson interval." });

const outcomeCounts = z.object({
  ...Object.fromEntries(
    RESOLUTION_OUTCOMES.filter((o) => o !== "suspect").map((o) => [o, count]),
  ) as Record<
    Exclude<typeof RESOLUTION_OUTCOMES[number], "suspect">,
    typeof count
  >,
  suspect: count.optional().describe(
    "Patches whose source uses what B's package never did (capability review); only when some are.",
  ),
});

const statusCounts = z.object(
  Object.fromEntries(ATTEMPT_STATUSES.map((s) => [s, count])) as Record<
    typeof ATTEMPT_STATUSES[number],
    typeof count
  >,
);

/** An agent's resolve rate (pass@1 with repeats) and its 95% interval. */
const resolveRateSchema = z.object({
  k: count.describe("Resolved tasks; with repeats, resolved attempts."),
  n: count.describe("Tasks; with repeats, attempts that count."),
  rate: rate.describe(
    "k / n; with repeats the mean over tasks of each task's share of resolved attempts (pass@1).",
  ),
  low: z.number().min(0).max(1).describe("Lower bound of the 95% interval."),
  high: z.number().min(0).max(1).describe("Upper bound of the 95% interval."),
  method: z.enum(["wilson", "clustered", "bootstrap"]).describe(
    "wilson: one attempt per task; with repeats a task-level bootstrap below 30 tasks, a " +
      "clustered standard error from 30 on.",
  ),
  tasks: count.describe("Tasks: the unit of the interval."),
  se: z.number().nonnegative().nullable().describe("The clustered standard error; else null."),
  resamples: count.nullable().describe("The bootstrap's resamples; else null."),
  seed: z.int().nullable().describe("The bootstrap's seed; else null."),
}).meta({
  id: "ResolveRate",
  description: "A resolve rate (pass@1 with repeats) with its 95% interval and how it was made.",
});

/** A mean over tasks with at least k attempts (pass@k or pass^k). */
const taskMeanSchema = z.object({
  k: z.int().min(1),
  rate: rate.describe("The mean over those tasks, or null when no task has k attempts."),
  tasks: count.describe("Tasks with at least k attempts that count; the others are left out."),
}).meta({ id: "TaskMean", description: "pass@k or pass^k: a mean over tasks." });

/** An agent's figures over a set of scored tasks. */
const figureFields = {
  tasks: count.describe("Scored tasks attempted (an attempt that is not an infrastructure error)."),
  scoredAttempts: count.describe(
    "Attempts at those tasks that count: one per task unless [run] repeats.",
  ),
  outcomes: outcomeCounts.describe(
    "Outcomes of those attempts; no-fix covers no patch, timeout, crash, quota and budget.",
  ),
  resolveRate: resolveRateSchema,
  passAtK: taskMeanSchema.nullable().describe(
    "With repeats: pass@K, at least one of K attempts resolves the task; else null.",
  ),
  passHatK: taskMeanSchema.nullable().describe(
    "With repeats: pass^K, all K attempts resolve the task; else null.",
  ),
};

const cutoffGroupSchema = z.object({
  ...figureFields,
  tooSmall: z.boolean().describe(
    `Fewer than ${TOO_FEW_TASKS} tasks: too few to conclude anything.`,
  ),
}).meta({ id: "CutoffGroup", description: "An agent's figures on one side of its cutoff." });

const cutoffSplitSchema = z.object({
  cutoff: z.string().describe("The training cutoff as configured: 2025-06 or 2025-06-30."),
  boundary: z.string().describe("The first instant after it, ISO 8601 (UTC)."),
  before: cutoffGroupSchema.describe("Tasks fixed up to the cutoff."),
  after: cutoffGroupSchema.describe("Tasks fixed after it: fresh to the model."),
  undated: count.describe("Scored tasks without a readable fix date: in neither group."),
});

/** One contestant against the ground truth. */
const agentRowSchema = z.object({
  name: z.string(),
  type: z.string(),
  model: z.string().nullable(),
  vendor: z.string(),
  ...figureFields,
  cutoff: cutoffSplitSchema.nullable().describe(
    "Its figures split at its training cutoff; null without a cutoff.",
  ),
  attempts: count.describe("Every attempt of the agent, scored task or not."),
  statuses: statusCounts.describe("Every attempt by how it ended."),
  medianDurationMs: z.number().nullable().describe(
    "Median duration of the attempts that were not infrastructure errors.",
  ),
  tokens: z.object({
    attempts: count.describe("Attempts that reported tokens."),
    total: z.number().nullable().describe("Sum over those attempts."),
    medianPerAttempt: z.number().nullable(),
  }).describe("Tokens per attempt: the reported total, else input + output."),
  cost: z.object({
    attempts: count.describe("Attempts that reported a cost."),
    totalUsd: z.number().nullable(),
  }),
  perResolved: z.object({
    costUsd: z.number().nullable().describe(
      "Cost of attempts at scored tasks / attempts resolved.",
    ),
    tokens: z.number().nullable().describe(
      "Tokens of attempts at scored tasks / attempts resolved.",
    ),
    durationMs: z.number().nullable().describe(
      "Time of attempts at scored tasks / attempts resolved.",
    ),
  }),
});

/** Two contestants compared on the scored tasks both attempted (exact McNemar test). */
const mcnemarSchema = z.object({
  test: z.literal("mcnemar").describe("One attempt per task: the exact McNemar test."),
  a: z.string(),
  b: z.string(),
  tasks: count,
  both: count,
  onlyA: count,
  onlyB: count,
  neither: count,
  p: z.number().min(0).max(1),
  sentence: z.string(),
});

/** Two contestants' per-task shares of resolved attempts compared (sign-flip test). */
const ratesComparisonSchema = z.object({
  test: z.literal("sign-flip").describe(
    "With repeats: a sign-flip permutation test of per-task shares of resolved attempts.",
  ),
  a: z.string(),
  b: z.string(),
  tasks: count.describe("Tasks both attempted."),
  meanA: rate.describe("The first agent's mean share over those tasks."),
  meanB: rate,
  difference: z.number().min(-1).max(1).nullable().describe("meanA − meanB."),
  se: z.number().nonnegative().nullable().describe("Paired standard error: sd(d) / sqrt(T)."),
  higher: count.describe("Tasks where the first resolved a larger share of its attempts."),
  lower: count.describe("Tasks where the second did."),
  same: count,
  p: z.number().min(0).max(1).describe("Two-sided p-value of the sign-flip test."),
  flips: count.describe("Sign flips counted: 2^T when exact, else random ones (seeded)."),
  exact: z.boolean(),
  sentence: z.string(),
});

const comparisonSchema = z.union([mcnemarSchema, ratesComparisonSchema]);

/** The judge's picks against simple baselines, over scored tasks. */
const pickingSchema = z.object({
  tasks: count.describe("Scored tasks."),
  judge: z.object({
    resolved: count.describe("Picks that resolved the task."),
    wrong: count.describe("Picks that did not."),
    abstained: count,
    rate: intervalSchema.describe("Resolved picks of all scored tasks."),
    precision: intervalSchema.describe("Resolved picks of all picks made."),
  }),
  bestSingle: z.object({
    agents: z.array(z.string()).describe("The contestants that resolved the most (ties: all)."),
    resolved: z.number().nonnegative().describe(
      "Tasks it resolved; with repeats, in expectation (sum of per-task shares).",
    ),
    rate: rate,
  }),
  random: z.object({
    expected: z.number().nonnegative().describe("Tasks a contestant chosen at random resolves."),
    rate: rate,
  }),
  oracle: z.object({
    resolved: count.describe("Tasks some contestant resolved: the best any choice could do."),
    rate: rate,
  }),
});

/** Patches judged one by one by the policy, against the ground truth. */
const gateRowSchema = z.object({
  agent: z.string().nullable().describe("The contestant, or null for all of them together."),
  patches: count.describe("Patches of scored tasks the judge saw."),
  approved: count,
  approvedRight: count.describe("Approved patches that resolved the task."),
  precision: intervalSchema.describe("approvedRight / approved."),
  wrong: count.describe("Patches that did not resolve the task."),
  wrongStopped: count.describe("Of those, the ones not approved."),
  right: count.describe("Patches that resolved the task."),
  rightStopped: count.describe("Of those, the ones not approved."),
}).meta({ id: "GateRow", description: "The merge gate for one contestant, or all of them." });

/** How well one author's tests separate resolved patches from wrong ones. */
const separationRowSchema = z.object({
  author: z.string(),
  role: z.enum(["contestant", "examiner", "repository"]),
  resolved: count.describe("Resolved patches the author's tests judged."),
  acceptedResolved: count.describe("Of those, the ones every test of the author's passed on."),
  wrong: count.describe("Wrong patches the author's tests judged."),
  rejectedWrong: count.describe("Of those, the ones some test of the author's did not pass on."),
  truePositiveRate: rate,
  trueNegativeRate: rate,
  balancedAccuracy: rate,
  skipped: count.describe("Patches the author had no runnable reproducing test for."),
});

const roleCounts = z.object(
  Object.fromEntries(EVIDENCE_ROLES.map((r) => [r, count])) as Record<
    typeof EVIDENCE_ROLES[number],
    typeof count
  >,
);
const roleShares = z.object(
  Object.fromEntries(COMPARABLE_ROLES.map((r) => [r, z.number().min(0).max(1)])) as Record<
    typeof COMPARABLE_ROLES[number],
    z.ZodNumber
  >,
).nullable();

/** One agent's tests by evidence role (B/S/G replay), over scored tasks. */
const evidenceRowSchema = z.object({
  agent: z.string(),
  role: agentRole,
  tests: count,
  counts: roleCounts,
  comparable: count,
  shares: roleShares.describe("Share of each role among comparable tests."),
  positive: count.describe("Comparable tests that pass on the agent's own candidate."),
  positiveShares: roleShares,
  attempts: count,
  withPatch: count,
  inadequateClosures: count.describe("Patches closed with no own test failing on B."),
  closureRate: rate.describe("Evidence-inadequate closure rate: inadequateClosures / withPatch."),
});

/** What happened between history and the scored tasks. */
const discoverySchema = z.object({
  examined: count.describe("Commits examined on first-parent history."),
  tasks: count,
  scored: count,
  excluded: z.object({
    total: count,
    reasons: z.array(z.object({ reason: z.string(), count: count })),
  }),
  statementNote: z.string().nullable(),
  statements: z.object({
    issue: count,
    pullRequest: count,
    commitTitle: count.describe("Statements made from a commit's title alone (offline)."),
  }).describe("Where the tasks' problem statements came from."),
  features: z.object({
    title: count.describe("Changes whose title does not read like a fix."),
    changelog: count.describe("Fixes by their title that their changelog entry calls features."),
    label: count.describe("Fixes by their title that GitHub's labels call features."),
    newApi: count.describe("Tasks whose tests fail on B only for names that do not exist yet."),
  }).describe("Changes told apart from bug fixes, by rule."),
  unscored: z.array(z.object({
    task: z.string(),
    title: z.string(),
    kind: z.enum(["unscorable", "new-api", "sanity", "infra-error", "not-scored"]),
    reason: z.string().describe("One line."),
  })),
  sanity: z.array(z.object({
    task: z.string(),
    emptyResolves: z.boolean(),
    goldResolves: z.boolean(),
  })).describe("Tasks failing a sanity gate: the empty patch resolves, or the gold fix does not."),
  unstable: z.object({
    oracle: count.describe("Hidden tests set aside as unstable."),
    matrix: count.describe("Cross-examination tests unstable on the unfixed tree."),
  }),
  infraErrors: z.object({
    oracleRuns: count,
    attempts: count,
    matrixTrees: count,
    items: z.array(z.object({
      stage: z.enum(["oracle", "attempt", "matrix"]),
      task: z.string(),
      what: z.string().describe("The tree or the agent."),
      message: z.string().nullable(),
    })),
  }),
});

/**
 * One task's cross-examination matrix, compact: one letter per cell (see OUTCOME_LETTERS), rows
 * only for tests whose outcome differs between the trees that ran.
 */
const matrixViewSchema = z.object({
  tests: count.describe("Tests in the matrix, shown or not."),
  trees: z.array(z.object({
    id: z.string(),
    kind: z.enum(["base", "patch"]),
    agent: z.string().nullable(),
    status: z.string(),
    picked: z.boolean(),
  })),
  authors: z.array(z.object({
    author: z.string(),
    role: z.enum(["contestant", "examiner", "repository"]),
    tests: count,
    reproducing: count.describe("Stable tests failing on every run of the unfixed tree."),
    shown: count,
    same: count.describe("Tests left out for having the same outcome on every tree that ran."),
  })),
  rows: z.array(z.object({
    test: z.string(),
    author: z.string(),
    unstable: z.boolean(),
    outcomes: z.string().describe("One letter per tree, in the order of trees."),
  })),
  same: count.describe("Tests left out because their outcome is the same on every tree that ran."),
  omitted: count.describe(`Tests whose outcome differs, left out past ${MATRIX_ROW_CAP} rows.`),
});

/** One task, every agent's result on it, and its matrix. */
const taskRowSchema = z.object({
  id: z.string(),
  title: z.string(),
  ref: z.object({ kind: z.enum(["issue", "pull"]), number: z.int(), url: z.string().nullable() }),
  scored: z.boolean(),
  reason: z.string().nullable().describe("Why the task is not scored."),
  failToPass: count,
  passToPass: count,
  date: z.string().describe("When the fix was committed, ISO 8601."),
  agents: z.array(z.object({
    agent: z.string(),
    role: agentRole,
    resolved: count.nullable().describe(
      "Attempts that resolved the task; null unless a contestant's on a scored task.",
    ),
    counted: count.nullable().describe("Attempts that count (not infrastructure errors)."),
    attempts: z.array(z.object({
      name: z.string().describe("The attempt's name in results files: codex, codex#2, ..."),
      repeat: z.int().min(1),
      status: attemptStatus,
      durationMs: z.number(),
      outcome: resolutionOutcome.nullable().describe(
        "Null when not scored, for an examiner, or for an infrastructure error.",
      ),
      approved: z.boolean().nullable().describe("The merge gate; null without a judged patch."),
      flags: z.array(z.string()),
      suspect: z.array(z.object({
        file: z.string(),
        line: z.int().positive(),
        capability: z.string(),
        reason: z.string(),
      })).optional().describe(
        "What the patch's source uses that B's package never did (capability review): why its " +
          "outcome is suspect. Absent when there is nothing.",
      ),
    })).describe("Every attempt, in repeat order; empty without one."),
  })),
  pick: z.object({
    agent: z.string().nullable().describe("The agent whose attempt the judge picked."),
    attempt: z.string().nullable().describe("The attempt picked: codex, codex#2, ..."),
    outcome: resolutionOutcome.nullable(),
    reason: z.string().nullable(),
  }),
  matrix: matrixViewSchema.nullable(),
  why: z.array(z.object({
    kind: z.enum(REASON_KINDS),
    subject: z.string().nullable().describe("The attempt, tree or run; null for the task."),
    text: z.string().describe("Why, naming the file, test or rule."),
  })).describe(
    "Every abstention, merge-gate stop, set-aside tree or session, tampering and " +
      "infrastructure error of the task, with its reason.",
  ),
});

const reportObject = z.object({
  version: z.literal(REPORT_VERSION),
  kind: z.literal("report"),
  bugbout: z.string().describe("The bugbout version that built the report."),
  generatedAt: z.string(),
  project: z.object({ name: z.string(), repository: z.string(), policy: z.string() }),
  repeats: z.int().min(1).describe("Attempts per agent and task ([run] repeats)."),
  sandbox: z.object({
    mode: z.enum([...SANDBOX_MODES, "mixed", "unused"] as const).describe(
      "The mode every attempt recorded; mixed for several, unused when no attempt ran.",
    ),
    attempts: z.object(
      Object.fromEntries(SANDBOX_MODES.map((m) => [m, count])) as Record<SandboxMode, typeof count>,
    ).describe("Attempts that ran, per sandbox mode they recorded."),
    warning: z.string().nullable().describe("Set when some attempts ran unconfined."),
  }).describe("How the attempts were confined, from their own records."),
  noScoredTask: z.string().nullable().describe(
    "Set when no task was scored, so every number is empty: why, and what to do.",
  ),
  agents: z.array(agentRowSchema),
  comparisons: z.array(comparisonSchema),
  power: z.object({
    tasks: count.describe("Scored tasks."),
    repeats: z.int().min(1).describe("Attempts per agent and task."),
    test: z.enum(["mcnemar", "sign-flip"]).describe("The paired test the comparisons use."),
    tasksOneWay: count.nullable().describe(
      "Tasks that must all go one agent's way for p <= 0.05; null: no number of them suffices.",
    ),
    points: z.number().min(0).nullable().describe(
      "The smallest difference in resolve rate, in percentage points, that could be significant.",
    ),
  }).describe(
    "How big a difference between two agents this many scored tasks can tell from chance at all.",
  ),
  picking: pickingSchema,
  mergeGate: z.object({
    policy: z.string(),
    overall: gateRowSchema,
    agents: z.array(gateRowSchema),
    stopped: z.array(z.object({ rule: z.string(), patches: count })).describe(
      "The patches stopped, by the rule that stopped them (most first).",
    ),
  }),
  separation: z.array(separationRowSchema),
  evidence: z.array(evidenceRowSchema),
  discovery: discoverySchema,
  tasks: z.array(taskRowSchema),
}).meta({
  title: "bugbout report",
  description: "The report of one bout: report.json, the input of every renderer.",
});

/** The report's zod schema: validates a `report.json` read back. */
export const reportSchema: z.ZodType<Report> = reportObject;

// The schema and the interfaces of types.ts must describe the same object, both ways.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const agree: Same<z.infer<typeof reportObject>, Report> = true;
void agree;

/** The report's JSON Schema (draft 2020-12), as `docs/report.schema.json` holds it. */
export function reportJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(reportSchema, { target: "draft-2020-12" }) as Record<string, unknown>;
}
