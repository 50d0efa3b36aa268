/**
 * A project: its validated config, the local repository (cloned once into `BUGBOUT_HOME` when
 * `repository` is a remote: a git URL or a bare repository), the results directory and the cache
 * directory.
 *
 * @module
 */

import { join } from "node:path";
import { type AgentEntry, type Config, loadConfig, type LoadOptions } from "./config.ts";
import { BugboutError, ConfigError } from "./errors.ts";
import { git, gitRun } from "./git.ts";
import { inputsKey, slug } from "./hash.ts";
import { bugboutHome } from "./home.ts";
import { ResultsDir } from "./store.ts";
import { removeIfExists, statIfExists } from "./fs.ts";

/** The repository under test and where bugbout keeps its files for it. */
export class Project {
  /** The validated configuration. */
  readonly config: Config;
  /** Absolute path of the local git repository to mine. */
  readonly repository: string;
  /** `.bugbout/` beside bugbout.toml. */
  readonly results: ResultsDir;
  /** `BUGBOUT_HOME`: environments, checkouts, working copies. */
  readonly home: string;

  /** A project over a validated config and a local repository (see {@linkcode Project.load}). */
  constructor(config: Config, repository: string, home: string = bugboutHome()) {
    this.config = config;
    this.repository = repository;
    this.results = new ResultsDir(join(config.root, ".bugbout"));
    this.home = home;
  }

  /** Load `bugbout.toml` from `path` (a directory or the file) and open its repository. */
  static async load(path = ".", options: LoadOptions & { home?: string } = {}): Promise<Project> {
    const config = await loadConfig(path, options);
    const home = options.home ?? bugboutHome();
    const repository = config.project.remote
      ? await cloneOnce(config.project.repository, home)
      : config.project.repository;
    if (config.project.remote) {
      await checkSourceAtHead(repository, config.project.source, config.file);
    }
    return new Project(config, repository, home);
  }

  /** Every configured agent, contestants first, in configuration order. */
  get agents(): AgentEntry[] {
    return [...this.config.contestants, ...this.config.examiners];
  }

  /** A directory inside `BUGBOUT_HOME` that belongs to this project. */
  cacheDir(...parts: string[]): string {
    return join(
      this.home,
      "projects",
      `${slug(this.config.root.split("/").pop() ?? "p")}-${inputsKey(this.config.root)}`,
      ...parts,
    );
  }
}

/** Where {@linkcode cloneOnce} clones `url` (a git URL or the path of a bare repository). */
export function clonePath(url: string, home: string): string {
  return join(
    home,
    "repos",
    `${slug(url.replace(/^\w+:\/\//, "")).slice(-60)}-${inputsKey(url)}`,
  );
}

/** True when {@linkcode cloneOnce} has cloned `url` already. */
export async function isCloned(url: string, home: string): Promise<boolean> {
  return (await statIfExists(join(clonePath(url, home), "HEAD")))?.isFile ?? false;
}

/** Clone a repository URL into `BUGBOUT_HOME/repos/` the first time; fetch it afterwards. */
export async function cloneOnce(url: string, home: string): Promise<string> {
  const dir = clonePath(url, home);
  const present = await isCloned(url, home);
  try {
    if (!present) {
      const temp = `${dir}.partial-${Deno.pid}`;
      await removeIfExists(temp);
      await Deno.mkdir(join(home, "repos"), { recursive: true });
      await git(["clone", "--quiet", "--bare", "--", url, temp], {
        userConfig: true,
        timeoutMs: 3_600_000,
      });
      await Deno.rename(temp, dir);
    } else {
      await gitRun(["fetch", "--quiet", "--prune", "origin", "+refs/heads/*:refs/heads/*"], {
        cwd: dir,
        userConfig: true,
        okCodes: "any",
        timeoutMs: 600_000,
      });
    }
  } catch (error) {
    throw new BugboutError(`Cannot clone ${url}: ${(error as Error).message}`, {
      hint:
        "Check the URL and your access to it, or clone it yourself and set repository to the path.",
    });
  }
  return dir;
}

/** In a cloned (bare) repository, check that `source` exists at HEAD. */
export async function checkSourceAtHead(repo: string, source: string, file: string): Promise<void> {
  const result = await gitRun(["cat-file", "-e", `HEAD:${source}`], { cwd: repo, okCodes: "any" });
  const module = await gitRun(["cat-file", "-e", `HEAD:${source}.py`], {
    cwd: repo,
    okCodes: "any",
  });
  if (result.code !== 0 && module.code !== 0) {
    throw new ConfigError(
      `${file}: [project] source: expected the package directory ${source} in the cloned repository.`,
      { hint: `Set source to the package directory relative to the repository root.` },
    );
  }
}
