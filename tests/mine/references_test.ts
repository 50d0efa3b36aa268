import { deepEqual, equal, match } from "node:assert/strict";
import { gapToml, referencesAndRepeats } from "../fixtures/gaps.ts";
import { mineHistory } from "./_history.ts";

Deno.test("every reference form counts, two bugs under one number stay two tasks, one bug committed twice is one", async () => {
  await using m = await mineHistory(referencesAndRepeats, { toml: gapToml() });
  // "Closes issue #226" and "Refs #379, #383" in a body name the issue.
  equal(m.task("closesIssue")!.id, "issue-226");
  equal(m.task("refs")!.id, "issue-379");
  // The same title twice: the newer change is the task, the older one a repeat of it.
  equal(m.task("twiceAgain")!.id, "issue-40");
  equal(m.excluded("twiceFirst")?.reason, "older-change-for-same-issue");
  match(m.excluded("twiceFirst")!.detail!, /#40 is fixed by the newer/);
  // Two different bugs years apart under #5: two tasks, the older with the commit in its id.
  equal(m.task("newFive")!.id, "issue-5");
  equal(m.task("oldFive")!.id, `issue-5-${m.commits.oldFive.slice(0, 7)}`);
  const ids = m.result.file.tasks.map((t) => t.id);
  deepEqual(ids.length, new Set(ids).size);
});

Deno.test("task ids stay the same when the history grows", async () => {
  await using m = await mineHistory(referencesAndRepeats, { toml: gapToml() });
  const before = new Map(m.result.file.tasks.map((t) => [t.commit, t.id]));
  await using later = await mineHistory((repo) => {
    const refs = referencesAndRepeats(repo);
    repo.commit({ message: "Later work", files: { "NOTES": "more\n" } });
    return refs;
  }, { toml: gapToml() });
  for (const task of later.result.file.tasks) equal(task.id, before.get(task.commit), task.title);
});
