/**
 * The note on where problem statements came from, through `bugbout run`: said by the run that
 * mined them, not by every run that reuses tasks.json; and when GitHub failed, it says how (the
 * network, an HTTP status) and the next run asks again and says so again.
 */

import { equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { startFakeGithub } from "../../lib/demo/github.ts";
import { buildDemo } from "../fixtures/projects.ts";
import { runBugbout, tempDir } from "../_helpers.ts";

/** The demo project with one task to mine, and `bugbout run --tasks-only` for it. */
async function demoBout(root: string, project = "") {
  const fixture = await buildDemo(join(root, "textkit"));
  await Deno.writeTextFile(
    join(fixture.dir, "bugbout.toml"),
    `[project]\nsource = "${fixture.source}"\n${project}\n[tasks]\nlimit = 1\n`,
  );
  const env = { BUGBOUT_HOME: join(root, "home") };
  return {
    fixture,
    async run() {
      const run = await runBugbout(["run", "--tasks-only"], { cwd: fixture.dir, env });
      equal(run.code, 0, run.stderr);
      return run.stderr;
    },
  };
}

/**
 * The note lines a run printed (timestamped lines that are not a stage's, nor the note that
 * building the test environment takes a while, which a busy machine prints and an idle one not).
 */
function notes(stderr: string): string[] {
  return stderr.split("\n").filter((l) =>
    /^\[[\d:]+\] /.test(l) && !/^\[[\d:]+\] (mine|oracle|report) /.test(l) &&
    !/\] Building the test environment/.test(l)
  );
}

Deno.test("bugbout run says where the statements came from once: on the run that mined them", async () => {
  await using dir = await tempDir();
  const bout = await demoBout(dir.path);
  const first = await bout.run();
  match(first, /\] mine +1 task\(s\) from 11 change\(s\); 10 left out \(/);
  equal(notes(first).length, 1, first);
  match(notes(first)[0], /No GitHub repository is known, so problem statements come from commit/);
  const second = await bout.run();
  match(second, /\] mine +.*\(up to date\)/);
  equal(notes(second).length, 0, `tasks.json was reused, yet:\n${second}`);
});

Deno.test("a GitHub that answers HTTP 502 is named in the note, and the next run asks again", async () => {
  await using dir = await tempDir();
  const fixture = await buildDemo(join(dir.path, "fixture"));
  await using github = startFakeGithub({
    repository: fixture.github.repository,
    items: fixture.github.items,
    failures: [{ path: "/issues/", times: 1000, kind: 502 }],
  });
  const bout = await demoBout(
    dir.path,
    `github = "${fixture.github.repository}"\ngithub-api = "${github.url}"\n`,
  );
  for (const run of [await bout.run(), await bout.run()]) {
    const said = notes(run);
    equal(said.length, 1, run);
    match(
      said[0],
      /GitHub answered HTTP 502 to \d+ requests? for acme\/textkit, so 1 problem statement comes from commit titles \(the next run asks again\)\./,
    );
    ok(!/\(up to date\)/.test(run), "mined again");
  }
});

Deno.test("a GitHub that cannot be reached is named in the note, with the network's reason", async () => {
  await using dir = await tempDir();
  const bout = await demoBout(
    dir.path,
    `github = "acme/textkit"\ngithub-api = "http://127.0.0.1:1"\n`,
  );
  const said = notes(await bout.run());
  equal(said.length, 1);
  match(
    said[0],
    /GitHub could not be reached \(http:\/\/127\.0\.0\.1:1: .+\), so problem statements come from commit titles \(the next run asks again\)\. To use issue texts, check the network and \[project\] github-api\.$/,
  );
});
