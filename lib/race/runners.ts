/**
 * What an agent's sandbox needs to run a Go or JavaScript project's tests, with no network: the
 * tree's prepared environment (`TreeRunners`), made reachable from the attempt's working copy
 * without ever becoming part of its patch, and the test command the prompt gives.
 *
 * - Go: the toolchain (`GOROOT`) and the prepared module cache readable; `GOPROXY=off`,
 *   `GOSUMDB=off`, `GOTOOLCHAIN=local`, `GOFLAGS` as the runner sets them; a writable `GOCACHE`
 *   (a copy of the environment's warm seed) and `GOPATH` in the attempt's state directory, outside
 *   the working copy. Test command: `go test ./...`.
 * - JavaScript: node and the package manager readable; `node_modules` in the working copy made of
 *   links into the prepared environment (as the runner makes it for every test group), and its
 *   `.bin` on `PATH`. The working copy's `node_modules` (and whatever the tools cached in it) is
 *   removed before the patch is captured. Test command: the package manager's `test` script
 *   (`npm test`), or the runner's own command when no package manager is on `PATH`.
 *
 * Requires `--allow-run` (the toolchains, cp), `--allow-read`, `--allow-write` (the attempt's
 * directories, `BUGBOUT_HOME`) and `--allow-env`.
 *
 * @module
 */

import { join } from "node:path";
import { copyTree } from "../checkout.ts";
import { removeIfExists, statIfExists } from "../fs.ts";
import { readNodeProject } from "../lang/node/mod.ts";
import { which } from "../proc.ts";
import type { Language } from "../records.ts";
import type { TestRunner } from "../lang/mod.ts";
import { toolchainMounts } from "../sandbox/mod.ts";
import type { TreeRunners } from "../testbed/mod.ts";

/** Directories every sandbox's `PATH` ends with; the environment's own come before them. */
const SYSTEM_PATH = ["/usr/local/bin", "/usr/bin", "/bin"];

/** An agent's test environment on a Go or JavaScript tree. */
export interface AgentTestEnv {
  /** The tree's runner (it classifies the attempt's changed paths). */
  runner: TestRunner;
  /** The project's language. */
  language: Exclude<Language, "python">;
  /** Directories to put first on `PATH` inside. */
  path: string[];
  /** Host paths to make readable. */
  readable: string[];
  /** Host paths to make writable (besides the working copy). */
  writable: string[];
  /** Links to make inside (a package manager found through a link). */
  links: { path: string; target: string }[];
  /** Variables the agent gets (before its own invocation's). */
  env: Record<string, string>;
  /** The command that runs the project's tests inside the sandbox. */
  testCommand: string;
  /** Paths in the working copy to remove before the patch is captured. */
  transient: string[];
}

/** The directories of `PATH` that are not the system's. */
function ownPath(path: string | undefined): string[] {
  return (path ?? "").split(":").filter((p) => p && !SYSTEM_PATH.includes(p));
}

/**
 * Make the test environment of the working copy `work` (a fresh checkout of B, its snapshot
 * already taken), using `state` (the attempt's writable state directory) for caches.
 */
export async function agentTestEnv(
  runners: TreeRunners,
  dirs: { work: string; state: string },
  signal?: AbortSignal,
): Promise<AgentTestEnv> {
  const { runner, env } = await runners.open(dirs.work, signal);
  const { PATH: envPath, ...vars } = env.env;
  if (runners.language === "go") {
    const gocache = join(dirs.state, "go-build");
    const seed = vars.GOCACHE;
    // The environment's warm build cache, copied: the agent's builds never write into it.
    if (seed && (await statIfExists(seed))?.isDirectory) await copyTree(seed, gocache, signal);
    else await Deno.mkdir(gocache, { recursive: true });
    const gopath = join(dirs.state, "gopath");
    await Deno.mkdir(gopath, { recursive: true });
    return {
      runner,
      language: "go",
      path: ownPath(envPath),
      readable: [...env.readable],
      writable: [],
      links: [],
      env: { ...vars, GOCACHE: gocache, GOPATH: gopath },
      testCommand: "go test ./...",
      transient: [],
    };
  }
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
    language: "node",
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

/** Remove what the test environment put in the working copy, before the patch is captured. */
export async function dropTransient(work: string, env: AgentTestEnv | undefined): Promise<void> {
  for (const path of env?.transient ?? []) await removeIfExists(join(work, path));
}
