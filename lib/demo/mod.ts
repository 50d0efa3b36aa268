/**
 * `bugbout demo`: a whole bout on a small bundled project, with scripted agents, a local stand-in
 * for GitHub on 127.0.0.1 serving the project's issues, and nothing else on the network.
 *
 * @module
 */

import { join } from "node:path";
import { startFakeGithub } from "./github.ts";
import { buildDemo } from "./project.ts";
import { Bout, type BoutEvent } from "../bout.ts";
import type { Report } from "../report/mod.ts";
import { DEMO_AGENTS, demoPlaybook } from "./agents.ts";
import { writePlaybookAgent } from "./playbook_agent.ts";

/** What the demo left behind. */
export interface DemoResult {
  /** The report object. */
  report: Report;
  /** The demo project's repository (with `.bugbout/` inside). */
  repository: string;
  /** The HTML report. */
  html: string;
}

/** Options of {@linkcode runDemo}. */
export interface DemoOptions {
  /** Progress. */
  onEvent?: (event: BoutEvent) => void;
  /** Ctrl-C. */
  signal?: AbortSignal;
  /** `[run] sandbox` for the demo (default `auto`: bubblewrap on Linux). */
  sandbox?: "auto" | "bubblewrap" | "seatbelt" | "none";
}

/** Build the demo project in `dir` and run a bout on it. */
export async function runDemo(dir: string, options: DemoOptions = {}): Promise<DemoResult> {
  const repository = join(dir, "textkit");
  const fixture = await buildDemo(repository);
  await using github = startFakeGithub({
    repository: fixture.github.repository,
    items: fixture.github.items,
  });
  const agentsDir = join(dir, "scripted-agents");
  const scripts: Record<string, string> = {};
  for (const kind of [...DEMO_AGENTS, "examiner" as const]) {
    scripts[kind] = await writePlaybookAgent(
      agentsDir,
      demoPlaybook(kind, fixture.fixes, fixture.github.items),
    );
  }
  const agent = (kind: string, table: string) =>
    [
      `[[${table}]]`,
      `agent = "command"`,
      `name = "scripted-${kind}"`,
      `vendor = "${kind === "examiner" ? "scripted-examiners" : "scripted"}"`,
      `command = ["python3", ${JSON.stringify(scripts[kind])}, "{prompt_file}"]`,
      "",
    ].join("\n");
  await Deno.writeTextFile(
    join(repository, "bugbout.toml"),
    [
      "# The demo's bout: scripted agents (fixed playbooks, no model) on the textkit project.",
      "[project]",
      `source = ${JSON.stringify(fixture.source)}`,
      `tests = ${JSON.stringify(fixture.tests)}`,
      `github = ${JSON.stringify(fixture.github.repository)}`,
      `github-api = ${JSON.stringify(github.url)}`,
      "",
      "[run]",
      `sandbox = ${JSON.stringify(options.sandbox ?? "auto")}`,
      "timeout = 120",
      "",
      ...DEMO_AGENTS.map((kind) => agent(kind, "contestants")),
      agent("examiner", "examiners").replace("\n", '\nassignment = "specify"\n'),
    ].join("\n"),
  );
  // The stand-in GitHub needs no token: keep the user's out of it.
  const token = Deno.env.get("GITHUB_TOKEN");
  Deno.env.delete("GITHUB_TOKEN");
  try {
    const bout = await Bout.load(repository);
    const report = await bout.run({ onEvent: options.onEvent, signal: options.signal });
    return { report, repository, html: bout.project.results.file("report.html") };
  } finally {
    if (token !== undefined) Deno.env.set("GITHUB_TOKEN", token);
  }
}
