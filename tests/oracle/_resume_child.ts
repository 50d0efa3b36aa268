/**
 * Child process of the resume test: computes the oracles of the tasks it is given, one task at a
 * time, until the parent kills it.
 *
 * Usage: `deno run -A _resume_child.ts <settings.json>`
 *
 * @module
 */

import { toolsWith } from "../python/_shared.ts";
import { oracleAll } from "../../lib/oracle/mod.ts";
import { ensureTestEnv, envRequest } from "../../lib/lang/python/env.ts";
import { openSandbox } from "../../lib/sandbox/mod.ts";
import type { Task } from "../../lib/records.ts";
import { makeProject } from "./_fixture.ts";

const settings = JSON.parse(await Deno.readTextFile(Deno.args[0])) as {
  root: string;
  repo: string;
  home: string;
  envsDir: string;
  sandbox: "bubblewrap" | "none";
  tasks: Task[];
};
const project = await makeProject(settings.root, settings.repo, settings.home, {
  sandbox: settings.sandbox,
  jobs: 1,
});
const env = await ensureTestEnv({ ...envRequest(project), envsDir: settings.envsDir });
await oracleAll(project, settings.tasks, {
  tools: toolsWith(project, env),
  sandbox: await openSandbox(settings.sandbox),
});
