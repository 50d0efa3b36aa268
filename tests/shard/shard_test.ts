import { deepEqual, equal, match, ok } from "node:assert/strict";
import { dirname, join } from "node:path";
import { DEMO_AGENTS, demoPlaybook } from "../../lib/demo/agents.ts";
import { startFakeGithub } from "../../lib/demo/github.ts";
import { writePlaybookAgent } from "../../lib/demo/playbook_agent.ts";
import { shardManifestSchema } from "../../lib/records.ts";
import { buildDemo } from "../fixtures/projects.ts";
import { runBugbout, tempDir } from "../_helpers.ts";
import { listFiles, normalisedResults } from "./_results.ts";

/** The demo's agents (four scripted contestants and a scripted examiner), as bugbout.toml. */
function demoToml(
  fixture: { source: string; tests: string; github: { repository: string } },
  github: string,
  scripts: Record<string, string>,
): string {
  const agent = (kind: string, table: string) =>
    `[[${table}]]\nagent = "command"\nname = "scripted-${kind}"\n` +
    `vendor = "${kind === "examiner" ? "scripted-examiners" : "scripted"}"\n` +
    (kind === "examiner" ? 'assignment = "specify"\n' : "") +
    `command = ["python3", ${JSON.stringify(scripts[kind])}, "{prompt_file}"]\n\n`;
  return `[project]\nsource = "${fixture.source}"\ntests = "${fixture.tests}"\n` +
    `github = "${fixture.github.repository}"\ngithub-api = "${github}"\n\n` +
    `[tasks]\nlimit = 2\n\n[run]\ntimeout = 120\n\n` +
    DEMO_AGENTS.map((kind) => agent(kind, "contestants")).join("") +
    agent("examiner", "examiners");
}

/** A copy of a project directory (with its .bugbout/, if any): one machine of the bout. */
async function copyTree(from: string, to: string): Promise<string> {
  await Deno.mkdir(dirname(to), { recursive: true });
  const out = await new Deno.Command("cp", { args: ["-a", "--", from, to] }).output();
  equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return to;
}

Deno.test("three shards, merged and finished with run --no-race, give the unsharded bout's results; a shard resumed, lost or run twice comes out right", async () => {
  await using dir = await tempDir("bugbout-shard-");
  const fixture = await buildDemo(join(dir.path, "textkit"));
  await using github = startFakeGithub({
    repository: fixture.github.repository,
    items: fixture.github.items,
  });
  const scripts: Record<string, string> = {};
  for (const kind of [...DEMO_AGENTS, "examiner" as const]) {
    scripts[kind] = await writePlaybookAgent(
      join(dir.path, "agents"),
      demoPlaybook(kind, fixture.fixes, fixture.github.items),
    );
  }
  const toml = join(fixture.dir, "bugbout.toml");
  await Deno.writeTextFile(toml, demoToml(fixture, github.url, scripts));
  const home = join(dir.path, "home");
  const bugbout = async (cwd: string, ...args: string[]) => {
    const run = await runBugbout(args, { cwd, env: { BUGBOUT_HOME: home } });
    return { ...run, all: run.stdout + run.stderr };
  };
  const must = async (cwd: string, ...args: string[]) => {
    const run = await bugbout(cwd, ...args);
    equal(run.code, 0, `bugbout ${args.join(" ")} in ${cwd}:\n${run.all}`);
    return run;
  };
  // Each machine's copy of the project is `<machine>/textkit`, so the report names it the same.
  const copy = (machine: string, from = fixture.dir) =>
    copyTree(from, join(dir.path, machine, "textkit"));
  const pristine = await copy("pristine");

  // One unsharded bout.
  const whole = await copy("whole", pristine);
  await must(whole, "run", "--quiet");

  // A shard needs the prep run's tasks and ground truth.
  const bare = await copy("bare", pristine);
  const noPrep = await bugbout(bare, "run", "--shard", "1/3");
  equal(noPrep.code, 1, noPrep.all);
  match(
    noPrep.stderr,
    /A shard races the tasks of a prep run.*\nhint: Run `bugbout run --tasks-only`/,
  );

  // The prep run, and three shards, each from a copy of it.
  const prep = await copy("prep", pristine);
  await must(prep, "run", "--tasks-only", "--quiet");
  const shards: string[] = [];
  for (const k of [1, 2, 3]) {
    const shard = await copy(`shard-${k}`, prep);
    const run = await must(shard, "run", "--shard", `${k}/3`);
    match(run.stdout, new RegExp(`^Shard ${k}/3: \\d+ of the race's 10 attempts`, "m"));
    match(run.stderr, /\] mine +shard \d\/3: \d+ of 10 attempt\(s\) on 2 task\(s\)/);
    ok(!/\] (oracle|examine|judge|score|report) /.test(run.stderr), run.stderr);
    shards.push(join(shard, ".bugbout"));
  }
  // Every attempt in exactly one shard, the shares within one attempt of each other (the demo's
  // tasks cost about the same), and each shard raced its own attempts and nothing else.
  const manifests = await Promise.all(
    shards.map(async (s) =>
      shardManifestSchema.parse(JSON.parse(await Deno.readTextFile(join(s, "shard.json"))))
    ),
  );
  const units = manifests.flatMap((m) => m.units.map((u) => `${u.task} ${u.attempt}`));
  equal(units.length, 10);
  equal(new Set(units).size, 10);
  const sizes = manifests.map((m) => m.units.length);
  ok(Math.max(...sizes) - Math.min(...sizes) <= 1, `${sizes}`);
  for (const [i, shard] of shards.entries()) {
    const raced = (await listFiles(join(shard, "attempts"))).filter((f) => f.endsWith(".json"));
    deepEqual(
      raced.map((f) => f.replace(/\.json$/, "").replace("/", " ")).sort(),
      manifests[i].units.map((u) => `${u.task} ${u.attempt}`).sort(),
    );
  }

  // A shard resumed runs nothing again; a results directory holds one shard.
  const resumed = await must(dirname(shards[0]), "run", "--shard", "1/3");
  match(resumed.stderr, /race +0 attempt\(s\) ran, \d+ already done/);
  const other = await bugbout(dirname(shards[0]), "run", "--shard", "2/3");
  equal(other.code, 1);
  match(other.stderr, /holds shard 1\/3, not 2\/3/);

  // A lost shard: the merge refuses, writing nothing, until it is run again (here in a fresh copy
  // of the prep run).
  const merged = await copy("merged", pristine);
  const lost = await bugbout(merged, "merge", shards[0], shards[1]);
  equal(lost.code, 1, lost.all);
  match(lost.stderr, /not complete: 1 shard missing \(3\/3\)/);
  deepEqual(await listFiles(join(merged, ".bugbout")).catch(() => []), []);
  const rerun = join(await copy("shard-3-again", prep), ".bugbout");
  await must(dirname(rerun), "run", "--shard", "3/3", "--quiet");

  // A shard that ran twice (2/3 again, on another machine) merges to the same result.
  const twice = join(await copy("shard-2-twice", prep), ".bugbout");
  await must(dirname(twice), "run", "--shard", "2/3", "--quiet");
  const merge = await must(merged, "merge", shards[0], shards[1], twice, rerun);
  match(
    merge.stdout,
    /^Merged shards 1, 2, 3 of 3 from 4 directories: 10 attempts copied, 0 already here$/m,
  );
  match(merge.stdout, /bugbout run --no-race/);
  await must(merged, "run", "--no-race", "--quiet");

  const paths = { [whole]: "<project>", [merged]: "<project>", [home]: "<home>" };
  const expected = await normalisedResults(join(whole, ".bugbout"), paths);
  const actual = await normalisedResults(join(merged, ".bugbout"), paths);
  deepEqual(Object.keys(actual), Object.keys(expected));
  for (const file of Object.keys(expected)) {
    deepEqual({ [file]: actual[file] }, { [file]: expected[file] });
  }
  // Merging again changes nothing.
  const again = await must(merged, "merge", shards[0], shards[1], rerun);
  match(again.stdout, /0 attempts copied, 10 already here/);

  // Refusals, each before anything is written.
  const target = await copy("refusals", pristine);
  const refused = async (pattern: RegExp, ...dirs: string[]) => {
    const run = await bugbout(target, "merge", ...dirs);
    equal(run.code, 1, run.all);
    match(run.stderr, pattern);
    deepEqual(await listFiles(join(target, ".bugbout")).catch(() => []), []);
  };
  // Two copies of one attempt that disagree: named by attempt and task.
  const forged = join(
    await copyTree(dirname(twice), join(dir.path, "forged", "textkit")),
    ".bugbout",
  );
  const victim = manifests[1].units[0];
  await Deno.writeTextFile(
    join(forged, "attempts", victim.task, `${victim.attempt}.source.patch`),
    "# changed\n",
    { append: true },
  );
  await refused(
    new RegExp(`1 attempt disagree: ${victim.attempt} at ${victim.task} \\(.*forged`),
    shards[0],
    shards[1],
    forged,
    rerun,
  );
  // A shard raced with another setting.
  const changed = await copy("shard-3-changed", prep);
  const text = await Deno.readTextFile(join(changed, "bugbout.toml"));
  await Deno.writeTextFile(
    join(changed, "bugbout.toml"),
    text.replace("timeout = 120", "timeout = 60"),
  );
  await must(changed, "run", "--shard", "3/3", "--quiet");
  await refused(
    /Cannot merge .*shard-3-changed.* their settings differ: \[run\] timeout \(120 in .*shard-1.*, 60 in .*shard-3-changed/,
    shards[0],
    shards[1],
    join(changed, ".bugbout"),
  );
  // A shard raced by another bugbout.
  const older = join(
    await copyTree(dirname(rerun), join(dir.path, "older", "textkit")),
    ".bugbout",
  );
  const manifest = JSON.parse(await Deno.readTextFile(join(older, "shard.json")));
  await Deno.writeTextFile(
    join(older, "shard.json"),
    JSON.stringify({ ...manifest, bugbout: "0.1.0" }),
  );
  await refused(
    /different versions of bugbout \(0\.2\.0 in .*shard-1.*, 0\.1\.0 in .*older/,
    shards[0],
    shards[1],
    older,
  );
  // Shards of another configuration than the project's.
  await Deno.writeTextFile(
    join(target, "bugbout.toml"),
    text.replace("timeout = 120", "timeout = 60"),
  );
  await refused(
    /other settings than .*bugbout\.toml: \[run\] timeout \(120 in the shards, 60 here\)/,
    shards[0],
    shards[1],
    rerun,
  );
});
