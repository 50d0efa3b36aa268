/**
 * The world one end-to-end agent scenario runs in: the demo project's `chunk-partial` task as a
 * bout sees it, the scripted turns that fix it, a sandbox probe, canaries in the user's home
 * configuration, and a scan of `/proc` for processes left behind.
 *
 * @module
 */

import { dirname, join } from "node:path";
import type { CodingAgent, Invocation, Session } from "../../adapters/agent.ts";
import { parseConfig } from "../../lib/config.ts";
import { Project } from "../../lib/project.ts";
import type { OraclesFile, Task } from "../../lib/records.ts";
import { buildDemo, fixByKey, type FixtureFix } from "../fixtures/projects.ts";
import type { Turn, Usage } from "../model_server/mod.ts";
import type { AgentCase } from "./_cases.ts";

/** The fix every scenario works on: `chunk()` drops the last partial chunk (issue #3). */
export const FIX_KEY = "chunk-partial";
/** Marks the probe's own output in a tool result. */
export const PROBE_MARK = "BUGBOUT-PROBE";

/**
 * Files in the user's home configuration, one or more per agent, each holding the canary. Each
 * would reach a model request if bugbout let the agent read the user's set-up: an instruction
 * file goes into the prompt, a settings file adds a header or loads an instruction file.
 */
export function canaryFiles(canary: string): Record<string, string> {
  const rule = `Always begin every answer with the word ${canary}.\n`;
  return {
    "AGENTS.md": rule,
    ".codex/AGENTS.md": rule,
    ".codex/config.toml": `developer_instructions = "Say ${canary} first."\n` +
      `[shell_environment_policy]\nset = { BUGBOUT_CANARY = "${canary}" }\n`,
    ".claude/CLAUDE.md": rule,
    ".claude/settings.json": JSON.stringify({
      env: { ANTHROPIC_CUSTOM_HEADERS: `x-bugbout-canary: ${canary}` },
    }),
    ".gemini/GEMINI.md": rule,
    ".gemini/CANARY.md": rule,
    ".gemini/settings.json": JSON.stringify({
      security: { auth: { selectedType: "gemini-api-key" } },
      context: { fileName: ["CANARY.md", "GEMINI.md"] },
    }),
    ".config/opencode/AGENTS.md": rule,
    ".config/opencode/CANARY.md": rule,
    ".config/opencode/opencode.json": JSON.stringify({
      instructions: ["~/.config/opencode/CANARY.md"],
      provider: { bugbout: { options: { headers: { "x-bugbout-canary": canary } } } },
    }),
    ".qwen/QWEN.md": rule,
    ".qwen/AGENTS.md": rule,
    ".qwen/settings.json": JSON.stringify({
      model: { generationConfig: { customHeaders: { "x-bugbout-canary": canary } } },
    }),
    ".copilot/copilot-instructions.md": rule,
    ".copilot/AGENTS.md": rule,
    ".config/mini-swe-agent/.env": `OPENAI_ORGANIZATION=${canary}\nMSWEA_CANARY=${canary}\n`,
  };
}

/** Write `files` (relative path → text) under `root`. */
export async function writeFiles(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(dirname(join(root, path)), { recursive: true });
    await Deno.writeTextFile(join(root, path), text);
  }
}

/** The demo repository, its task and a project with one contestant: the agent case. */
export interface Bout {
  project: Project;
  task: Task;
  fix: FixtureFix;
  oracles: OraclesFile;
}

/** Build the demo repository under `root` and a project racing `agent` with `[run] timeout`. */
export async function buildBout(
  root: string,
  agent: AgentCase,
  url: string,
  timeoutSeconds: number,
): Promise<Bout> {
  const repo = join(root, "repo");
  const demo = await buildDemo(repo);
  const fix = fixByKey(demo, FIX_KEY);
  const options = Object.entries(agent.options(url))
    .map(([k, v]) => `${k} = ${JSON.stringify(v)}`);
  const toml = [
    "[project]",
    'source = "textkit"',
    'tests = "tests"',
    `repository = ${JSON.stringify(repo)}`,
    "",
    "[run]",
    'sandbox = "bubblewrap"',
    `timeout = ${timeoutSeconds}`,
    "",
    "[[contestants]]",
    `agent = ${JSON.stringify(agent.type)}`,
    `name = ${JSON.stringify(agent.id)}`,
    `model = ${JSON.stringify(agent.model)}`,
    ...options,
    "",
  ].join("\n");
  const file = join(root, "bugbout.toml");
  await Deno.writeTextFile(file, toml);
  const project = new Project(await parseConfig(toml, file), repo, join(root, "bugbout-home"));
  const task: Task = {
    id: "issue-3",
    ref: { kind: "issue", number: 3 },
    title: fix.title,
    commit: fix.commit,
    parent: fix.parent,
    date: "2023-11-14T00:00:00Z",
    sourceFiles: fix.sourceFiles,
    testFiles: fix.testFiles,
    newTests: fix.newTests,
    packageDir: fix.packageDir,
    pythonPath: fix.pythonPath,
    statement: "chunk() drops the last partial chunk: chunk([1, 2, 3, 4, 5], 2) loses the 5.",
    statementSource: "issue",
  };
  const oracles: OraclesFile = {
    version: 1,
    kind: "oracles",
    oracles: {
      [task.id]: {
        task: task.id,
        inputsKey: "agent-test",
        status: "scorable",
        failToPass: fix.failToPass,
        passToPass: [],
        unstable: [],
        runs: [],
        durations: {},
      },
    },
  };
  // The race reads the ground truth from the project's results, as in a bout.
  await project.results.ensure();
  await project.results.write("oracles.json", oracles);
  return { project, task, fix, oracles };
}

/** The changed region of a file: the first and last differing lines, as old and new text. */
export function changedLines(before: string, after: string): { old: string; new: string } {
  const a = before.split("\n");
  const b = after.split("\n");
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (
    end < a.length - start && end < b.length - start &&
    a[a.length - 1 - end] === b[b.length - 1 - end]
  ) end++;
  return {
    old: a.slice(start, a.length - end).join("\n"),
    new: b.slice(start, b.length - end).join("\n"),
  };
}

/** What the scripted model does to fix the task: read, edit each source file, add a test. */
export function fixTurns(fix: FixtureFix): Turn[] {
  const turns: Turn[] = [];
  for (const [path, gold] of Object.entries(fix.goldFiles)) {
    const change = changedLines(fix.sourceAtB[path], gold);
    turns.push({ read: path }, { edit: { path, ...change } });
  }
  const repro = fix.reproTest!;
  turns.push({ write: { path: repro.path, content: repro.content } });
  turns.push({ finish: "Rounded the chunk count up; added a regression test." });
  return turns;
}

/**
 * The shell probe: can it read the user's repository, can it reach a host listener directly or
 * through bugbout's proxy (whose address the shell inherits), and which Python does `python3`
 * start? Markers are built at run time, so an agent that echoes the command line back does not
 * fake them.
 */
export function probeCommand(repository: string, port: number): string {
  const mark = (what: string) => `'${PROBE_MARK}-' + '${what}'`;
  const connect = `import socket; socket.create_connection(('127.0.0.1', ${port}), 2); ` +
    `print(${mark("CONNECTED")}.lower())`;
  // NO_PROXY names 127.0.0.1 (model servers there are forwarded directly): drop it here.
  const proxied = "import os, urllib.request as u; p = os.environ.get('HTTP_PROXY', ''); " +
    "[os.environ.pop(k, None) for k in ('NO_PROXY', 'no_proxy')]; " +
    `print(${mark("proxy=")} + p); ` +
    `p and u.build_opener(u.ProxyHandler({'http': p})).open('http://127.0.0.1:${port}/', ` +
    `timeout=5); print(${mark("PROXIED")}.lower())`;
  const prefix = `import sys; print(${mark("prefix=")} + sys.prefix)`;
  return [
    `echo ${PROBE_MARK}-START`,
    `cat ${repository}/.git/HEAD 2>&1; echo "${PROBE_MARK}-head-exit=$?"`,
    `python3 -c "${connect}" 2>&1; echo "${PROBE_MARK}-net-exit=$?"`,
    `python3 -c "${proxied}" 2>&1; echo "${PROBE_MARK}-proxy-exit=$?"`,
    `python3 -c "${prefix}"`,
  ].join("; ");
}

/** Usage the server reports for turn `i`; every turn differs so sums are checked for real. */
export function turnUsage(i: number, cacheWrite?: number): Usage {
  return {
    input: 1000 + 100 * i,
    cachedInput: 400,
    output: 20 + i,
    reasoning: 3,
    ...(cacheWrite ? { cacheWrite } : {}),
  };
}

/** Give each turn its own usage. */
export function withUsage(turns: Turn[], cacheWrite?: number): Turn[] {
  return turns.map((t, i) => ("fail" in t ? t : { ...t, usage: turnUsage(i, cacheWrite) }));
}

/** What a watched agent reports before each attempt starts. */
export interface Watch {
  /** The session bugbout built (the working copy's path, for tools that take absolute paths). */
  onSession(session: Session): void;
  /** The invocation the adapter made of it (the hosts the proxy lets through). */
  onInvocation(invocation: Invocation): void;
}

/** The agent as made from the configuration, reporting what bugbout hands it and gets back. */
export function watched(agent: CodingAgent, watch: Watch): CodingAgent {
  return {
    type: agent.type,
    name: agent.name,
    model: agent.model,
    vendor: agent.vendor,
    quota: agent.quota,
    executable: agent.executable,
    modelHosts: () => agent.modelHosts(),
    invocation: async (session) => {
      watch.onSession(session);
      const invocation = await agent.invocation(session);
      watch.onInvocation(invocation);
      return invocation;
    },
    parse: agent.parse && ((output) => agent.parse!(output)),
    version: agent.version && (() => agent.version!()),
    transcript: agent.transcript && ((input) => agent.transcript!(input)),
  };
}

/** A host process: pid and command line. */
export interface HostProcess {
  pid: number;
  cmdline: string;
}

/**
 * Processes whose command line or environment mentions `marker` (a path only the scenario's
 * attempts use), other than this one. Requires reading other processes' `environ` (root).
 */
export async function processesMentioning(marker: string): Promise<HostProcess[]> {
  const found: HostProcess[] = [];
  const decoder = new TextDecoder();
  for await (const entry of Deno.readDir("/proc")) {
    const pid = Number(entry.name);
    if (!Number.isInteger(pid) || pid === Deno.pid) continue;
    let cmdline = "";
    let environ = "";
    try {
      cmdline = decoder.decode(await Deno.readFile(`/proc/${pid}/cmdline`)).replaceAll("\0", " ");
      environ = decoder.decode(await Deno.readFile(`/proc/${pid}/environ`));
    } catch {
      // gone, or not ours to read
    }
    if (cmdline.includes(marker) || environ.includes(marker)) {
      found.push({ pid, cmdline: cmdline.trim().slice(0, 300) });
    }
  }
  return found;
}
