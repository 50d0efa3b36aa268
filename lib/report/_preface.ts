/**
 * What the report says before its sections: how the attempts were confined (from their own
 * records, not from today's configuration), and, when no task was scored, why and what to do.
 *
 * @module
 */

import { plural } from "../words.ts";
import type { Context } from "./_context.ts";
import { type Discovery, SANDBOX_MODES, type SandboxMode, type SandboxUse } from "./types.ts";

/** The warning every renderer shows when every attempt ran without a sandbox. */
export const UNSANDBOXED_WARNING: string =
  'Every attempt of this bout ran without a sandbox (sandbox = "none", or sandboxed = false): ' +
  "agents ran unconfined, with the network and this machine's files in reach. Their results " +
  "may not be comparable, and they could have read the fix from elsewhere.";

/**
 * The sandboxes the attempts recorded. An attempt that ended in an infrastructure error is left
 * out: its agent may never have started. The warning names the agents that ran unconfined, or
 * says that every attempt did.
 */
export function sandboxUse(ctx: Context): SandboxUse {
  const attempts: Record<SandboxMode, number> = { bubblewrap: 0, seatbelt: 0, none: 0 };
  const unconfined = new Set<string>();
  let ran = 0;
  for (const byAgent of ctx.attempts.values()) {
    for (const attempt of byAgent.values()) {
      if (attempt.status === "infra-error") continue;
      ran++;
      attempts[attempt.sandbox]++;
      if (attempt.sandbox === "none") unconfined.add(attempt.agent);
    }
  }
  const used = SANDBOX_MODES.filter((m) => attempts[m] > 0);
  const mode = used.length === 0 ? "unused" : used.length === 1 ? used[0] : "mixed";
  return { mode, attempts, warning: sandboxWarning(ctx, attempts.none, ran, unconfined) };
}

function sandboxWarning(
  ctx: Context,
  none: number,
  ran: number,
  unconfined: ReadonlySet<string>,
): string | null {
  if (none === 0) return null;
  if (none === ran) return UNSANDBOXED_WARNING;
  // Configuration order first, then any agent no longer configured.
  const configured = ctx.input.agents.map((a) => a.name).filter((n) => unconfined.has(n));
  const names = [...configured, ...[...unconfined].filter((n) => !configured.includes(n))];
  return `${names.join(", ")} ran outside bugbout's sandbox on ${none} of ${
    plural(ran, "attempt")
  } (sandboxed = false, or sandbox = "none" when they ran): unconfined, with the network and ` +
    "this machine's files in reach, so their results may not be comparable with the others'.";
}

/** Shown after the reasons when some task still waits for its ground truth or its score. */
const RUN_HINT = "Run `bugbout run` to establish the ground truth, race the agents and score them.";

/**
 * When no task was scored: a sentence that says so, why (every reason, counted), and what to do.
 * Null when some task was scored.
 */
export function noScoredTask(ctx: Context, discovery: Discovery): string | null {
  if (ctx.scored.length > 0) return null;
  const lead = "No task was scored, so every number in this report is empty.";
  if (discovery.tasks === 0) {
    if (discovery.examined === 0) return `${lead} No task has been mined yet. ${RUN_HINT}`;
    return `${lead} None of the ${
      plural(discovery.examined, "commit")
    } examined became a task: "How the tasks were found" says why each was left out.`;
  }
  const counts = new Map<string, number>();
  for (const u of discovery.unscored) counts.set(u.reason, (counts.get(u.reason) ?? 0) + 1);
  const reasons = [...counts].sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]));
  const shown = reasons.slice(0, 4).map(([reason, n]) => `${reason} (${n})`);
  if (reasons.length > shown.length) shown.push(`${reasons.length - shown.length} other reasons`);
  // A task without ground truth or without a score waits for `bugbout run`.
  const { oracles, resolutions } = ctx.input;
  const waiting = ctx.taskIds.some((id) => !oracles.oracles[id] || !resolutions[id]);
  const todo = waiting ? RUN_HINT : `"How the tasks were found" gives each task's reason.`;
  return `${lead} Of ${plural(discovery.tasks, "task")}: ${shown.join("; ")}. ${todo}`;
}
