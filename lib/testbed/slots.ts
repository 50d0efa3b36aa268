/**
 * A counting semaphore: at most `size` pytest sessions (or any other work) at a time, shared by
 * every task of a stage so that `[run] jobs` bounds the whole machine, not each task; and the way
 * a stage waits for all its tasks.
 *
 * No permissions needed.
 *
 * @module
 */

import { InterruptedError } from "../errors.ts";

/** At most `size` holders at a time; the rest wait in order. */
export class Slots {
  #free: number;
  #waiting: (() => void)[] = [];

  /** A semaphore of `size` slots (at least one). */
  constructor(size: number) {
    this.#free = Math.max(1, Math.floor(size));
  }

  /** Run `work` while holding a slot. */
  async use<T>(work: () => Promise<T>): Promise<T> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    }
  }
}

/**
 * Wait for every task of a stage to settle (so none is left running), then throw: an
 * InterruptedError when the stage was stopped, else the first failure.
 */
export async function settleAll(
  work: readonly Promise<unknown>[],
  signal: AbortSignal | undefined,
): Promise<void> {
  const settled = await Promise.allSettled(work);
  if (signal?.aborted) throw new InterruptedError();
  const failure = settled.find((s) => s.status === "rejected");
  if (failure) throw (failure as PromiseRejectedResult).reason;
}
