/**
 * What `bugbout doctor` checks of a JavaScript project: node, the package manager and the runner.
 *
 * Requires `--allow-run` (node, the package manager) and `--allow-read`.
 *
 * @module
 */

import { describeError } from "../../errors.ts";
import { run, which } from "../../proc.ts";
import type { DoctorCheck, DoctorContext } from "../types.ts";
import { findNode } from "./install.ts";
import { NodeRunner } from "./runner.ts";

/**
 * The JavaScript toolchain as one check, `node`: its version, the package manager the lockfile
 * asks for and whether it can run, and the test runner.
 */
export async function nodeChecks(context: DoctorContext): Promise<DoctorCheck[]> {
  return [await nodeCheck(context)];
}

async function nodeCheck({ repository, headRunner }: DoctorContext): Promise<DoctorCheck> {
  let node;
  try {
    node = await findNode();
  } catch (error) {
    return {
      name: "node",
      status: "fail",
      detail: describeError(error).split("\n")[0],
      fix: (error as { hint?: string }).hint,
    };
  }
  const major = Number(/^v?(\d+)/.exec(node.version)?.[1] ?? 0);
  if (major < 20) {
    return {
      name: "node",
      status: "fail",
      detail: `node ${node.version} (${node.path}) is older than Node.js 20`,
      fix: "Install Node.js 20 or later (https://nodejs.org/) and put node on PATH.",
    };
  }
  const head = `node ${node.version} (${node.path})`;
  if (!repository) return { name: "node", status: "ok", detail: head };
  let runner;
  try {
    runner = await headRunner();
  } catch (error) {
    return {
      name: "node",
      status: "fail",
      detail: `${head}; ${describeError(error).split("\n")[0]}`,
      fix: (error as { hint?: string }).hint,
    };
  }
  if (!(runner instanceof NodeRunner)) return { name: "node", status: "ok", detail: head };
  const project = runner.project;
  const program = project.manager === "yarn-berry" ? "yarn" : project.manager;
  const lock = project.lockfile ?? "no lockfile";
  const tested = `tests run with ${runner.name} (${project.evidence})`;
  const onPath = await which(program);
  // yarn 2+ comes through corepack when the yarn on PATH is yarn 1.
  const through = !onPath || project.manager === "yarn-berry"
    ? (await which("corepack")) && "corepack"
    : undefined;
  if (!onPath && !through) {
    return {
      name: "node",
      status: "fail",
      detail: `${head}; ${program} (${lock}) is not installed, nor corepack; ${tested}`,
      fix: program === "npm"
        ? "Install Node.js with npm (https://nodejs.org/)."
        : `Install ${program} (\`npm install -g ${program}\`), or run \`corepack enable\`.`,
    };
  }
  let version = "";
  if (onPath && !through) {
    const result = await run([onPath, "--version"], { timeoutMs: 30_000, okCodes: "any" })
      .catch(() => undefined);
    version = result?.code === 0 ? ` ${result.stdout.trim().split("\n")[0]}` : "";
  }
  const manager = through ? `${program} through corepack` : `${program}${version}`;
  const detail = `${head}; ${manager} (${lock}); ${tested}`;
  if (!project.lockfile) {
    return {
      name: "node",
      status: "warn",
      detail,
      fix: "Without a lockfile npm resolves versions when it installs: B and G may get " +
        "different dependencies. Commit a package-lock.json to the repository.",
    };
  }
  return { name: "node", status: "ok", detail };
}
