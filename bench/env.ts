/**
 * What environments per commit and trees built as their project builds them cost, against bare
 * uv doing the same installs by hand.
 *
 * bugbout: `ensureCommitEnv()` of a commit (its declarations read, `uv pip compile
 * --exclude-newer`, the environment built), each round in a fresh environments directory; and
 * `buildTree()` of the tree (an editable install of a copy, with hatch-vcs writing a version
 * file), each round in a fresh builds directory. By hand: `uv venv` and `uv pip install` of the
 * same requirements, and `uv pip install --no-deps --target -e` of the same tree. uv's cache is
 * warm for both (one untimed round first). Prints the medians and the ratios; the goals are at
 * most 2 (environment: bugbout also resolves as of the date, `uv pip compile`, and probes pytest
 * in the result, which by hand does neither; measured 1.86x) and 1.5 (build: measured 1.12x),
 * and a full run that misses one exits non-zero.
 *
 * Usage: `deno run -A bench/env.ts [--rounds 3] [--quick]` (`--quick`: one round, the goals
 * reported but not judged).
 *
 * @module
 */

import { join } from "node:path";
import { parseArgs } from "node:util";
import { cachedTree } from "../lib/checkout.ts";
import { RepoBuilder } from "../lib/demo/repo.ts";
import { buildTree } from "../lib/lang/python/build.ts";
import { ensureCommitEnv } from "../lib/lang/python/commit_env.ts";
import { envRequest } from "../lib/lang/python/env.ts";
import { uvEnv } from "../lib/lang/python/discover.ts";
import { run } from "../lib/proc.ts";
import { makeProject } from "../tests/oracle/_fixture.ts";
import { testCache } from "../tests/python/_shared.ts";
import { describeTimes, median, printRatio, timed } from "./_measure.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { rounds: { type: "string" }, quick: { type: "boolean", default: false } },
});
const quick = values.quick;
const ROUNDS = Number(values.rounds ?? (quick ? 1 : 3));
const DATE = "2024-01-10T00:00:00Z";

const PYPROJECT = `[build-system]
requires = ["hatchling", "hatch-vcs"]
build-backend = "hatchling.build"

[project]
name = "calc"
dynamic = ["version"]
requires-python = ">=3.8"
dependencies = ["six"]

[project.optional-dependencies]
test = ["pytest"]

[project.scripts]
calc-add = "calc.cli:main"

[tool.hatch.version]
source = "vcs"

[tool.hatch.build.hooks.vcs]
version-file = "calc/_version.py"
`;

/** Milliseconds of one round. */
interface Timings {
  env: number;
  hand: number;
  build: number;
  handBuild: number;
}

const tmp = await Deno.realPath(await Deno.makeTempDir({ prefix: "bugbout-bench-env-" }));
try {
  const repo = new RepoBuilder();
  const head = repo.commit({
    message: "Initial",
    time: Date.parse(DATE) / 1000,
    files: {
      "pyproject.toml": PYPROJECT,
      "calc/__init__.py": "from calc._version import version\n",
      "calc/cli.py": "def main():\n    print('hi')\n",
    },
  });
  await repo.build(join(tmp, "repo"));
  const home = join(tmp, "home");
  const project = await makeProject(join(tmp, "root"), join(tmp, "repo"), home, {
    sandbox: "none",
  });
  const tree = await cachedTree(join(tmp, "repo"), head.sha, { home });
  if (!Deno.env.get("UV_CACHE_DIR")) Deno.env.set("UV_CACHE_DIR", testCache("uv"));

  const uv = (args: string[]) =>
    run(["uv", ...args], {
      env: uvEnv({ SETUPTOOLS_SCM_PRETEND_VERSION: "0.0.0" }),
      clearEnv: true,
    });
  const round = async (n: number): Promise<Timings> => {
    const dir = join(tmp, `round-${n}`);
    const request = { ...envRequest(project), home: dir, envsDir: join(dir, "envs") };
    const ours = await timed(() => ensureCommitEnv({ request, tree, date: DATE }));
    const env = ours.value;
    const venv = join(dir, "by-hand");
    const hand = await timed(async () => {
      await uv(["venv", "--quiet", "--python", env.python, venv]);
      await uv([
        "pip",
        "install",
        "--quiet",
        "--python",
        join(venv, "bin", "python"),
        "--exclude-newer",
        DATE,
        "six",
        "pytest",
      ]);
    });
    const built = await timed(() =>
      buildTree({
        tree,
        source: "calc",
        python: env.python,
        envKey: env.key,
        buildsDir: join(dir, "builds"),
      })
    );
    const copy = join(dir, "copy");
    await run(["cp", "-a", tree, copy]);
    const byHandBuild = await timed(() =>
      uv([
        "pip",
        "install",
        "--quiet",
        "--no-deps",
        "--python",
        env.python,
        "--target",
        join(dir, "overlay"),
        "--editable",
        copy,
      ])
    );
    return { env: ours.ms, hand: hand.ms, build: built.ms, handBuild: byHandBuild.ms };
  };
  await round(0);
  const rounds: Timings[] = [];
  for (let n = 1; n <= ROUNDS; n++) rounds.push(await round(n));
  const pick = (k: keyof Timings) => rounds.map((r) => r[k]);
  console.log(`commit environment: bugbout ${describeTimes(pick("env"))}`);
  console.log(`                    by hand ${describeTimes(pick("hand"))}`);
  console.log(`tree build:         bugbout ${describeTimes(pick("build"))}`);
  console.log(`                    by hand ${describeTimes(pick("handBuild"))}`);
  const envMissed = printRatio(
    "commit environment / by hand",
    median(pick("env")) / median(pick("hand")),
    {
      atMost: 2,
      quick,
    },
  );
  const buildMissed = printRatio(
    "tree build / by hand",
    median(pick("build")) / median(pick("handBuild")),
    {
      atMost: 1.5,
      quick,
    },
  );
  if (envMissed || buildMissed) Deno.exitCode = 1;
} finally {
  await Deno.remove(tmp, { recursive: true });
}
