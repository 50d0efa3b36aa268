/**
 * The adapters against the real, pinned agent CLIs: each adapter's own invocation (argv, env,
 * files) runs the installed CLI against the scripted model server on 127.0.0.1, and its parser
 * must read the run: the scripted summary, the tokens the server sent, no quota stop; then a
 * quota run must be classified as one. This proves the flags and settings are accepted by the
 * real programs, which golden argv tests cannot. Agents not installed in the test cache (see
 * `tests/agents/install.ts`) are skipped; nothing is downloaded here.
 *
 * The command runs unconfined here: bugbout's sandbox is tested on its own.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { dirname, join } from "node:path";
import type { AdapterDefinition, Invocation, TokenUsage } from "../../adapters/agent.ts";
import { builtinAdapters } from "../../adapters/mod.ts";
import { fakeSession, makeAgent, scriptedSummary } from "./_helpers.ts";
import { run } from "../../lib/proc.ts";
import { agentPaths, defaultCacheDir, PINNED } from "../agents/install.ts";
import { startModelServer } from "../model_server/mod.ts";
import { successScript } from "../fixtures/recorded/record.ts";

/** How each adapter is pointed at the server: model, options, host variables. */
interface Setup {
  model: string;
  /** The server's URL with the API's path prefix. */
  base: (url: string) => string;
  /** `base-url` option, or a host variable that carries it. */
  via: "option" | string;
  /** The credential variable the adapter reads. */
  key: string;
  /** Token fields the agent reports. */
  fields: (keyof TokenUsage)[];
  /** Extra adapter options. */
  options?: Record<string, unknown>;
  /** House-rule files the CLI reads whatever its settings say. */
  unavoidable?: string[];
}

const OPENAI = (url: string) => `${url}/v1`;
const SETUPS: Record<string, Setup> = {
  codex: {
    model: "fake-model",
    base: OPENAI,
    via: "option",
    key: "OPENAI_API_KEY",
    fields: ["input", "cachedInput", "output", "reasoning"],
  },
  "claude-code": {
    model: "claude-sonnet-4-5",
    base: (url) => url,
    via: "ANTHROPIC_BASE_URL",
    key: "ANTHROPIC_API_KEY",
    fields: ["input", "cachedInput", "cacheWrite", "output"],
  },
  "gemini-cli": {
    model: "gemini-2.5-pro",
    base: (url) => url,
    via: "option",
    key: "GEMINI_API_KEY",
    fields: ["input", "cachedInput", "output", "reasoning"],
    // 0.61 always adds GEMINI.md to `context.fileName`; nothing turns it off.
    unavoidable: ["GEMINI.md"],
  },
  "mini-swe-agent": {
    model: "openai/fake-model",
    base: OPENAI,
    via: "OPENAI_BASE_URL",
    key: "OPENAI_API_KEY",
    fields: ["input", "cachedInput", "output", "reasoning"],
  },
  opencode: {
    model: "fake-model",
    base: OPENAI,
    via: "option",
    key: "OPENAI_API_KEY",
    fields: ["input", "cachedInput", "cacheWrite", "output", "reasoning"],
  },
  "qwen-code": {
    model: "fake-model",
    base: OPENAI,
    via: "option",
    key: "OPENAI_API_KEY",
    fields: ["input", "cachedInput", "output"],
  },
  copilot: {
    model: "fake-model",
    base: OPENAI,
    via: "option",
    key: "OPENAI_API_KEY",
    fields: ["input", "cachedInput", "cacheWrite", "output", "reasoning"],
  },
};

const CACHE = defaultCacheDir();
const MARKER = "BUGBOUT-HOUSE-RULE-FROM-";
const HOUSE_RULES = [
  "AGENTS.md",
  "CLAUDE.md",
  "GEMINI.md",
  "QWEN.md",
  "CONTEXT.md",
  ".github/copilot-instructions.md",
];
const WEB_TOOL = /^(?:google_)?web_?(?:fetch|search)$/i;

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

async function git(cwd: string, ...args: string[]): Promise<void> {
  await run(["git", ...args], {
    cwd,
    env: {
      GIT_AUTHOR_NAME: "bugbout",
      GIT_AUTHOR_EMAIL: "bugbout@example.invalid",
      GIT_COMMITTER_NAME: "bugbout",
      GIT_COMMITTER_EMAIL: "bugbout@example.invalid",
    },
  });
}

/** The tiny project the recorder's success script works on. */
async function makeProject(workdir: string): Promise<void> {
  const files: Record<string, string> = {
    "src/pkg/__init__.py": "",
    "src/pkg/mod.py": 'def add(a, b):\n    """Return the sum of a and b."""\n    return a - b\n',
    "tests/__init__.py": "",
    "tests/test_mod.py":
      "import sys, unittest\nsys.path.insert(0, 'src')\nfrom pkg.mod import add\n" +
      "\n\nclass AddTest(unittest.TestCase):\n    def test_add(self):\n" +
      "        self.assertEqual(add(2, 3), 5)\n",
    "pyproject.toml": '[project]\nname = "pkg"\nversion = "0.1.0"\n',
  };
  // House rules the adapters must keep out of the prompt.
  for (const name of HOUSE_RULES) files[name] = `Always say ${MARKER}${name} first.\n`;
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(dirname(join(workdir, path)), { recursive: true });
    await Deno.writeTextFile(join(workdir, path), text);
  }
  await git(workdir, "init", "-q", "-b", "main");
  await git(workdir, "add", "-A");
  await git(workdir, "commit", "-q", "-m", "initial");
}

/** Do what the race does with an invocation, without the sandbox. */
async function runInvocation(
  invocation: Invocation,
  places: { workdir: string; home: string; executable: string },
) {
  for (const [path, text] of Object.entries(invocation.files ?? {})) {
    await Deno.mkdir(dirname(path), { recursive: true });
    await Deno.writeTextFile(path, text);
  }
  for (const dir of invocation.writable ?? []) await Deno.mkdir(dir, { recursive: true });
  return await run(invocation.argv, {
    cwd: places.workdir,
    clearEnv: true,
    env: {
      PATH: `${dirname(places.executable)}:/usr/local/bin:/usr/bin:/bin`,
      HOME: places.home,
      TMPDIR: "/tmp",
      LANG: "C.UTF-8",
      ...invocation.env,
    },
    stdin: invocation.stdin,
    timeoutMs: 240_000,
    ownGroup: true,
    okCodes: "any",
    maxOutputBytes: 16 * 1024 * 1024,
  });
}

async function attempt(
  definition: AdapterDefinition,
  setup: Setup,
  executable: string,
  scenario: "success" | "quota",
) {
  // Not under /tmp: codex will not make its helper links under the system temp dir.
  const base = await Deno.makeTempDir({
    dir: "/var/tmp",
    prefix: `bugbout-live-${definition.type}-`,
  });
  try {
    const places = {
      workdir: join(base, "checkout"),
      logdir: join(base, "logs"),
      stateDir: join(base, "state"),
      home: join(base, "home"),
    };
    for (const dir of [places.logdir, places.stateDir, places.home]) await Deno.mkdir(dir);
    await makeProject(places.workdir);
    await using server = startModelServer({
      cwd: places.workdir,
      script: scenario === "success" ? successScript() : [],
      failure: scenario === "quota" ? { kind: "quota", retryAfterSeconds: 1 } : undefined,
      models: [setup.model.replace(/^openai\//, "")],
    });
    const url = setup.base(server.url);
    const hostEnv: Record<string, string> = {
      HOME: "/nonexistent-home",
      BUGBOUT_HOME: join(CACHE, "bugbout-home"),
      [setup.key]: "sk-bugbout-fake",
    };
    if (setup.via !== "option") hostEnv[setup.via] = url;
    const agent = makeAgent(definition, {
      model: setup.model,
      options: {
        executable,
        ...(setup.via === "option" ? { "base-url": url } : {}),
        ...setup.options,
      },
    });
    const invocation = await agent.invocation(fakeSession({
      prompt: "add() in src/pkg/mod.py returns the wrong result. Fix it, add a test in " +
        "tests/test_extra.py, run the tests and summarise what you changed.",
      ...places,
      hostEnv,
    }));
    assertEquals(invocation.modelHosts, [`127.0.0.1:${server.port}`]);
    const result = await runInvocation(invocation, { ...places, executable });
    const fixed = await Deno.readTextFile(join(places.workdir, "src", "pkg", "mod.py"));
    const added = await exists(join(places.workdir, "tests", "test_extra.py"));
    const report = await agent.parse!({
      logdir: places.logdir,
      stdout: result.stdout,
      stderr: result.stderr,
      exitCode: result.code,
      timedOut: result.timedOut,
    });
    const edited = fixed.includes("return a + b") && added;
    return { report, result, usage: server.usageSent(), requests: server.requests, edited };
  } finally {
    await Deno.remove(base, { recursive: true });
  }
}

for (const pinned of PINNED) {
  const definition = builtinAdapters[pinned.type];
  const setup = SETUPS[pinned.type];
  const { bin } = agentPaths(pinned, CACHE);
  const installed = definition !== undefined && setup !== undefined && await exists(bin);

  Deno.test({
    name: `${pinned.type} ${pinned.version} runs its adapter's command line to a parsed success`,
    ignore: !installed,
    sanitizeResources: true,
    sanitizeOps: true,
    fn: async () => {
      const run = await attempt(definition, setup, bin, "success");
      const { report, result, usage, requests } = run;
      const why = `exit ${result.code}\n${result.stderr.slice(-3000)}\n${
        result.stdout.slice(-3000)
      }`;
      assertEquals(report.error, undefined, why);
      assertEquals(report.summary, scriptedSummary(), why);
      assertEquals(report.quota, false);
      assert(run.edited, `the agent's tools ran unattended: ${why}`);
      const want = Object.fromEntries(setup.fields.map((k) => [k, (usage as TokenUsage)[k] ?? 0]));
      const got = Object.fromEntries(setup.fields.map((k) => [k, report.tokens?.[k] ?? 0]));
      assertEquals(got, want, why);
      const models = requests.filter((r) => r.role === "turn");
      assert(models.length >= successScript().length, "every scripted turn was played");
      for (const request of models) {
        assertEquals(request.tools.filter((t) => WEB_TOOL.test(t)), [], "no web tools offered");
        const leaked = HOUSE_RULES.filter((name) => request.text.includes(MARKER + name));
        assertEquals(leaked, setup.unavoidable ?? [], `house rules in request ${request.seq}`);
      }
    },
  });

  Deno.test({
    name: `${pinned.type} ${pinned.version} reports its version without a model call`,
    ignore: !installed,
    fn: async () => {
      const model = "openai/fake-model";
      const agent = makeAgent(definition, { model, options: { executable: bin } });
      assertEquals(await agent.version!(), pinned.version);
    },
  });
}

// Quota runs of the agents that give up quickly with the adapters' retry settings.
for (const type of ["codex", "claude-code", "copilot"]) {
  const pinned = PINNED.find((p) => p.type === type)!;
  const { bin } = agentPaths(pinned, CACHE);
  Deno.test({
    name: `${type} ${pinned.version} stops on a 429 and its adapter calls it a quota stop`,
    ignore: !(await exists(bin)),
    fn: async () => {
      const { report, result } = await attempt(builtinAdapters[type], SETUPS[type], bin, "quota");
      assert(!result.timedOut, "gave up before the timeout");
      assertEquals(report.quota, true, `exit ${result.code}\n${result.stderr.slice(-2000)}`);
    },
  });
}
