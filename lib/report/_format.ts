/**
 * How the renderers write the report's numbers and name its categories. Formatting only: every
 * value comes from the report object.
 *
 * @module
 */

import type { AttemptStatus, ResolutionOutcome } from "../records.ts";
import type { EvidenceRole } from "../testbed/mod.ts";
import { formatP } from "./stats.ts";
import { type Report, SANDBOX_MODES, type SectionId } from "./types.ts";
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
};

/** Short outcome labels for narrow table cells. */
export const OUTCOME_SHORT: Record<ResolutionOutcome, string> = {
  resolved: "resolved",
  "broke-tests": "broke tests",
  "wrong-fix": "wrong fix",
  "no-fix": "no fix",
  tampered: "tampered",
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

/** The judge's pick on a task in words: "codex (resolved)", "abstained". */
export function pickText(pick: Report["tasks"][number]["pick"]): string {
  if (pick.agent === null) return "abstained";
  return pick.outcome === null ? pick.agent : `${pick.agent} (${OUTCOME_SHORT[pick.outcome]})`;
}

/** One agent's cell of a task: the outcome when scored, else how the attempt ended. */
export function taskCell(entry: Report["tasks"][number]["agents"][number]): string {
  if (entry.outcome !== null) return OUTCOME_SHORT[entry.outcome];
  return entry.status === null ? NONE : STATUS_LABELS[entry.status];
}

/**
 * The matrix of a task in a line: "8 tests × 5 trees, 6 differing between trees; codex 1 (1
 * reproducing), ...".
 */
export function matrixSummary(matrix: NonNullable<Report["tasks"][number]["matrix"]>): string {
  const authors = matrix.authors.map((a) =>
    `${a.author} ${a.tests} (${a.reproducing} reproducing)`
  );
  return `${matrix.tests} tests × ${matrix.trees.length} trees, ${
    matrix.tests - matrix.same
  } differing between trees; ${authors.join(", ")}`;
}

/** The tests a matrix leaves out for having one outcome everywhere, in words; null for none. */
export function sameText(matrix: NonNullable<Report["tasks"][number]["matrix"]>): string | null {
  if (matrix.same === 0) return null;
  const authors = matrix.authors.filter((a) => a.same > 0);
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
