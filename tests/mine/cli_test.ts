import { equal, match } from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "../../lib/cli/main.ts";
import type { Io } from "../../lib/cli/io.ts";
import { run } from "../../lib/proc.ts";
import { tasksFileSchema } from "../../lib/records.ts";
import { buildDemo } from "../fixtures/projects.ts";
import { miningSetup } from "./_setup.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function capture(): Io & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    out: (text) => stdout.push(text),
    err: (text) => stderr.push(text),
    color: false,
    interactive: false,
  };
}

const GOLDEN = `5 tasks from 11 changes on main (HEAD <sha>)

  issue-14  Fix title_case capitalising letters after apostrophes (#14)
            source: textkit/text.py
            tests: test_title_case_keeps_apostrophes  statement: commit
  issue-11  Fix median() crash on empty data (#11)
            source: textkit/stats.py
            tests: test_median_of_nothing  statement: commit
  issue-8   Fix parse_duration ignoring the hours in 1h30m
            source: textkit/durations.py
            tests: test_combined_units_add_up  statement: commit
  issue-5   Fix wrap() exceeding the requested width
            source: textkit/text.py
            tests: test_wrap_never_exceeds_width  statement: commit
  issue-3   Fix chunk() dropping the last partial chunk (#3)
            source: textkit/lists.py
            tests: test_chunk_keeps_last_partial_chunk, test_chunk_exact_multiple_has_no_empty_chunk  statement: commit

Left out 6 of 11 changes:
  6  not-a-fix                    neither its title nor its changelog entry reads like a fix

Statements: 5 from commit titles (the title only, without how it was fixed). No GitHub repository is known, so problem statements come from commit titles. To use issue texts, set [project] github = "owner/name" in bugbout.toml.

Wrote .bugbout/tasks.json
`;

Deno.test("`bugbout tasks` prints the tasks and why the rest was left out, and writes tasks.json", async () => {
  await using s = await miningSetup(buildDemo);
  const env = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: Deno.env.get("HOME") ?? s.root,
    BUGBOUT_HOME: s.home,
    NO_COLOR: "1",
    DENO_NO_UPDATE_CHECK: "1",
  };
  const argv = [
    "deno",
    "run",
    "-A",
    "--config",
    join(ROOT, "deno.json"),
    join(ROOT, "main.ts"),
    "tasks",
  ];
  const first = await run(argv, {
    cwd: s.fixture.dir,
    env,
    clearEnv: true,
    okCodes: "any",
    timeoutMs: 120_000,
  });
  equal(first.code, 0, first.stderr);
  equal(first.stdout.replace(/\b[0-9a-f]{10}\b/g, "<sha>"), GOLDEN);
  const file = tasksFileSchema.parse(
    JSON.parse(await Deno.readTextFile(join(s.fixture.dir, ".bugbout", "tasks.json"))),
  );
  equal(file.tasks.length, 5);
  const second = await run(argv, {
    cwd: s.fixture.dir,
    env,
    clearEnv: true,
    okCodes: "any",
    timeoutMs: 120_000,
  });
  match(
    second.stdout,
    /Up to date: \.bugbout\/tasks\.json \(HEAD and settings unchanged; --refresh mines again\)\n$/,
  );
});

Deno.test("`bugbout tasks --json` prints tasks.json and --refresh mines again", async () => {
  await using s = await miningSetup(buildDemo);
  const config = join(s.fixture.dir, "bugbout.toml");
  Deno.env.set("BUGBOUT_HOME", s.home);
  try {
    const io = capture();
    equal(await runCli(["tasks", "--json", "-c", config], io), 0);
    const file = tasksFileSchema.parse(JSON.parse(io.stdout.join("\n")));
    equal(file.tasks[0].id, "issue-14");
    const again = capture();
    equal(await runCli(["tasks", "--refresh", "-c", config], again), 0);
    match(again.stdout.join("\n"), /\nWrote /);
  } finally {
    Deno.env.delete("BUGBOUT_HOME");
  }
});

Deno.test("`bugbout tasks` outside a project fails with a hint to run init", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const io = capture();
    equal(await runCli(["tasks", "-c", join(dir, "bugbout.toml")], io), 1);
    match(io.stderr.join("\n"), new RegExp(`No such file: ${join(dir, "bugbout\\.toml")}\\.`));
    match(io.stderr.join("\n"), /bugbout init/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
