/**
 * Mining a real history: tomlkit's first 442 first-parent commits, kept as a bundle in
 * tests/fixtures/real/ (see its README for the license and what was checked by hand).
 *
 * @module
 */

import { deepEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { git } from "../../lib/git.ts";
import { mineAll } from "../../lib/mine/mine.ts";
import { Project } from "../../lib/project.ts";
import { ROOT } from "../_helpers.ts";
import { NO_TOKENS } from "./_setup.ts";

/** The tasks checked by hand: id and commit, newest first. */
const EXPECTED = [
  ["issue-543", "495a42ec"],
  ["issue-551", "8cd44f58"],
  ["issue-542", "67d3e865"],
  ["issue-545", "e23a2543"],
  ["issue-537", "49069361"],
  ["issue-533", "43668dde"],
  ["issue-523", "d3c76f0b"],
  ["issue-532", "11e22aef"],
  ["issue-513", "ee4eedba"],
  ["issue-261", "de68fd06"],
  ["issue-505", "25ae63ab"],
  ["issue-512", "281ca004"],
  ["issue-449", "5b2b1ffb"],
  ["issue-510", "ea9263f9"],
  ["issue-508", "afa41a57"],
  ["issue-504", "f9b4b227"],
  ["issue-500", "a076a6af"],
  ["issue-499", "f8ce14b3"],
  ["issue-486", "56873965"],
  ["issue-477", "1d499870"],
];

Deno.test("tomlkit's real history mines the 20 bug fixes checked by hand, and no feature", async () => {
  const root = await Deno.makeTempDir({ prefix: "bugbout-tomlkit-" });
  try {
    const repo = join(root, "tomlkit");
    await git(["clone", "--quiet", join(ROOT, "tests/fixtures/real/tomlkit.bundle"), repo]);
    await Deno.mkdir(join(root, "bout"));
    await Deno.writeTextFile(
      join(root, "bout", "bugbout.toml"),
      `[project]\nsource = "tomlkit"\ntests = "tests"\nrepository = ${JSON.stringify(repo)}\n`,
    );
    const project = await Project.load(join(root, "bout"), { home: join(root, "home") });
    const { file } = await mineAll(project, { env: NO_TOKENS });
    deepEqual(file.tasks.map((t) => [t.id, t.commit.slice(0, 8)]), EXPECTED);
    // 442 first-parent commits, and 5 of the lines merged into them (`master` of a pull, `0.8.0`).
    deepEqual(file.repository.merged, ["master", "0.8.0"]);
    equal(file.examined, 447);
    deepEqual(file.counts, {
      "not-a-fix": 284,
      "no-issue-reference": 60,
      "no-source-change": 5,
      "too-many-source-files": 9,
      "no-test-added": 20,
      "over-limit": 49,
    });
    for (const task of file.tasks) {
      ok(task.newTests.length > 0, task.id);
      ok(task.evidence?.every((e) => e.says === "bug"), task.id);
      equal(task.statementSource, "commit");
      ok(!/#\d/.test(task.statement), task.statement);
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
