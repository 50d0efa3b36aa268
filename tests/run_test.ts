import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { demoPlaybook } from "../lib/demo/agents.ts";
import { writePlaybookAgent } from "../lib/demo/playbook_agent.ts";
import { reportSchema } from "../lib/report/mod.ts";
import { resolutionsFileSchema } from "../lib/records.ts";
import { startFakeGithub } from "../lib/demo/github.ts";
import { buildDemo } from "./fixtures/projects.ts";
import { ROOT, runBugbout, tempDir } from "./_helpers.ts";

function agentTable(name: string, script: string) {
  return `[[contestants]]\nagent = "command"\nname = "${name}"\nquota = "${name}"\n` +
    `command = ["python3", ${JSON.stringify(script)}, "{prompt_file}"]\n`;
}

Deno.test("bugbout run carries a bout through every stage, resumes, and renders all four formats", async () => {
  await using dir = await tempDir("bugbout-run-");
  const fixture = await buildDemo(join(dir.path, "textkit"));
  await using github = startFakeGithub({
    repository: fixture.github.repository,
    items: fixture.github.items,
  });
  const script = (kind: "careful" | "sloppy" | "tester") =>
    writePlaybookAgent(
      join(dir.path, "agents"),
      demoPlaybook(kind, fixture.fixes, fixture.github.items),
    );
  const base =
    `[project]\nsource = "${fixture.source}"\ngithub = "${fixture.github.repository}"\n` +
    `github-api = "${github.url}"\n\n[tasks]\nlimit = 3\n\n`;
  const config = join(fixture.dir, "bugbout.toml");
  await Deno.writeTextFile(
    config,
    base + agentTable("careful", await script("careful")) +
      agentTable("sloppy", await script("sloppy")),
  );
  const env = { BUGBOUT_HOME: join(dir.path, "home") };

  const first = await runBugbout(["run"], { cwd: fixture.dir, env });
  equal(first.code, 0, first.stderr);
  for (const stage of ["mine", "oracle", "race", "examine", "judge", "score", "report"]) {
    match(first.stderr, new RegExp(`\\] ${stage} +\\S`), `stage line for ${stage}`);
  }
  match(first.stderr, /race +6 attempt\(s\) ran, 0 already done: 6 patch/);
  // Every stage that runs tests says as each task ends how far it is.
  for (const stage of ["oracle", "examine", "score"]) {
    match(
      first.stderr,
      new RegExp(`\\] ${stage} +issue-\\d+ done, \\d+ test sessions .* · 3/3 tasks`),
    );
  }
  match(first.stdout, /^Agents$/m);
  const results = join(fixture.dir, ".bugbout");
  for (const file of ["report.json", "report.md", "report.html", "tasks.json", "oracles.json"]) {
    ok((await Deno.stat(join(results, file))).isFile, file);
  }
  const resolutions = resolutionsFileSchema.parse(
    JSON.parse(await Deno.readTextFile(join(results, "resolutions.json"))),
  );
  // The three newest tasks: careful fixes only issue-8 of them, sloppy only issue-11.
  deepEqual(
    Object.fromEntries(
      Object.values(resolutions.resolutions).map((
        r,
      ) => [r.task, [r.patches.careful?.outcome, r.patches.sloppy?.outcome]]),
    ),
    {
      "issue-14": ["wrong-fix", "wrong-fix"],
      "issue-11": ["wrong-fix", "resolved"],
      "issue-8": ["resolved", "wrong-fix"],
    },
  );

  // Again: nothing runs twice.
  const again = await runBugbout(["run"], { cwd: fixture.dir, env });
  equal(again.code, 0, again.stderr);
  match(again.stderr, /race +0 attempt\(s\) ran, 6 already done/);

  // A contestant added later runs alone.
  await Deno.writeTextFile(config, agentTable("tester", await script("tester")), { append: true });
  const added = await runBugbout(["run"], { cwd: fixture.dir, env });
  equal(added.code, 0, added.stderr);
  match(added.stderr, /race +3 attempt\(s\) ran, 6 already done/);
  ok(!/careful started/.test(added.stderr));
  // Cross-examination runs only the newcomer's tree and its tests; the rest is reused.
  match(added.stderr, /examine +3 matrices \(3 new, 0 unchanged\): \d+ cells ran, [1-9]\d* reused/);

  // Re-judge and re-score one task without racing.
  const focused = await runBugbout(["run", "--no-race", "--task", "issue-14"], {
    cwd: fixture.dir,
    env,
  });
  equal(focused.code, 0, focused.stderr);
  ok(!/\] race /.test(focused.stderr));

  const unknown = await runBugbout(["run", "--task", "issue-999"], { cwd: fixture.dir, env });
  equal(unknown.code, 1);
  match(unknown.stderr, /No task issue-999 in tasks\.json/);

  // Every format from .bugbout/, running nothing.
  const json = await runBugbout(["report", "--format", "json"], { cwd: fixture.dir, env });
  const report = reportSchema.parse(JSON.parse(json.stdout));
  deepEqual(report.agents.map((a) => [a.name, a.outcomes.resolved]), [
    ["careful", 1],
    ["sloppy", 1],
    ["tester", 0],
  ]);
  const md = await runBugbout(["report", "--format", "markdown"], { cwd: fixture.dir, env });
  match(md.stdout, /^# bugbout report/m);
  match(md.stdout, /\| careful \| 3 \| 1 \|/);
  const html = join(dir.path, "out.html");
  const written = await runBugbout(["report", "--format", "html", "--output", html], {
    cwd: fixture.dir,
    env,
  });
  equal(written.code, 0, written.stderr);
  match(await Deno.readTextFile(html), /^<!DOCTYPE html>/i);
  const terminal = await runBugbout(["report"], { cwd: fixture.dir, env });
  ok(terminal.stdout.split("\n").every((line) => line.length <= 100));
  const bad = await runBugbout(["report", "--format", "pdf"], { cwd: fixture.dir, env });
  equal(bad.code, 2);
  match(bad.stderr, /unknown report format "pdf"/);
});

Deno.test("bugbout run --tasks-only stops after the ground truth", async () => {
  await using dir = await tempDir("bugbout-run-");
  const fixture = await buildDemo(join(dir.path, "textkit"));
  await Deno.writeTextFile(
    join(fixture.dir, "bugbout.toml"),
    `[project]\nsource = "${fixture.source}"\n\n[tasks]\nlimit = 2\n`,
  );
  const run = await runBugbout(["run", "--tasks-only"], {
    cwd: fixture.dir,
    env: { BUGBOUT_HOME: join(dir.path, "home") },
  });
  equal(run.code, 0, run.stderr);
  match(run.stderr, /\] oracle +2 scorable/);
  ok(!/\] race /.test(run.stderr));
});

Deno.test("bugbout run without contestants says so before mining anything", async () => {
  await using dir = await tempDir("bugbout-run-");
  const fixture = await buildDemo(join(dir.path, "textkit"));
  await Deno.writeTextFile(join(fixture.dir, "bugbout.toml"), `[project]\nsource = "textkit"\n`);
  const run = await runBugbout(["run"], {
    cwd: fixture.dir,
    env: { BUGBOUT_HOME: join(dir.path, "home") },
  });
  equal(run.code, 1);
  match(run.stderr, /names no \[\[contestants\]\]: nothing would race\.\nhint: .*--tasks-only/);
});

Deno.test("bugbout run in a directory without bugbout.toml says what to do", async () => {
  await using dir = await tempDir("bugbout-run-");
  const run = await runBugbout(["run"], { cwd: dir.path });
  equal(run.code, 1);
  match(run.stderr, /^error: No bugbout\.toml in .*\nhint: Run `bugbout init`/);
});

Deno.test("Ctrl-C stops a bout's sandboxes, keeps finished attempts and exits 130", async () => {
  await using dir = await tempDir("bugbout-run-");
  const fixture = await buildDemo(join(dir.path, "textkit"));
  const marker = `bugbout-sigint-${crypto.randomUUID()}`;
  const fast = join(dir.path, "fast.sh");
  const slow = join(dir.path, "slow.sh");
  await Deno.writeTextFile(fast, "#!/bin/sh\necho '# noted' >> README.md\n");
  // The marker rides on the command line, where the /proc scan below looks for it.
  await Deno.writeTextFile(
    slow,
    `#!/bin/sh\nexec python3 -c "import time; time.sleep(120)" ${marker}\n`,
  );
  await Deno.chmod(fast, 0o755);
  await Deno.chmod(slow, 0o755);
  await Deno.writeTextFile(
    join(fixture.dir, "bugbout.toml"),
    `[project]\nsource = "textkit"\n\n[tasks]\nlimit = 1\n\n` +
      `[[contestants]]\nagent = "command"\nname = "fast"\ncommand = ["${fast}"]\n\n` +
      `[[contestants]]\nagent = "command"\nname = "slow"\ncommand = ["${slow}"]\n`,
  );
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", join(ROOT, "main.ts"), "run"],
    cwd: fixture.dir,
    env: {
      ...Deno.env.toObject(),
      NO_COLOR: "1",
      DENO_NO_UPDATE_CHECK: "1",
      BUGBOUT_HOME: join(dir.path, "home"),
    },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr: string[] = [];
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  // Wait until the fast agent has finished and the slow one is running (each command agent has a
  // quota lane of its own, so they race side by side), then press Ctrl-C.
  while (true) {
    const { value, done } = await reader.read();
    if (done) break;
    stderr.push(value);
    const said = stderr.join("");
    if (said.includes("slow started") && /fast on \S+: /.test(said)) break;
  }
  child.kill("SIGINT");
  for (let r = await reader.read(); !r.done; r = await reader.read()) stderr.push(r.value);
  const status = await child.status;
  await child.stdout.cancel();
  equal(status.code, 130, stderr.join(""));
  match(stderr.join(""), /Stopped\. Everything that had finished is saved/);
  const attempts = join(fixture.dir, ".bugbout", "attempts");
  const saved = [...Deno.readDirSync(join(attempts, [...Deno.readDirSync(attempts)][0].name))]
    .map((e) => e.name).filter((n) => n.endsWith(".json"));
  deepEqual(saved, ["fast.json"]);
  const left = [...Deno.readDirSync("/proc")].filter((e) => /^\d+$/.test(e.name)).some((e) => {
    try {
      return Deno.readTextFileSync(`/proc/${e.name}/cmdline`).includes(marker);
    } catch {
      return false;
    }
  });
  equal(left, false, "the slow agent's process is gone");
});
