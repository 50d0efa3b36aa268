/** The maintenance lines whose merged commits were mined too, as the summary's tail. */
function mergedLines(merged: readonly string[] | undefined): string {
  if (!merged?.length) return "";
  const shown = merged.slice(0, 4).join(", ");
  const more = merged.length > 4 ? ` and ${merged.length - 4} more` : "";
  return `, with the commits of the lines merged into it (${shown}${more})`;
}

/**
 * `bugbout tasks`: mine the history (or reuse an up-to-date tasks.json) and print the tasks, how
 * much history was examined, and why fixes were left out.
 *
 * @module
 */

import { languageOf } from "../lang/mod.ts";
import {
  type CommitDecision,
  type ExclusionReason,
  mineAll,
  type MineResult,
  statementSources,
  whyCommit,
} from "../mine/mod.ts";
import { Project } from "../project.ts";
import type { Task, TasksFile } from "../records.ts";
import { type Palette, palette } from "../style.ts";
import type { CommandContext } from "./context.ts";

/** What each exclusion reason means, in a few words (`{language}`: the project's language). */
const REASON_TEXT: Record<ExclusionReason, string> = {
  "before-since": "older than [tasks] since",
  "after-until": "newer than [tasks] until",
  "not-a-fix": "neither its title nor its changelog entry reads like a fix",
  "root-commit": "the first commit",
  "no-issue-reference": "names no issue or pull request",
  "no-source-change": "changes no {language} source file",
  "too-many-source-files": "changes more source files than max-source-files",
  "feature-in-changelog": "a fix by its title, a feature by its changelog entry",
  "no-test-added": "adds or changes no test",
  "skip-only": "its new tests are always skipped",
  "type-only": "its new tests check types only",
  "typing-only": "changes type annotations only",
  "message-only": "changes the wording of messages only",
  "needs-dependency": "its tests need a dependency the code before it lacks",
  "feature-label": "a feature by its GitHub labels",
  "no-statement": "nothing says what the problem is (a bare merge subject)",
  "older-change-for-same-issue": "a newer change fixes the same issue",
  "same-change": "the same change is mined from another branch",
  "over-limit": "beyond [tasks] limit, newest first (not examined)",
};

/** What an exclusion reason means, in a few words, for a project of `language`. */
export function reasonText(reason: string, language: string): string {
  return (REASON_TEXT[reason as ExclusionReason] ?? "").replace("{language}", language);
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * A task's tests as the listing shows them: their names, and what collection will add when
 * static reading was unsure (alone when it named none).
 */
function testsOf(task: Task, max: number, dim: (s: string) => string = (s) => s): string {
  if (!task.unsureTests?.length) return testNames(task.newTests, max);
  if (task.newTests.length === 0) {
    return dim(`what collection finds in ${task.unsureTests.map((u) => u.file).join(", ")}`);
  }
  return `${testNames(task.newTests, max)} ${dim("(+ what collection finds)")}`;
}

function testNames(ids: string[], max = 3): string {
  const names = ids.map((id) => (id.includes("::") ? id.slice(id.indexOf("::") + 2) : id));
  const shown = names.slice(0, max).join(", ");
  return names.length > max ? `${shown} +${names.length - max} more` : shown;
}

/** Render tasks.json for the terminal (pure: no printing). */
export function renderTasks(
  file: TasksFile,
  options: {
    palette: Palette;
    path: string;
    cached: boolean;
    maxExcluded?: number;
    /** The project's language as a person says it (`Python`, `Go`). */
    language?: string;
  },
): string {
  const p = options.palette;
  const out: string[] = [];
  const head = file.repository.head.slice(0, 10);
  out.push(
    `${p.bold(plural(file.tasks.length, "task"))} from ${plural(file.examined, "change")} on ` +
      `${
        file.repository.branches?.map((b) => b.name).join(", ") ?? file.repository.branch
      } (HEAD ${head})` + mergedLines(file.repository.merged),
  );
  if (file.tasks.length) out.push("");
  const width = Math.max(0, ...file.tasks.map((t) => t.id.length));
  for (const task of file.tasks) {
    const pad = " ".repeat(width + 2);
    out.push(`  ${p.accent(task.id.padEnd(width))}  ${task.title}`);
    out.push(`  ${pad}${p.dim("source:")} ${task.sourceFiles.join(", ")}`);
    out.push(
      `  ${pad}${p.dim("tests:")} ${testsOf(task, 3, p.dim)}  ` +
        `${p.dim("statement:")} ${task.statementSource}` +
        (task.linkedIssue ? ` (issue #${task.linkedIssue})` : ""),
    );
  }
  const left = Object.values(file.counts).reduce((a, b) => a + b, 0);
  out.push("", `${p.bold(`Left out ${left} of ${plural(file.examined, "change")}`)}:`);
  const countWidth = Math.max(1, ...Object.values(file.counts).map((n) => String(n).length));
  for (const [reason, count] of Object.entries(file.counts)) {
    const text = reasonText(reason, options.language ?? "Python");
    out.push(`  ${String(count).padStart(countWidth)}  ${reason.padEnd(28)} ${p.dim(text)}`);
  }
  if (file.excluded.length) {
    const max = options.maxExcluded ?? 10;
    out.push("", `Fixes left out${file.excluded.length > max ? ` (newest ${max})` : ""}:`);
    for (const e of file.excluded.slice(0, max)) {
      out.push(
        `  ${p.dim(e.commit.slice(0, 10))}  ${e.reason}: ${e.title}${
          e.detail ? p.dim(` (${e.detail})`) : ""
        }`,
      );
    }
    if (file.excluded.length > max) {
      out.push(p.dim(`  ... ${file.excluded.length - max} more in ${options.path}`));
    }
  }
  if (file.branchNote) out.push("", `${p.warn("Other branches:")} ${file.branchNote}`);
  const sources = statementSources(file.tasks);
  const statements = [sources ? `${sources}.` : "", file.statementNote ?? ""].filter(Boolean);
  if (statements.length) out.push("", `${p.dim("Statements:")} ${statements.join(" ")}`);
  out.push(
    "",
    options.cached
      ? `${
        p.ok("Up to date:")
      } ${options.path} (HEAD and settings unchanged; --refresh mines again)`
      : `${p.ok("Wrote")} ${options.path}`,
  );
  return out.join("\n");
}

/** Mine tasks and print them (or tasks.json with --json). */
export async function tasksCommand(
  { flags, io, signal }: CommandContext<"tasks">,
): Promise<number> {
  const project = await Project.load(flags.config ?? ".");
  const p = palette(io.color);
  const language = languageOf(project.config.project.language).label;
  let result: MineResult;
  {
    await using _lock = await project.results.lock();
    if (io.interactive && !flags.json) {
      io.err(p.dim(`Mining the history of ${project.repository}...`));
    }
    result = await mineAll(project, { refresh: flags.refresh, signal });
  }
  if (flags.why !== undefined) {
    const decision = await whyCommit(
      project.repository,
      result.file,
      flags.why,
      project.config.tasks.until,
    );
    io.out(flags.json ? JSON.stringify(decision, null, 2) : renderWhy(decision, p, language));
    return 0;
  }
  if (flags.json) {
    io.out(JSON.stringify(result.file, null, 2));
    return 0;
  }
  io.out(renderTasks(result.file, {
    palette: p,
    path: project.results.display("tasks.json"),
    cached: result.cached,
    language,
  }));
  return 0;
}

const RULE_WORDS: Record<string, string> = {
  title: "its title",
  type: "its conventional-commit type",
  changelog: "its changelog entry",
  label: "GitHub's labels",
  diff: "its diff",
};

/** Why one commit is a task or was left out, for the terminal (pure: no printing). */
export function renderWhy(decision: CommitDecision, p: Palette, language: string): string {
  const sha = p.accent(decision.commit.slice(0, 10));
  switch (decision.kind) {
    case "task": {
      const t = decision.task;
      const lines = [`${sha} is task ${p.bold(t.id)}: ${t.title}`];
      for (const e of t.evidence ?? []) {
        lines.push(
          `  ${e.says === "bug" ? "a bug fix" : "a feature"} by ${RULE_WORDS[e.rule]}: ${e.detail}`,
        );
      }
      lines.push(`  source: ${t.sourceFiles.join(", ")}`);
      lines.push(`  tests: ${testsOf(t, 5)}`);
      lines.push(
        `  statement: from ${
          t.statementSource === "commit" ? "the commit's title" : `the ${t.statementSource}`
        }`,
      );
      return lines.join("\n");
    }
    case "excluded":
    case "left-out": {
      const { reason, detail } = decision.kind === "excluded" ? decision.exclusion : decision;
      const title = decision.kind === "excluded" ? decision.exclusion.title : decision.title;
      const lines = [`${sha} was left out: ${p.bold(reason)} (${reasonText(reason, language)})`];
      lines.push(`  ${title}`);
      // The compact record says `type refactor`: in words, for a person.
      const type = detail?.match(/^type (\S+)$/)?.[1];
      if (type) lines.push(`  a conventional commit of type ${type}, which fixes no bug`);
      else if (detail) lines.push(`  ${detail}`);
      else if (reason === "not-a-fix") {
        lines.push("  its title has no fix word, and no changelog entry or type says bug fix");
      }
      return lines.join("\n");
    }
    case "not-walked":
      return `${sha} was not judged: ${decision.why}\n  ${decision.title}`;
    default: {
      const never: never = decision;
      throw new Error(`unhandled decision ${JSON.stringify(never)}`);
    }
  }
}
