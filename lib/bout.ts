/**
 * `Bout`: the whole pipeline as one object — mine, ground truth, race, cross-examine, judge, score,
 * report — resumable at every stage because every unit of work is saved as it finishes and skipped
 * when it is already there for the same inputs.
 *
 * @example
 * ```ts
 * import { Bout, renderMarkdown } from "../main.ts";
 * const report = await (await Bout.load(".")).run();
 * console.log(renderMarkdown(report));
 * ```
 *
 * @module
 */

import { basename } from "node:path";
import type { CodingAgent } from "../adapters/agent.ts";
import type { AgentEntry, Config } from "./config.ts";
import { BugboutError } from "./errors.ts";
import { examineAll, readMatrices } from "./examine/mod.ts";
import { judgeAll, readVerdicts } from "./judge/mod.ts";
import { mineAll, readTasks, TASKS_FILE } from "./mine/mod.ts";
import { oracleAll, readOracles } from "./oracle/mod.ts";
import { Project } from "./project.ts";
import type { ProjectTools } from "./lang/mod.ts";
import {
  loadTaskAttempts,
  raceAll,
  type RaceProgress,
  racersFromConfig,
  type RaceSummary,
} from "./race/mod.ts";
import type { Attempt, Task, TasksFile } from "./records.ts";
import {
  buildReport,
  detectableText,
  renderHtml,
  renderJson,
  renderMarkdown,
  type Report,
  type ReportInput,
  smallestDetectable,
  writeArtifacts,
} from "./report/mod.ts";
import type { Artifacts } from "./report/mod.ts";
import { openSandbox } from "./sandbox/mod.ts";
import type { Sandbox } from "./sandbox/types.ts";
import { readResolutions, scoreAll } from "./score/mod.ts";
import { projectTools, type TaskProgress } from "./testbed/mod.ts";
import { prepareShard, type Shard, shardLabel } from "./shard/mod.ts";

/** The stages of a bout, in order. */
export const STAGES = ["mine", "oracle", "race", "examine", "judge", "score", "report"] as const;
/** A stage of a bout. */
export type Stage = typeof STAGES[number];

/** What a bout tells its caller while it runs. */
export type BoutEvent =
  | { kind: "stage-start"; stage: Stage }
  | { kind: "stage-end"; stage: Stage; summary: string; ms: number }
  | { kind: "race"; event: RaceProgress }
  | { kind: "tasks"; stage: "oracle" | "examine" | "score"; event: TaskProgress<unknown> }
  | { kind: "note"; text: string };

/** Options of {@linkcode Bout.run}. */
export interface BoutRunOptions {
  /** Only these task ids (later stages still report every task that has results). */
  tasks?: string[];
  /** Stop after mining and ground truth. */
  tasksOnly?: boolean;
  /** Run no agent: re-examine, re-judge and re-score what is there. */
  noRace?: boolean;
  /** Run quota and infrastructure failures again. */
  retryFailed?: boolean;
  /** Mine again even when tasks.json is up to date. */
  refresh?: boolean;
  /** Ctrl-C: stop starting work, keep everything finished. */
  signal?: AbortSignal;
  /** Progress. */
  onEvent?: (event: BoutEvent) => void;
}

/** Options of {@linkcode Bout.runShard}. */
export interface ShardRunOptions {
  /** Run quota and infrastructure failures again. */
  retryFailed?: boolean;
  /** Ctrl-C: stop starting work, keep everything finished. */
  signal?: AbortSignal;
  /** Progress. */
  onEvent?: (event: BoutEvent) => void;
}

/** What {@linkcode Bout.runShard} did. */
export interface ShardRun {
  /** The share raced. */
  shard: Shard;
  /** Attempts in the share, and in the whole race. */
  attempts: { share: number; race: number };
  /** The share's expected cost, milliseconds (see `attemptCostMs`). */
  costMs: number;
  /** What the race did. */
  race: RaceSummary;
  /** Where the shard's results are (the project's `.bugbout/`, with its `shard.json`). */
  results: string;
  /** One line for a person. */
  summary: string;
}

/** Run one stage's work, telling `emit` when it starts and ends and what it did. */
async function timedStage<T>(
  emit: (event: BoutEvent) => void,
  name: Stage,
  work: () => Promise<[T, string]>,
): Promise<T> {
  emit({ kind: "stage-start", stage: name });
  const started = performance.now();
  const [value, summary] = await work();
  emit({ kind: "stage-end", stage: name, summary, ms: performance.now() - started });
  return value;
}

/** Agents given in code instead of `bugbout.toml`. */
export interface BoutAgents {
  /** Contestants: they fix bugs. */
  contestants?: CodingAgent[];
  /** Examiners: they write tests only. */
  examiners?: { agent: CodingAgent; assignment?: "reproduce" | "specify" }[];
  /** A sandbox to use instead of the one `[run] sandbox` names. */
  sandbox?: Sandbox;
}

function entryFor(
  agent: CodingAgent,
  role: "contestant" | "examiner",
  assignment?: "reproduce" | "specify",
): AgentEntry {
  return {
    type: agent.type,
    name: agent.name,
    model: agent.model,
    vendor: agent.vendor,
    quota: agent.quota,
    options: {},
    agent,
    role,
    assignment: role === "examiner" ? assignment ?? "reproduce" : undefined,
  };
}

/** A bout over one project. */
export class Bout {
  /** The project under test. */
  readonly project: Project;
  #sandbox?: Sandbox;

  /**
   * A bout over `project`. Agents given here replace the `[[contestants]]` / `[[examiners]]` of
   * `bugbout.toml` (when given).
   */
  constructor(project: Project, agents: BoutAgents = {}) {
    const config: Config = { ...project.config };
    if (agents.contestants) {
      config.contestants = agents.contestants.map((a) => entryFor(a, "contestant"));
    }
    if (agents.examiners) {
      config.examiners = agents.examiners.map((e) => entryFor(e.agent, "examiner", e.assignment));
    }
    const names = [...config.contestants, ...config.examiners].map((a) => a.name);
    const twice = names.find((n, i) => names.indexOf(n) !== i);
    if (twice) throw new BugboutError(`Two agents are named "${twice}"; names must be unique.`);
    this.project = new Project(config, project.repository, project.home);
    this.#sandbox = agents.sandbox;
  }

  /** Load the project whose `bugbout.toml` is at `path` (a directory or the file). */
  static async load(path = ".", agents: BoutAgents = {}): Promise<Bout> {
    return new Bout(await Project.load(path), agents);
  }

  async #sandboxFor(): Promise<Sandbox> {
    this.#sandbox ??= await openSandbox(this.project.config.run.sandbox);
    return this.#sandbox;
  }

  /** Run every stage (or those the options ask for) and return the report. */
  async run(options: BoutRunOptions = {}): Promise<Report> {
    const project = this.project;
    if (!options.tasksOnly && project.config.contestants.length === 0) {
      throw new BugboutError(
        `${project.config.file} names no [[contestants]]: nothing would race.`,
        {
          hint:
            "Add an agent (`bugbout init` lists the ones on PATH), or run with --tasks-only to " +
            "mine and compute the ground truth alone.",
        },
      );
    }
    const emit = options.onEvent ?? (() => {});
    const signal = options.signal;
    await project.results.ensure();
    await using _lock = await project.results.lock();
    const stage = async <T>(name: Stage, work: () => Promise<[T, string]>): Promise<T> => {
      emit({ kind: "stage-start", stage: name });
      const started = performance.now();
      const [value, summary] = await work();
      emit({ kind: "stage-end", stage: name, summary, ms: performance.now() - started });
      return value;
    };
    const mining = await stage("mine", async () => {
      const result = await mineAll(project, { refresh: options.refresh, signal });
      return [result, result.summary];
    });
    // Said by the run that read the statements (or failed to), not by every run after it.
    if (mining.note) emit({ kind: "note", text: mining.note });
    const mined = mining.file;
    const selected = this.#select(mined, options.tasks);
    const sandbox = await this.#sandboxFor();
    // What every tree shares (a Python project's environment) is made once, for every stage.
    const tools = await this.#tools(emit, signal);
    const shared = { signal, sandbox, tools };
    let scorable = 0;
    await stage("oracle", async () => {
      const result = await oracleAll(project, selected, {
        ...shared,
        only: options.tasks,
        retryFailed: options.retryFailed,
        onProgress: (event) => emit({ kind: "tasks", stage: "oracle", event }),
      });
      scorable = selected.filter((t) => result.file.oracles[t.id]?.status === "scorable").length;
      return [result, result.summary];
    });
    if (options.tasksOnly) return await this.#report(stage, mined);
    if (!options.noRace && project.config.contestants.length >= 2) {
      // Before anyone spends quota: how big a difference this many tasks can show at all.
      const power = smallestDetectable(scorable, project.config.run.repeats);
      emit({ kind: "note", text: `Power: ${detectableText(power)}.` });
    }
    if (!options.noRace) {
      await stage("race", async () => {
        const result = await raceAll(project, selected, {
          ...shared,
          retryFailed: options.retryFailed,
          onProgress: (event) => emit({ kind: "race", event }),
          onWarning: (text) => emit({ kind: "note", text }),
        });
        for (const failure of result.failures) emit({ kind: "note", text: failure });
        return [result, result.summary];
      });
    }
    await stage("examine", async () => {
      const result = await examineAll(project, selected, {
        ...shared,
        onProgress: (event) => emit({ kind: "tasks", stage: "examine", event }),
      });
      return [result, result.summary];
    });
    await stage("judge", async () => {
      const result = await judgeAll(project, mined.tasks);
      return [result, result.summary];
    });
    await stage("score", async () => {
      const result = await scoreAll(project, selected, {
        ...shared,
        onProgress: (event) => emit({ kind: "tasks", stage: "score", event }),
      });
      return [result, result.summary];
    });
    return await this.#report(stage, mined);
  }

  /**
   * Race share `shard` of the bout's attempts and stop: no cross-examination, judging or scoring,
   * which run once on the merged results (`bugbout merge`, then `run --no-race`). The tasks and
   * their ground truth are those a prep run (`run --tasks-only`) left in `.bugbout/`, read as they
   * are so that every shard splits the same race; `shard.json` records the share. Running it
   * again carries on where it stopped.
   */
  async runShard(shard: Shard, options: ShardRunOptions = {}): Promise<ShardRun> {
    const project = this.project;
    if (project.config.contestants.length === 0) {
      throw new BugboutError(
        `${project.config.file} names no [[contestants]]: nothing would race.`,
      );
    }
    const emit = options.onEvent ?? (() => {});
    const signal = options.signal;
    await project.results.ensure();
    await using _lock = await project.results.lock();
    const racers = racersFromConfig(project);
    const prepared = await timedStage(emit, "mine", async () => {
      const prepared = await prepareShard(project, shard, racers);
      const share = prepared.plan.shards[shard.index - 1];
      const all = prepared.plan.shards.reduce((n, s) => n + s.units.length, 0);
      return [
        prepared,
        `shard ${shardLabel(shard)}: ${share.units.length} of ${all} attempt(s) on ` +
        `${prepared.tasks.tasks.length} task(s) from ${project.results.display(TASKS_FILE)} ` +
        "(the prep run's tasks and ground truth, not computed again)",
      ];
    });
    const sandbox = await this.#sandboxFor();
    const tools = await this.#tools(emit, signal);
    const race = await timedStage(emit, "race", async () => {
      const result = await raceAll(project, prepared.tasks.tasks, {
        signal,
        sandbox,
        tools,
        racers,
        retryFailed: options.retryFailed,
        only: (task, name) => prepared.owns(task.id, name),
        onProgress: (event) => emit({ kind: "race", event }),
        onWarning: (text) => emit({ kind: "note", text }),
      });
      for (const failure of result.failures) emit({ kind: "note", text: failure });
      return [result, result.summary];
    });
    const share = prepared.plan.shards[shard.index - 1];
    return {
      shard,
      attempts: {
        share: share.units.length,
        race: prepared.plan.shards.reduce((n, s) => n + s.units.length, 0),
      },
      costMs: share.costMs,
      race,
      results: project.results.path,
      summary: `shard ${shardLabel(shard)}: ${race.summary}`,
    };
  }

  /** The language's tools for the bout, what every tree shares prepared (saying so when slow). */
  async #tools(emit: (event: BoutEvent) => void, signal?: AbortSignal): Promise<ProjectTools> {
    const tools = projectTools(this.project);
    // Building an environment the first time can take minutes: say so when it builds one (never
    // when it reuses one).
    const preparing = tools.preparing;
    await tools.prepare(
      signal,
      preparing === undefined ? undefined : () => emit({ kind: "note", text: preparing }),
    );
    return tools;
  }

  #select(file: TasksFile, only?: string[]): Task[] {
    if (!only?.length) return file.tasks;
    const known = new Set(file.tasks.map((t) => t.id));
    const unknown = only.filter((id) => !known.has(id));
    if (unknown.length) {
      throw new BugboutError(`No task ${unknown.join(", ")} in tasks.json.`, {
        hint: `Known tasks: ${
          [...known].join(", ") || "none"
        }. Run \`bugbout tasks\` to list them.`,
      });
    }
    return file.tasks.filter((t) => only.includes(t.id));
  }

  async #report(
    stage: <T>(name: Stage, work: () => Promise<[T, string]>) => Promise<T>,
    tasks: TasksFile,
  ): Promise<Report> {
    return await stage("report", async () => {
      const input = await this.#input(tasks);
      const report = buildReport(input);
      const results = this.project.results;
      await results.write("report.json", JSON.parse(renderJson(report)));
      await Deno.writeTextFile(results.file("report.md"), renderMarkdown(report));
      await Deno.writeTextFile(results.file("report.html"), renderHtml(report));
      const site = await writeArtifacts(results, this.project.repository, input, report);
      return [
        report,
        `wrote ${results.display("report.md")}, report.json, report.html, ` +
        `report/ (${site.pages} pages), junit/ (${site.junit.length} files)`,
      ];
    });
  }

  /**
   * Build the report from what `.bugbout/` holds now, running nothing. Before any bout there is
   * nothing to report: that throws, and says to run one.
   */
  async report(): Promise<Report> {
    return await this.#build(await readTasks(this.project, { for: "report" }));
  }

  /**
   * Write the report's site (`.bugbout/report/`, a page per task and per attempt) and each
   * contestant's JUnit XML (`.bugbout/junit/`) from what `.bugbout/` holds now, running nothing;
   * returns where. Before any bout this throws, and says to run one.
   */
  async site(): Promise<Artifacts> {
    const input = await this.#input(await readTasks(this.project, { for: "report" }));
    const report = buildReport(input);
    return await writeArtifacts(this.project.results, this.project.repository, input, report);
  }

  async #build(tasks: TasksFile): Promise<Report> {
    return buildReport(await this.#input(tasks));
  }

  async #input(tasks: TasksFile): Promise<ReportInput> {
    const project = this.project;
    const oracles = await readOracles(project);
    const ids = tasks.tasks.map((t) => t.id);
    const attempts: Attempt[] = [];
    for (const id of ids) attempts.push(...(await loadTaskAttempts(project.results, id)).values());
    const matrices = await readMatrices(project, ids);
    const verdicts = (await readVerdicts(project))?.verdicts ?? {};
    const resolutions = (await readResolutions(project)).resolutions;
    const agents = project.agents.map((a) => ({
      name: a.name,
      type: a.type,
      model: a.model,
      vendor: a.vendor,
      role: a.role,
      cutoff: a.cutoff,
    }));
    return {
      project: {
        name: basename(project.repository).replace(/\.git$/, "").replace(/-[0-9a-f]{16}$/, ""),
        repository: project.config.project.remote
          ? project.config.project.repository
          : project.repository,
        policy: project.config.judge.policy,
      },
      tasks,
      oracles,
      attempts,
      matrices,
      verdicts,
      resolutions,
      agents,
      repeats: project.config.run.repeats,
      generatedAt: new Date().toISOString(),
    };
  }
}
