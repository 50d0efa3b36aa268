/**
 * `bugbout doctor`: every check a bout needs, one result each, with what to do on failure. Nothing
 * here spends an agent's quota: agents are only asked for their version.
 *
 * @module
 */

import { dirname, resolve } from "node:path";
import { agentOf, type Config } from "./config.ts";
import { describeError } from "./errors.ts";
import { checkRepository, defaultBranch, firstParentCount, repositoryRoot } from "./git.ts";
import { githubAccess } from "./mine/mod.ts";
import { Project } from "./project.ts";
import { which } from "./proc.ts";
import { checkTestDependencies, resolvePython, uvVersion } from "./python/mod.ts";
import { findProjectClones, probeSandbox, runsAsRoot, toolchainMounts } from "./sandbox/mod.ts";

/** The result of one check. */
export interface Check {
  /** Short name: `git`, `config`, `uv`, ... */
  name: string;
  /** ok: fine; warn: works but worth knowing; fail: `bugbout run` cannot work. */
  status: "ok" | "warn" | "fail";
  /** What was found. */
  detail: string;
  /** What to do about a warning or failure. */
  fix?: string;
}

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

async function gitCheck(dir: string): Promise<Check> {
  try {
    await checkRepository(dir);
    const root = await repositoryRoot(dir) ?? dir;
    const branch = await defaultBranch(root);
    const count = await firstParentCount(root, branch);
    return {
      name: "git",
      status: count > 1 ? "ok" : "warn",
      detail: `${root}: default branch ${branch}, ${count} commit(s) of first-parent history`,
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

/** Run every check for the project whose bugbout.toml is at `path`. */
export async function runDoctor(path = "."): Promise<DoctorReport> {
  const checks: Check[] = [];
  let project: Project | undefined;
  let configError: string | undefined;
  try {
    project = await Project.load(path);
  } catch (error) {
    configError = describeError(error);
  }
  const start = project?.repository ??
    (path.endsWith(".toml") ? dirname(resolve(path)) : resolve(path));
  checks.push(await gitCheck(start));
  if (project) {
    checks.push({
      name: "config",
      status: "ok",
      detail:
        `${project.config.file}: ${project.config.contestants.length} contestant(s), ${project.config.examiners.length} examiner(s), policy ${project.config.judge.policy}`,
    });
  } else {
    checks.push({
      name: "config",
      status: "fail",
      detail: configError!,
      fix: configError!.includes("No bugbout.toml")
        ? "Run `bugbout init`."
        : "Fix bugbout.toml as the message says.",
    });
  }
  const uv = await uvVersion();
  checks.push(
    uv ? { name: "uv", status: "ok", detail: `uv ${uv}` } : {
      name: "uv",
      status: "fail",
      detail: "uv not found on PATH",
      fix:
        "Install uv: `pip install uv` or https://docs.astral.sh/uv/getting-started/installation/",
    },
  );
  if (uv && project) {
    try {
      const python = await resolvePython(project.repository, project.config.project);
      checks.push({
        name: "python",
        status: "ok",
        detail:
          `Python ${python.version} (${python.path}; asked for ${python.request} by ${python.from})`,
      });
      const deps = await checkTestDependencies(
        python.path,
        project.config.project.testDependencies,
      );
      checks.push({
        name: "test-dependencies",
        status: deps.ok ? "ok" : "fail",
        detail: deps.detail,
        ...(deps.ok ? {} : {
          fix: "Fix [project] test-dependencies in bugbout.toml (bugbout init reads them from " +
            "[dependency-groups], test extras, requirements files, tox and nox).",
        }),
      });
    } catch (error) {
      checks.push({
        name: "python",
        status: "fail",
        detail: describeError(error).split("\n")[0],
        fix: (error as { hint?: string }).hint,
      });
    }
  }
  const setting = project?.config.run.sandbox ?? "auto";
  checks.push(await sandboxCheck(setting));
  if (project) {
    const executables: string[] = [];
    checks.push(...await agentChecks(project.config, executables));
    checks.push(limitsCheck(project.config));
    // Unconfined, agents see everything anyway: the sandbox check says so.
    if (checks[0].status !== "fail" && project.config.run.sandbox !== "none") {
      checks.push(await clonesCheck(project, executables));
    }
    checks.push(await githubCheck(project));
  }
  return { checks, ok: checks.every((c) => c.status !== "fail") };
}
