/**
 * bugbout as a library in somebody else's project: a module in a directory of its own, with no
 * deno.json and so no import map of bugbout's, imports `main.ts` and uses it.
 */

import { equal, match } from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT, tempDir } from "./_helpers.ts";

Deno.test("bugbout imports into another project, which knows nothing of its dependencies", async () => {
  await using dir = await tempDir("bugbout-embed-");
  const app = join(dir.path, "app.ts");
  await Deno.writeTextFile(
    app,
    `import { Bout, parseConfig, renderMarkdown, VERSION } from ${
      JSON.stringify(pathToFileURL(join(ROOT, "main.ts")).href)
    };\n` +
      `const config = await parseConfig('[project]\\nsource = "pkg"\\n', ${
        JSON.stringify(join(dir.path, "bugbout.toml"))
      }).catch((e) => e.message);\n` +
      "console.log(VERSION, typeof Bout.load, typeof renderMarkdown, typeof config);\n",
  );
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-lock", app],
    cwd: dir.path,
    env: { DENO_NO_UPDATE_CHECK: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  equal(out.code, 0, stderr);
  match(
    new TextDecoder().decode(out.stdout),
    /^\d+\.\d+\.\d+ function function (object|string)\n$/,
  );
});
