/**
 * Child process of the resume test: races the agents of a `bugbout.toml` on one task until the
 * parent kills it.
 *
 * Usage: `deno run -A _race_child.ts <settings.json>` where the settings hold `root` (the
 * directory of `bugbout.toml`), `home` (`BUGBOUT_HOME`), `envsDir`, and `task` (its ground truth is saved in the project).
 *
 * @module
 */

import { toolsWith } from "../python/_shared.ts";
import { Project } from "../../lib/project.ts";
import { ensureTestEnv, envRequest } from "../../lib/lang/python/env.ts";
import { raceAll } from "../../lib/race/mod.ts";
import type { Task } from "../../lib/records.ts";
import { openSandbox } from "../../lib/sandbox/mod.ts";

const settings = JSON.parse(await Deno.readTextFile(Deno.args[0])) as {
  root: string;
  home: string;
  envsDir: string;
  task: Task;
};
const project = await Project.load(settings.root, { home: settings.home });
const env = await ensureTestEnv({ ...envRequest(project), envsDir: settings.envsDir });
await raceAll(project, [settings.task], {
  sandbox: await openSandbox("auto"),
  tools: toolsWith(project, env),
});
