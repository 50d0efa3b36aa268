/**
 * The per-task stage driver that ground truth, cross-examination and scoring share: choose the
 * tasks, sweep what killed runs left, build the test environment and open the sandbox once, skip
 * every task whose saved result was made from the same inputs, run the rest side by side under
 * `[run] jobs`, save each result the moment it is done, report progress, and on Ctrl-C let every
 * task settle before throwing.
 *
 * A stage says only what is its own: what a task's work depends on, its inputs key, where its
 * result is saved, and the work itself.
 *
 * Requires `--allow-run` (uv, the sandbox), `--allow-read`, `--allow-write` (the results
 * directory, `BUGBOUT_HOME`) and `--allow-env`.
 *
 * @module
 */

import { removeTree } from "../checkout.ts";
import { InterruptedError } from "../errors.ts";
import { OWNED, ownedSuffix, sweepDead } from "../pids.ts";
import type { Project } from "../project.ts";
import { languageOf, type ProjectTools } from "../lang/mod.ts";
import type { RunSummary, Task } from "../records.ts";
import { openSandbox } from "../sandbox/mod.ts";
import type { Sandbox } from "../sandbox/types.ts";
import { settleAll, Slots } from "./slots.ts";

/**
 * What a per-task stage reports as it goes; `R` is its result for one task. `prepare` names each
 * task as its inputs are read; `plan` comes once every task is known to be reused, skipped or to
 * run; then, per task that runs, `start`, a `session` as each test session starts and a `run` as it
 * ends, and `done`.
 */
export type TaskProgress<R> =
  | { event: "prepare"; task: string }
  | { event: "plan"; run: number; cached: number; skipped: number }
  | { event: "cached"; task: string; result: R }
  | { event: "skipped"; task: string; reason: string }
  | { event: "start"; task: string; trees?: number }
  | { event: "session"; task: string; tree: string }
  | { event: "run"; task: string; run: RunSummary }
  | { event: "done"; task: string; result: R };

/** Options shared by the stages that run tests. */
export interface StageOptions<R> {
  /** Stop: runs in flight are killed, finished tasks stay saved, then it throws. */
  signal?: AbortSignal;
  /** Called for every task and run as they start and finish. */
  onProgress?: (event: TaskProgress<R>) => void;
  /** Only these task ids. */
  only?: readonly string[];
  /** The sandbox; by default the one `[run] sandbox` names, checked. */
  sandbox?: Sandbox;
  /** How tests run; by default the tools of the project's language, made for this stage. */
  tools?: ProjectTools;
}

/** The tools of the project's language, for one stage. */
export function projectTools(project: Project): ProjectTools {
  return languageOf(project.config.project.language).tools(project);
}

/**
 * What shapes every test run a stage makes besides each tree's environment: part of each stage's
 * inputs key, so a saved result is reused only while these are unchanged.
 */
export function runInputs(project: Project, tools: ProjectTools) {
  const c = project.config;
  return {
    tools: tools.key,
    testEnv: c.project.env,
    reruns: c.tasks.reruns,
    testTimeout: c.run.testTimeout,
    testMemory: c.run.testMemory,
  };
}

/** What the driver hands a stage's work for one task. */
export interface TaskContext {
  /** The task's inputs key (to store in its result). */
  key: string;
  /** How tests run: each tree's runner and environment. */
  tools: ProjectTools;
  /** The sandbox every session runs in. */
  sandbox: Sandbox;
  /** Bounds pytest sessions across every task of the stage. */
  slots: Slots;
  /** A fresh working directory for this task, removed when the work ends. */
  work: string;
  /** Call after every pytest session. */
  onRun: (run: RunSummary) => void;
  /** Call as every pytest session starts, with the tree it runs on. */
  onStart: (tree: string) => void;
  /** Stop. */
  signal?: AbortSignal;
}

/** One per-task stage, as the driver runs it. */
export interface TaskStage<I, R extends { inputsKey: string }> {
  /** The stage's name: its working directories live under the project's cache by this name. */
  name: string;
  /** What a task's work depends on, or why the task has nothing to do (a string). */
  inputs(task: Task, tools: ProjectTools): Promise<I | string>;
  /** The inputs key of a task's result. */
  key(task: Task, inputs: I, tools: ProjectTools): string;
  /** The task's saved result, if any. */
  saved(task: Task): Promise<R | undefined> | R | undefined;
  /** Whether a saved result made from the same inputs may stand (not an infrastructure error). */
  reusable(saved: R): boolean;
  /** How many trees the task's work builds, for progress. */
  trees?(task: Task, inputs: I): number;
  /** Do the task's work. */
  run(task: Task, inputs: I, context: TaskContext): Promise<R>;
  /** Save one task's result (never called twice at once). */
  save(task: Task, result: R): Promise<void>;
}

/** What a stage did, task by task. */
export interface StageRun<R> {
  /** Results of the chosen tasks (new or reused), in task order. */
  results: Map<string, R>;
  /** Tasks whose work ran. */
  made: Set<string>;
  /** Tasks whose saved result stood. */
  reused: number;
  /** Tasks with nothing to do. */
  skipped: number;
  /** Test runs made (pytest sessions for Python). */
  sessions: number;
}

/** Run a per-task stage over `tasks` (see the module's documentation). */
export async function runTaskStage<I, R extends { inputsKey: string }>(
  project: Project,
  tasks: readonly Task[],
  stage: TaskStage<I, R>,
  options: StageOptions<R> = {},
): Promise<StageRun<R>> {
  const { signal } = options;
  const emit = options.onProgress ?? (() => {});
  const chosen = options.only ? tasks.filter((t) => options.only!.includes(t.id)) : [...tasks];
  const outcome: StageRun<R> = {
    results: new Map(),
    made: new Set(),
    reused: 0,
    skipped: 0,
    sessions: 0,
  };
  if (chosen.length === 0) return outcome;
  await project.results.ensure();
  const workTop = project.cacheDir(stage.name);
  await sweepDead(workTop, OWNED, removeTree);
  const tools = options.tools ?? projectTools(project);
  const inputs = new Map<string, I | string>();
  for (const task of chosen) {
    // Reading a task's inputs can take a while (a tree's environment may be prepared to key it):
    // progress says which task it is on.
    emit({ event: "prepare", task: task.id });
    inputs.set(task.id, await stage.inputs(task, tools));
  }
  const needed = [...inputs.values()].some((i) => typeof i !== "string");
  // What every tree shares, and the sandbox, are made once, before tasks run side by side.
  if (needed) await tools.prepare(signal);
  const sandbox = needed
    ? options.sandbox ?? await openSandbox(project.config.run.sandbox)
    : undefined;
  const jobs = project.config.run.jobs;
  const slots = new Slots(jobs);
  const taskSlots = new Slots(jobs);
  const done = new Map<string, R>();
  let saving = Promise.resolve();

  // First what every task needs (reused, skipped or run), so progress can count what is left.
  const todo: { task: Task; input: I; key: string }[] = [];
  for (const task of chosen) {
    const input = inputs.get(task.id)!;
    if (typeof input === "string" || !sandbox) {
      outcome.skipped++;
      emit({ event: "skipped", task: task.id, reason: String(input) });
      continue;
    }
    const key = stage.key(task, input, tools);
    const saved = await stage.saved(task);
    if (saved?.inputsKey === key && stage.reusable(saved)) {
      done.set(task.id, saved);
      outcome.reused++;
      emit({ event: "cached", task: task.id, result: saved });
      continue;
    }
    todo.push({ task, input, key });
  }
  emit({ event: "plan", run: todo.length, cached: outcome.reused, skipped: outcome.skipped });

  const one = async ({ task, input, key }: typeof todo[number]) => {
    if (!sandbox) return;
    await taskSlots.use(async () => {
      if (signal?.aborted) throw new InterruptedError();
      emit({ event: "start", task: task.id, trees: stage.trees?.(task, input) });
      const work = project.cacheDir(stage.name, `${task.id}${ownedSuffix()}`);
      let result: R;
      try {
        result = await stage.run(task, input, {
          key,
          tools,
          sandbox,
          slots,
          work,
          signal,
          onRun: (run) => {
            outcome.sessions++;
            emit({ event: "run", task: task.id, run });
          },
          onStart: (tree) => emit({ event: "session", task: task.id, tree }),
        });
      } finally {
        await removeTree(work);
      }
      saving = saving.then(() => stage.save(task, result));
      await saving;
      done.set(task.id, result);
      outcome.made.add(task.id);
      emit({ event: "done", task: task.id, result });
    });
  };
  // Each task waits for its own save, so everything finished is on disk when this returns.
  await settleAll(todo.map(one), signal);
  for (const task of chosen) {
    if (done.has(task.id)) outcome.results.set(task.id, done.get(task.id)!);
  }
  return outcome;
}
