// The two test tiers: `deno task test` runs everything; `deno task test:unit` runs the files that
// tests/unit.ts lists, without the permissions to start a process, write a file or open a socket.
import { deepEqual, equal, match } from "node:assert/strict";
import { join } from "node:path";
import { ROOT } from "./_helpers.ts";

const unitList = () => Deno.readTextFile(join(ROOT, "tests/unit.ts"));
const listed = (text: string) =>
  [...text.matchAll(/^import "\.\/(.+)";$/gm)].map((m) => `tests/${m[1]}`);
const tasks = async () => JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json"))).tasks;

/** Run a deno.json task's command as the task runner would, with its output. */
async function runTask(name: string): Promise<{ code: number; text: string }> {
  const args = (await tasks())[name].split(/\s+/).slice(1);
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    env: { DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  return { code: out.code, text };
}

Deno.test("the unit tier grants no permission to run, write, reach the network or load code", async () => {
  const task: string = (await tasks())["test:unit"];
  match(task, /^deno test .*tests\/unit\.ts$/);
  for (
    const grant of [
      "-A",
      "--allow-all",
      "--allow-run",
      "--allow-write",
      "--allow-net",
      "--allow-ffi",
    ]
  ) {
    equal(task.split(/\s+/).includes(grant) || task.includes(`${grant}=`), false, grant);
  }
});

Deno.test("the unit list names existing test files, each once, and only test files", async () => {
  const files = listed(await unitList());
  equal(files.length > 20, true, "the unit tier holds the pure tests");
  deepEqual(files, [...new Set(files)]);
  for (const file of files) {
    match(file, /_test\.ts$/);
    equal((await Deno.stat(join(ROOT, file))).isFile, true, file);
  }
});

Deno.test("no unit-tier file names the APIs that start processes, make files or listen", async () => {
  const banned =
    /new Deno\.Command|Deno\.makeTemp|Deno\.writeTextFile|Deno\.serve|Deno\.listen|tempDir\(/;
  for (const file of listed(await unitList())) {
    const text = await Deno.readTextFile(join(ROOT, file));
    equal(banned.test(text), false, `${file} belongs to the process tier`);
  }
});

Deno.test("the unit tier passes without those permissions (what `deno task test:unit` runs)", async () => {
  const { code, text } = await runTask("test:unit");
  equal(code, 0, text.slice(-3000));
  match(text, /ok \| \d+ passed \| 0 failed/);
});

Deno.test("the examples in the documentation comments type-check (`deno task check:doc`)", async () => {
  const { code, text } = await runTask("check:doc");
  equal(code, 0, text.slice(-3000));
});
