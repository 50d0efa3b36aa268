/**
 * One race of real scripted agents on the demo project's `chunk-partial` task, in the real
 * bubblewrap sandbox: a fixer, a wrong fixer, a test writer, an idler, a crasher, a hanger, a
 * flooder, a deleter, a link planter, an agent that makes repositories of its own, two probers
 * and three sleepers that share or do not share a quota.
 * Canaries are planted in every "future" place beforehand; the host is hashed before and after.
 *
 * @module
 */

import { deepEqual, equal, match, ok } from "node:assert/strict";
import { dirname, join } from "node:path";
import { cachedTreePath } from "../../lib/checkout.ts";
import type { CodingAgent } from "../../adapters/agent.ts";
import { readTextIfExists as readText } from "../../lib/fs.ts";
import type { RaceProgress, Racer } from "../../lib/race/mod.ts";
import {
  CRASH_SH,
  DELETE_SH,
  fixFiles,
  FLOOD_SH,
  HANG_SH,
  LINKS_SH,
  NEST_SH,
  playbook,
  script,
  TIMED_PY,
} from "./_agents.ts";
import { checkProbes, PROBE_PY, probeResults, type ProbeSettings } from "./_probe_agent.ts";
import {
  filesContaining,
  oddEntries,
  processesWith,
  treeHashes,
  waitFor,
  withEnv,
} from "./_host.ts";
import {
  addedLines,
  type AgentDef,
  attemptLogDirs,
  attemptOf,
  makeRaceWorld,
  projectWith,
  raceAt,
} from "./_world.ts";

/**
 * Bytes the flooder writes: far over the 32 MiB log cap, and far over what bugbout's memory may
 * grow by (the garbage collector lets tens of MiB of drained chunks pile up before it runs).
 */
const FLOOD_BYTES = 256 * 1024 * 1024;
/**
 * `[run] timeout` in seconds: what the hanger takes; the busiest honest agent (the flooder)
 * needs about 1.5 s, 3 s on a loaded machine.
 */
const TIMEOUT = 8;
/** How much bugbout's resident memory may grow during the race. */
const MAX_GROWTH_MIB = 160;
const LOG_CAP = 32 * 1024 * 1024;
const TRUNCATED = "\n[bugbout: output truncated at the cap]\n";
const SECRET_NAMES = ["GITHUB_TOKEN", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"];

/**
 * The linker's adapter reads its closing message from its log directory after the run, as the
 * codex adapter does.
 */
function readsLogFiles(racer: Racer): Racer {
  if (racer.agent.name !== "linker") return racer;
  const agent: CodingAgent = Object.create(racer.agent);
  agent.parse = async (output) => ({
    summary: await readText(join(output.logdir, "last-message.txt")),
  });
  return { ...racer, agent };
}

function overlaps(a: [number, number], b: [number, number]): boolean {
  return a[0] < b[1] && b[0] < a[1];
}

Deno.test("a race of scripted agents in bubblewrap: every attempt is what it did, and nothing leaks", async (t) => {
  await using world = await makeRaceWorld();
  const { fix, task } = world;
  const files = fixFiles(fix);
  const fixed = Object.keys(fix.goldFiles)[0];
  const hostHome = Deno.env.get("HOME") ?? "/root";
  const marker = `HANG-MARKER-${crypto.randomUUID()}`;
  const canary = `FUTURE-CANARY-${crypto.randomUUID()}`;
  const secret = `sk-secret-${crypto.randomUUID()}`;
  const victim = join(world.tmp, "victim");
  await Deno.mkdir(join(victim, "keep"), { recursive: true });
  await Deno.writeTextFile(join(victim, "keep", "data.txt"), "the user's data\n");

  // Listeners on the host the probers must not reach.
  const tcp = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const socketDir = await Deno.makeTempDir({ prefix: "bugbout-race-sock-" });
  const unix = Deno.listen({ transport: "unix", path: join(socketDir, "host.sock") });
  let reached = 0;
  const accepting = [tcp, unix].map(async (listener) => {
    for await (const conn of listener as Deno.Listener) {
      reached++;
      conn.close();
    }
  });

  const dir = world.agents;
  const sh = async (name: string, source: string) => ["sh", await script(dir, name, source)];
  const probeEnv = (name: string): ProbeSettings => ({
    PROBE_REPO: world.repo,
    PROBE_FIXED: fixed,
    PROBE_HOME: world.home,
    PROBE_RESULTS: join(world.root, ".bugbout"),
    PROBE_CANARIES: "",
    PROBE_PORT: String((tcp.addr as Deno.NetAddr).port),
    PROBE_SOCKET: join(socketDir, "host.sock"),
    PROBE_PID: String(Deno.pid),
    PROBE_G_TEST: fix.newTests[0].split("::")[1],
    PROBE_NAME: `${name}-${crypto.randomUUID().slice(0, 8)}`,
    PROBE_LOGDIR: "{logdir}",
  });
  const probePy = await script(dir, "probe.py", PROBE_PY);
  const agents: AgentDef[] = [
    { name: "fixer", command: ["python3", await playbook(dir, "fixer", files.fix)] },
    { name: "wrong", command: ["python3", await playbook(dir, "wrong", files.wrong)] },
    { name: "tester", command: ["python3", await playbook(dir, "tester", files.testOnly)] },
    { name: "idler", command: ["python3", await playbook(dir, "idler", {})] },
    { name: "crasher", command: await sh("crash.sh", CRASH_SH) },
    { name: "hanger", command: [...await sh("hang.sh", HANG_SH), marker] },
    { name: "flooder", command: [...await sh("flood.sh", FLOOD_SH), String(FLOOD_BYTES)] },
    {
      name: "deleter",
      command: [
        ...await sh("delete.sh", DELETE_SH),
        victim,
        world.repo,
        world.home,
        join(world.root, ".bugbout"),
      ],
    },
    {
      name: "linker",
      command: [...await sh("links.sh", LINKS_SH), hostHome, world.repo, fixed, "{logdir}"],
    },
    { name: "nester", command: await sh("nest.sh", NEST_SH) },
    { name: "prober", command: ["python3", probePy] },
    // The same probes with a careless `state-dirs` that holds the repository, BUGBOUT_HOME and
    // the results: the sandbox must cover those with empty read-only mounts.
    { name: "prober-wide", command: ["python3", probePy], stateDirs: [world.tmp] },
    {
      name: "sleeper-a",
      command: ["python3", await script(dir, "timed.py", TIMED_PY), "1.5"],
      quota: "shared",
    },
    { name: "sleeper-b", command: ["python3", join(dir, "timed.py"), "1.5"], quota: "shared" },
    { name: "sleeper-c", command: ["python3", join(dir, "timed.py"), "2.5"], quota: "alone" },
  ];
  // The project's cache directory is needed to plant a canary in "another attempt".
  const project = await projectWith(world, agents, { timeout: TIMEOUT });

  // Canaries in every place that holds the future.
  const other = project.cacheDir("attempts", task.id, "other-00000000", "work");
  const gold = await cachedTreePath(world.repo, task.commit, world.home);
  const canaryFiles = [
    join(world.repo, "FUTURE-CANARY.txt"),
    join(world.repo, ".git", "FUTURE-CANARY"),
    join(world.home, "FUTURE-CANARY.txt"),
    join(gold, "FUTURE-CANARY.txt"),
    join(world.root, ".bugbout", "FUTURE-CANARY.txt"),
    join(other, "FUTURE-CANARY.txt"),
    join(world.root, ".bugbout", "attempts", task.id, "ghost.patch"),
  ];
  for (const path of canaryFiles) {
    await Deno.mkdir(dirname(path), { recursive: true });
    await Deno.writeTextFile(path, `${canary}\n`);
  }
  await Deno.writeTextFile(join(world.repo, fixed), `# ${canary}\n`, { append: true });
  for (const a of agents.filter((a) => a.name.startsWith("prober"))) {
    a.env = { ...probeEnv(a.name), PROBE_CANARIES: canaryFiles.join(":") };
  }
  const probing = await projectWith(world, agents, { timeout: TIMEOUT });

  const before = {
    repo: await treeHashes(world.repo),
    victim: await treeHashes(victim),
    checkouts: await treeHashes(join(world.home, "checkouts")),
  };
  const restore = withEnv(SECRET_NAMES, secret);
  const baseline = Deno.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, Deno.memoryUsage().rss)), 10);
  const started = performance.now();
  let raced;
  try {
    raced = await raceAt(world, probing, {}, readsLogFiles);
  } finally {
    clearInterval(sampler);
    restore();
    tcp.close();
    unix.close();
    await Promise.allSettled(accepting);
    await Deno.remove(socketDir, { recursive: true });
  }
  const seconds = (performance.now() - started) / 1000;
  const { summary, events } = raced;
  const attempt = (name: string) => attemptOf(world, probing, name);

  await t.step("every agent ran once and none failed to be attempted", () => {
    equal(summary.ran, agents.length, JSON.stringify(summary));
    deepEqual(summary.failures, []);
    // How long a race takes is a claim of bench/race.ts; the last step checks the lanes overlap.
  });

  await t.step("the fixer's patch is the real fix in source and its test in tests", async () => {
    const { attempt: a, source, tests } = await attempt("fixer");
    equal(a.status, "patch");
    equal(a.exitCode, 0);
    equal(a.sandbox, "bubblewrap");
    deepEqual(
      a.files.map((f) => [f.path, f.change, f.kind]).sort(),
      [[fix.reproTest!.path, "added", "test"], [fixed, "modified", "source"]],
    );
    match(source, /-\s+count = len\(items\) \/\/ size\n\+\s+count = -\(-len\(items\) \/\/ size\)/);
    ok(!source.includes(fix.reproTest!.path), "the source patch holds no test");
    ok(tests.includes(fix.reproTest!.content.split("\n")[3]), "the test patch holds the test");
    ok(!tests.includes(fixed), "the test patch holds no source");
    match(a.summary ?? "", /fixer wrote 2 file/);
  });

  await t.step(
    "the wrong fix is a source-only patch, the test writer's a tests-only one",
    async () => {
      const wrong = await attempt("wrong");
      equal(wrong.attempt.status, "patch");
      deepEqual(wrong.attempt.files.map((f) => [f.path, f.kind]), [[fixed, "source"]]);
      match(wrong.source, /\+\s+count = len\(items\) \/\/ size \+ 1/);
      equal(wrong.tests, "");
      const tester = await attempt("tester");
      equal(tester.attempt.status, "patch");
      deepEqual(tester.attempt.files.map((f) => [f.path, f.change, f.kind]), [
        [fix.reproTest!.path, "added", "test"],
      ]);
      equal(tester.source, "");
      match(tester.tests, /test_partial_chunk_is_kept/);
    },
  );

  await t.step("doing nothing is no-change, falling over is crashed", async () => {
    const idler = await attempt("idler");
    equal(idler.attempt.status, "no-change");
    deepEqual(idler.attempt.files, []);
    equal(idler.full, "");
    const crasher = await attempt("crasher");
    equal(crasher.attempt.status, "crashed");
    equal(crasher.attempt.exitCode, 3);
    match(crasher.attempt.error ?? "", /the agent fell over/);
  });

  await t.step(
    "the hanger timed out and left no process behind, detached child included",
    async () => {
      const { attempt: a } = await attempt("hanger");
      equal(a.status, "timeout");
      equal(a.exitCode, null);
      ok(a.durationMs >= TIMEOUT * 1000, `${a.durationMs} ms`);
      ok(a.durationMs < 30_000, `${a.durationMs} ms`);
      match(a.logTail, /sleeping with a detached child/);
      const gone = await waitFor(async () => (await processesWith(marker)).length === 0, 5000);
      ok(gone, `processes left: ${await processesWith(marker)}`);
    },
  );

  await t.step(
    "the flood's log stops at the cap, marked truncated, and memory stays flat",
    async () => {
      const { attempt: a } = await attempt("flooder");
      equal(a.status, "no-change");
      equal(a.exitCode, 0);
      match(a.error ?? "", /over the cap/);
      ok(a.logTail.length <= 4000);
      const logs = await attemptLogDirs(probing, task.id);
      const sizes = [];
      for (const log of logs) {
        const info = await Deno.stat(join(log, "stdout.log")).catch(() => undefined);
        if (info) sizes.push([log, info.size] as const);
      }
      const [flood] = sizes.filter(([, size]) => size > 1024 * 1024);
      ok(flood, "the flooder's stdout.log is there");
      equal(flood[1], LOG_CAP + TRUNCATED.length);
      const file = await Deno.open(join(flood[0], "stdout.log"));
      await file.seek(-TRUNCATED.length, Deno.SeekMode.End);
      const end = new Uint8Array(TRUNCATED.length);
      await file.read(end);
      file.close();
      equal(new TextDecoder().decode(end), TRUNCATED);
      const growth = (peak - baseline) / 1024 / 1024;
      ok(growth < MAX_GROWTH_MIB, `bugbout grew by ${growth.toFixed(0)} MiB`);
    },
  );

  await t.step(
    "deleting the whole working copy is a patch of deletions; the host is untouched",
    async () => {
      const { attempt: a, full } = await attempt("deleter");
      equal(a.status, "patch");
      ok(a.files.length >= 8, `${a.files.length} files`);
      ok(a.files.every((f) => f.change === "deleted"), JSON.stringify(a.files));
      deepEqual(
        new Set(a.files.map((f) => f.kind)),
        new Set(["source", "test", "config", "other"]),
      );
      match(full, /deleted file mode/);
      deepEqual(await treeHashes(victim), before.victim);
    },
  );

  await t.step("links are captured as links, never followed, and hard links fail", async () => {
    const { attempt: a, full } = await attempt("linker");
    equal(a.status, "patch");
    const byPath = Object.fromEntries(a.files.map((f) => [f.path, f]));
    for (const link of ["ssh-keys", "user-repo", "fixed-at-g.py", "climb"]) {
      equal(byPath[link]?.symlink, true, link);
      equal(byPath[link]?.change, "added", link);
    }
    equal(byPath["README.md"]?.symlink, true);
    equal(byPath["README.md"]?.change, "mode");
    ok(!("hard-fixed.py" in byPath) && !("hard-passwd" in byPath), "no hard link was made");
    deepEqual(addedLines(full, "links.txt"), ["hard-repo: failed", "hard-etc: failed"]);
    match(full, /new file mode 120000/);
    ok(full.includes(`+${hostHome}/.ssh`), "the ssh link is recorded by its target");
    ok(!full.includes("root:x:0:0"), "nothing was followed");
    // What it left in its log directory is read after the run without following anything.
    equal(a.summary, undefined);
    const logs = await attemptLogDirs(probing, task.id);
    for (const log of logs.filter((l) => !l.startsWith(dirname(other)))) {
      deepEqual(await oddEntries(log), [], log);
    }
  });

  await t.step(
    "repositories an agent makes inside its working copy do not hide its files",
    async () => {
      const { attempt: a, full, tests } = await attempt("nester");
      equal(a.status, "patch", a.logTail);
      deepEqual(a.files.map((f) => [f.path, f.change, f.kind]).sort(), [
        ["-rf", "added", "other"],
        ["notes/todo.txt", "added", "other"],
        ["odd\nname.txt", "added", "other"],
        ["star*.txt", "added", "other"],
        ["tests/regression/test_nested.py", "added", "test"],
      ]);
      match(tests, /def test_nested\(\):/);
      ok(
        !full.includes("Subproject commit") && !full.includes(" 160000"),
        "a gitlink was captured",
      );
    },
  );

  for (const name of ["prober", "prober-wide"]) {
    await t.step(
      `${name}: every probe of the adversarial table gives the expected result`,
      async () => {
        const { attempt: a, full } = await attempt(name);
        equal(a.status, "patch", a.logTail);
        checkProbes(probeResults(full), {
          wide: name === "prober-wide",
          canaries: canaryFiles.length,
          secret,
          secretNames: SECRET_NAMES,
        });
        equal(a.files.find((f) => f.path === "via-link.py")?.symlink, true);
      },
    );
  }

  await t.step(
    "the probers' writes outside their working copy never reached the host",
    async () => {
      for (const name of ["prober", "prober-wide"]) {
        const env = agents.find((a) => a.name === name)!.env!;
        for (const dir of ["/tmp", "/usr", world.repo]) {
          const path = join(dir, `written-${env.PROBE_NAME}.txt`);
          equal(await Deno.lstat(path).then(() => true, () => false), false, path);
        }
        const stray = await filesContaining(world.home, "written by the probe");
        ok(stray.every((p) => p.includes("/log/")), stray.join());
      }
      equal(reached, 0, "a host listener was reached");
    },
  );

  await t.step("nothing outside the working copies changed on the host", async () => {
    deepEqual(await treeHashes(world.repo), before.repo);
    deepEqual(await treeHashes(victim), before.victim);
    deepEqual(await treeHashes(join(world.home, "checkouts")), before.checkouts);
    for (const path of canaryFiles) equal(await Deno.readTextFile(path), `${canary}\n`);
  });

  await t.step("no canary and no secret appears in any captured output, log or patch", async () => {
    const planted = new Set(canaryFiles);
    const places = [
      join(world.root, ".bugbout", "attempts"),
      ...(await attemptLogDirs(probing, task.id)).filter((d) => !d.startsWith(dirname(other))),
    ];
    for (const needle of [canary, secret]) {
      for (const place of places) {
        const hits = (await filesContaining(place, needle)).filter((p) => !planted.has(p));
        deepEqual(hits, [], `${needle.slice(0, 14)} found`);
      }
    }
  });

  await t.step("agents sharing a quota never overlap; agents on other quotas do", async () => {
    const times = async (name: string): Promise<[number, number]> => {
      const [line] = addedLines((await attempt(name)).full, "times.txt");
      const [start, end] = line.split(" ").map(Number);
      return [start, end];
    };
    const [a, b, c] = [
      await times("sleeper-a"),
      await times("sleeper-b"),
      await times("sleeper-c"),
    ];
    ok(!overlaps(a, b), `a ${a} b ${b}`);
    ok(overlaps(c, a) || overlaps(c, b), `c ${c} a ${a} b ${b}`);
    const span = (name: string): [number, number] => {
      const start = events.find((e): e is Extract<RaceProgress, { kind: "start" }> =>
        e.kind === "start" && e.agent === name
      )!;
      const end = events.find((e) => e.kind === "end" && e.agent === name);
      ok(end && end.kind === "end");
      return [start.at, start.at + end.durationMs];
    };
    ok(!overlaps(span("sleeper-a"), span("sleeper-b")));
    // Every other agent has a lane of its own: they all started before the first one ended.
    const starts = events.filter((e) => e.kind === "start").length;
    const firstEnd = events.findIndex((e) => e.kind === "end");
    ok(firstEnd >= agents.length - 1, `${starts} starts, first end at ${firstEnd}`);
  });

  const took = events.flatMap((e) => e.kind === "end" ? [`${e.agent} ${e.durationMs}ms`] : []);
  console.log(`race of ${agents.length} agents in ${seconds.toFixed(1)}s: ${took.join(", ")}`);
});
