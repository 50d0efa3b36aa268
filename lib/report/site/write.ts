/**
 * Writing the report's artifacts beside `report.html`: the static site in `.bugbout/report/` and
 * each contestant's JUnit XML in `.bugbout/junit/<agent>.xml`. This is the thin shell around the
 * pure renderers: it reads each attempt's patches and transcript, and the real fix's diff from the
 * repository for tasks already scored.
 *
 * Requires `--allow-read` and `--allow-write` on `.bugbout/`, and `--allow-run` (git).
 *
 * @module
 */

import { join } from "node:path";
import type { ReportInput } from "../_context.ts";
import type { Report } from "../types.ts";
import { junitFiles } from "../junit.ts";
import { renderHtml } from "../html.ts";
import { renderSite, type SiteTask } from "./mod.ts";
import { fileName } from "./_page.ts";
import { loadPatches, loadTrajectory } from "../../race/mod.ts";
import { nameOf } from "../../records.ts";
import type { ResultsDir } from "../../store.ts";
import { StoreError } from "../../errors.ts";
import { writeTextAtomic } from "../../store.ts";
import { git, RepositoryError } from "../../git.ts";
import { ProcError } from "../../proc.ts";
import { removeTree } from "../../checkout.ts";

/** The site's folder and the JUnit folder under `.bugbout/`. */
export const SITE_DIR = "report";
/** The JUnit folder under `.bugbout/`. */
export const JUNIT_DIR = "junit";

/** Where things were written. */
export interface Artifacts {
  /** The site's index page. */
  index: string;
  /** Pages written. */
  pages: number;
  /** Each contestant's JUnit file. */
  junit: string[];
}

/** The real fix's diff, B to G; undefined when the repository cannot give it. */
async function goldDiff(repository: string, parent: string, commit: string) {
  try {
    return await git(["diff", "--no-color", "--no-ext-diff", parent, commit, "--"], {
      cwd: repository,
      maxOutputBytes: 8 * 1024 * 1024,
    });
  } catch (error) {
    // a repository moved or pruned since the bout: the page says the diff could not be read
    if (error instanceof ProcError || error instanceof RepositoryError) return undefined;
    throw error;
  }
}

/** Gather what the site needs per task: attempts with patches and transcripts, matrix, gold diff. */
export async function siteTasks(
  results: ResultsDir,
  repository: string,
  input: ReportInput,
): Promise<SiteTask[]> {
  const out: SiteTask[] = [];
  for (const task of input.tasks.tasks) {
    const resolution = input.resolutions[task.id];
    const attempts = [];
    for (const attempt of input.attempts.filter((a) => a.task === task.id)) {
      const name = nameOf(attempt);
      let trajectory;
      try {
        trajectory = await loadTrajectory(results, task.id, name);
      } catch (error) {
        // a transcript that is not ATIF is left out; the attempt's page says it has none
        if (!(error instanceof StoreError)) throw error;
      }
      attempts.push({ attempt, patches: await loadPatches(results, task.id, name), trajectory });
    }
    out.push({
      id: task.id,
      ...(resolution ? { goldDiff: await goldDiff(repository, task.parent, task.commit) } : {}),
      matrix: input.matrices.find((m) => m.task === task.id),
      resolution,
      attempts,
    });
  }
  return out;
}

/** Write the site and the JUnit files (the site's old pages go first). */
export async function writeArtifacts(
  results: ResultsDir,
  repository: string,
  input: ReportInput,
  report: Report,
): Promise<Artifacts> {
  const tasks = await siteTasks(results, repository, input);
  const pages = renderSite({ report, indexHtml: renderHtml(report), tasks });
  const root = results.file(SITE_DIR);
  await removeTree(root);
  for (const [path, html] of pages) {
    const file = join(root, path);
    await Deno.mkdir(join(file, ".."), { recursive: true });
    await writeTextAtomic(file, html);
  }
  const junit: string[] = [];
  const junitRoot = results.file(JUNIT_DIR);
  await removeTree(junitRoot);
  await Deno.mkdir(junitRoot, { recursive: true });
  for (const [agent, xml] of junitFiles(input)) {
    const file = join(junitRoot, `${fileName(agent)}.xml`);
    await writeTextAtomic(file, xml);
    junit.push(file);
  }
  return { index: join(root, "index.html"), pages: pages.size, junit };
}
