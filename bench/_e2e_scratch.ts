import { join } from "node:path";
import { Project } from "../lib/project.ts";
import { mineTasks } from "../lib/mine/mod.ts";
import { computeOracles } from "../lib/oracle/mod.ts";
import { race, racersFromConfig } from "../lib/race/mod.ts";
import { openSandbox } from "../lib/sandbox/mod.ts";
import { testEnvFor } from "../lib/python/env.ts";
import { buildDemo } from "../tests/fixtures/projects.ts";
import { writePlaybookAgent } from "../lib/demo/playbook_agent.ts";

const dir = "/tmp/e2e"; await Deno.remove(dir, {recursive: true}).catch(() => {});
const fx = await buildDemo(join(dir, "repo"));
Deno.env.set("BUGBOUT_HOME", join(dir, "home"));
// mine first with a bare config to learn statements
await Deno.writeTextFile(join(fx.dir, "bugbout.toml"), `[project]\nsource = "${fx.source}"\n`);
let project = await Project.load(fx.dir);
const mined = await mineTasks(project);
const byId = new Map(fx.fixes.map((f) => ["expected" in f && "taskId" in f.expected ? f.expected.taskId : "", f]));
const entries = (mode: string) => mined.file.tasks.map((t) => {
  const f = byId.get(t.id)!;
  const steps: any[] = [];
  const files = mode === "careful" ? f.goldFiles : f.wrongFiles;
  for (const [p, c] of Object.entries(files)) steps.push({ write: p, content: c });
  if (f.reproTest) steps.push({ write: f.reproTest.path, content: f.reproTest.content });
  return { match: t.statement.split("\n")[0], steps, summary: `${mode} did ${t.id}` };
});
const careful = await writePlaybookAgent(join(dir, "agents"), { name: "careful", entries: entries("careful") });
const sloppy = await writePlaybookAgent(join(dir, "agents"), { name: "sloppy", entries: entries("sloppy") });
await Deno.writeTextFile(join(fx.dir, "bugbout.toml"), `[project]\nsource = "${fx.source}"\n
[[contestants]]
agent = "command"
name = "careful"
command = ["python3", "${careful}", "{prompt_file}"]

[[contestants]]
agent = "command"
name = "sloppy"
command = ["python3", "${sloppy}", "{prompt_file}"]
`);
project = await Project.load(fx.dir);
const sandbox = await openSandbox("auto");
const env = await testEnvFor(project);
let t0 = performance.now();
const oracles = await computeOracles(project, mined.file.tasks, { sandbox, env });
console.log("oracles", ((performance.now()-t0)/1000).toFixed(1), Object.values(oracles.oracles).map((o) => [o.task, o.status, o.failToPass.length]));
t0 = performance.now();
const summary = await race(project, mined.file.tasks, oracles, racersFromConfig(project), { sandbox, env, onProgress: (e) => console.log(JSON.stringify(e)) });
console.log("race", ((performance.now()-t0)/1000).toFixed(1), summary);
