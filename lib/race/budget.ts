/**
 * `[run.budget]`: what each agent may spend over the whole bout, in dollars or tokens, counted
 * from what its attempts reported. Once an agent's spending reaches its budget, its attempts that
 * have not started are saved as `budget` instead of run; raising the budget runs them next time.
 * Attempts already running when the budget runs out finish, so the spending can overshoot by
 * what they spend.
 *
 * Pure; no permissions.
 *
 * @module
 */

import type { Budget } from "../config.ts";
import { type Attempt, tokensOf } from "../records.ts";

/** What each agent has spent so far, against its budget. */
export class Spending {
  #budgets: Readonly<Record<string, Budget>>;
  #spent = new Map<string, { usd: number; tokens: number; unpriced: number }>();

  /** Spending under these budgets (by agent name), from nothing. */
  constructor(budgets: Readonly<Record<string, Budget>>) {
    this.#budgets = budgets;
  }

  /** Count what an attempt reported against its agent. */
  add(attempt: Pick<Attempt, "agent" | "costUsd" | "tokens" | "status">): void {
    if (attempt.status === "budget") return;
    const spent = this.#spent.get(attempt.agent) ?? { usd: 0, tokens: 0, unpriced: 0 };
    if (attempt.costUsd !== undefined) spent.usd += attempt.costUsd;
    else spent.unpriced++;
    spent.tokens += tokensOf(attempt) ?? 0;
    this.#spent.set(attempt.agent, spent);
  }

  /** Why `agent` may not start another attempt, or undefined while its budget lasts. */
  spent(agent: string): string | undefined {
    const budget = this.#budgets[agent];
    if (!budget) return undefined;
    const spent = this.#spent.get(agent) ?? { usd: 0, tokens: 0, unpriced: 0 };
    if (budget.usd !== undefined && spent.usd >= budget.usd) {
      return `its budget of $${budget.usd} is spent ($${spent.usd.toFixed(2)} so far` +
        (spent.unpriced ? `, and ${spent.unpriced} attempt(s) that reported no cost)` : ")");
    }
    if (budget.tokens !== undefined && spent.tokens >= budget.tokens) {
      return `its budget of ${budget.tokens} tokens is spent (${spent.tokens} so far)`;
    }
    return undefined;
  }
}
