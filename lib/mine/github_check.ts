/**
 * The GitHub line of `bugbout doctor`. Missing GitHub access never stops a bout (problem
 * statements then come from commit messages), so it is a warning at worst.
 *
 * Requires what {@linkcode githubAccess} requires.
 *
 * @module
 */

import type { Check } from "../doctor.ts";
import type { Project } from "../project.ts";
import { githubAccess } from "./access.ts";

/** Check GitHub access for issue texts, as one doctor check. */
export async function githubCheck(project: Project): Promise<Check> {
  const access = await githubAccess(project);
  return {
    name: "github",
    status: access.ok ? "ok" : "warn",
    detail: access.detail,
    ...(access.fix && !access.ok ? { fix: access.fix } : {}),
  };
}
