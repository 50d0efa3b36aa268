import { deepStrictEqual as assertEquals, ok as assert, rejects } from "node:assert/strict";
import { run } from "../../lib/proc.ts";
import { agentPaths, defaultCacheDir, installAgents, PINNED } from "./install.ts";

const cacheDir = defaultCacheDir();

async function cached(): Promise<boolean> {
  for (const agent of PINNED) {
    try {
      await Deno.stat(agentPaths(agent, cacheDir).bin);
    } catch {
      return false;
    }
  }
  return true;
}

// Installing needs the npm registry and PyPI; tests may not reach them, so this only checks an
// existing cache (run `deno run -A tests/agents/install.ts` first to fill it).
const present = await cached();

Deno.test("installAgents() rejects an agent type that is not pinned", async () => {
  await rejects(
    installAgents({ cacheDir: "/nonexistent", only: ["codex", "aider"] }),
    /Cannot install aider: not a pinned agent type/,
  );
});

Deno.test("agentPaths() puts npm CLIs under node_modules/.bin and mini in its venv", () => {
  const codex = PINNED.find((a) => a.type === "codex")!;
  const mini = PINNED.find((a) => a.type === "mini-swe-agent")!;
  assertEquals(agentPaths(codex, "/c"), {
    dir: "/c/codex",
    bin: "/c/codex/node_modules/.bin/codex",
  });
  assertEquals(agentPaths(mini, "/c"), {
    dir: "/c/mini-swe-agent",
    bin: "/c/mini-swe-agent/.venv/bin/mini",
  });
});

Deno.test({
  name: "installAgents() finds every cached agent at its pinned version and installs nothing",
  ignore: !present,
  async fn() {
    const agents = await installAgents({ cacheDir });
    assertEquals(agents.map((a) => a.type), PINNED.map((a) => a.type));
    for (const agent of agents) {
      const pinned = PINNED.find((a) => a.type === agent.type)!;
      assertEquals([agent.version, agent.installed], [pinned.version, false]);
      const home = await Deno.makeTempDir();
      try {
        const result = await run([agent.executable, "--version"], {
          okCodes: "any",
          clearEnv: true,
          env: { PATH: "/usr/bin:/bin", HOME: home },
          timeoutMs: 120_000,
          ownGroup: true,
        });
        // mini has no --version flag but names its version before complaining
        assert(
          (result.stdout + result.stderr).includes(pinned.version),
          `${agent.type}: ${result.stdout}${result.stderr}`,
        );
      } finally {
        await Deno.remove(home, { recursive: true });
      }
    }
  },
});
