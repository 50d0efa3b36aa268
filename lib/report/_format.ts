/**
 * How the renderers write the report's numbers and name its categories. Formatting only: every
 * value comes from the report object.
 *
 * @module
 */

import { agentOfName, type AttemptStatus, type ResolutionOutcome } from "../records.ts";
import type { EvidenceRole } from "../roles.ts";
import { formatP } from "./stats.ts";
import { detectableText } from "./power.ts";
import {
  type Report,
  SANDBOX_MODES,
  type SectionId,
  type TaskAgent,
  type TaskAttempt,
} from "./types.ts";
import { elapsed, plural } from "../words.ts";

/** Shown where a value is unknown. */
export const NONE = "—";

/** Outcomes of a patch, for people. */
export const OUTCOME_LABELS: Record<ResolutionOutcome, string> = {
  resolved: "resolved",
  "broke-tests": "fixed, broke a test",
  "wrong-fix": "wrong fix",
  "no-fix": "no fix",
  tampered: "tampered with the grading",
  divergent: "passed on other values than the fix's",
  suspect: "suspect: uses what B never did",
};

/** Short outcome labels for narrow table cells. */
export const OUTCOME_SHORT: Record<ResolutionOutcome, string> = {
  resolved: "resolved",
  "broke-tests": "broke tests",
  "wrong-fix": "wrong fix",
  "no-fix": "no fix",
  tampered: "tampered",
  divergent: "divergent",
  suspect: "suspect",
};

/** How attempts ended, for people. */
export const STATUS_LABELS: Record<AttemptStatus, string> = {
  patch: "patch",
  "no-change": "no change",
  timeout: "timeout",
  crashed: "crashed",
  "out-of-memory": "out of memory",
  "too-many-processes": "too many processes",
  "disk-full": "disk full",
  "too-many-files": "too many files",
  quota: "quota",
  "infra-error": "infra error",
  budget: "budget spent",
};

/** Status headings for the terminal's narrow tables (an agent's name and nine statuses fit). */
export const STATUS_SHORT: Record<AttemptStatus, string> = {
  patch: "patch",
  "no-change": "no change",
  timeout: "timeout",
  crashed: "crashed",
  "out-of-memory": "memory",
  "too-many-processes": "procs",
  "disk-full": "disk",
  "too-many-files": "files",
  quota: "quota",
  "infra-error": "infra",
  budget: "budget",
};

/** Evidence roles, for people. */
export const ROLE_LABELS: Record<EvidenceRole, string> = {
  "gold-aligned": "gold-aligned",
  "candidate-specific": "candidate-specific",
  "regression-only": "regression-only",
  misleading: "misleading",
  unstable: "unstable",
  "not-comparable": "not comparable",
};

/** What each section shows, in a sentence. */
export const SECTION_LEADS: Record<SectionId, string> = {
  agents: "Each contestant's patches against the maintainers' hidden tests, over the scored " +
    "tasks it attempted. No fix covers no patch, a timeout, a crash and a spent quota; the " +
    "interval is a 95% Wilson interval.",
  comparisons: "Every two contestants on the scored tasks both attempted, with the exact " +
    "McNemar test over the tasks only one of them resolved.",
  picking: "The judge picks one patch per task from the cross-examination alone, or abstains. " +
    "Against: the best single contestant, a contestant chosen at random for every task " +
    "(expected value), and the best any choice could do.",
  mergeGate: "Each patch judged alone, as if one agent had just said it was done: how often an " +
    "approval was right, and how many wrong and right patches were stopped.",
  separation: "For each author of tests, and for the repository's own suite: does a patch that " +
    "passes their tests resolve the task? An agent's tests count where they fail on the unfixed " +
    "code, judged on the other agents' patches; the suite's tests count where they pass on it.",
  evidence: "The tests each agent wrote, replayed on the unfixed code (B), its own candidate " +
    "(S) and the real fix (G). Only gold-aligned tests (fail on B, pass on G) discriminate the " +
    "bug. An evidence-inadequate closure is a patch with no own test that fails on B and passes " +
    "on S.",
  discovery: "From the project's history to the tasks that were scored.",
  tasks: "Every task, each contestant's result on it and the judge's pick.",
};

/** What the sections that change with `[run] repeats` show then, in a sentence. */
const REPEATS_LEADS: Partial<Record<SectionId, (k: number) => string>> = {
  agents: (k) =>
    `Each contestant attempted each task ${k} times; its figures gather every attempt. ` +
    `Outcomes count attempts; pass@1 is the mean over tasks of the share of attempts that ` +
    `resolved each, with a 95% interval that takes the task as the unit; pass@${k} is the ` +
    `chance that at least one of ${k} attempts resolves a task, pass^${k} that all ${k} do.`,
  comparisons: () =>
    "Every two contestants on the scored tasks both attempted: the mean difference of their " +
    "per-task shares of resolved attempts, its paired standard error, and an exact sign-flip " +
    "permutation test.",
  tasks: (k) =>
    `Every task, how many of each contestant's ${k} attempts resolved it, and the judge's pick ` +
    `(one attempt).`,
};

/** What a section shows, in a sentence: the lead for the report's number of repeats. */
export function sectionLead(report: Report, id: SectionId): string {
  const repeats = report.repeats > 1 ? REPEATS_LEADS[id] : undefined;
  const lead = repeats ? repeats(report.repeats) : SECTION_LEADS[id];
  if (id !== "comparisons" || !report.power) return lead;
  const power = detectableText(report.power);
  return `${lead} ${power[0].toUpperCase()}${power.slice(1)}.`;
}

/** A rate as a whole percentage, or "—". */
export function pct(rate: number | null): string {
  return rate === null ? NONE : `${Math.round(rate * 100)}%`;
}

/** A Wilson interval as "21–94%", or "—" when nothing is known. */
export function interval(iv: { n: number; low: number; high: number }): string {
  return iv.n === 0 ? NONE : `${Math.round(iv.low * 100)}–${Math.round(iv.high * 100)}%`;
}

/** A rate with its interval: "67% (21–94%)". */
export function rateWithInterval(
  iv: { n: number; rate: number | null; low: number; high: number },
) {
  return iv.n === 0 ? NONE : `${pct(iv.rate)} (${interval(iv)})`;
}

/** A count of a total: "2/3". */
export function ratio(k: number, n: number): string {
  return `${k}/${n}`;
}

/** A duration: "0.4s", "45s", "4m 05s", "1h 02m"; the report's dash when unknown. */
export function duration(ms: number | null): string {
  return ms === null ? NONE : elapsed(ms);
}

/** A token count: "950", "50k", "1.2M". */
export function tokens(n: number | null): string {
  if (n === null) return NONE;
  if (n < 1000) return String(Math.round(n));
  if (n < 1_000_000) return `${Math.round(n / 1000)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** Dollars: "$2.65". */
export function usd(n: number | null): string {
  return n === null ? NONE : `$${n.toFixed(2)}`;
}

/** A p-value for a table cell: "0.50", "0.004", "<0.001". */
export function pValue(p: number): string {
  return formatP(p).replace("= ", "").replace("< ", "<");
}

/** An expected count: "1.33". */
export function expected(n: number): string {
  return n.toFixed(2);
}

/** The one-line title of the report. */
export function reportTitle(report: Report): string {
  return `bugbout report: ${report.project.name}`;
}

/** The line under the title: repository, policy, sandbox, time, version. */
export function reportSubtitle(report: Report): string {
  return `${report.project.repository} · policy ${report.project.policy} · ` +
    `${sandboxText(report.sandbox)} · ${report.generatedAt} · bugbout ${report.bugbout}`;
}

/**
 * How the attempts were confined, as they recorded it: "sandbox bubblewrap", "sandbox mixed:
 * bubblewrap on 20 attempts, none on 4", "sandbox not used (no attempt ran)".
 */
export function sandboxText(sandbox: Report["sandbox"]): string {
  if (sandbox.mode === "unused") return "sandbox not used (no attempt ran)";
  if (sandbox.mode !== "mixed") return `sandbox ${sandbox.mode}`;
  const modes = SANDBOX_MODES.filter((m) => sandbox.attempts[m] > 0)
    .map((m) => `${m} on ${plural(sandbox.attempts[m], "attempt")}`);
  return `sandbox mixed: ${modes.join(", ")}`;
}

/** Which of its agent's attempts an attempt name is: `codex#2` → 2, `codex` → 1. */
export function repeatOf(attempt: string, agent: string): number {
  const rest = attempt.slice(agent.length).match(/^#(\d+)$/);
  return rest ? Number(rest[1]) : 1;
}

/**
 * An attempt for people, never its file name: the agent alone with one attempt per task, else
 * "codex attempt 2".
 */
export function attemptLabel(agent: string, repeat: number, repeats: number): string {
  return repeats > 1 ? `${agent} attempt ${repeat}` : agent;
}

/**
 * The judge's pick on a task in words: "codex (resolved)", with repeats "codex attempt 2
 * (resolved)", or "abstained".
 */
export function pickText(pick: Report["tasks"][number]["pick"], repeats = 1): string {
  if (pick.agent === null) return "abstained";
  const who = attemptLabel(pick.agent, repeatOf(pick.attempt ?? pick.agent, pick.agent), repeats);
  return pick.outcome === null ? who : `${who} (${OUTCOME_SHORT[pick.outcome]})`;
}

/** One attempt's result: its outcome when it counts, else how it ended. */
export function attemptCell(attempt: TaskAttempt): string {
  return attempt.outcome !== null ? OUTCOME_SHORT[attempt.outcome] : STATUS_LABELS[attempt.status];
}

/**
 * One agent's cell of a task. With one attempt per task: the outcome when scored, else how the
 * attempt ended. With repeats: "2/3 resolved" when scored, else how the attempts ended ("patch ×3").
 */
export function taskCell(entry: TaskAgent, repeats = 1): string {
  if (entry.attempts.length === 0) return NONE;
  if (repeats === 1) return attemptCell(entry.attempts[0]);
  if (entry.counted !== null) return `${entry.resolved}/${entry.counted} resolved`;
  const counts = new Map<string, number>();
  for (const a of entry.attempts) {
    counts.set(STATUS_LABELS[a.status], (counts.get(STATUS_LABELS[a.status]) ?? 0) + 1);
  }
  return [...counts].map(([label, n]) => n > 1 ? `${label} ×${n}` : label).join(", ");
}

/**
 * The outcome that colours an agent's cell of a task (null: none, grey). With repeats: resolved
 * when every attempt that counts resolved it, `some` (a colour of its own) when some did, and
 * otherwise the most frequent outcome of its attempts.
 */
export function taskOutcome(entry: TaskAgent): ResolutionOutcome | "some" | null {
  const outcomes = entry.attempts.flatMap((a) => a.outcome === null ? [] : [a.outcome]);
  if (outcomes.length === 0) return null;
  if (entry.attempts.length === 1) return outcomes[0];
  const resolved = outcomes.filter((o) => o === "resolved").length;
  if (resolved === outcomes.length) return "resolved";
  if (resolved > 0) return "some";
  const counts = new Map<ResolutionOutcome, number>();
  for (const o of outcomes) counts.set(o, (counts.get(o) ?? 0) + 1);
  return [...counts].sort((x, y) => y[1] - x[1])[0][0];
}

/**
 * The matrix of a task in a line: "8 tests × 5 trees, 6 differing between trees; codex 1 (1
 * reproducing), ...".
 */
export function matrixSummary(matrix: NonNullable<Report["tasks"][number]["matrix"]>): string {
  const authors = byAgent(matrix.authors).map((a) =>
    `${a.author} ${a.tests} (${a.reproducing} reproducing)`
  );
  return `${matrix.tests} tests × ${matrix.trees.length} trees, ${
    matrix.tests - matrix.same
  } differing between trees; ${authors.join(", ")}`;
}

type MatrixAuthor = NonNullable<Report["tasks"][number]["matrix"]>["authors"][number];

/**
 * A matrix's authors gathered by agent, in order of first appearance: the tests of `codex#2`
 * (codex's second attempt) count as codex's.
 */
export function byAgent(authors: readonly MatrixAuthor[]): MatrixAuthor[] {
  const merged = new Map<string, MatrixAuthor>();
  for (const a of authors) {
    const agent = agentOfName(a.author);
    const into = merged.get(agent);
    if (!into) merged.set(agent, { ...a, author: agent });
    else {
      for (const key of ["tests", "reproducing", "shown", "same"] as const) into[key] += a[key];
    }
  }
  return [...merged.values()];
}

/**
 * An attempt's name in results files for people: `codex#2` → "codex attempt 2"; with repeats a
 * bare agent name is its first attempt. Other names (the repository, B) stay as they are.
 */
export function attemptText(name: string, repeats: number, isAgent = true): string {
  const m = name.match(/^(.*)#(\d+)$/);
  if (m && isAgent) return `${m[1]} attempt ${m[2]}`;
  return repeats > 1 && isAgent ? `${name} attempt 1` : name;
}

/** The tests a matrix leaves out for having one outcome everywhere, in words; null for none. */
export function sameText(matrix: NonNullable<Report["tasks"][number]["matrix"]>): string | null {
  if (matrix.same === 0) return null;
  const authors = byAgent(matrix.authors).filter((a) => a.same > 0);
  const whose = authors.length === 1
    ? `, all by ${authors[0].author}`
    : ` (${authors.map((a) => `${a.author} ${a.same}`).join(", ")})`;
  const trees = matrix.trees.every((t) => t.status === "ok") ? "every tree" : "every tree that ran";
  return `+ ${plural(matrix.same, "test")} with the same outcome on ${trees}${whose}`;
}

/** The discovery funnel in a sentence. */
export function discoveryText(d: Report["discovery"]): string {
  return `Examined ${plural(d.examined, "commit")} on first-parent history: ` +
    `${plural(d.tasks, "became a task", "became tasks")}, ${d.excluded.total} left out; ` +
    `${plural(d.scored, "task was", "tasks were")} scored.`;
}

/** Where the statements came from, in a sentence (none when there are no tasks). */
export function statementsText(d: Report["discovery"]): string | null {
  const { issue, pullRequest, commitTitle } = d.statements;
  const parts = [
    issue ? `${issue} from ${issue === 1 ? "an issue" : "issues"}` : "",
    pullRequest
      ? `${pullRequest} from ${pullRequest === 1 ? "a pull request" : "pull requests"}`
      : "",
    commitTitle
      ? `${commitTitle} from ${
        commitTitle === 1 ? "a commit title" : "commit titles"
      } (the title ` +
        `only: a commit's message often says how the bug was fixed)`
      : "",
  ].filter(Boolean);
  return parts.length ? `Problem statements: ${parts.join(", ")}.` : null;
}

/** How many changes each rule told apart from bug fixes, in a sentence. */
export function featuresText(d: Report["discovery"]): string {
  const f = d.features;
  return `Told apart from bug fixes: ${plural(f.title, "change")} by their titles, ` +
    `${plural(f.changelog, "fix", "fixes")} by their changelog entries, ${f.label} by GitHub ` +
    `labels, ${plural(f.newApi, "task")} by the ground truth (new-api: the tests need names ` +
    `that do not exist yet).`;
}

/** Infrastructure errors in words: "1 oracle run, 2 attempts, 0 matrix trees". */
export function infraText(e: Report["discovery"]["infraErrors"]): string {
  return `${plural(e.oracleRuns, "oracle run")}, ${plural(e.attempts, "attempt")}, ` +
    `${plural(e.matrixTrees, "matrix tree")}`;
}

/** A total with how many attempts reported it, when not all did: "$2.15 (3 of 5)". */
export function reported(text: string, seen: number, of: number): string {
  return seen > 0 && seen < of ? `${text} (${seen} of ${of})` : text;
}

/** Text with its first letter in capitals. */
export function cap(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
