/**
 * The judge stage: the pure judge (`judge/` at the top of the tree) on every task's matrix, under
 * the configured policy, written to `.bugbout/verdicts.json`. The judge reads nothing but the
 * matrix, the agents' vendors, adapters and models, and a fingerprint of each attempt's source
 * patch (identical patches are one voice), so this runs before anything looks at the hidden tests
 * or the gold fix.
 *
 * Requires `--allow-read` and `--allow-write` on the results directory.
 *
 * @module
 */

import type { z } from "../deps.ts";
import { type AgentInfo, judge, patchFingerprint } from "../../judge/mod.ts";
import { readMatrices } from "../examine/mod.ts";
import type { Project } from "../project.ts";
import { readAttempts } from "../race/mod.ts";
import {
  nameOf,
  RESULTS_VERSION,
  type Task,
  type Verdict,
  verdictsFileSchema,
} from "../records.ts";
import { plural } from "../words.ts";

/** The results file this stage writes, inside `.bugbout/`. */
export const VERDICTS_FILE = "verdicts.json";

/** `verdicts.json`. */
export type VerdictsFile = z.infer<typeof verdictsFileSchema>;

/** What the judge stage did. */
export interface JudgeStage {
  /** `verdicts.json` as written. */
  file: VerdictsFile;
  /** One line for a person. */
  summary: string;
}

/** The agents of a project as the judge knows them (name, vendor, role, adapter, model). */
function judgeAgents(project: Project): AgentInfo[] {
  return project.agents.map((a) => ({
    name: a.name,
    vendor: a.vendor,
    role: a.role,
    type: a.type,
    ...(a.model ? { model: a.model } : {}),
  }));
}

/** A fingerprint of each saved attempt's source changes at a task, by attempt name. */
async function fingerprints(project: Project, task: string): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  for (const { attempt, patches } of await readAttempts(project, task)) {
    if (attempt.role === "contestant") found[nameOf(attempt)] = patchFingerprint(patches.source);
  }
  return found;
}

/** Read `verdicts.json`, or undefined when there is none. */
export function readVerdicts(project: Project): Promise<VerdictsFile | undefined> {
  return project.results.read(VERDICTS_FILE, verdictsFileSchema, "verdicts");
}

/**
 * Judge every one of `tasks` that has a matrix, under `[judge] policy`, and write
 * `verdicts.json`. Verdicts already saved for other tasks are kept when they were made under the
 * same policy.
 */
export async function judgeAll(project: Project, tasks: readonly Task[]): Promise<JudgeStage> {
  const matrices = await readMatrices(project, tasks.map((t) => t.id));
  const policy = project.config.judge.policy;
  const saved = await readVerdicts(project);
  const kept = saved?.policy === policy ? saved.verdicts : {};
  const agents = judgeAgents(project);
  const fresh: Record<string, Verdict> = {};
  for (const m of matrices) {
    fresh[m.task] = judge(m, { policy, agents, fingerprints: await fingerprints(project, m.task) });
  }
  const file: VerdictsFile = {
    version: RESULTS_VERSION,
    kind: "verdicts",
    policy,
    verdicts: { ...kept, ...fresh },
  };
  await project.results.ensure();
  await project.results.write(VERDICTS_FILE, file);
  const judged = Object.values(fresh);
  const picks = judged.filter((v) => v.pick !== null).length;
  return {
    file,
    summary: `${plural(judged.length, "task")} judged under ${policy}: ${plural(picks, "pick")}, ${
      plural(judged.length - picks, "abstention")
    }`,
  };
}
