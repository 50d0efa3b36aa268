/**
 * Shared pieces of the Go and JavaScript mining tests: a fixture repository loaded as a project
 * of its language, and commits added on top of a fixture's history.
 *
 * @module
 */

import { dirname, join } from "node:path";
import { git } from "../../lib/git.ts";
import { Project } from "../../lib/project.ts";

/** Write `bugbout.toml` (not committed) for `language` and load the project. */
export async function loadAs(
  dir: string,
  home: string,
  language: string,
  extra = "",
): Promise<Project> {
  const source = language === "python" ? 'source = "src"\n' : "";
  await Deno.writeTextFile(
    join(dir, "bugbout.toml"),
    `[project]\nlanguage = "${language}"\n${source}${extra}`,
  );
  return await Project.load(dir, { home });
}

/** Commit `files` (text, or null to delete) on top of the checked-out branch; its sha. */
export async function commitOnTop(
  dir: string,
  message: string,
  files: Record<string, string | null>,
): Promise<string> {
  for (const [path, text] of Object.entries(files)) {
    if (text === null) {
      await git(["rm", "--quiet", "--", path], { cwd: dir });
      continue;
    }
    await Deno.mkdir(join(dir, dirname(path)), { recursive: true });
    await Deno.writeTextFile(join(dir, path), text);
    await git(["add", "--", path], { cwd: dir });
  }
  await git(
    [
      "-c",
      "user.name=Fixer",
      "-c",
      "user.email=fixer@example.com",
      "commit",
      "--quiet",
      "-m",
      message,
    ],
    { cwd: dir, env: { GIT_COMMITTER_DATE: "2024-01-01T00:00:00Z" } },
  );
  return await git(["rev-parse", "HEAD"], { cwd: dir });
}
