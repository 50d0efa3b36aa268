/**
 * What an agent's sandbox needs to run a JavaScript project's tests with no network: node and the
 * package manager readable; `node_modules` in the working copy made of links into the prepared
 * environment (as the runner makes it for every test group), and its `.bin` on `PATH`. The working
 * copy's `node_modules` (and whatever the tools cached in it) is removed before the patch is
 * captured. Test command: the package manager's `test` script (`npm test`), or the runner's own
 * command when no package manager is on `PATH`.
 *
 * Requires `--allow-run` (to find the package manager), `--allow-read` and `--allow-write` (the
 * working copy).
 *
 * @module
 */

import { join } from "node:path";
import { statIfExists } from "../../fs.ts";
import { which } from "../../proc.ts";
import { toolchainMounts } from "../../sandbox/mod.ts";
import { ownPath, SYSTEM_PATH } from "../agent_path.ts";
import type { AgentTestEnv, RunnerTree } from "../types.ts";
import { readNodeProject } from "./detect.ts";

/** The agent's test environment on a JavaScript tree (see the module's documentation). */
export async function nodeAgentEnv(
  { runner, env }: RunnerTree,
  dirs: { work: string; state: string },
): Promise<AgentTestEnv> {
  const { PATH: envPath, ...vars } = env.env;
  const project = await readNodeProject(dirs.work);
  const nodeModules = vars.NODE_PATH;
  const transient: string[] = [];
  const tracked = await statIfExists(join(dirs.work, "node_modules"));
  if (nodeModules && !tracked) {
    await linkModules(join(dirs.work, "node_modules"), nodeModules);
    transient.push("node_modules");
  }
  const readable = [...env.readable];
  const links: AgentTestEnv["links"] = [];
  const program = project?.manager === "yarn-berry" ? "yarn" : project?.manager ?? "npm";
  const hostPath = [...ownPath(envPath), Deno.env.get("PATH") ?? SYSTEM_PATH.join(":")].join(":");
  let testCommand: string;
  if (await which(program, hostPath)) {
    const mounts = await toolchainMounts(program, { path: hostPath });
    readable.push(...mounts.readable);
    links.push(...mounts.links);
    testCommand = `${program} test`;
  } else {
    // Without the package manager, the runner itself (its command is on PATH from .bin).
    testCommand = project?.runner === "vitest"
      ? "vitest run"
      : project?.runner === "jest"
      ? "jest"
      : "node --test";
  }
  return {
    runner,
    path: [join(dirs.work, "node_modules", ".bin"), ...ownPath(envPath)],
    readable,
    writable: [],
    links,
    env: {
      ...vars,
      npm_config_update_notifier: "false",
      npm_config_fund: "false",
      npm_config_audit: "false",
    },
    testCommand,
    transient,
  };
}

/**
 * `dir` as a directory of links, one to each top-level entry of the prepared `node_modules`: the
 * directory itself stays writable for the caches tools keep there.
 */
async function linkModules(dir: string, nodeModules: string): Promise<void> {
  await Deno.mkdir(dir);
  for await (const entry of Deno.readDir(nodeModules)) {
    if (entry.name === ".package-lock.json" || entry.name === ".modules.yaml") continue;
    await Deno.symlink(join(nodeModules, entry.name), join(dir, entry.name));
  }
}
