/**
 * The judge stage: `judge()` on every task's matrix, under the configured policy, written to
 * `.bugbout/verdicts.json`. The judge reads nothing but the matrix, so this runs before anything
 * looks at the hidden tests or the gold fix.
 *
 * Requires `--allow-read` and `--allow-write` on the results directory.
 *
 * @module
 */

import type { z } from "zod";
import { type AgentInfo, judge } from "../../judge/mod.ts";
import type { Policy } from "../config.ts";
import type { Project } from "../project.ts";
import { type Matrix, RESULTS_VERSION, type Verdict, verdictsFileSchema } from "../records.ts";

/** The results file this stage writes, inside `.bugbout/`. */
export const VERDICTS_FILE = "verdicts.json";

/** `verdicts.json`. */
export type VerdictsFile = z.infer<typeof verdictsFileSchema>;

/** The agents of a project as the judge knows them (name, vendor, role). */
export function judgeAgents(project: Project): AgentInfo[] {
  return [...project.config.contestants, ...project.config.examiners].map((a) => ({
    name: a.name,
    vendor: a.vendor,
    role: a.role,
  }));
}

/** Judge every matrix. Pure. */
export function judgeMatrices(
  matrices: readonly Matrix[],
  context: { policy: Policy; agents: readonly AgentInfo[] },
): Record<string, Verdict> {
  return Object.fromEntries(matrices.map((m) => [m.task, judge(m, context)]));
}

/** Read `verdicts.json`, or undefined when there is none. */
export function readVerdicts(project: Project): Promise<VerdictsFile | undefined> {
  return project.results.read(VERDICTS_FILE, verdictsFileSchema, "verdicts");
}

/**
 * Judge `matrices` under `[judge] policy` and write `verdicts.json`. Verdicts already saved for
 * other tasks are kept when they were made under the same policy. Returns the file written.
 */
export async function judgeAll(
  project: Project,
  matrices: readonly Matrix[],
): Promise<VerdictsFile> {
  const policy = project.config.judge.policy;
  const saved = await readVerdicts(project);
  const kept = saved?.policy === policy ? saved.verdicts : {};
  const file: VerdictsFile = {
    version: RESULTS_VERSION,
    kind: "verdicts",
    policy,
    verdicts: { ...kept, ...judgeMatrices(matrices, { policy, agents: judgeAgents(project) }) },
  };
  await project.results.ensure();
  await project.results.write(VERDICTS_FILE, file);
  return file;
}
