/**
 * Benchmark: `bugbout tasks --refresh`, end to end through the CLI (a fresh `deno run` each
 * time), against a bare `git log --first-parent --name-status --no-renames` of the same history
 * (no rename detection: bugbout asks git for none), in paired runs: both sides are started the
 * same way (the same subprocess wrapper, the same environment, output discarded alike), and each
 * pair runs both, alternating which goes first, so a busy machine slows both alike. It measures
 * wall time and CPU seconds including every child process (git's, for bugbout), and prints the
 * median of the pairs' ratios of each, with the `[tasks] limit` and the machine's load:
 *
 * - a real history (`--repo PATH`, a local clone of a public repository; with `--quick` and no
 *   `--repo`, the small real history bundled in tests/fixtures/real/): at most 1.5× at the
 *   default limit and at most 2× with `limit = 1000` (both are measured unless `--limit` names
 *   one), meant for a history of 5,000 first-parent commits or more;
 * - a synthetic history of `--commits` commits where every fix must be found (`limit` is lifted
 *   so all of them are examined): at most 2×.
 *
 * No request leaves the machine: GitHub is a stand-in on 127.0.0.1 that knows no issue.
 *
 * Run: `deno run -A bench/mine.ts --repo ~/src/pytest [--runs 7] [--limit 1000]`, or
 * `deno run -A bench/mine.ts [--commits 20000] [--runs 5]` for the synthetic history alone, or
 * `--quick` (tiny synthetic history and the bundled one, one pair each, goals not judged).
 * Exits non-zero when a synthetic fix is missed or, in a full run, a goal is.
 *
 * @module
 */

import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { defaultBranch, gitRun } from "../lib/git.ts";
import { detectLayout } from "../lib/lang/python/layout.ts";
import { run } from "../lib/proc.ts";
import { tasksFileSchema } from "../lib/records.ts";
import { buildLargeHistory } from "../tests/fixtures/history.ts";
import { median, printRatio } from "./_measure.ts";

const ROOT = resolve(import.meta.dirname!, "..");

const { values } = parseArgs({
  args: Deno.args,
  options: {
    commits: { type: "string" },
    runs: { type: "string" },
    repo: { type: "string" },
    source: { type: "string" },
    limit: { type: "string" },
    quick: { type: "boolean", default: false },
  },
});
const quick = values.quick;
const runs = Number(values.runs ?? (quick ? 1 : 5));

/** A stand-in for GitHub on 127.0.0.1 that knows no issue: statements come from titles. */
function startNoGithub(): Deno.HttpServer & { url: string } {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => Response.json({ message: "Not Found" }, { status: 404 }),
  );
  const addr = server.addr as Deno.NetAddr;
  return Object.assign(server, { url: `http://127.0.0.1:${addr.port}` });
}

/** Clock ticks a second, for /proc's times (`getconf CLK_TCK`; 100 almost everywhere). */
async function clockTicks(): Promise<number> {
  const found = await run(["getconf", "CLK_TCK"], { okCodes: "any" }).catch(() => undefined);
  const ticks = Number(found?.stdout.trim());
  return Number.isFinite(ticks) && ticks > 0 ? ticks : 100;
}

/**
 * CPU seconds this process's children have used so far, the children they waited for included
 * (`/proc/self/stat`'s cutime + cstime); undefined where there is no /proc.
 */
function childCpu(ticks: number): number | undefined {
  try {
    const stat = Deno.readTextFileSync("/proc/self/stat");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // After the name: state is field 3, so cutime (16) and cstime (17) are at 13 and 14.
    return (Number(fields[13]) + Number(fields[14])) / ticks;
  } catch {
    return undefined; // no /proc (macOS): CPU is not measured
  }
}

/** The machine's load averages, as /proc/loadavg says them, or what `uptime` says. */
async function load(): Promise<string> {
  try {
    return Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
  } catch {
    const up = await run(["uptime"], { okCodes: "any" }).catch(() => undefined);
    return up?.stdout.trim().replace(/^.*load averages?:\s*/, "") ?? "unknown";
  }
}

/** One side's cost: wall milliseconds and CPU seconds (children included). */
interface Cost {
  ms: number;
  cpu?: number;
}

interface Measured {
  bare: Cost[];
  cli: Cost[];
  wall: number[];
  cpu: number[];
  tasks: number;
  examined: number;
  load: { before: string; after: string };
}

const ENV = {
  PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
  HOME: Deno.env.get("HOME") ?? "/tmp",
  NO_COLOR: "1",
  LC_ALL: "C",
  DENO_NO_UPDATE_CHECK: "1",
};

/** Time `bugbout tasks --refresh` and the bare walk in pairs. */
async function measure(repo: string, config: string, home: string): Promise<Measured> {
  const branch = await defaultBranch(repo);
  const ticks = await clockTicks();
  const timed = async (argv: string[], cwd: string): Promise<Cost> => {
    const cpu = childCpu(ticks);
    const started = performance.now();
    const result = await run(argv, {
      cwd,
      env: { ...ENV, BUGBOUT_HOME: home },
      clearEnv: true,
      okCodes: "any",
      timeoutMs: 900_000,
      maxOutputBytes: 1 << 16,
    });
    const ms = performance.now() - started;
    const after = childCpu(ticks);
    if (result.code !== 0) throw new Error(`${argv.join(" ")} failed:\n${result.stderr}`);
    return { ms, ...(cpu !== undefined && after !== undefined ? { cpu: after - cpu } : {}) };
  };
  const bare = () =>
    timed(["git", "log", "--first-parent", "--name-status", "--no-renames", branch], repo);
  const cli = () =>
    timed(
      [Deno.execPath(), "run", "-A", join(ROOT, "main.ts"), "tasks", "--refresh", "-c", config],
      repo,
    );
  // Warm the page cache and deno's module cache once, untimed.
  await bare();
  await cli();
  const out: Measured = {
    bare: [],
    cli: [],
    wall: [],
    cpu: [],
    tasks: 0,
    examined: 0,
    load: { before: await load(), after: "" },
  };
  for (let i = 0; i < runs; i++) {
    let b: Cost, c: Cost;
    if (i % 2 === 0) {
      b = await bare();
      c = await cli();
    } else {
      c = await cli();
      b = await bare();
    }
    out.bare.push(b);
    out.cli.push(c);
    out.wall.push(c.ms / b.ms);
    if (b.cpu !== undefined && c.cpu !== undefined && b.cpu > 0) out.cpu.push(c.cpu / b.cpu);
  }
  out.load.after = await load();
  const file = tasksFileSchema.parse(
    JSON.parse(await Deno.readTextFile(join(config, "..", ".bugbout", "tasks.json"))),
  );
  out.tasks = file.tasks.length;
  out.examined = file.examined;
  return out;
}

function report(name: string, limit: number, m: Measured, goal: number): boolean {
  const ms = (xs: Cost[]) => xs.map((x) => x.ms.toFixed(0)).join(", ");
  const cpu = (xs: Cost[]) => xs.map((x) => x.cpu?.toFixed(2) ?? "?").join(", ");
  const medianMs = (xs: Cost[]) => median(xs.map((x) => x.ms)).toFixed(0);
  console.log(
    `${name}: ${m.examined} first-parent commits, [tasks] limit = ${limit}, ${m.tasks} tasks`,
  );
  console.log(`  load average (1, 5, 15 min): ${m.load.before} before, ${m.load.after} after`);
  console.log(
    `  bare git log --first-parent --name-status --no-renames: median ${medianMs(m.bare)} ms ` +
      `(${ms(m.bare)}); CPU s (${cpu(m.bare)})`,
  );
  console.log(
    `  bugbout tasks --refresh (CLI):                          median ${medianMs(m.cli)} ms ` +
      `(${ms(m.cli)}); CPU s (${cpu(m.cli)})`,
  );
  console.log(`  pairs' wall ratios: ${m.wall.map((r) => r.toFixed(2)).join(", ")}`);
  let missed = printRatio(
    `${name}, limit ${limit}: bugbout tasks / bare git log, wall`,
    median(m.wall),
    {
      atMost: goal,
      quick,
    },
  );
  if (m.cpu.length) {
    console.log(
      `  pairs' CPU ratios (children included): ${m.cpu.map((r) => r.toFixed(2)).join(", ")}`,
    );
    missed =
      printRatio(`${name}, limit ${limit}: bugbout tasks / bare git log, CPU`, median(m.cpu), {
        atMost: goal,
        quick,
      }) || missed;
  } else console.log("  CPU not measured here (no /proc)");
  return missed;
}

/** `bugbout.toml` for a real history, with `limit` when it is not the default. */
function realConfig(source: string, tests: string, repo: string, api: string, limit?: number) {
  return `[project]\nsource = ${JSON.stringify(source)}\ntests = ${JSON.stringify(tests)}\n` +
    `repository = ${JSON.stringify(repo)}\ngithub-api = "${api}"\n` +
    (limit === undefined ? "" : `\n[tasks]\nlimit = ${limit}\n`);
}

const root = await Deno.makeTempDir({ prefix: "bugbout-bench-mine-" });
const github = startNoGithub();
try {
  // A real history: the one given, or in a quick run the bundled one.
  let real = values.repo ? resolve(values.repo) : undefined;
  if (!real && quick) {
    real = join(root, "tomlkit");
    await gitRun(["clone", "--quiet", join(ROOT, "tests/fixtures/real/tomlkit.bundle"), real]);
  }
  if (real) {
    const layout = await detectLayout(real);
    const source = values.source ?? layout.source;
    if (!source) throw new Error(`${real}: no package found; pass --source`);
    // The default limit (20) and 1000 each, unless --limit names one.
    const limits = values.limit ? [Number(values.limit)] : quick ? [20] : [20, 1000];
    for (const limit of limits) {
      const dir = join(root, `real-${limit}`);
      await Deno.mkdir(dir);
      const config = join(dir, "bugbout.toml");
      await Deno.writeTextFile(
        config,
        realConfig(
          source,
          layout.tests ?? "tests",
          real,
          github.url,
          limit === 20 ? undefined : limit,
        ),
      );
      const m = await measure(real, config, join(root, "home"));
      const goal = limit <= 20 ? 1.5 : 2;
      if (report(`real history ${real.split("/").pop()}`, limit, m, goal)) Deno.exitCode = 1;
      if (!quick && m.examined < 5000) {
        console.log(
          `note: the goals are meant for 5,000 commits or more; this history has ${m.examined}`,
        );
      }
    }
  }
  // The synthetic history, where every fix must be found.
  if (!values.repo || values.commits) {
    const commits = Number(values.commits ?? (quick ? 300 : 20_000));
    const started = performance.now();
    const history = await buildLargeHistory(join(root, "synthetic"), { commits });
    console.log(
      `synthetic history: ${history.commits} commits, ${history.fixes} fixes to find, ` +
        `${history.unreferenced} without an issue, ${history.untested} without a test (built in ${
          ((performance.now() - started) / 1000).toFixed(1)
        } s)`,
    );
    const config = join(history.dir, "bugbout.toml");
    await Deno.writeTextFile(
      config,
      `[project]\nsource = "bigpkg"\ngithub-api = "${github.url}"\n\n[tasks]\nlimit = 100000\n`,
    );
    const m = await measure(history.dir, config, join(root, "home"));
    if (report("synthetic history", 100000, m, 2)) Deno.exitCode = 1;
    if (m.tasks !== history.fixes) {
      console.log(`FAIL: mined ${m.tasks} tasks, expected ${history.fixes}`);
      Deno.exitCode = 1;
    }
  }
} finally {
  await github.shutdown();
  await Deno.remove(root, { recursive: true });
}
