/**
 * The CI examples in docs/ci/ cannot run here (no GitHub, no cluster), so what can be checked is:
 * each file is YAML, every bugbout command in them is one the CLI accepts, the shards the matrix
 * and the Indexed Job start are all the shards they name, and the steps hand directories the way
 * a sharded bout needs (prep → shards → merge → run --no-race).
 */

import { deepEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { parseYaml as parse } from "../deps.ts";
import { parseInvocation } from "../../lib/cli/args.ts";
import { parseShard } from "../../lib/shard/mod.ts";
import { ROOT } from "../_helpers.ts";

const read = (name: string) => Deno.readTextFile(join(ROOT, "docs", "ci", name));

/** `bugbout ...` / `$BUGBOUT ...` command lines in `text`, with shell words unquoted. */
function bugboutCommands(text: string, vars: Record<string, string>): string[][] {
  const commands: string[][] = [];
  for (const line of text.split("\n").map((l) => l.replace(/(^|\s)#\s.*$/, ""))) {
    const m = line.match(/(?:^|\s|-\s)(?:\$BUGBOUT|bugbout)\s+([a-z-]+\b.*?)(?:\s*(?:>>|&&|$))/);
    if (!m) continue;
    let args = m[1];
    for (const [name, value] of Object.entries(vars)) args = args.replaceAll(name, value);
    commands.push(args.split(/\s+/).map((w) => w.replace(/^"|"$/g, "")));
  }
  return commands;
}

Deno.test("the GitHub Actions example: prep, a matrix of every shard, merge, then run --no-race", async () => {
  const text = await read("github-actions.yml");
  // deno-lint-ignore no-explicit-any
  const workflow = parse(text) as any;
  deepEqual(Object.keys(workflow.jobs), ["prep", "race", "finish"]);
  equal(workflow.jobs.race.needs, "prep");
  equal(workflow.jobs.finish.needs, "race");
  const shards: number[] = workflow.jobs.race.strategy.matrix.shard;
  deepEqual(shards, Array.from({ length: Number(workflow.env.SHARDS) }, (_, i) => i + 1));
  ok(workflow.env.BUGBOUT.startsWith("deno run -A jsr:@bugbout/cli@"));

  const commands = bugboutCommands(text, {
    "${{ matrix.shard }}": "2",
    "$SHARDS": String(workflow.env.SHARDS),
  });
  deepEqual(commands.map((c) => c[0]), ["run", "run", "merge", "run", "report", "report"]);
  for (const argv of commands) parseInvocation(argv);
  deepEqual(parseShard(commands[1][2]), { index: 2, count: 4 });
  deepEqual(commands[0], ["run", "--tasks-only"]);
  deepEqual(commands[3], ["run", "--no-race", "--quiet"]);

  // Every bugbout job installs through the setup action the docs ship.
  for (const job of Object.values(workflow.jobs) as { steps: { uses?: string }[] }[]) {
    ok(job.steps.some((s) => s.uses === "./.github/actions/bugbout-setup"));
  }
  // deno-lint-ignore no-explicit-any
  const action = parse(await read("bugbout-setup.action.yml")) as any;
  equal(action.runs.using, "composite");
});

Deno.test("the Kubernetes example: an Indexed Job whose pods race shards 1..N", async () => {
  // deno-lint-ignore no-explicit-any
  const job = parse(await read("kubernetes-job.yaml")) as any;
  equal(job.kind, "Job");
  equal(job.spec.completionMode, "Indexed");
  const container = job.spec.template.spec.containers[0];
  const shards = container.env.find((e: { name: string }) => e.name === "SHARDS").value;
  equal(Number(shards), job.spec.completions);
  const script: string = container.args[0];
  ok(script.includes("k=$((JOB_COMPLETION_INDEX + 1))"));
  const commands = bugboutCommands(script, { "$k": "8", "$SHARDS": shards });
  deepEqual(commands, [["run", "--shard", "8/8"]]);
  for (const argv of commands) parseInvocation(argv);
});
