/**
 * `[run.budget]`: an agent whose attempts report what they cost stops being started once its
 * budget is spent; its attempts that never started are saved as `budget`, and run once the budget
 * is raised. The cost comes from the command adapter's `usage.json`.
 */

import { deepEqual, equal, match } from "node:assert/strict";
import { Project } from "../../lib/project.ts";
import { fixFiles, playbook, script } from "./_agents.ts";
import { attemptOf, makeRaceWorld, projectWith, raceAt } from "./_world.ts";

/** Runs the fixer, then says it cost a dollar and 1,000 tokens. */
const PRICED_SH = `
python3 "$1"
printf '{"cost_usd": 1.0, "tokens": {"input": 800, "output": 200}}' > "$2/usage.json"
`;

Deno.test("an agent whose budget is spent starts no more attempts, and a raised budget runs them", async () => {
  await using world = await makeRaceWorld();
  const fixer = await playbook(world.agents, "fixer", fixFiles(world.fix).fix);
  const priced = await script(world.agents, "priced.sh", PRICED_SH);
  const agents = [{ name: "priced", command: ["sh", priced, fixer, "{logdir}"] }];
  const budgeted = (budget: string) =>
    projectWith(world, agents, { timeout: 60, repeats: 3 }).then(async () => {
      // The world writes [run]; the budget goes in a table of its own after the agents.
      const file = `${world.root}/bugbout.toml`;
      await Deno.writeTextFile(file, `\n[run.budget]\npriced = "${budget}"\n`, { append: true });
      return await Project.load(world.root, { home: world.home });
    });

  // One lane: attempts run one after another. $1 + $1 reaches $1.50: the third never starts.
  const project = await budgeted("1.5 USD");
  const first = await raceAt(world, project);
  deepEqual(
    first.events.map((e) => `${e.kind}:${e.agent}`),
    ["start:priced", "end:priced", "start:priced#2", "end:priced#2", "skip:priced#3"],
  );
  const third = await attemptOf(world, project, "priced#3");
  equal(third.attempt.status, "budget");
  match(third.attempt.error!, /budget of \$1\.5 is spent \(\$2\.00 so far\)/);
  const second = await attemptOf(world, project, "priced#2");
  deepEqual([second.attempt.costUsd, second.attempt.tokens], [1, { input: 800, output: 200 }]);

  // Raised: the attempt that never started runs; the two that ran are not run again.
  const raised = await budgeted("5 USD");
  const again = await raceAt(world, raised);
  deepEqual(again.events.filter((e) => e.kind === "start").map((e) => e.agent), ["priced#3"]);
  equal((await attemptOf(world, raised, "priced#3")).attempt.status, "patch");

  // A token budget counts the tokens each attempt reported.
  const tokens = await budgeted("1500 tokens");
  await Deno.remove(tokens.results.file("attempts", world.task.id, "priced_3.json"));
  const counted = await raceAt(world, tokens);
  match((await attemptOf(world, tokens, "priced#3")).attempt.error!, /1500 tokens is spent \(2000/);
  deepEqual(counted.events.map((e) => `${e.kind}:${e.agent}`).sort(), [
    "skip:priced",
    "skip:priced#2",
    "skip:priced#3",
  ]);
});
