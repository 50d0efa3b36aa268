/**
 * Lanes: jobs queue per quota. Jobs that share a quota take turns (up to that quota's limit at once);
 * different quotas run in parallel. An abort stops new jobs from starting; running ones are left to
 * their own abort handling.
 *
 * @module
 */

/** One unit of work in a lane. */
export interface LaneJob<T> {
  /** The quota (lane) this job belongs to. */
  quota: string;
  /** Do the work. */
  run(): Promise<T>;
}

/** The outcome of each job, in the order given; `undefined` for jobs that never started. */
export type LaneResults<T> = (
  | { status: "done"; value: T }
  | { status: "failed"; error: unknown }
  | undefined
)[];

/**
 * Run `jobs` with at most `limits[quota] ?? 1` at once per quota, and at most `total` at once
 * overall. Resolves when every started job has settled.
 */
export async function runLanes<T>(
  jobs: LaneJob<T>[],
  options: { limits?: Record<string, number>; total?: number; signal?: AbortSignal } = {},
): Promise<LaneResults<T>> {
  const results: LaneResults<T> = new Array(jobs.length).fill(undefined);
  const queues = new Map<string, number[]>();
  jobs.forEach((job, index) => {
    const queue = queues.get(job.quota) ?? [];
    queue.push(index);
    queues.set(job.quota, queue);
  });
  const running = new Map<string, number>();
  const total = options.total ?? Infinity;
  let active = 0;
  return await new Promise((resolve) => {
    const pump = () => {
      if (!options.signal?.aborted) {
        let started = true;
        while (started && active < total) {
          started = false;
          for (const [quota, queue] of queues) {
            if (active >= total) break;
            const limit = options.limits?.[quota] ?? 1;
            if (queue.length === 0 || (running.get(quota) ?? 0) >= limit) continue;
            const index = queue.shift()!;
            running.set(quota, (running.get(quota) ?? 0) + 1);
            active++;
            started = true;
            jobs[index].run().then(
              (value) => (results[index] = { status: "done", value }),
              (error) => (results[index] = { status: "failed", error }),
            ).finally(() => {
              running.set(quota, running.get(quota)! - 1);
              active--;
              pump();
            });
          }
        }
      }
      const waiting = [...queues.values()].some((q) => q.length > 0);
      if (active === 0 && (!waiting || options.signal?.aborted)) resolve(results);
    };
    options.signal?.addEventListener("abort", pump, { once: true });
    pump();
  });
}
