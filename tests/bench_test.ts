/**
 * Every bench in bench/ still runs: each is type-checked and run as a subprocess with `--quick`
 * (tiny sizes, one round) and must exit 0 and print its `ratio:` line. Only that it runs is
 * tested here; whether it meets its goal is for a full run of the bench to say, never a test.
 *
 * @module
 */

import { equal, match } from "node:assert/strict";
import { join } from "node:path";
import { run } from "../lib/proc.ts";
import { ROOT } from "./_helpers.ts";

const BENCH = join(ROOT, "bench");

/** The bench scripts: bench/*.ts but the `_`-prefixed helpers they share. */
const benches: string[] = [];
for await (const entry of Deno.readDir(BENCH)) {
  if (entry.isFile && entry.name.endsWith(".ts") && !entry.name.startsWith("_")) {
    benches.push(entry.name);
  }
}
benches.sort();

Deno.test("bench/ holds the benches this test knows to expect", () => {
  for (
    const name of [
      "channel.ts",
      "env.ts",
      "ground_truth.ts",
      "guard.ts",
      "matrix.ts",
      "mine.ts",
      "oracle.ts",
      "race.ts",
    ]
  ) {
    equal(benches.includes(name), true, `bench/${name} is missing`);
  }
});

for (const name of benches) {
  Deno.test(`bench/${name} --quick type-checks, runs and prints its ratio`, async () => {
    const result = await run(
      [Deno.execPath(), "run", "--check", "-A", join(BENCH, name), "--quick"],
      {
        cwd: ROOT,
        env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
        okCodes: "any",
        // Seconds when idle; the margin is for a machine whose cores are all busy.
        timeoutMs: 300_000,
        ownGroup: true,
      },
    );
    const said = `${result.stdout}\n${result.stderr}`.trim().split("\n").slice(-20).join("\n");
    equal(result.code, 0, `bench/${name} exited ${result.code}:\n${said}`);
    match(result.stdout, /^ratio: .*\d+\.\d+x/m, `bench/${name} printed no ratio:\n${said}`);
  });
}
