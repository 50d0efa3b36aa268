/**
 * A bout against an agent that goes looking for what it must not have, in a real race under
 * bubblewrap: secrets planted in a temporary HOME (keys, tokens, other agents' state) and in
 * bugbout's environment, the agent's executable a link inside that HOME (beside the secrets),
 * and clones of the project carrying the fix in directories outside the repository (the host's
 * /tmp, and /usr/local/src and /opt when the test may write there). Nothing leaks, and the race
 * says there is no copy of the project in sight. A copy inside an agent's install directory is
 * warned about before the race.
 *
 * @module
 */

import { deepEqual, equal, match, notEqual, ok } from "node:assert/strict";
import { join } from "node:path";
import { run } from "../../lib/proc.ts";
import { runsAsRoot } from "../../lib/sandbox/mod.ts";
import { filesContaining, withEnv } from "./_host.ts";
import {
  addedLines,
  attemptLogDirs,
  attemptOf,
  makeRaceWorld,
  projectWith,
  raceAt,
} from "./_world.ts";

const SECRET_NAMES = [
  "GITHUB_TOKEN",
  "OPENAI_API_KEY",
  "ANTHROPIC_API_KEY",
  "AWS_SECRET_ACCESS_KEY",
];

/** Where a home keeps secrets (and agents their state): each file gets the canary. */
const SECRET_FILES = [
  ".ssh/id_rsa",
  ".aws/credentials",
  ".config/gh/hosts.yml",
  ".netrc",
  ".git-credentials",
  ".docker/config.json",
  ".kube/config",
  ".npmrc",
  ".pypirc",
  ".gnupg/private-keys-v1.d/key.key",
  ".codex/auth.json",
  ".claude/.credentials.json",
  ".gemini/oauth_creds.json",
];

/** Reads every path in PROBE_PATHS, lists PROBE_HOME, and reports it all in probe.json. */
const PROBE_PY = `#!/usr/bin/env python3
import json, os
R = {}
def probe(key, fn):
    try:
        R[key] = {"ok": True, "value": fn()}
    except BaseException as error:
        R[key] = {"ok": False, "error": f"{type(error).__name__}: {error}"}
def read(path):
    with open(path, errors="replace") as f:
        return f.read()
for path in os.environ["PROBE_PATHS"].split(":"):
    probe("read:" + path, lambda: read(path))
probe("home", lambda: sorted(os.listdir(os.environ["PROBE_HOME"])))
probe("uid", lambda: os.getuid())
probe("env", lambda: dict(os.environ))
with open("probe.json", "w") as f:
    f.write(json.dumps(R, sort_keys=True) + "\\n")
print(json.dumps(R, sort_keys=True))
`;

async function write(path: string, text: string, mode = 0o644) {
  await Deno.mkdir(join(path, ".."), { recursive: true });
  await Deno.writeTextFile(path, text, { mode });
}

const GIT_ENV = {
  PATH: "/usr/bin:/bin",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.invalid",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.invalid",
};

/** Clone `repo` into `dir` and commit the canary on top: a copy of the project with the fix. */
async function plantClone(repo: string, dir: string, canary: string) {
  const git = (cwd: string, ...args: string[]) =>
    run(["git", ...args], { cwd, clearEnv: true, env: GIT_ENV });
  await git("/", "clone", "-q", repo, dir);
  await write(join(dir, "FUTURE-CANARY.txt"), `${canary}\n`);
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", canary);
}

/** A directory made for the test among the system's; null when the test may not write there. */
async function systemPlace(parent: string): Promise<string | null> {
  const path = join(parent, `bugbout-test-${crypto.randomUUID()}`);
  try {
    await Deno.mkdir(path, { recursive: true });
    return path;
  } catch (error) {
    if (error instanceof Deno.errors.PermissionDenied) return null;
    throw error;
  }
}

Deno.test("a symlinked agent in a HOME full of secrets, with clones of the project about, reads none of them", async (t) => {
  await using world = await makeRaceWorld();
  const canary = `FUTURE-CANARY-${crypto.randomUUID()}`;
  const secret = `sk-secret-${crypto.randomUUID()}`;
  const home = join(world.tmp, "user-home");
  await Deno.mkdir(home, { mode: 0o755 });
  for (const file of SECRET_FILES) await write(join(home, file), `${canary} ${file}\n`, 0o600);
  await write(join(home, "notes.txt"), `${canary} ordinary notes\n`);
  await write(join(home, "agent-bin", "beside.txt"), `${canary} beside the agent\n`);
  const agent = join(home, "agent-bin", "probe.py");
  await write(agent, PROBE_PY, 0o755);
  await Deno.symlink(agent, join(home, "myagent"));

  const places = [
    join(world.tmp, "elsewhere"),
    join(home, "src"),
    await systemPlace("/usr/local/src"),
    await systemPlace("/opt"),
  ].filter((p): p is string => p !== null);
  const clones = places.map((p) => join(p, "clone"));
  try {
    for (const clone of clones) await plantClone(world.repo, clone, canary);
    const fixed = Object.keys(world.fix.goldFiles)[0];
    const paths = [
      ...SECRET_FILES.map((f) => join(home, f)),
      join(home, "notes.txt"),
      join(home, "agent-bin", "beside.txt"),
      "/etc/shadow",
      ...clones.flatMap((
        c,
      ) => [join(c, "FUTURE-CANARY.txt"), join(c, fixed), join(c, ".git/HEAD")]),
    ];
    const project = await projectWith(world, [{
      name: "prober",
      command: [join(home, "myagent")],
      env: { PROBE_PATHS: paths.join(":"), PROBE_HOME: home },
    }], { timeout: 120 });

    const restoreEnv = withEnv(SECRET_NAMES, secret);
    const restoreHome = withEnv(["HOME"], home);
    let raced;
    try {
      raced = await raceAt(world, project);
    } finally {
      restoreHome();
      restoreEnv();
    }
    const { attempt, full } = await attemptOf(world, project, "prober");
    const results = JSON.parse(addedLines(full, "probe.json")[0] ?? "{}");

    await t.step("the agent ran through its link and reported", () => {
      equal(attempt.status, "patch", attempt.logTail);
      equal(attempt.sandbox, "bubblewrap");
    });

    await t.step("every secret, the home's other files and every clone were unreadable", () => {
      for (const path of paths) {
        const r = results[`read:${path}`];
        equal(r?.ok, false, `${path}: ${JSON.stringify(r)}`);
        match(r.error, /^(FileNotFoundError|PermissionError|NotADirectoryError)/);
      }
      // The home shows the link and the way to the agent's own file, nothing else.
      deepEqual(results.home?.value, ["agent-bin", "myagent"]);
      if (runsAsRoot()) notEqual(results.uid?.value, 0);
    });

    await t.step("no secret is in the agent's environment", () => {
      const env = results.env?.value as Record<string, string>;
      for (const name of SECRET_NAMES) ok(!(name in env), `${name} is inside`);
      ok(!JSON.stringify(env).includes(secret));
    });

    await t.step("no canary and no secret is in any patch, log or record", async () => {
      const places = [
        join(world.root, ".bugbout", "attempts"),
        ...await attemptLogDirs(project, world.task.id),
      ];
      for (const needle of [canary, secret]) {
        for (const place of places) deepEqual(await filesContaining(place, needle), [], place);
      }
    });

    await t.step("the race saw no copy of the project in sight of the agent", () => {
      deepEqual(raced.summary.warnings, []);
    });
  } finally {
    for (const place of places) await Deno.remove(place, { recursive: true });
  }

  await t.step(
    "a copy of the project inside an agent's install directory is warned about",
    async () => {
      // A global-style npm install: bin/tool -> ../lib/node_modules/tool/bin/tool.js.
      const prefix = join(world.tmp, "npm");
      const pkg = join(prefix, "lib", "node_modules", "tool");
      await write(join(pkg, "package.json"), JSON.stringify({ name: "tool" }));
      await write(join(pkg, "bin", "tool.js"), "#!/usr/bin/env node\nconsole.log('hi');\n", 0o755);
      await Deno.mkdir(join(prefix, "bin"));
      await Deno.symlink("../lib/node_modules/tool/bin/tool.js", join(prefix, "bin", "tool"));
      await plantClone(world.repo, join(pkg, "vendor", "project"), canary);
      const project = await projectWith(world, [{
        name: "installed",
        command: [join(prefix, "bin", "tool")],
      }], { timeout: 120 });
      const warnings: string[] = [];
      const { summary } = await raceAt(world, project, { onWarning: (w) => warnings.push(w) });
      equal(summary.warnings.length, 1, JSON.stringify(summary.warnings));
      deepEqual(warnings, summary.warnings);
      match(summary.warnings[0], new RegExp(`Agents can read ${join(pkg, "vendor", "project")}, `));
    },
  );
});
