/**
 * The Go test environment: a module cache with the module's dependencies, downloaded with the
 * network open, and a build cache already holding the standard library and the dependencies
 * compiled, so that no run inside the sandbox needs the network or starts from a cold cache.
 *
 * Both live in `<cache>/go-<key>/` (`mod/` is `GOMODCACHE`, `build/` the seed of `GOCACHE`),
 * keyed by the toolchain and the content of `go.mod`, `go.sum`, `go.work` and `go.work.sum`, and
 * are reused by every later run and every other bugbout process: building takes an exclusive
 * file lock, and an environment counts only once its manifest is written last. Only the
 * dependencies and the standard library are compiled here, on the host: never the module's own
 * code, which is compiled inside the sandbox (see `run.ts`). Inside, `GOPROXY=off`,
 * `GOSUMDB=off` and `GOTOOLCHAIN=local` keep every `go` command off the network; the module cache
 * is read-only, and each run builds in a copy of the seed of its own.
 *
 * Requires `--allow-run` (go, cp), `--allow-read`, `--allow-write` (the cache) and `--allow-env`.
 *
 * @module
 */

import { dirname, join, resolve } from "node:path";
import { copyTree } from "../../checkout.ts";
import { BugboutError } from "../../errors.ts";
import { readTextIfExists, removeIfExists } from "../../fs.ts";
import { inputsKey } from "../../hash.ts";
import { run } from "../../proc.ts";
import type { RunnerEnv } from "../types.ts";
import { writeJsonAtomic } from "../../store.ts";
import { compareGoVersions, findGo, type GoToolchain, parseGoMod } from "./detect.ts";

/** Bumped when the way environments are built changes, so old ones are not reused. */
const ENV_LAYOUT = 1;
const MANIFEST = "bugbout-go-env.json";
/** Files whose content decides the dependencies. */
const DEPENDENCY_FILES = ["go.mod", "go.sum", "go.work", "go.work.sum"];
/** Variables of the host's environment that `go mod download` may need (proxies, certificates). */
const DOWNLOAD_PASS = [
  "GOPROXY",
  "GOSUMDB",
  "GOPRIVATE",
  "GONOPROXY",
  "GONOSUMDB",
  "GOINSECURE",
  "GOAUTH",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
];

/** The environment every `go` command gets, on the host and in the sandbox alike. */
export function goEnv(toolchain: GoToolchain, dir: string): Record<string, string> {
  return {
    PATH: `${toolchain.goroot}/bin:/usr/local/bin:/usr/bin:/bin`,
    LANG: "C.UTF-8",
    GOROOT: toolchain.goroot,
    GOMODCACHE: join(dir, "mod"),
    GOCACHE: join(dir, "build"),
    GOPATH: "/tmp/bugbout-gopath",
    GOPROXY: "off",
    GOSUMDB: "off",
    GOTOOLCHAIN: "local",
    GOTELEMETRY: "off",
    GOENV: "off",
    GOFLAGS: "-buildvcs=false -modcacherw",
  };
}

const building = new Map<string, Promise<RunnerEnv>>();

/**
 * Prepare the test environment of the module at `tree` under `cache` (see the module's
 * description), or find it ready. Throws a {@linkcode BugboutError} that says what to install or
 * fix: no `go`, a `go.mod` asking for a newer Go, dependencies that cannot be downloaded.
 */
export async function prepareGo(
  tree: string,
  cache: string,
  signal?: AbortSignal,
): Promise<RunnerEnv> {
  const goMod = await readTextIfExists(join(tree, "go.mod"));
  if (goMod === undefined) {
    throw new BugboutError(`Cannot test ${tree} as a Go module: it has no go.mod.`, {
      hint: "bugbout tests a Go module whose go.mod is at the repository root.",
    });
  }
  const mod = parseGoMod(goMod);
  if (!mod) {
    throw new BugboutError(`Cannot read ${join(tree, "go.mod")}: it has no module line.`);
  }
  const toolchain = await findGo();
  if (mod.go && compareGoVersions(toolchain.version, mod.go) < 0) {
    throw new BugboutError(
      `Cannot test module ${mod.module}: its go.mod asks for go ${mod.go}, and the go on PATH is ${toolchain.version}.`,
      {
        hint: `Install Go ${mod.go} or newer (bugbout never lets go download a toolchain).`,
      },
    );
  }
  const files: Record<string, string | null> = {};
  for (const f of DEPENDENCY_FILES) files[f] = (await readTextIfExists(join(tree, f))) ?? null;
  const key = inputsKey({
    layout: ENV_LAYOUT,
    goroot: toolchain.goroot,
    version: toolchain.version,
    files,
  });
  // The manifest names the environment's directories by path: through the real cache, so a cache
  // reached through a symbolic link (one that is later removed) leaves no dangling paths in it.
  await Deno.mkdir(cache, { recursive: true });
  const dir = resolve(await Deno.realPath(cache), `go-${key}`);
  let pending = building.get(dir);
  if (!pending) {
    pending = lockedBuild({ dir, key, toolchain, tree, module: mod.module, signal });
    building.set(dir, pending);
    // Only while it is being built: afterwards the manifest on disk is the truth.
    pending.then(() => building.delete(dir), () => building.delete(dir));
  }
  return await pending;
}

interface Build {
  dir: string;
  key: string;
  toolchain: GoToolchain;
  tree: string;
  module: string;
  signal?: AbortSignal;
}

async function readManifest(dir: string): Promise<RunnerEnv | undefined> {
  const text = await readTextIfExists(join(dir, MANIFEST));
  if (text === undefined) return undefined;
  try {
    const data = JSON.parse(text);
    if (data.layout !== ENV_LAYOUT || typeof data.key !== "string") return undefined;
    return { key: data.key, readable: data.readable, env: data.env, describe: data.describe };
  } catch (error) {
    // A garbled manifest: the environment is built again.
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

async function lockedBuild(b: Build): Promise<RunnerEnv> {
  const ready = await readManifest(b.dir);
  if (ready) return ready;
  await Deno.mkdir(dirname(b.dir), { recursive: true });
  using lock = await Deno.open(`${b.dir}.lock`, { create: true, write: true });
  await lock.lock(true);
  try {
    const built = await readManifest(b.dir);
    if (built) return built;
    await removeIfExists(b.dir);
    try {
      return await build(b);
    } catch (error) {
      await removeIfExists(b.dir);
      throw error;
    }
  } finally {
    await lock.unlock();
  }
}

async function go(args: string[], cwd: string, env: Record<string, string>, signal?: AbortSignal) {
  return await run([join(env.GOROOT, "bin", "go"), ...args], {
    cwd,
    env,
    clearEnv: true,
    okCodes: "any",
    timeoutMs: 1_800_000,
    signal,
  });
}

async function build(b: Build): Promise<RunnerEnv> {
  await Deno.mkdir(join(b.dir, "mod"), { recursive: true });
  await Deno.mkdir(join(b.dir, "build"), { recursive: true });
  await Deno.mkdir(join(b.dir, "home"), { recursive: true });
  const env = { ...goEnv(b.toolchain, b.dir), HOME: join(b.dir, "home") };
  // `go mod download` may touch go.sum: it works on a scratch copy, never on the tree itself.
  const scratch = join(b.dir, "src");
  await copyTree(b.tree, scratch, b.signal);
  try {
    const online: Record<string, string> = { ...env, GOPROXY: "https://proxy.golang.org,direct" };
    delete online.GOSUMDB;
    for (const name of DOWNLOAD_PASS) {
      const value = Deno.env.get(name);
      if (value !== undefined) online[name] = value;
    }
    const download = await go(["mod", "download"], scratch, online, b.signal);
    if (download.code !== 0) {
      throw new BugboutError(
        `Cannot download the dependencies of module ${b.module}:\n${
          (download.stderr || download.stdout).trim()
        }`,
        {
          hint:
            "Check that this machine reaches the Go module proxy (GOPROXY) and that go.mod and go.sum are consistent (`go mod tidy`).",
        },
      );
    }
    // Compile the standard library and the dependencies the tests import (never the module's
    // own packages: those are compiled in the sandbox), so that runs start from a warm cache.
    const listed = await go(
      [
        "list",
        "-e",
        "-deps",
        "-test",
        "-f",
        "{{if not .Error}}{{if or .Standard (and .Module (not .Module.Main))}}{{.ImportPath}}{{end}}{{end}}",
        "./...",
      ],
      scratch,
      env,
      b.signal,
    );
    const packages = [...new Set(listed.stdout.split("\n").map((l) => l.trim()))]
      .filter((p) => p && p !== "C" && !p.includes(" "));
    if (packages.length) await go(["build", ...packages], scratch, env, b.signal);
    const modules = await go(["list", "-m", "-e", "all"], scratch, env, b.signal);
    const count = Math.max(0, modules.stdout.trim().split("\n").filter(Boolean).length - 1);
    const runnerEnv: RunnerEnv = {
      key: b.key,
      readable: [b.toolchain.goroot, join(b.dir, "mod")],
      env: goEnv(b.toolchain, b.dir),
      describe: `${b.toolchain.version}, ${count} ${count === 1 ? "module" : "modules"}`,
    };
    // Readable by whichever user the sandbox runs tests as; nothing in it is secret.
    await Deno.chmod(b.dir, 0o755);
    await Deno.chmod(join(b.dir, "mod"), 0o755);
    await writeJsonAtomic(join(b.dir, MANIFEST), {
      ...runnerEnv,
      layout: ENV_LAYOUT,
      created: new Date().toISOString(),
    });
    return runnerEnv;
  } finally {
    await removeIfExists(scratch);
  }
}
