/**
 * Scripted attempts on a Go or JavaScript project, for the tests of the stages after the race:
 * a project whose agents are those scripts, with its task's ground truth written by hand, and each
 * script performed on a checkout of B, captured with the race's own code and saved as an attempt.
 *
 * @module
 */

import { join } from "node:path";
import { checkout } from "../../lib/checkout.ts";
import { parseConfig } from "../../lib/config.ts";
import { Project } from "../../lib/project.ts";
import { saveAttempt } from "../../lib/race/attempts.ts";
import { type Attempt, RESULTS_VERSION, type Task } from "../../lib/records.ts";
import { languageOf, type ProjectTools, type TestRunner } from "../../lib/lang/mod.ts";
import { capturePatch, takeSnapshot } from "../../lib/testbed/mod.ts";

/** One scripted attempt: files written (or replaced in) on a checkout of B. */
export interface Script {
  agent: string;
  role: "contestant" | "examiner";
  edits: Record<string, string | [string, string]>;
}

/** A project, its one task, and tools whose environments live in the test cache. */
export interface Bout {
  project: Project;
  task: Task;
  tools: ProjectTools;
}

function agentTables(scripts: readonly Script[]): string {
  return scripts.map((s) =>
    [
      `[[${s.role === "contestant" ? "contestants" : "examiners"}]]`,
      'agent = "command"',
      `name = "${s.agent}"`,
      'vendor = "local"',
      'command = ["true"]',
    ].join("\n")
  ).join("\n\n");
}

/**
 * A project of `language` on `repo` with `scripts` as its agents and `task` scorable with `truth`
 * as its ground truth (a record by hand: ground truth is another stage's). `runnerHome` is where
 * environments are kept across test runs; `judge` is extra `[judge]` settings.
 */
export async function makeScriptedBout(
  root: string,
  repo: string,
  language: "go" | "node",
  task: Task,
  scripts: readonly Script[],
  options: {
    truth: { failToPass: string[]; passToPass: string[] };
    runnerHome: string;
    judge?: string;
  },
): Promise<Bout> {
  const toml = `[project]
language = "${language}"
repository = ${JSON.stringify(repo)}

[tasks]
reruns = 2
${options.judge ? `\n[judge]\n${options.judge}\n` : ""}
[run]
sandbox = "bubblewrap"
jobs = 2
test-timeout = 300
test-memory = 4096

${agentTables(scripts)}
`;
  await Deno.writeTextFile(join(root, "bugbout.toml"), toml);
  const config = await parseConfig(toml, join(root, "bugbout.toml"));
  const project = new Project(config, repo, join(root, "home"));
  const tools = languageOf(language).tools(new Project(config, repo, options.runnerHome));
  await project.results.ensure();
  await project.results.write("oracles.json", {
    version: RESULTS_VERSION,
    kind: "oracles",
    oracles: {
      [task.id]: {
        task: task.id,
        inputsKey: "by-hand",
        status: "scorable",
        ...options.truth,
        unstable: [],
        runs: [],
        durations: {},
      },
    },
  });
  return { project, task, tools };
}

/** Perform `script` on a checkout of B, capture it with the race's code and save the attempt. */
export async function saveScripted(
  bout: Bout,
  runner: TestRunner,
  script: Script,
  scratch: string,
) {
  const { project, task } = bout;
  const dir = join(scratch, script.agent);
  const work = await checkout(project.repository, task.parent, join(dir, "work"), {
    home: project.home,
  });
  const snapshot = await takeSnapshot(work, join(dir, "snapshot.git"));
  for (const [path, edit] of Object.entries(script.edits)) {
    const full = join(work, path);
    if (typeof edit === "string") {
      await Deno.mkdir(join(full, ".."), { recursive: true });
      await Deno.writeTextFile(full, edit);
    } else {
      const text = await Deno.readTextFile(full);
      if (!text.includes(edit[0])) throw new Error(`script: no ${JSON.stringify(edit[0])}`);
      await Deno.writeTextFile(full, text.replace(edit[0], edit[1]));
    }
  }
  const patch = await capturePatch(snapshot, { packageDir: ".", runner });
  const contestant = script.role === "contestant";
  const files = contestant
    ? patch.files
    : patch.files.filter((f) => f.kind === "test" || f.kind === "config");
  const attempt: Attempt = {
    version: 1,
    kind: "attempt",
    task: task.id,
    agent: script.agent,
    role: script.role,
    type: "command",
    vendor: "local",
    inputsKey: `scripted-${script.agent}`,
    status: files.length > 0 ? "patch" : "no-change",
    startedAt: "2025-01-01T00:00:00.000Z",
    durationMs: 1000,
    exitCode: 0,
    logTail: "",
    sandbox: "bubblewrap",
    files,
  };
  await saveAttempt(project.results, attempt, {
    source: contestant ? patch.sourcePatch : "",
    tests: patch.testPatch,
    full: contestant ? patch.fullPatch : patch.testPatch,
  });
  await Deno.remove(dir, { recursive: true });
  return attempt;
}
