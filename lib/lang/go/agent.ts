/**
 * What an agent's sandbox needs to run a Go module's tests with no network: the toolchain
 * (`GOROOT`) and the prepared module cache readable; `GOPROXY=off`, `GOSUMDB=off`,
 * `GOTOOLCHAIN=local`, `GOFLAGS` as the runner sets them; a writable `GOCACHE` (a copy of the
 * environment's warm seed) and `GOPATH` in the attempt's state directory, outside the working
 * copy. Test command: `go test ./...`.
 *
 * Requires `--allow-read` and `--allow-write` (the attempt's state directory).
 *
 * @module
 */

import { join } from "node:path";
import { copyTree } from "../../checkout.ts";
import { statIfExists } from "../../fs.ts";
import { ownPath } from "../agent_path.ts";
import type { AgentTestEnv, RunnerTree } from "../types.ts";

/** The agent's test environment on a Go tree (see the module's documentation). */
export async function goAgentEnv(
  { runner, env }: RunnerTree,
  dirs: { work: string; state: string },
  signal?: AbortSignal,
): Promise<AgentTestEnv> {
  const { PATH: envPath, ...vars } = env.env;
  const gocache = join(dirs.state, "go-build");
  const seed = vars.GOCACHE;
  // The environment's warm build cache, copied: the agent's builds never write into it.
  if (seed && (await statIfExists(seed))?.isDirectory) await copyTree(seed, gocache, signal);
  else await Deno.mkdir(gocache, { recursive: true });
  const gopath = join(dirs.state, "gopath");
  await Deno.mkdir(gopath, { recursive: true });
  return {
    runner,
    path: ownPath(envPath),
    readable: [...env.readable],
    writable: [],
    links: [],
    env: { ...vars, GOCACHE: gocache, GOPATH: gopath },
    testCommand: "go test ./...",
    transient: [],
  };
}
