/**
 * `bugbout doctor`: every check a bout needs, one result each, with what to do on failure. Nothing
 * here spends an agent's quota: agents are only asked for their version.
 *
 * @module
 */

import {
  agentOf,
  checkPaths,
  type Config,
  configuredRepository,
  isRemoteRepository,
  loadConfig,
} from "./config.ts";
import { BugboutError, ConfigError, describeError } from "./errors.ts";
import {
  checkRepository,
  defaultBranch,
  firstParentCount,
  git,
  probeRemote,
  repositoryRoot,
} from "./git.ts";
import { bugboutHome } from "./home.ts";
import { githubAccess, runnerAtHead } from "./mine/mod.ts";
import { type DoctorCheck, languageOf } from "./lang/mod.ts";
import { DEFAULT_LANGUAGE } from "./records.ts";
import { checkSourceAtHead, clonePath, isCloned, Project } from "./project.ts";
import { run, which } from "./proc.ts";
import { findProjectClones, probeSandbox, runsAsRoot, toolchainMounts } from "./sandbox/mod.ts";

/** The result of one check. */
export type Check = DoctorCheck;

/** Everything doctor found. */
export interface DoctorReport {
  /** Checks in order. */
  checks: Check[];
  /** True when nothing failed. */
  ok: boolean;
}

/** The sandbox as one check: a real probe of the configured sandbox. */
async function sandboxCheck(setting: Config["run"]["sandbox"]): Promise<Check> {
  const probe = await probeSandbox(setting);
  if (probe.kind === "none") {
    return {
      name: "sandbox",
      status: "warn",
      detail: `sandbox = "none": agents and tests run unconfined and could read the fix`,
      fix: 'Remove `sandbox = "none"` from [run] to confine them (bubblewrap on Linux).',
    };
  }
  return {
    name: "sandbox",
    status: probe.ok ? "ok" : "fail",
    detail: probe.detail,
    fix: probe.fix,
  };
}

/**
 * GitHub access for issue texts, as one check. Missing access never stops a bout (problem
 * statements then come from commit titles), so it is a warning at worst.
 */
async function githubCheck(project: Project): Promise<Check> {
  const access = await githubAccess(project);
  return {
    name: "github",
    status: access.ok ? "ok" : "warn",
    detail: access.detail,
    ...(access.fix && !access.ok ? { fix: access.fix } : {}),
  };
}

/**
 * The repository at `dir` as one check: a git repository with commits and its whole history.
 * `label` starts the line (default: the repository's root and a colon).
 */
async function gitCheck(dir: string, label?: string): Promise<Check> {
  try {
    await checkRepository(dir);
    const root = await repositoryRoot(dir) ?? dir;
    const branch = await defaultBranch(root);
    const count = await firstParentCount(root, branch);
    return {
      name: "git",
      status: count > 1 ? "ok" : "warn",
      detail:
        `${label ?? `${root}:`} default branch ${branch}, ${count} commit(s) of first-parent ` +
        "history",
      fix: count > 1
        ? undefined
        : "A bout mines fixes from history; this repository has almost none.",
    };
  } catch (error) {
    return {
      name: "git",
      status: "fail",
      detail: describeError(error),
      fix: (error as { hint?: string }).hint ?? "Check out a branch.",
    };
  }
}

/** The repository check, and the local repository the later checks read, when there is one. */
interface RepositoryCheck {
  check: Check;
  /** The repository on this machine: the configured one, or a remote's clone once it exists. */
  local?: string;
}

/**
 * The configured repository as one check. A remote (a git URL, or a bare repository) is mined from
 * its clone in `BUGBOUT_HOME`: once that exists, it is the clone that is checked; before, only
 * that the remote answers (doctor clones nothing).
 */
async function repositoryCheck(
  place: { repository: string; remote: boolean },
  home: string,
): Promise<RepositoryCheck> {
  if (!place.remote) {
    return { check: await gitCheck(place.repository), local: place.repository };
  }
  const what = isRemoteRepository(place.repository)
    ? `${place.repository} (a remote)`
    : `${place.repository} (a bare repository)`;
  const clone = clonePath(place.repository, home);
  if (await isCloned(place.repository, home)) {
    const label = `${what}: mined from its clone ${clone} (fetched by each \`bugbout tasks\` ` +
      "and `bugbout run`),";
    return { check: await gitCheck(clone, label), local: clone };
  }
  const probe = await probeRemote(place.repository);
  return {
    check: probe.ok
      ? {
        name: "git",
        status: "ok",
        detail: `${what}: the first \`bugbout tasks\` or \`bugbout run\` clones it into ${clone}`,
      }
      : {
        name: "git",
        status: "fail",
        detail: `Cannot read ${what}: ${probe.reason}`,
        fix: probe.hint,
      },
  };
}

/**
 * The config as one check. The paths it names are checked in the repository itself (a remote's
 * clone), and only once the repository check passed: a repository that is not there is said once.
 */
async function configCheck(
  config: Config | undefined,
  error: unknown,
  repository: RepositoryCheck | undefined,
): Promise<Check> {
  let problem = error;
  if (config && repository?.local && repository.check.status !== "fail") {
    try {
      if (config.project.remote) {
        await checkSourceAtHead(repository.local, config.project.source, config.file);
      } else {
        await checkPaths(config);
      }
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problem = error;
    }
  }
  if (config && !problem) {
    return {
      name: "config",
      status: "ok",
      detail: `${config.file}: ${config.contestants.length} contestant(s), ` +
        `${config.examiners.length} examiner(s), policy ${config.judge.policy}`,
    };
  }
  return {
    name: "config",
    status: "fail",
    detail: describeError(problem),
    fix: (problem as { hint?: string }).hint ?? "Fix bugbout.toml as the message says.",
  };
}

/** What every agent may consume, from `[run]`. */
function limitsCheck(config: Config): Check {
  const run = config.run;
  return {
    name: "limits",
    status: "ok",
    detail: `each agent: ${run.agentProcesses} processes, ${run.agentMemory} MiB of memory, ` +
      `${run.agentDisk} MiB of disk` +
      (runsAsRoot() ? "; commands run as unprivileged users (bugbout runs as root)" : ""),
  };
}

/**
 * Another copy of the project where a sandbox can see it (the default view, the agents'
 * toolchains) would hand an agent the fix: a warning naming where.
 */
async function clonesCheck(project: Project, executables: string[]): Promise<Check> {
  const readable: string[] = [];
  for (const executable of executables) {
    readable.push(...(await toolchainMounts(executable)).readable);
  }
  const clones = await findProjectClones({
    repository: project.repository,
    readable,
    deny: [project.repository, project.home, project.results.path],
  });
  if (clones.length === 0) {
    return {
      name: "clones",
      status: "ok",
      detail: "no other copy of the project in sight of agents",
    };
  }
  return {
    name: "clones",
    status: "warn",
    detail: `agents can read another copy of the project, with its fixes: ${clones.join(", ")}`,
    fix: "Move it out of the system's directories and the agents' install directories, " +
      "or delete it.",
  };
}

async function agentChecks(config: Config, found: string[] = []): Promise<Check[]> {
  const checks: Check[] = [];
  for (const entry of [...config.contestants, ...config.examiners]) {
    const options = entry.options as { executable?: string; command?: string[] };
    const executable = options.executable ?? options.command?.[0] ??
      (entry.adapter ?? entry.agent).executable;
    const label = `${entry.role} ${entry.name}`;
    const path = executable ? await which(executable) : undefined;
    if (!path) {
      checks.push({
        name: label,
        status: "fail",
        detail: executable.includes("/")
          ? `${executable} does not exist or is not executable`
          : `${executable || "(no executable)"} not found on PATH`,
        fix: `Install ${
          entry.adapter?.description ?? entry.type
        }, or remove this entry from bugbout.toml.`,
      });
      continue;
    }
    found.push(path);
    let version: string | undefined;
    try {
      version = await agentOf(entry).version?.();
    } catch (error) {
      // An agent that cannot even say its version is still found; the race will tell more.
      version = `version unknown: ${describeError(error).split("\n")[0]}`;
    }
    checks.push({ name: label, status: "ok", detail: `${path} (${version ?? "version unknown"})` });
  }
  if (config.contestants.length === 0) {
    checks.push({
      name: "contestants",
      status: "fail",
      detail: "bugbout.toml names no [[contestants]]",
      fix: "Add at least one [[contestants]] entry (bugbout init lists the agents it finds).",
    });
  }
  return checks;
}

/**
 * Run every check for the project whose bugbout.toml is at `path`. Doctor changes nothing: a
 * remote repository is neither cloned nor fetched here.
 */
export async function runDoctor(
  path = ".",
  options: { home?: string } = {},
): Promise<DoctorReport> {
  const home = options.home ?? bugboutHome();
  const checks: Check[] = [];
  let config: Config | undefined;
  let configError: unknown;
  try {
    // The paths are checked below, in the repository the git check found.
    config = await loadConfig(path, { skipPathChecks: true });
  } catch (error) {
    if (!(error instanceof BugboutError)) throw error;
    configError = error;
  }
  // A file named outright that is not there says nothing of where the repository is.
  const place = config?.project ?? await configuredRepository(path);
  const repository = place ? await repositoryCheck(place, home) : undefined;
  if (repository) checks.push(repository.check);
  checks.push(await configCheck(config, configError, repository));
  const project = config &&
    new Project(config, repository?.local ?? clonePath(config.project.repository, home), home);
  // The language's own toolchain: uv and Python, go, node and its package manager.
  const language = languageOf(config?.project.language ?? DEFAULT_LANGUAGE);
  const local = repository?.check.status !== "fail" ? repository?.local : undefined;
  checks.push(
    ...await language.doctor({
      repository: local,
      project: project || undefined,
      headRunner: () => runnerAtHead(local!, language.name),
    }),
  );
  const setting = project?.config.run.sandbox ?? "auto";
  checks.push(await sandboxCheck(setting));
  if (project) {
    const executables: string[] = [];
    checks.push(...await agentChecks(project.config, executables));
    checks.push(limitsCheck(project.config));
    // Unconfined, agents see everything anyway: the sandbox check says so. A remote not cloned
    // yet has no copy here to look for.
    if (
      repository?.local && repository.check.status !== "fail" &&
      project.config.run.sandbox !== "none"
    ) {
      checks.push(await clonesCheck(project, executables));
    }
    checks.push(await githubCheck(project));
  }
  return { checks, ok: checks.every((c) => c.status !== "fail") };
}
