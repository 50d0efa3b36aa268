/**
 * Installs the pinned real agent CLIs once into a cache directory, for tests and recordings.
 *
 * The npm CLIs go to `<cache>/<type>` with `npm install --prefix`; mini-swe-agent goes into its own
 * uv environment at `<cache>/mini-swe-agent/.venv`. Installing is idempotent: an agent already at
 * the pinned version is skipped. Run `deno run -A tests/agents/install.ts [type...]` to install
 * and print the executables.
 *
 * Requires `--allow-run` (npm, uv), `--allow-read`, `--allow-write` and `--allow-env`.
 *
 * @module
 */

import { join } from "node:path";
import { run } from "../../lib/proc.ts";

/** One pinned agent CLI. */
export interface PinnedAgent {
  /** The bugbout adapter type, also the cache subdirectory. */
  readonly type: string;
  /** Where the package comes from. */
  readonly registry: "npm" | "pypi";
  /** Package name. */
  readonly package: string;
  /** The exact version to install. */
  readonly version: string;
  /** The executable the package provides. */
  readonly bin: string;
}

/** The agent CLIs the tests and recordings use, at their pinned versions. */
export const PINNED: readonly PinnedAgent[] = [
  { type: "codex", registry: "npm", package: "@openai/codex", version: "0.171.0", bin: "codex" },
  {
    type: "claude-code",
    registry: "npm",
    package: "@anthropic-ai/claude-code",
    version: "2.1.197",
    bin: "claude",
  },
  {
    type: "gemini-cli",
    registry: "npm",
    package: "@google/gemini-cli",
    version: "0.61.0",
    bin: "gemini",
  },
  {
    type: "opencode",
    registry: "npm",
    package: "opencode-ai",
    version: "1.18.33",
    bin: "opencode",
  },
  {
    type: "qwen-code",
    registry: "npm",
    package: "@qwen-code/qwen-code",
    version: "0.15.10",
    bin: "qwen",
  },
  {
    type: "copilot",
    registry: "npm",
    package: "@github/copilot",
    version: "1.0.102",
    bin: "copilot",
  },
  {
    type: "mini-swe-agent",
    registry: "pypi",
    package: "mini-swe-agent",
    version: "2.4.6",
    bin: "mini",
  },
];

/** An installed agent CLI. */
export interface InstalledAgent {
  /** The adapter type. */
  type: string;
  /** The installed version. */
  version: string;
  /** Absolute path of the executable. */
  executable: string;
  /** The directory the agent was installed into. */
  dir: string;
  /** True when this call installed it; false when it was already there. */
  installed: boolean;
}

/** Options for {@linkcode installAgents}. */
export interface InstallOptions {
  /** Cache directory; defaults to {@linkcode defaultCacheDir}. */
  cacheDir?: string;
  /** Only these agent types (default: all pinned agents). */
  only?: readonly string[];
  /** The Python the mini-swe-agent environment uses (default `3.11`). */
  python?: string;
  /** Per-package install timeout in milliseconds (default 15 minutes). */
  timeoutMs?: number;
}

/** `agents/` of the test cache: `$BUGBOUT_TEST_CACHE`, else `$XDG_CACHE_HOME/bugbout-test`, else `~/.cache/bugbout-test`. */
export function defaultCacheDir(): string {
  const base = Deno.env.get("BUGBOUT_TEST_CACHE") ||
    join(
      Deno.env.get("XDG_CACHE_HOME") || join(Deno.env.get("HOME") || "/root", ".cache"),
      "bugbout-test",
    );
  return join(base, "agents");
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

interface PackageJson {
  version?: string;
  scripts?: Record<string, string>;
}

async function npmPackage(dir: string, pkg: string): Promise<PackageJson | undefined> {
  try {
    return JSON.parse(await Deno.readTextFile(join(dir, "node_modules", pkg, "package.json")));
  } catch {
    return undefined;
  }
}

async function pypiVersion(venv: string, pkg: string): Promise<string | undefined> {
  const python = join(venv, "bin", "python");
  if (!(await exists(python))) return undefined;
  const result = await run([
    python,
    "-c",
    "import importlib.metadata as m, sys; print(m.version(sys.argv[1]))",
    pkg,
  ], { okCodes: "any", timeoutMs: 60_000, clearEnv: true, env: { PATH: "/usr/bin:/bin" } });
  return result.code === 0 ? result.stdout.trim() : undefined;
}

/** Does `bin --version` work? Run with a scratch HOME so nothing user-level is touched. */
async function runs(bin: string): Promise<boolean> {
  const home = await Deno.makeTempDir({ prefix: "bugbout-install-probe-" });
  try {
    const result = await run([bin, "--version"], {
      okCodes: "any",
      timeoutMs: 120_000,
      ownGroup: true,
      clearEnv: true,
      env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: home },
    });
    return result.code === 0;
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

async function installNpm(
  agent: PinnedAgent,
  dir: string,
  bin: string,
  timeoutMs: number,
): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  await run([
    "npm",
    "install",
    "--prefix",
    dir,
    "--no-audit",
    "--no-fund",
    "--loglevel=error",
    `${agent.package}@${agent.version}`,
  ], { timeoutMs, ownGroup: true, env: { npm_config_update_notifier: "false" } });
  if (!(await npmWorks(agent, dir, bin))) {
    await run(["npm", "rebuild", "--prefix", dir, "--foreground-scripts", agent.package], {
      timeoutMs,
      ownGroup: true,
    });
    if (!(await npmWorks(agent, dir, bin))) {
      throw new Error(`Cannot run ${bin} --version after installing ${agent.package}`);
    }
  }
}

/**
 * Is the npm package installed at the pinned version and usable? claude-code and opencode-ai
 * only work after their postinstall script has linked the platform binary into place; an npm
 * that skips unapproved scripts (or `--ignore-scripts`) leaves a stub that only prints an error.
 * So a package with a postinstall script must also answer `--version`.
 */
async function npmWorks(agent: PinnedAgent, dir: string, bin: string): Promise<boolean> {
  const pkg = await npmPackage(dir, agent.package);
  if (pkg?.version !== agent.version || !(await exists(bin))) return false;
  return pkg.scripts?.postinstall ? await runs(bin) : true;
}

async function installPypi(
  agent: PinnedAgent,
  dir: string,
  python: string,
  timeoutMs: number,
): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  const venv = join(dir, ".venv");
  const env = { UV_PYTHON_DOWNLOADS: "never", VIRTUAL_ENV: venv };
  if (!(await exists(join(venv, "bin", "python")))) {
    await run(["uv", "venv", "--python", python, venv], { timeoutMs, env });
  }
  await run(
    [
      "uv",
      "pip",
      "install",
      "--python",
      join(venv, "bin", "python"),
      `${agent.package}==${agent.version}`,
    ],
    { timeoutMs, env, ownGroup: true },
  );
}

/** The directory and executable an agent has (or will have) in the cache. */
export function agentPaths(agent: PinnedAgent, cacheDir: string): { dir: string; bin: string } {
  const dir = join(cacheDir, agent.type);
  const bin = agent.registry === "npm"
    ? join(dir, "node_modules", ".bin", agent.bin)
    : join(dir, ".venv", "bin", agent.bin);
  return { dir, bin };
}

/**
 * Install every pinned agent (or `only` those) that is not yet in the cache at its pinned
 * version, and return where each executable is. Agents already there are skipped (npm packages
 * with a postinstall script are also run once with `--version` to prove they are not a stub).
 * Throws a `ProcError` when an install fails. Needs the npm registry and PyPI for what is missing.
 */
export async function installAgents(options: InstallOptions = {}): Promise<InstalledAgent[]> {
  const cacheDir = options.cacheDir ?? defaultCacheDir();
  const timeoutMs = options.timeoutMs ?? 15 * 60_000;
  const wanted = PINNED.filter((a) => !options.only || options.only.includes(a.type));
  const unknown = (options.only ?? []).filter((t) => !PINNED.some((a) => a.type === t));
  if (unknown.length) {
    throw new Error(`Cannot install ${unknown.join(", ")}: not a pinned agent type`);
  }
  const out: InstalledAgent[] = [];
  for (const agent of wanted) {
    const { dir, bin } = agentPaths(agent, cacheDir);
    const current = async () =>
      agent.registry === "npm"
        ? (await npmPackage(dir, agent.package))?.version
        : await pypiVersion(join(dir, ".venv"), agent.package);
    const ready = agent.registry === "npm"
      ? await npmWorks(agent, dir, bin)
      : (await current()) === agent.version && await exists(bin);
    let installed = false;
    if (!ready) {
      if (agent.registry === "npm") await installNpm(agent, dir, bin, timeoutMs);
      else await installPypi(agent, dir, options.python ?? "3.11", timeoutMs);
      installed = true;
    }
    const version = await current();
    if (version !== agent.version || !(await exists(bin))) {
      throw new Error(
        `Cannot install ${agent.package}@${agent.version}: found ${version ?? "nothing"} at ${dir}`,
      );
    }
    out.push({ type: agent.type, version, executable: bin, dir, installed });
  }
  return out;
}

if (import.meta.main) {
  const agents = await installAgents({ only: Deno.args.length ? Deno.args : undefined });
  for (const a of agents) {
    console.log(`${a.type}\t${a.version}\t${a.executable}${a.installed ? "\t(installed)" : ""}`);
  }
}
