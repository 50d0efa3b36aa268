/**
 * The end-to-end test of one agent case: each scenario runs `_scenario.ts` as a child process
 * (its `HOME` a directory of canaries) and then judges what it wrote, one step per claim.
 *
 * Whether the tests run depends on `BUGBOUT_AGENT_TESTS`:
 * - `require` (CI): install the pinned CLI into the test cache if it is missing; a failed install
 *   fails the test.
 * - unset: run when the CLI is already in the cache (`deno run -A tests/agents/install.ts`
 *   fills it), else skip with a message saying so. Nothing is downloaded.
 * - `off`: skip.
 *
 * Requires `-A`: it runs Deno, git, uv, bubblewrap and the agent CLIs, and reads `/proc`.
 *
 * @module
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { run } from "../../lib/proc.ts";
import type { StartKind } from "../../lib/self.ts";
import { pathWithoutDeno, ROOT } from "../_helpers.ts";
import { ENVS_DIR, testCache } from "../python/_shared.ts";
import { agentPaths, defaultCacheDir, installAgents, PINNED } from "./install.ts";
import { type AgentCase, CASES, type ScenarioName } from "./_cases.ts";
import { HANG_TIMEOUT_S, type RaceFacts, type ScenarioFacts } from "./_scenario.ts";
import { canaryFiles, PROBE_MARK, writeFiles } from "./_world.ts";
import { atifSchema } from "../../lib/transcript/atif.ts";

const SCENARIO = fileURLToPath(new URL("./_scenario.ts", import.meta.url));
const CACHE = defaultCacheDir();
const WEB_TOOL = /^(?:google_)?web_?(?:fetch|search)$/i;
/** A whole scenario, however slow the agent; the agents' own limits are far below it. */
const CHILD_TIMEOUT_MS = 10 * 60_000;

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

/** `BUGBOUT_AGENT_TESTS`: `require`, `off`, or unset (run what is installed). */
function mode(): "require" | "off" | "cached" {
  const value = Deno.env.get("BUGBOUT_AGENT_TESTS") ?? "";
  if (value === "require" || value === "off") return value;
  if (value !== "") throw new Error(`BUGBOUT_AGENT_TESTS=${value}: expected require or off`);
  return "cached";
}

/** The denoland cache the child needs to find this project's npm packages. */
function denoDir(): string {
  const cache = Deno.env.get("XDG_CACHE_HOME") ?? join(Deno.env.get("HOME") ?? "/root", ".cache");
  return Deno.env.get("DENO_DIR") ?? join(cache, "deno");
}

/**
 * This process's environment for the child (certificates and proxies for uv, say), less what
 * would bypass its HOME (`XDG_*`) or steer an agent: credentials, endpoints, config homes.
 */
function inherited(): Record<string, string> {
  const prefixes = [
    ...["XDG", "BUGBOUT", "GH", "GITHUB", "LITELLM", "OLLAMA", "MSWEA", "OPENCODE", "QWEN"],
    ...["OPENAI", "CODEX", "ANTHROPIC", "CLAUDE", "GEMINI", "GOOGLE", "COPILOT"],
  ];
  const steering = (key: string) =>
    key === "IS_SANDBOX" || prefixes.some((p) => key.startsWith(`${p}_`));
  return Object.fromEntries(Object.entries(Deno.env.toObject()).filter(([k]) => !steering(k)));
}

/** Remove a scenario's directory, unless BUGBOUT_AGENT_TESTS_KEEP=1 asks to keep it. */
async function cleanUp(root: string): Promise<void> {
  if (Deno.env.get("BUGBOUT_AGENT_TESTS_KEEP") !== "1") {
    await Deno.remove(root, { recursive: true });
  }
}

/** `_scenario.ts` bundled into one file under `dir` (as `deno bundle` builds `dist/bugbout.js`). */
async function bundleScenario(dir: string): Promise<string> {
  const file = join(dir, "scenario.js");
  await run([Deno.execPath(), "bundle", "--quiet", "--platform", "deno", "-o", file, SCENARIO], {
    cwd: ROOT,
    // No timeout: bundling is not what is tested, and a test must never fail for being slow.
    env: { DENO_NO_UPDATE_CHECK: "1" },
  });
  return file;
}

/**
 * Run one scenario in a child process whose HOME holds the canaries and whose PATH has no `deno`
 * (bugbout starts its helpers by re-running itself); return its facts. `start` says whether the
 * child runs the scenario from source or from a bundle of it.
 */
async function runScenario(
  agentCase: AgentCase,
  scenario: ScenarioName,
  bin: string,
  start: StartKind = "source",
): Promise<{ facts: ScenarioFacts; root: string; canary: string }> {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: `bugbout-agent-${agentCase.id}-${scenario}-` }),
  );
  const canary = `BUGBOUT-CANARY-${crypto.randomUUID()}`;
  const home = join(root, "user-home");
  await writeFiles(home, canaryFiles(canary));
  const program = start === "bundle" ? await bundleScenario(root) : SCENARIO;
  const path = await pathWithoutDeno(join(root, "path-without-deno"));
  const result = await run([
    Deno.execPath(),
    "run",
    "-A",
    "--quiet",
    program,
    agentCase.id,
    scenario,
    root,
    ENVS_DIR,
  ], {
    clearEnv: true,
    env: {
      ...inherited(),
      PATH: `${dirname(bin)}:${path}`,
      HOME: home,
      LANG: "C.UTF-8",
      DENO_DIR: denoDir(),
      DENO_NO_UPDATE_CHECK: "1",
      UV_CACHE_DIR: Deno.env.get("UV_CACHE_DIR") ?? testCache("uv"),
      UV_PYTHON_DOWNLOADS: "never",
      // Copilot unpacks its 235 MB package under BUGBOUT_HOME once; share it between runs.
      BUGBOUT_HOME: join(CACHE, "bugbout-home"),
      BUGBOUT_TEST_CANARY: canary,
    },
    timeoutMs: CHILD_TIMEOUT_MS,
    ownGroup: true,
    okCodes: "any",
  });
  if (result.code !== 0) {
    await cleanUp(root);
    throw new Error(
      `${agentCase.id} ${scenario} scenario failed (exit ${result.code}):\n` +
        `${result.stderr.slice(-4000)}\n${result.stdout.slice(-2000)}`,
    );
  }
  const facts = JSON.parse(await Deno.readTextFile(join(root, "facts.json"))) as ScenarioFacts;
  return { facts, root, canary };
}

/** What to show when an assertion about an attempt fails. */
function why(race: RaceFacts | undefined): string {
  const a = race?.attempt;
  if (!a) return `no attempt was saved: ${JSON.stringify(race?.summary)}`;
  return `status ${a.status}, exit ${a.exitCode}, error ${a.error ?? "-"}\n${
    a.logTail.slice(-3000)
  }`;
}

/** The saved patch, applied to B, gives the gold source and the scripted test: nothing else. */
function assertPatch(facts: ScenarioFacts, race: RaceFacts): void {
  const expected = facts.expected;
  assertEquals(race.files, expected, why(race));
  const changed = (race.attempt?.files ?? []).map((f) => f.path).sort();
  assertEquals(changed, Object.keys(expected).sort(), "the attempt lists exactly the edited files");
}

function assertTokens(agentCase: AgentCase, race: RaceFacts): void {
  const got = Object.fromEntries(
    agentCase.fields.map((k) => [k, race.attempt?.tokens?.[k] ?? 0]),
  );
  const sent = Object.fromEntries(agentCase.fields.map((k) => [k, race.usageSent[k] ?? 0]));
  assert(sent.input > 0, "the server sent usage");
  assertEquals(got, sent, why(race));
}

/** Register the end-to-end tests of one agent case. */
export async function agentSuite(id: string): Promise<void> {
  const agentCase = CASES[id];
  const pinned = PINNED.find((p) => p.type === agentCase.type)!;
  const { bin } = agentPaths(pinned, CACHE);
  const how = mode();
  const installed = await exists(bin);
  const ignore = how === "off" || (how === "cached" && !installed);
  if (ignore && how === "cached") {
    console.error(
      `tests/agents: skipping ${agentCase.id}: ${pinned.package}@${pinned.version} is not in ` +
        `${CACHE}. Install it with \`deno run -A tests/agents/install.ts ${pinned.type}\`, or ` +
        "set BUGBOUT_AGENT_TESTS=require to install it (and fail when that is impossible).",
    );
  }
  const label = `${agentCase.id} (${pinned.package}@${pinned.version})`;
  const prepare = async () => {
    if (how === "require") await installAgents({ cacheDir: CACHE, only: [pinned.type] });
  };
  const scenario = (
    name: ScenarioName,
    title: string,
    judge: (t: Deno.TestContext, run: Awaited<ReturnType<typeof runScenario>>) => Promise<void>,
    start: StartKind = "source",
  ) => {
    if (!agentCase.scenarios.includes(name)) return;
    Deno.test({
      name: `${label} ${title}`,
      ignore,
      async fn(t) {
        await prepare();
        const outcome = await runScenario(agentCase, name, bin, start);
        try {
          await t.step(`bugbout ran from ${start} with no deno on PATH`, () => {
            assertEquals(outcome.facts.start, start);
            assertEquals(outcome.facts.denoOnPath, null);
          });
          await judge(t, outcome);
        } finally {
          await cleanUp(outcome.root);
        }
      },
    });
  };

  const success = async (t: Deno.TestContext, out: Awaited<ReturnType<typeof runScenario>>) => {
    const { facts, root } = out;
    const race = facts.races[0];
    const model = facts.requests.filter((r) => r.role !== "meta");
    await t.step("the attempt ends as a patch", () => {
      assertEquals(race.attempt?.status, "patch", why(race));
      assertEquals(race.attempt?.error, undefined, why(race));
    });
    await t.step("bugbout's proxy lets through the model server and nothing else", () => {
      assertEquals(facts.allowed, [[facts.server]]);
      const seen = facts.requests.map((r) => `${r.method} ${r.path}`);
      for (const call of agentCase.meta ?? []) assert(seen.includes(call), `${call}: ${seen}`);
    });
    await t.step("the patch on disk matches the script's edits", () => assertPatch(facts, race));
    await t.step("the race saves the transcript as ATIF: its tool calls and exit codes", () => {
      if (agentCase.type === "command") return;
      const trajectory = race.trajectory;
      assert(trajectory, "a transcript was saved");
      assert(atifSchema.safeParse(trajectory).success, "it is ATIF 1.4");
      const calls = trajectory.steps.flatMap((s) => s.tool_calls ?? []);
      assert(calls.length >= 3, `the scripted tool calls: ${calls.map((c) => c.function_name)}`);
      const codes = trajectory.steps.flatMap((s) => Object.values(s.extra?.exit_codes ?? {}));
      assert(codes.includes(0), `a command's exit code: ${JSON.stringify(codes)}`);
      // The task's prompt comes first, after the agent's own system prompt where its log has one
      // (mini-swe-agent's does).
      assertEquals(trajectory.steps.find((s) => s.source !== "system")?.source, "user");
    });
    await t.step("the token usage parsed equals what the server sent", () => {
      assertTokens(agentCase, race);
    });
    await t.step("no request offers a web search or fetch tool", () => {
      assert(model.some((r) => r.tools.length > 0), "the agent offered tools");
      const web = model.flatMap((r) => r.tools.filter((tool) => WEB_TOOL.test(tool)));
      assertEquals(web, []);
    });
    await t.step("the canary in the user's home configuration reaches no request", async () => {
      assert(await exists(join(root, "user-home", ".codex", "AGENTS.md")), "canaries planted");
      assert(model.length > 0, "the agent made model requests");
      assertEquals(facts.requests.filter((r) => r.canary).map((r) => r.seq), []);
    });
    await t.step(
      "the agent's shell ran in bugbout's sandbox: no repository, no network",
      async () => {
        assert(await exists(join(facts.repository, ".git", "HEAD")), "the repository is there");
        const result = facts.requests.flatMap((r) => r.toolResults)
          .find((text) => text.includes(`${PROBE_MARK}-START`));
        assert(result, "the probe's output reached the server");
        assert(!result.includes("ref: refs/heads"), result);
        assert(!result.includes(`${PROBE_MARK}-head-exit=0`), result);
        assert(result.includes(`${PROBE_MARK}-net-exit=1`), result);
        assert(!result.includes(`${PROBE_MARK}-connected`), result);
        // Through the proxy the shell inherits, the host listener is not an allowed target.
        assert(result.includes(`${PROBE_MARK}-proxy=http://127.0.0.1:`), result);
        assert(result.includes(`${PROBE_MARK}-proxy-exit=1`), result);
        assert(/HTTP Error 403: Forbidden/.test(result), result);
        assert(!result.includes(`${PROBE_MARK}-proxied`), result);
        assertEquals(facts.probeConnections, 1, "only the host's own control connection arrived");
      },
    );
    await t.step("the agent's shell starts the test environment's python3", () => {
      const result = facts.requests.flatMap((r) => r.toolResults)
        .find((text) => text.includes(`${PROBE_MARK}-prefix=`));
      const line = `${PROBE_MARK}-prefix=${facts.testPrefix}`;
      // The path ends there (a newline, an escaped one in JSON, or the end of the text).
      assert(result && new RegExp(`${RegExp.escape(line)}(?![\\w./-])`).test(result), result);
    });
  };
  scenario("success", "fixes the task in bugbout's race, inside its sandbox", success);
  scenario(
    "success",
    "fixes the task in bugbout's race, inside its sandbox, run from a bundle",
    success,
    "bundle",
  );

  scenario("quota", "ends a 429 as quota and retries it with retryFailed", async (t, out) => {
    const [stopped, retried] = out.facts.races;
    await t.step("the vendor's 429 ends the attempt as quota", () => {
      assertEquals(stopped.attempt?.status, "quota", why(stopped));
      assert(stopped.requests > 0, "the agent asked the model");
      // Agents that give up on their own exit; the slow ones are ended by bugbout's timeout.
      const byTimeout = agentCase.quotaTimeoutS !== undefined;
      assertEquals(stopped.attempt?.exitCode === null, byTimeout, why(stopped));
    });
    await t.step("race(..., { retryFailed: true }) runs it again once healthy: a patch", () => {
      assertEquals(retried.summary.ran, 1, JSON.stringify(retried.summary));
      assertEquals(retried.attempt?.status, "patch", why(retried));
      assertPatch(out.facts, retried);
      assertTokens(agentCase, retried);
    });
  });

  scenario(
    "hang",
    "ends a hung stream at bugbout's timeout, leaving nothing running",
    async (t, out) => {
      const { facts } = out;
      const race = facts.races[0];
      await t.step("the attempt ends as a timeout at [run] timeout", () => {
        assertEquals(race.attempt?.status, "timeout", why(race));
        assertEquals(race.attempt?.exitCode, null);
        const ms = race.attempt?.durationMs ?? 0;
        assert(ms >= HANG_TIMEOUT_S * 1000 && ms < HANG_TIMEOUT_S * 1000 + 30_000, `${ms} ms`);
      });
      await t.step("the agent's processes ran while it hung, and none is left", () => {
        const cli = facts.processes!.during.filter((p) =>
          p.cmdline.includes(CACHE) && !p.cmdline.includes("bridge.js")
        );
        assert(
          cli.length > 0,
          `the /proc scan saw the hung CLI: ${JSON.stringify(facts.processes)}`,
        );
        assertEquals(facts.processes!.after, []);
      });
    },
  );
}
