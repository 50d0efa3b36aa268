/**
 * The race tests' world: the demo project (`textkit`) built into a temporary directory, mined,
 * with the ground truth of one task (`chunk-partial`, issue #3) computed once; a `BUGBOUT_HOME`
 * of its own; and a project directory whose `bugbout.toml` each race rewrites with agents that
 * are real scripts.
 *
 * @module
 */

import { join } from "node:path";
import { mineAll } from "../../lib/mine/mod.ts";
import { oracleAll } from "../../lib/oracle/mod.ts";
import { Project } from "../../lib/project.ts";
import { ensureTestEnv, envRequest, type TestEnv } from "../../lib/lang/python/env.ts";
import {
  raceAll,
  type RaceOptions,
  type RaceProgress,
  type Racer,
  racersFromConfig,
  type RaceSummary,
} from "../../lib/race/mod.ts";
import { loadAttempt, loadPatches } from "../../lib/race/attempts.ts";
import type { Attempt, OraclesFile, Task } from "../../lib/records.ts";
import { openSandbox } from "../../lib/sandbox/mod.ts";
import type { Sandbox } from "../../lib/sandbox/types.ts";
import { buildDemo, fixByKey, type FixtureFix, type FixtureProject } from "../fixtures/projects.ts";
import { ENVS_DIR, toolsWith } from "../python/_shared.ts";

/** The demo fix every race in these tests is run on. */
export const FIX_KEY = "chunk-partial";

/** One `[[contestants]]` (or `[[examiners]]`) entry of a command agent. */
export interface AgentDef {
  name: string;
  command: string[];
  quota?: string;
  env?: Record<string, string>;
  stateDirs?: string[];
  examiner?: boolean;
}

/** The built, mined and oracled demo project, shared by the races of one test file. */
export interface RaceWorld extends AsyncDisposable {
  /** The temporary root holding everything. */
  tmp: string;
  /** The user's repository. */
  repo: string;
  /** Where \`bugbout.toml\` and \`.bugbout/\` live (outside the repository). */
  root: string;
  /** `BUGBOUT_HOME`. */
  home: string;
  /** Where the agents' scripts are written. */
  agents: string;
  fixture: FixtureProject;
  fix: FixtureFix;
  task: Task;
  oracles: OraclesFile;
  env: TestEnv;
  sandbox: Sandbox;
}

function toml(value: unknown): string {
  return JSON.stringify(value);
}

/** `[run]` settings of a race: its timeout, quotas and the agents' limits. */
export interface RunSettings {
  timeout: number;
  quotas?: Record<string, number>;
  /** `agent-processes`, `agent-memory` (MiB), `agent-disk` (MiB) and `agent-files`. */
  limits?: { processes?: number; memory?: number; disk?: number; files?: number };
  /** `[run] repeats`. */
  repeats?: number;
}

/** The text of a `bugbout.toml` over the world's repository with these agents. */
export function configText(world: RaceWorld, agents: AgentDef[], run: RunSettings): string {
  const lines = [
    "[project]",
    `source = ${toml(world.fixture.source)}`,
    `tests = ${toml(world.fixture.tests)}`,
    `repository = ${toml(world.repo)}`,
    "",
    "[run]",
    'sandbox = "auto"',
    `timeout = ${run.timeout}`,
  ];
  if (run.repeats) lines.push(`repeats = ${run.repeats}`);
  const limits = run.limits ?? {};
  if (limits.processes) lines.push(`agent-processes = ${limits.processes}`);
  if (limits.memory) lines.push(`agent-memory = ${limits.memory}`);
  if (limits.disk) lines.push(`agent-disk = ${limits.disk}`);
  if (limits.files) lines.push(`agent-files = ${limits.files}`);
  if (run.quotas) {
    lines.push("", "[run.quotas]");
    for (const [quota, limit] of Object.entries(run.quotas)) {
      lines.push(`${toml(quota)} = ${limit}`);
    }
  }
  for (const a of agents) {
    lines.push("", a.examiner ? "[[examiners]]" : "[[contestants]]", 'agent = "command"');
    lines.push(
      `name = ${toml(a.name)}`,
      'vendor = "scripted"',
      `quota = ${toml(a.quota ?? a.name)}`,
    );
    lines.push(`command = ${toml(a.command)}`);
    if (a.stateDirs) lines.push(`state-dirs = ${toml(a.stateDirs)}`);
    if (a.env) {
      lines.push(
        `env = { ${Object.entries(a.env).map(([k, v]) => `${k} = ${toml(v)}`).join(", ")} }`,
      );
    }
  }
  return lines.join("\n") + "\n";
}

/**
 * (Re)write the world's \`bugbout.toml\` with these agents and load the project with the world's
 * home. Every race of a world shares its results directory, as runs of one project do.
 */
export async function projectWith(
  world: RaceWorld,
  agents: AgentDef[],
  run: RunSettings,
): Promise<Project> {
  await Deno.mkdir(world.root, { recursive: true });
  await Deno.writeTextFile(join(world.root, "bugbout.toml"), configText(world, agents, run));
  return await Project.load(world.root, { home: world.home });
}

/** Race the configured agents of `project` on the world's task (`adapt` may change a racer). */
export async function raceAt(
  world: RaceWorld,
  project: Project,
  options: Partial<RaceOptions> = {},
  adapt: (racer: Racer) => Racer = (racer) => racer,
): Promise<{ summary: RaceSummary; events: RaceProgress[] }> {
  const events: RaceProgress[] = [];
  const racers = racersFromConfig(project).map(adapt);
  const summary = await raceAll(project, [world.task], {
    racers,
    sandbox: world.sandbox,
    tools: toolsWith(project, world.env),
    ...options,
    onProgress: (event) => {
      events.push(event);
      options.onProgress?.(event);
    },
  });
  return { summary, events };
}

/** A saved attempt and its patches, or a failed assertion when there is none. */
export async function attemptOf(
  world: RaceWorld,
  project: Project,
  agent: string,
): Promise<{ attempt: Attempt; source: string; tests: string; full: string }> {
  const attempt = await loadAttempt(project.results, world.task.id, agent);
  if (!attempt) throw new Error(`no attempt of ${agent} was saved`);
  return { attempt, ...await loadPatches(project.results, world.task.id, agent) };
}

/** Build the demo project, mine it, compute the ground truth of the chunk-partial task. */
export async function makeRaceWorld(): Promise<RaceWorld> {
  const tmp = await Deno.realPath(await Deno.makeTempDir({ prefix: "bugbout-race-" }));
  try {
    const repo = join(tmp, "repo");
    const home = join(tmp, "bugbout-home");
    const agents = join(tmp, "agents");
    await Deno.mkdir(agents, { recursive: true });
    const fixture = await buildDemo(repo);
    const fix = fixByKey(fixture, FIX_KEY);
    const world = {
      tmp,
      repo,
      root: join(tmp, "project"),
      home,
      agents,
      fixture,
      fix,
      sandbox: await openSandbox("auto"),
    } as RaceWorld;
    const base = await projectWith(world, [], { timeout: 60 });
    const mined = await mineAll(base);
    const task = mined.file.tasks.find((t) => t.commit === fix.commit);
    if (!task) throw new Error(`mining found no task for ${FIX_KEY}`);
    const env = await ensureTestEnv({ ...envRequest(base), envsDir: ENVS_DIR });
    const oracles =
      (await oracleAll(base, [task], { tools: toolsWith(base, env), sandbox: world.sandbox }))
        .file;
    if (oracles.oracles[task.id]?.status !== "scorable") {
      throw new Error(
        `task ${task.id} is not scorable: ${JSON.stringify(oracles.oracles[task.id])}`,
      );
    }
    return Object.assign(world, {
      task,
      env,
      oracles,
      [Symbol.asyncDispose]: () => Deno.remove(tmp, { recursive: true }).catch(() => {}),
    });
  } catch (error) {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
    throw error;
  }
}

/** The log directories of a project's attempts for the world's task, by attempt directory. */
export async function attemptLogDirs(project: Project, task: string): Promise<string[]> {
  const dir = project.cacheDir("attempts", task);
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory) out.push(join(dir, entry.name, "log"));
  }
  return out;
}

/** The `+` lines a unified diff adds to `path`. */
export function addedLines(patch: string, path: string): string[] {
  const section = patch.split(/^diff --git /m).find((s) => s.startsWith(`a/${path} b/${path}\n`));
  if (!section) return [];
  return section.split("\n").filter((l) => l.startsWith("+") && !l.startsWith("+++"))
    .map((l) => l.slice(1));
}
