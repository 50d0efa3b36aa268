/**
 * What `bugbout doctor` checks of a Go module: the toolchain.
 *
 * Requires `--allow-run` (go, git) and `--allow-read`.
 *
 * @module
 */

import { describeError } from "../../errors.ts";
import { defaultBranch, git } from "../../git.ts";
import type { DoctorCheck, DoctorContext } from "../types.ts";
import { compareGoVersions, findGo, parseGoMod } from "./detect.ts";

/**
 * Go's toolchain as one check, `go`: its version, against the one the default branch's `go.mod`
 * asks for.
 */
export async function goChecks({ repository }: DoctorContext): Promise<DoctorCheck[]> {
  return [await goCheck(repository)];
}

async function goCheck(repository: string | undefined): Promise<DoctorCheck> {
  let found;
  try {
    found = await findGo();
  } catch (error) {
    return {
      name: "go",
      status: "fail",
      detail: describeError(error).split("\n")[0],
      fix: (error as { hint?: string }).hint,
    };
  }
  let wanted: string | undefined;
  if (repository) {
    const text = await (async () =>
      await git(["show", `${await defaultBranch(repository)}:go.mod`], { cwd: repository }))()
      .catch(() =>
        undefined
      );
    wanted = text === undefined ? undefined : parseGoMod(text)?.go;
  }
  const detail = `${found.version} (${found.go}), tests run with go test`;
  if (wanted && compareGoVersions(found.version, wanted) < 0) {
    return {
      name: "go",
      status: "fail",
      detail: `${detail}; go.mod asks for go ${wanted}, newer than this Go`,
      fix:
        `Install Go ${wanted} or later from https://go.dev/dl/ and put its bin directory on PATH.`,
    };
  }
  return {
    name: "go",
    status: "ok",
    detail: wanted ? `${detail}; go.mod asks for go ${wanted}` : detail,
  };
}
