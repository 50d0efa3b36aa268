/**
 * Shared set-up for mining tests: a fixture project built into a temp dir with a bugbout.toml,
 * loaded as a {@linkcode Project} whose `BUGBOUT_HOME` is inside the temp dir too.
 *
 * @module
 */

import { join } from "node:path";
import { Project } from "../../lib/project.ts";
import {
  type BuildOptions,
  configFor,
  type ConfigOptions,
  type FixtureProject,
} from "../fixtures/projects.ts";

/** A built fixture and its loaded project; removed when disposed. */
export interface MiningSetup extends AsyncDisposable {
  /** The temp dir holding everything. */
  root: string;
  /** The fixture's manifest. */
  fixture: FixtureProject;
  /** The project, loaded from the repository's bugbout.toml. */
  project: Project;
  /** `BUGBOUT_HOME`. */
  home: string;
  /** Write a new bugbout.toml and load the project again. */
  reconfigure(options: ConfigOptions): Promise<Project>;
}

/** An environment without tokens and without `gh`, so tests never pick up real credentials. */
export const NO_TOKENS = new Map<string, string>();

/** Build a fixture project and load it with the given settings. */
export async function miningSetup(
  build: (dir: string, options?: BuildOptions) => Promise<FixtureProject>,
  config: ConfigOptions = {},
  options: BuildOptions = {},
): Promise<MiningSetup> {
  const root = await Deno.makeTempDir({ prefix: "bugbout-mine-test-" });
  const home = join(root, "home");
  const fixture = await build(join(root, "repo"), options);
  const setup: MiningSetup = {
    root,
    fixture,
    home,
    project: undefined as unknown as Project,
    async reconfigure(next: ConfigOptions) {
      await Deno.writeTextFile(join(fixture.dir, "bugbout.toml"), configFor(fixture, next));
      setup.project = await Project.load(fixture.dir, { home });
      return setup.project;
    },
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
  await setup.reconfigure(config);
  return setup;
}
