/**
 * One end-to-end agent scenario, run as its own process so that its `HOME` can be a directory of
 * canaries (the test runner shares one environment between test files). It races the real agent
 * CLI on the demo project through `race()` exactly as a bout does — bugbout's adapter, bubblewrap,
 * the allow-listing proxy — against the scripted model server, and writes what happened as JSON
 * for the test to judge.
 *
 * `deno run -A tests/agents/_scenario.ts <case-id> <success|quota|hang> <root> <envs-dir>`, or
 * the same from a bundle of this file (so bugbout's code runs as it does from `deno bundle`).
 *
 * - `success`: a sandbox probe, then the fix; one race.
 * - `quota`: every model request gets the vendor's 429; then the server is healthy again and
 *   `race(..., { retryFailed: true })` runs the attempt again.
 * - `hang`: the first model stream hangs; bugbout's timeout must end the attempt.
 *
 * @module
 */

import { toolsWith } from "../python/_shared.ts";
import { join } from "node:path";
import type { Invocation, Session } from "../../adapters/agent.ts";
import { checkout } from "../../lib/checkout.ts";
import { git } from "../../lib/git.ts";
import { ensureTestEnv, envRequest } from "../../lib/lang/python/env.ts";
import { loadAttempt, loadPatches, loadTrajectory } from "../../lib/race/attempts.ts";
import type { Atif } from "../../lib/transcript/atif.ts";
import { raceAll, racersFromConfig, type RaceSummary } from "../../lib/race/mod.ts";
import type { Attempt } from "../../lib/records.ts";
import { which } from "../../lib/proc.ts";
import { openSandbox } from "../../lib/sandbox/mod.ts";
import { detectStart, type StartKind } from "../../lib/self.ts";
import { type RecordedRequest, startModelServer, type Turn } from "../model_server/mod.ts";
import { type AgentCase, CASES, type ScenarioName } from "./_cases.ts";
import {
  buildBout,
  fixTurns,
  type HostProcess,
  probeCommand,
  processesMentioning,
  watched,
  withUsage,
} from "./_world.ts";

/**
 * `[run] timeout` of the hang scenario, in seconds: long enough for a Node.js CLI to start and
 * reach the hung request on a machine whose cores the rest of the suite keeps busy.
 */
export const HANG_TIMEOUT_S = 40;
/** `[run] timeout` of the other scenarios: a safety net, never reached when things work. */
const TIMEOUT_S = 300;

/** One race of a scenario and what it left. */
export interface RaceFacts {
  summary: RaceSummary;
  attempt?: Attempt;
  /** The attempt's saved patch applied to a fresh checkout of B: path → text (null: absent). */
  files: Record<string, string | null>;
  /** Model requests the server saw during this race. */
  requests: number;
  /** Usage the server sent during this race (played turns only). */
  usageSent: Record<string, number>;
  /** The attempt's transcript as the race saved it (an ATIF trajectory), when there is one. */
  trajectory?: Atif;
  ms: number;
}

/** Everything the test judges, written as JSON. */
export interface ScenarioFacts {
  caseId: string;
  scenario: ScenarioName;
  /** How this scenario's bugbout code was started: from source, or bundled into one file. */
  start: StartKind;
  /** The `deno` this process would find on PATH (none: bugbout must re-run itself). */
  denoOnPath: string | null;
  /** The user's repository (the probe tries to read it). */
  repository: string;
  /** `sys.prefix` of the test environment, which `python3` must start inside the sandbox. */
  testPrefix: string;
  /** What the script's edits make of B's files: path → text. */
  expected: Record<string, string>;
  /** The working copies the agent was given, one per race. */
  workdirs: string[];
  /** The `host:port` pairs the proxy let through, one list per race. */
  allowed: string[][];
  /** The model server's own `host:port`. */
  server: string;
  races: RaceFacts[];
  /** Every request the server saw, with the canary check done here (bodies are large). */
  requests: (Omit<RecordedRequest, "body" | "headers"> & { canary: boolean })[];
  /** Connections the probe's host listener accepted. */
  probeConnections: number;
  /** The host listener's port. */
  probePort: number;
  /** Processes of the attempt seen while the stream hung, and after the race. */
  processes?: { during: HostProcess[]; after: HostProcess[] };
}

function usageOf(requests: readonly RecordedRequest[]): Record<string, number> {
  const sum: Record<string, number> = {
    input: 0,
    cachedInput: 0,
    cacheWrite: 0,
    output: 0,
    reasoning: 0,
  };
  for (const r of requests) {
    if (r.role !== "turn" || !r.usage) continue;
    for (const key of Object.keys(sum)) {
      sum[key] += (r.usage as unknown as Record<string, number | undefined>)[key] ?? 0;
    }
  }
  return sum;
}

async function main(
  agentCase: AgentCase,
  scenario: ScenarioName,
  root: string,
  envsDir: string,
): Promise<ScenarioFacts> {
  const canary = Deno.env.get("BUGBOUT_TEST_CANARY") ?? "";
  await using server = startModelServer({ models: [agentCase.serverModel] });
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let probeConnections = 0;
  const accepting = (async () => {
    for await (const conn of listener) {
      probeConnections++;
      conn.close();
    }
  })().catch(() => {});

  // The listener is reachable from the host: this control connection is the only one expected.
  (await Deno.connect({ hostname: "127.0.0.1", port: listener.addr.port })).close();
  // What a user would export before running bugbout (bugbout reads its own environment).
  for (const [key, value] of Object.entries(agentCase.env(server.url))) Deno.env.set(key, value);

  const timeout = scenario === "hang"
    ? HANG_TIMEOUT_S
    : scenario === "quota"
    ? agentCase.quotaTimeoutS ?? TIMEOUT_S
    : TIMEOUT_S;
  const bout = await buildBout(root, agentCase, server.url, timeout);
  const { project, task, fix } = bout;
  const env = await ensureTestEnv({ ...envRequest(project), envsDir });
  const sandbox = await openSandbox("bubblewrap");

  const probe: Turn[] = scenario === "success"
    ? [{ run: probeCommand(project.repository, listener.addr.port) }]
    : [];
  const script = withUsage([...probe, ...fixTurns(fix)], agentCase.cacheWrite);
  const workdirs: string[] = [];
  const allowed: string[][] = [];
  const watch = {
    onSession(session: Session) {
      workdirs.push(session.workdir);
      server.setScript(script, { cwd: session.workdir });
    },
    onInvocation(invocation: Invocation) {
      allowed.push(invocation.modelHosts ?? []);
    },
  };
  const racers = racersFromConfig(project).map((r) => ({ ...r, agent: watched(r.agent, watch) }));

  const races: RaceFacts[] = [];
  const once = async (retryFailed: boolean) => {
    const seen = server.requests.length;
    const started = performance.now();
    const summary = await raceAll(project, [task], {
      racers,
      sandbox,
      tools: toolsWith(project, env),
      retryFailed,
    });
    const ms = Math.round(performance.now() - started);
    const attempt = await loadAttempt(project.results, task.id, agentCase.id);
    const files: Record<string, string | null> = {};
    if (attempt) {
      const verify = join(root, `verify-${races.length}`);
      await checkout(project.repository, task.parent, verify, { home: project.home });
      const patch = (await loadPatches(project.results, task.id, agentCase.id)).full;
      if (patch) {
        await Deno.writeTextFile(`${verify}.patch`, patch);
        await git(["apply", "--whitespace=nowarn", `${verify}.patch`], { cwd: verify });
      }
      for (const path of [...Object.keys(fix.goldFiles), fix.reproTest!.path]) {
        files[path] = await Deno.readTextFile(join(verify, path)).catch(() => null);
      }
    }
    const requests = server.requests.slice(seen);
    const trajectory = await loadTrajectory(project.results, task.id, agentCase.id);
    races.push({
      summary,
      attempt,
      ...(trajectory ? { trajectory } : {}),
      files,
      requests: requests.filter((r) => r.role !== "meta").length,
      usageSent: usageOf(requests),
      ms,
    });
  };

  let processes: ScenarioFacts["processes"];
  if (scenario === "success") {
    await once(false);
  } else if (scenario === "quota") {
    server.fail({ kind: "quota", retryAfterSeconds: 1 });
    await once(false);
    server.healthy();
    await once(true);
  } else {
    server.fail({ kind: "hang" });
    const marker = project.home;
    const during: HostProcess[] = [];
    const watching = (async () => {
      // Once the stream hangs, the agent is waiting on it: its processes must be there.
      while (!server.requests.some((r) => r.failure?.kind === "hang")) {
        if (races.length) return;
        await new Promise((r) => setTimeout(r, 200));
      }
      await new Promise((r) => setTimeout(r, 1000));
      during.push(...await processesMentioning(marker));
    })();
    await once(false);
    await watching;
    let after = await processesMentioning(marker);
    for (let i = 0; i < 30 && after.length; i++) {
      await new Promise((r) => setTimeout(r, 300));
      after = await processesMentioning(marker);
    }
    processes = { during, after };
  }
  listener.close();
  await accepting;
  return {
    caseId: agentCase.id,
    scenario,
    start: detectStart().kind,
    denoOnPath: await which("deno") ?? null,
    repository: project.repository,
    testPrefix: env.prefix,
    expected: { ...fix.goldFiles, [fix.reproTest!.path]: fix.reproTest!.content },
    workdirs,
    allowed,
    server: new URL(server.url).host,
    races,
    requests: server.requests.map(({ body, headers, ...rest }) => ({
      ...rest,
      canary: canary !== "" && JSON.stringify({ body, headers, rest }).includes(canary),
    })),
    probeConnections,
    probePort: listener.addr.port,
    processes,
  };
}

if (import.meta.main) {
  const [caseId, scenario, root, envsDir] = Deno.args;
  const agentCase = CASES[caseId];
  if (!agentCase || !["success", "quota", "hang"].includes(scenario) || !root || !envsDir) {
    throw new Error(
      `usage: _scenario.ts <${Object.keys(CASES).join("|")}> <scenario> <root> <envs>`,
    );
  }
  const facts = await main(agentCase, scenario as ScenarioName, root, envsDir);
  await Deno.writeTextFile(join(root, "facts.json"), JSON.stringify(facts, null, 1));
}
