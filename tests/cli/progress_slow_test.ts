/**
 * Progress on long work, for real: `bugbout run --tasks-only` on a project whose fix's test takes
 * 11 s on the fixed code. Off a terminal, while nothing else happens, a line says at least every
 * 10 s which task runs and on which tree.
 */

import { equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { RepoBuilder } from "../../lib/demo/repo.ts";
import { runBugbout, tempDir } from "../_helpers.ts";

Deno.test("a long ground truth says what runs, and on which tree, at least every 10 s", async () => {
  await using dir = await tempDir("bugbout-slow-");
  const repo = new RepoBuilder();
  repo.commit({
    message: "Initial",
    files: {
      "pyproject.toml": `[project]\nname = "calc"\nversion = "1.0"\n`,
      "calc/__init__.py": "def two():\n    return 0\n",
    },
  });
  repo.commit({
    message: "Fix two (#1)",
    files: {
      "calc/__init__.py": "def two():\n    return 2\n",
      // Fails at once on B; on G it passes, then takes its time.
      "tests/test_two.py": "import time\nfrom calc import two\n\n\ndef test_two():\n" +
        "    assert two() == 2\n    time.sleep(11)\n",
    },
  });
  const root = join(dir.path, "calc");
  await repo.build(root);
  await Deno.writeTextFile(
    join(root, "bugbout.toml"),
    '[project]\nsource = "calc"\ntests = "tests"\ntest-dependencies = ["pytest"]\n\n' +
      "[run]\njobs = 2\n",
  );
  const run = await runBugbout(["run", "--tasks-only"], {
    cwd: root,
    env: { BUGBOUT_HOME: join(dir.path, "home") },
  });
  equal(run.code, 0, run.stderr);
  const lines = run.stderr.split("\n");
  const beats = lines.filter((l) => /\] oracle +0\/1 tasks done.*running issue-1 on G/.test(l));
  ok(beats.length >= 1, run.stderr);
  // Stamped lines, never more than 10 s (and a tick) apart while the task ran.
  const at = (line: string) => {
    const [h, m, s] = line.slice(1, 9).split(":").map(Number);
    return h * 3600 + m * 60 + s;
  };
  const stamped = lines.filter((l) => /^\[\d\d:\d\d:\d\d\] oracle/.test(l)).map(at);
  const gaps = stamped.slice(1).map((t, i) => t - stamped[i]);
  ok(Math.max(...gaps) <= 12, `gaps between lines: ${gaps.join(", ")} s\n${run.stderr}`);
  ok(lines.some((l) => /\] oracle +issue-1 done, 4 test sessions/.test(l)), run.stderr);
});
