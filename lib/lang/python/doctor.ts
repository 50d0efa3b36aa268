/**
 * What `bugbout doctor` checks of a Python project: uv, the Python the project asks for, and
 * whether its test dependencies resolve.
 *
 * Requires `--allow-run` (uv, python) and `--allow-read`.
 *
 * @module
 */

import { describeError } from "../../errors.ts";
import type { DoctorCheck, DoctorContext } from "../types.ts";
import { checkTestDependencies } from "./dependencies.ts";
import { resolvePython, uvVersion } from "./discover.ts";

/** uv, then (with a project) its Python and its test dependencies. */
export async function pythonChecks({ project }: DoctorContext): Promise<DoctorCheck[]> {
  const uv = await uvVersion();
  const checks: DoctorCheck[] = [
    uv ? { name: "uv", status: "ok", detail: `uv ${uv}` } : {
      name: "uv",
      status: "fail",
      detail: "uv not found on PATH",
      fix:
        "Install uv: `pip install uv` or https://docs.astral.sh/uv/getting-started/installation/",
    },
  ];
  if (!uv || !project) return checks;
  try {
    const python = await resolvePython(project.repository, project.config.project);
    checks.push({
      name: "python",
      status: "ok",
      detail:
        `Python ${python.version} (${python.path}; asked for ${python.request} by ${python.from})`,
    });
    const deps = await checkTestDependencies(python.path, project.config.project.testDependencies);
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
  return checks;
}
