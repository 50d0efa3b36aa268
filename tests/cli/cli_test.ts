import { equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { git } from "../../lib/git.ts";
import { COMMANDS } from "../../lib/cli/commands.ts";
import { assertGolden, normalize, ROOT, runBugbout, tempDir } from "../_helpers.ts";

Deno.test("bugbout --help lists every command", async () => {
  const run = await runBugbout(["--help"]);
  equal(run.code, 0);
  await assertGolden("help.txt", normalize(run.stdout));
});

for (const name of Object.keys(COMMANDS)) {
  Deno.test(`bugbout ${name} --help shows its usage and options`, async () => {
    const run = await runBugbout([name, "--help"]);
    equal(run.code, 0);
    await assertGolden(`help-${name}.txt`, normalize(run.stdout));
  });
}

Deno.test("bugbout --version prints the version from deno.json, its Deno and how it started", async () => {
  const run = await runBugbout(["--version"]);
  const denoJson = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  const { deno, v8, typescript } = Deno.version;
  equal(
    run.stdout,
    `bugbout ${denoJson.version}\ndeno ${deno} (v8 ${v8}, typescript ${typescript})\n` +
      `started from source: ${join(ROOT, "main.ts")}\n`,
  );
});

const USAGE_ERRORS: [string[], RegExp][] = [
  [["rn"], /^error: unknown command "rn"; did you mean `bugbout run`\?\n/],
  [["run", "--retry"], /^error: --retry was renamed to --retry-failed\n/],
  [["init", "--forc"], /^error: unknown option --forc for init; did you mean --force\?\n/],
  [["report", "--format"], /^error: .*needs a value|argument missing/],
  [["doctor", "extra"], /^error: unexpected argument "extra" for doctor\n/],
  [["--frobnicate"], /^error: unknown option --frobnicate\n/],
];

for (const [args, pattern] of USAGE_ERRORS) {
  Deno.test(`bugbout ${args.join(" ")} is a usage error: exit 2, one line and a hint`, async () => {
    const run = await runBugbout(args);
    equal(run.code, 2);
    match(run.stderr, pattern);
    equal(run.stderr.trim().split("\n").length, 2);
    equal(run.stdout, "");
  });
}

async function writeFiles(
  dir: string,
  files: Record<string, string>,
  options: { git?: "none" | "init" | "commit" } = {},
) {
  for (const [path, content] of Object.entries(files)) {
    await Deno.mkdir(join(dir, path, ".."), { recursive: true });
    await Deno.writeTextFile(join(dir, path), content);
  }
  const mode = options.git ?? "init";
  if (mode === "none") return;
  await git(["init", "--quiet", "--initial-branch", "main"], { cwd: dir });
  if (mode === "commit") {
    await git(["add", "--all"], { cwd: dir });
    await git(["-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "Initial"], {
      cwd: dir,
    });
  }
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

const LAYOUTS: Record<string, Record<string, string>> = {
  "src-layout": {
    "pyproject.toml": `[project]\nname = "shop"\nrequires-python = ">=3.9"\n`,
    "src/shop/__init__.py": "",
    "src/shop/cart.py": "def total(items):\n    return sum(items)\n",
    "tests/test_cart.py":
      "from shop.cart import total\n\ndef test_total():\n    assert total([1]) == 1\n",
  },
  "flat-layout": {
    "setup.py": `from setuptools import setup\nsetup(name="calc", python_requires=">=3.8")\n`,
    "calc/__init__.py": "",
    "calc/ops.py": "def add(a, b):\n    return a + b\n",
    "test/test_ops.py": "from calc.ops import add\n",
  },
  "tests-inside-package": {
    "setup.cfg": "[options]\npython_requires = >=3.10\n",
    "geo/__init__.py": "",
    "geo/tests/__init__.py": "",
    "geo/tests/test_geo.py": "import geo\n",
  },
  "two-packages": {
    "helpers/__init__.py": "",
    "core/__init__.py": "",
    "tests/test_core.py": "import core\nfrom core import x\n",
    "tests/test_more.py": "from core import y\n",
  },
};

for (const [name, files] of Object.entries(LAYOUTS)) {
  Deno.test(`bugbout init writes bugbout.toml for a ${name} repository`, async () => {
    await using dir = await tempDir();
    await writeFiles(dir.path, files, { git: "commit" });
    const bin = join(dir.path, "bin");
    await Deno.mkdir(bin);
    // One agent CLI on PATH: init must offer it as a contestant.
    await Deno.writeTextFile(join(bin, "codex"), "#!/bin/sh\necho codex-cli 0.0.1\n");
    await Deno.chmod(join(bin, "codex"), 0o755);
    const run = await runBugbout(["init"], {
      cwd: dir.path,
      env: { PATH: `${bin}:/usr/bin:/bin` },
    });
    equal(run.code, 0, run.stderr);
    const written = await Deno.readTextFile(join(dir.path, "bugbout.toml"));
    await assertGolden(`init-${name}.toml`, written);
    await assertGolden(`init-${name}.txt`, normalize(run.stdout, { [dir.path]: "<repo>" }));
  });
}

Deno.test("bugbout init refuses to overwrite bugbout.toml without --force", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, LAYOUTS["src-layout"]);
  await Deno.writeTextFile(join(dir.path, "bugbout.toml"), "# mine\n");
  const run = await runBugbout(["init"], { cwd: dir.path });
  equal(run.code, 1);
  match(
    run.stderr,
    /bugbout\.toml already exists; it was left as it is\.\nhint: Run `bugbout init --force`/,
  );
  equal(await Deno.readTextFile(join(dir.path, "bugbout.toml")), "# mine\n");
  const forced = await runBugbout(["init", "--force"], { cwd: dir.path });
  equal(forced.code, 0);
  match(await Deno.readTextFile(join(dir.path, "bugbout.toml")), /source = "src\/shop"/);
});

Deno.test("bugbout init on a repository that is not Python says so and writes nothing", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "index.js": "console.log(1)\n", "README.md": "# js\n" });
  const run = await runBugbout(["init"], { cwd: dir.path });
  equal(run.code, 1);
  match(run.stderr, /does not look like a Python project: no \.py files were found/);
  let exists = true;
  await Deno.lstat(join(dir.path, "bugbout.toml")).catch(() => (exists = false));
  equal(exists, false);
});

Deno.test("bugbout init outside a git repository writes the file and says that tasks will need one", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, LAYOUTS["src-layout"], { git: "none" });
  const run = await runBugbout(["init"], { cwd: dir.path, env: { PATH: "/usr/bin:/bin" } });
  equal(run.code, 0, run.stderr);
  match(await Deno.readTextFile(join(dir.path, "bugbout.toml")), /^source = "src\/shop"$/m);
  const lines = run.stdout.split("\n");
  const at = lines.findIndex((l) => l.startsWith("! "));
  ok(at >= 0, run.stdout);
  equal(
    lines[at],
    `! ${dir.path} is not a git repository, and \`bugbout tasks\` and \`bugbout run\` need one: ` +
      "they mine the fixes in its history.",
  );
  match(
    lines[at + 1],
    /^ {2}→ Run `bugbout init` in your project's clone instead, or set \[project\] repository/,
  );
  match(lines[at + 2], /^Next: fix the ! line above, then bugbout doctor/);
});

Deno.test("bugbout init in a repository without commits says that tasks will need them", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, LAYOUTS["src-layout"], { git: "init" });
  const run = await runBugbout(["init"], { cwd: dir.path, env: { PATH: "/usr/bin:/bin" } });
  equal(run.code, 0, run.stderr);
  match(
    run.stdout,
    new RegExp(
      `^! Cannot mine ${
        escape(dir.path)
      }: it has no commits yet\\.\\n {2}→ .*commit the project first\\.$`,
      "m",
    ),
  );
});

for (const args of [["-c", "nonexist.toml", "tasks"], ["report", "--config", "nonexist.toml"]]) {
  Deno.test(`bugbout ${args.join(" ")} names the file it was given, resolved, and says what to do`, async () => {
    await using dir = await tempDir();
    const run = await runBugbout(args, { cwd: dir.path });
    equal(run.code, 1, run.stderr);
    const file = join(dir.path, "nonexist.toml");
    equal(
      run.stderr,
      `error: No such file: ${file}.\nhint: Check the path (relative to ${dir.path} unless ` +
        "absolute), or run `bugbout init` in your repository to write a bugbout.toml.\n",
    );
  });
}

Deno.test("bugbout doctor -c nonexist.toml fails on the file it was given, and checks no repository", async () => {
  await using dir = await tempDir();
  const run = await runBugbout(["doctor", "-c", "nonexist.toml"], { cwd: dir.path });
  equal(run.code, 1, run.stderr);
  match(
    run.stdout,
    new RegExp(`^✗ config +No such file: ${escape(join(dir.path, "nonexist.toml"))}\\.\\n`),
  );
  ok(!/^. git /m.test(run.stdout), run.stdout);
});

Deno.test("bugbout doctor prints one line per check with what to do, and exits 1 when not ready", async () => {
  await using dir = await tempDir();
  const { buildDemo } = await import("../fixtures/projects.ts");
  const { startFakeGithub } = await import("../../lib/demo/github.ts");
  const fixture = await buildDemo(join(dir.path, "textkit"));
  await using github = startFakeGithub({
    repository: fixture.github.repository,
    items: fixture.github.items,
  });
  await Deno.writeTextFile(
    join(fixture.dir, "bugbout.toml"),
    `[project]\nsource = "textkit"\ngithub = "acme/textkit"\ngithub-api = "${github.url}"\n\n` +
      `[[contestants]]\nagent = "command"\nname = "scripted"\ncommand = ["sh", "agent.sh"]\n\n` +
      `[[contestants]]\nagent = "codex"\nexecutable = "/nonexistent/codex"\n`,
  );
  const run = await runBugbout(["doctor"], { cwd: fixture.dir });
  equal(run.code, 1, run.stderr);
  const text = normalize(run.stdout, { [fixture.dir]: "<repo>" })
    .replace(/\(\S*python[\d.]*; /, "(<python>; ")
    .replace(/\S*\/sh \(version unknown\)/, "<path>/sh (version unknown)")
    .replace(/reset at \d\d:\d\d UTC/, "reset at <time> UTC")
    // Said only where bugbout runs as root.
    .replace("; commands run as unprivileged users (bugbout runs as root)", "");
  await assertGolden("doctor.txt", text);
});

Deno.test("a repository owned by another user gets advice, and the user's safe.directory is honoured", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, LAYOUTS["src-layout"]);
  await git(["add", "--all"], { cwd: dir.path });
  await git(["-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "Initial"], {
    cwd: dir.path,
  });
  await Deno.writeTextFile(join(dir.path, "bugbout.toml"), `[project]\nsource = "src/shop"\n`);
  await new Deno.Command("chown", { args: ["-R", "65534:65534", dir.path] }).output();
  const home = join(dir.path, "home");
  await Deno.mkdir(home);
  const refused = await runBugbout(["tasks"], { cwd: dir.path, env: { HOME: home } });
  equal(refused.code, 1);
  match(refused.stderr, /git refuses to read .*: it belongs to another user\./);
  match(refused.stderr, /git config --global --add safe\.directory /);
  await Deno.writeTextFile(join(home, ".gitconfig"), `[safe]\n\tdirectory = ${dir.path}\n`);
  const allowed = await runBugbout(["tasks"], { cwd: dir.path, env: { HOME: home } });
  equal(allowed.code, 0, allowed.stderr);
  match(allowed.stdout, /0 tasks from 1 change/);
});

Deno.test("bugbout report before any run says so and hints `bugbout run`", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, LAYOUTS["src-layout"]);
  await Deno.writeTextFile(
    join(dir.path, "bugbout.toml"),
    `[project]\nsource = "src/shop"\n\n[[contestants]]\nagent = "command"\nname = "scripted"\n` +
      `command = ["sh", "agent.sh"]\n`,
  );
  const run = await runBugbout(["report"], { cwd: dir.path });
  equal(run.code, 1, run.stderr);
  match(run.stderr, /Nothing to report yet: no bout has run here \(\.bugbout\/tasks\.json does/);
  match(run.stderr, /hint: Run `bugbout run` to mine the tasks, race the agents and score them\./);
  equal(run.stdout, "");
});

Deno.test("Bout.report() before any run says what the CLI says and hints `bugbout run`, not `bugbout tasks`", async () => {
  const { Bout } = await import("../../main.ts");
  const { BugboutError } = await import("../../lib/errors.ts");
  await using dir = await tempDir();
  await writeFiles(dir.path, LAYOUTS["src-layout"]);
  await Deno.writeTextFile(join(dir.path, "bugbout.toml"), `[project]\nsource = "src/shop"\n`);
  const bout = await Bout.load(dir.path);
  const error = await bout.report().then(() => undefined, (e: unknown) => e);
  ok(error instanceof BugboutError, String(error));
  match(
    error.message,
    /^Nothing to report yet: no bout has run here \(\S*\.bugbout\/tasks\.json does not exist\)\.$/,
  );
  equal(error.hint, "Run `bugbout run` to mine the tasks, race the agents and score them.");
});
