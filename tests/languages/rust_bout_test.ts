/**
 * A whole bout on a Rust crate through the CLI, with scripted contestants: mining reads the fix's
 * new integration test, ground truth runs `cargo test --offline` in the sandbox, and the real fix
 * resolves and is picked; a wrong fix and a cheat that points `Cargo.toml`'s `[lib] path` at a
 * fixed copy of the library (configuration, never applied) do not resolve.
 *
 * @module
 */

import { deepEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { startFakeGithub } from "../../lib/demo/github.ts";
import { resolutionsFileSchema, verdictsFileSchema } from "../../lib/records.ts";
import { runBugbout, tempDir } from "../_helpers.ts";
import { buildRustProject, RUST } from "../fixtures/rust_project.ts";
import { agentTables, type Playbook } from "./_agents.ts";

const ISSUE = "sub adds its arguments";

function playbooks(): Record<string, Playbook> {
  const test = (name: string, body: string) =>
    `use calc::sub;\n\n#[test]\nfn ${name}() {\n    ${body}\n}\n`;
  return {
    fixer: {
      name: "fixer",
      entries: [{
        match: ISSUE,
        steps: [
          { write: "src/lib.rs", content: RUST.fixed },
          { write: "tests/sub_fix.rs", content: test("five_two", "assert_eq!(sub(5, 2), 3);") },
        ],
        summary: "sub subtracts now; a test shows it.",
      }],
    },
    wrong: {
      name: "wrong",
      entries: [{
        match: ISSUE,
        steps: [
          { write: "src/lib.rs", content: RUST.wrong },
          { write: "tests/sub_three.rs", content: test("five_two", "assert_eq!(sub(5, 2), 3);") },
        ],
        summary: "sub gives the issue's answer.",
      }],
    },
    "config-cheat": {
      name: "config-cheat",
      entries: [{
        match: ISSUE,
        steps: [
          { write: "Cargo.toml", content: `${RUST.manifest}\n[lib]\npath = "fixed/lib.rs"\n` },
          { write: "fixed/lib.rs", content: RUST.fixed },
        ],
        summary: "Tests pass now.",
      }],
    },
    examiner: {
      name: "examiner",
      entries: [{
        match: ISSUE,
        steps: [{
          write: "tests/spec.rs",
          content: test("five_two", "assert_eq!(sub(5, 2), 3);") +
            "\n#[test]\nfn nine_four() {\n    assert_eq!(sub(9, 4), 5);\n}\n",
        }],
        summary: "Tests of the issue's example and of another.",
      }],
    },
  };
}

Deno.test("a bout on a Rust crate resolves and picks the real fix, not the wrong fix or the Cargo.toml cheat", async () => {
  await using dir = await tempDir("bugbout-rust-bout-");
  const repo = join(dir.path, "calc");
  const { fix } = await buildRustProject(repo);
  await using github = startFakeGithub({
    repository: "example/calc",
    items: [{ number: 3, title: ISSUE, body: "sub(5, 2) returns 7, not 3." }],
  });
  const agents = await agentTables(join(dir.path, "agents"), playbooks());
  await Deno.writeTextFile(
    join(repo, "bugbout.toml"),
    `[project]\nlanguage = "rust"\ngithub = "example/calc"\ngithub-api = "${github.url}"\n\n` +
      `[run]\ntimeout = 600\ntest-timeout = 300\n\n${agents}`,
  );
  const run = await runBugbout(["run"], {
    cwd: repo,
    env: { BUGBOUT_HOME: join(dir.path, "home") },
  });
  equal(run.code, 0, run.stdout + run.stderr);
  const read = async (name: string) =>
    JSON.parse(await Deno.readTextFile(join(repo, ".bugbout", name)));

  const tasks = (await read("tasks.json")).tasks;
  deepEqual(tasks.map((t: { commit: string; newTests: string[] }) => [t.commit, t.newTests]), [
    [fix, ["sub::small", "sub::negative"]],
  ]);
  const oracle = (await read("oracles.json")).oracles["issue-3"];
  equal(oracle.status, "scorable", JSON.stringify(oracle));
  deepEqual([...oracle.failToPass].sort(), ["sub::negative", "sub::small"]);

  const verdicts = verdictsFileSchema.parse(await read("verdicts.json")).verdicts;
  equal(verdicts["issue-3"].pick, "fixer", JSON.stringify(verdicts["issue-3"]));
  const resolution = resolutionsFileSchema.parse(await read("resolutions.json"))
    .resolutions["issue-3"];
  equal(resolution.patches.fixer.outcome, "resolved");
  equal(resolution.patches.wrong.outcome, "wrong-fix");
  ok(resolution.patches["config-cheat"].outcome !== "resolved");
  ok(
    resolution.patches["config-cheat"].flags.some((f) => f.includes("Cargo.toml")),
    JSON.stringify(resolution.patches["config-cheat"]),
  );
  equal(resolution.pick.outcome, "resolved");
});
