import { deepEqual, equal, match } from "node:assert/strict";
import { join } from "node:path";
import { executableName, explainCompileFailure, TARGETS } from "../../scripts/compile.ts";
import { ROOT, tempDir } from "../_helpers.ts";

async function deno(args: string[], cwd: string) {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

Deno.test("deno bundle writes one JavaScript file that runs the CLI with deno run", async () => {
  await using dir = await tempDir("bugbout-bundle-");
  const file = join(dir.path, "bugbout.js");
  const bundled = await deno(["bundle", "--platform", "deno", "-o", file, "main.ts"], ROOT);
  equal(bundled.code, 0, bundled.stderr);
  // Run it from somewhere else, so nothing can come from the source tree.
  const version = await deno(["run", "-A", file, "--version"], dir.path);
  equal(version.code, 0, version.stderr);
  const denoJson = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json")));
  const [name, runtime, start] = version.stdout.trim().split("\n");
  equal(name, `bugbout ${denoJson.version}`);
  equal(runtime.split(" ").slice(0, 2).join(" "), `deno ${Deno.version.deno}`);
  equal(start, `started from a bundle: ${file}`);
  await Deno.mkdir(join(dir.path, "repo", "src", "shop"), { recursive: true });
  await Deno.writeTextFile(join(dir.path, "repo", "src", "shop", "__init__.py"), "");
  const init = await deno(["run", "-A", file, "init", "repo"], dir.path);
  equal(init.code, 0, init.stderr);
  match(await Deno.readTextFile(join(dir.path, "repo", "bugbout.toml")), /source = "src\/shop"/);
  const usage = await deno(["run", "-A", file, "evidence", "--frob"], dir.path);
  equal(usage.code, 2);
});

Deno.test("the compile task explains an unreachable runtime download instead of a stack trace", () => {
  const message = explainCompileFailure(
    "x86_64-apple-darwin",
    "error: Writing deno compile executable\nCaused by:\n 0: error sending request for url " +
      "(https://dl.deno.land/release/v2.9.6/denort-x86_64-apple-darwin.zip): dns error",
  );
  match(message!, /could not download the Deno runtime \(denort\) for x86_64-apple-darwin/);
  match(message!, /deno task bundle/);
  equal(explainCompileFailure("x86_64-apple-darwin", "error: Module not found"), undefined);
});

Deno.test("deno task compile names each executable after its target, .exe on Windows", () => {
  deepEqual(TARGETS.map(executableName), [
    "bugbout-x86_64-unknown-linux-gnu",
    "bugbout-aarch64-unknown-linux-gnu",
    "bugbout-x86_64-apple-darwin",
    "bugbout-aarch64-apple-darwin",
    "bugbout-x86_64-pc-windows-msvc.exe",
  ]);
});
